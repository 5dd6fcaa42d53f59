"""What every page shares, in three layers (``tests/test_layering.py`` keeps the directions):

- :mod:`dashboard.shared.serving`: what runs work and keeps it (the job pool and jobs, child
  processes, sweeps and audits as jobs, memory, the Dask cluster, caches, datasets, session
  state, schemas and the session's ledger). Imports no widget and no solve module.
- :mod:`dashboard.shared.widgets`: what draws on a page (charts, layout, palette, present mode,
  the sidebar, settings, the job, bundle, fidelity, privacy and claim views). May import serving.
- :mod:`dashboard.shared.solve`: the solve panel, its offers and charts. May import both.

:mod:`dashboard.shared.safe` (user text shown as text) sits below all three.
"""

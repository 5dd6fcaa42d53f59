"""What runs the dashboard's work and keeps it: the job pool, jobs, child processes, sweeps and
audits as jobs, memory, the Dask cluster, caches, datasets, session state, schemas and the
session's ledger. Draws nothing: imports no module of :mod:`dashboard.shared.widgets` or
:mod:`dashboard.shared.solve`."""

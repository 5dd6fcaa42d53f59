"""What draws on a page: chart helpers, layout, palette, present mode, the sidebar, settings
and the views of jobs, bundles, fidelity, privacy and claims. May import
:mod:`dashboard.shared.serving`, never :mod:`dashboard.shared.solve`."""

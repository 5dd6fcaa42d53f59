"""Widgets and state every page shares: session state, settings, the privacy panel and audit panel, jobs, present mode, downloads, bounded caches, chart helpers."""

"""Widgets shared by several pages (built on ``dashboard.cached`` and ``dashboard.charts``)."""

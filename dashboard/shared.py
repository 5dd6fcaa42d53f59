"""Widgets shared by several pages (built on ``dashboard.shared.cache`` and ``dashboard.shared.charts``)."""

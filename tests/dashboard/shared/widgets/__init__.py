"""Tests of dashboard.shared.widgets."""

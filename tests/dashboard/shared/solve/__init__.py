"""Tests of dashboard.shared.solve."""

"""Tests of dashboard.shared.serving."""

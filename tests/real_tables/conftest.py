"""The real-table sweep's tests share the dashboard tests' AppTest setup: a setup step is
awaited however long it takes, and no job of a page outlives its test."""
from __future__ import annotations

from tests.dashboard.conftest import _no_job_outlives_its_test  # noqa: F401 - an autouse fixture

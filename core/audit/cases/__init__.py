"""Deprecated alias of :mod:`core.audit_cases`, where the audit scenarios live since issue 38.

Kept only for importers not yet moved (``dashboard/sskm/cached.py``); import
:mod:`core.audit_cases` in new code, and delete this package once nothing imports it. A name is
looked up in :mod:`core.audit_cases` when first asked for (PEP 562): a static re-export here
would make :mod:`core.audit` import a package that imports it, a package cycle.
"""
import importlib
from typing import Any


def __getattr__(name: str) -> Any:
    return getattr(importlib.import_module("core.audit_cases"), name)

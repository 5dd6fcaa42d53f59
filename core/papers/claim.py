"""Backward-compatible alias: the claim type lives in :mod:`core.claims.claim` (issue 38, below the
paper packages). Kept only for importers not yet moved (``dashboard/sskm/cached.py``); import
:class:`core.claims.claim.Claim` in new code."""
from core.claims.claim import VERDICTS, Claim, check_table

__all__ = ["Claim", "VERDICTS", "check_table"]

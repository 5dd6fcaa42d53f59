"""What a bundle discloses, in words and in the session's ledger.

Two kinds (:data:`KINDS`): ``"colleague"``, for someone who may see the data (exact statistics
of the private rows, every seed, the data itself only when asked: not differentially
private, and the ledger says so), and ``"publish"`` (only releases drawn from fresh entropy,
their guarantees and the public schema: its guarantee is theirs).
"""
from __future__ import annotations

from typing import Sequence

from core.bundle.pages import BundleRelease
from core.privacy.ledger import PrivacyLedger

__all__ = ["KINDS", "KIND_WORDS", "disclosure_sentence", "bundle_ledger"]

#: The two kinds of bundle, and what the export asks the user.
KINDS = ("colleague", "publish")
KIND_WORDS = {
    "colleague": "For a colleague who may see the data (exact numbers, seeds; not private)",
    "publish": "To publish (only fresh-noise releases, their guarantees, the public schema)",
}
_COLLEAGUE_REASON = ("the bundle holds exact statistics of the private rows and the seeds of every seeded "
                     "number, for a colleague who may see the data")


def bundle_ledger(kind: str, releases: Sequence[BundleRelease]) -> PrivacyLedger:
    """The ledger of what the bundle lets out: its releases' budgets, and for a colleague's
    bundle an entry without a guarantee (its exact statistics)."""
    ledger = PrivacyLedger()
    for i, release in enumerate(releases, 1):
        ledger.extend(release.ledger, prefix=f"bundled release {i} ({release.method})")
    if kind == "colleague":
        ledger.mark_not_dp(_COLLEAGUE_REASON)
    return ledger


def disclosure_sentence(kind: str, *, releases: Sequence[BundleRelease], data_included: bool,
                        ledger: PrivacyLedger) -> str:
    """What the bundle discloses, for its README, its manifest and its report."""
    n = len(releases)
    tables = f"{n} release(s) drawn from fresh operating-system entropy" if n else "no released table"
    if kind == "publish":
        return (f"To publish: this bundle holds {tables}, their guarantees and the public schema; no seed and "
                f"no exact statistic of the private rows. Its guarantee: {ledger.describe()}")
    data = "the private table itself (data/)" if data_included else "not the private table itself"
    return (f"For a colleague who may see the data: this bundle holds exact statistics of the private rows "
            f"(every number in result.json and report.html), the seed of every seeded number and picture, "
            f"{data}, and {tables}. It is NOT differentially private: hand it only to someone allowed to see the data.")

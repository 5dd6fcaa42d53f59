"""The privacy ledger: what one analysis spent, and whether that is a guarantee.

:class:`PrivacyLedger` records every spend (epsilon, delta, label, how the noise was drawn)
of a release, composes them (sequential sums, parallel maxima), and says in one sentence
whether the result is differentially private under the project's one neighbouring relation
(:data:`NEIGHBOURING_RELATION`), or why not, with the assumptions it takes as public.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from core.privacy.sampler import GridNoise
from core.validation import check_delta, check_epsilon

__all__ = ["LedgerEntry", "NEIGHBOURING_RELATION", "PrivacyLedger"]


#: The one neighbouring relation of the whole project; every mechanism is calibrated to it.
NEIGHBOURING_RELATION = (
    "Two datasets are neighbours when one record is replaced by any other record (the number "
    "of records n is public). Under paper 000's correlated DP, the records correlated with the "
    "replaced one (their number bounded by the correlated sensitivity CS) may change with it."
)


@dataclass(frozen=True)
class LedgerEntry:
    """One release: what was spent, on what, and under which composition."""

    label: str
    epsilon: float
    delta: float = 0.0
    parallel_group: str | None = None
    noise: str = ""


@dataclass
class PrivacyLedger:
    """A record of every privacy spend of one analysis, and whether it is a guarantee.

    Spends add up (sequential composition) except those that share a ``parallel_group``:
    those act on disjoint parts of the data (for example one Laplace release per cluster),
    so together they cost only the largest of them (parallel composition).

    A ledger is a differential-privacy guarantee under :data:`NEIGHBOURING_RELATION` only
    while :attr:`is_dp` is True. A mechanism that is not DP (the paper's SSKM_DP, CDP-LR
    noise method 4, IMPOSTER, plain MDAV) calls :meth:`mark_not_dp` with the reason; its
    spends are then *nominal*: :meth:`nominal` still adds them up, but :meth:`total`, the
    true guarantee, is (inf, 1) — none. :meth:`assume` records what a guarantee that does
    hold takes for granted (bounds read from the data, a partition fitted on a held-out
    part): the UI lists those beside the epsilon.

    Attributes
    ----------
    entries : list of LedgerEntry
    not_dp_reasons : list of str
        Why there is no guarantee (empty for a DP release).
    assumptions : list of str
        What the guarantee does not cover or takes as public.
    """

    entries: list[LedgerEntry] = field(default_factory=list)
    not_dp_reasons: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    floating_point: list[str] = field(default_factory=list)

    def spend(
        self,
        epsilon: float,
        delta: float = 0.0,
        *,
        label: str,
        parallel_group: str | None = None,
        noise: str | GridNoise | None = None,
    ) -> LedgerEntry:
        """Record a release that costs (epsilon, delta).

        ``noise`` says how it was drawn (a :class:`~core.privacy.sampler.GridNoise` or a sentence):
        the sampler, its grid and its scale, shown with the entry.
        """
        eps = check_epsilon(epsilon)
        dlt = 0.0 if delta == 0 else check_delta(delta)
        text = noise.describe() if isinstance(noise, GridNoise) else (noise or "")
        entry = LedgerEntry(str(label), eps, dlt, parallel_group, str(text))
        self.entries.append(entry)
        return entry

    def mark_not_dp(self, reason: str) -> None:
        """Declare that the release has no DP guarantee, saying why in one sentence."""
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError("give the reason a release is not differentially private, in words.")
        if reason not in self.not_dp_reasons:
            self.not_dp_reasons.append(reason)

    def note_floating_point(self, text: str) -> None:
        """Record noise drawn with floating-point arithmetic (no exact sampler exists for it).

        Such noise can leak more than its epsilon through the bits of its output (Mironov
        2012); :meth:`describe` says so beside the guarantee.
        """
        if not isinstance(text, str) or not text.strip():
            raise ValueError("say which noise uses floating-point sampling, in words.")
        if text not in self.floating_point:
            self.floating_point.append(text)

    def assume(self, text: str) -> None:
        """Record something the guarantee takes as public or does not cover."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError("an assumption must be a sentence.")
        if text not in self.assumptions:
            self.assumptions.append(text)

    @property
    def is_dp(self) -> bool:
        """True when the release is differentially private under the project's relation."""
        return not self.not_dp_reasons

    def nominal(self) -> tuple[float, float]:
        """The spends added up by basic composition (sequential sums, parallel maxima).

        This is the guarantee when :attr:`is_dp`; otherwise only the number a paper or a
        setting names, with no guarantee behind it.
        """
        eps = dlt = 0.0
        groups: dict[str, tuple[float, float]] = {}
        for e in self.entries:
            if e.parallel_group is None:
                eps += e.epsilon
                dlt += e.delta
            else:
                g_eps, g_dlt = groups.get(e.parallel_group, (0.0, 0.0))
                groups[e.parallel_group] = (max(g_eps, e.epsilon), max(g_dlt, e.delta))
        for g_eps, g_dlt in groups.values():
            eps += g_eps
            dlt += g_dlt
        return eps, min(dlt, 1.0)

    def total(self) -> tuple[float, float]:
        """The true (epsilon, delta): :meth:`nominal` when DP, else (inf, 1.0), no guarantee."""
        return self.nominal() if self.is_dp else (math.inf, 1.0)

    def extend(self, other: "PrivacyLedger", *, prefix: str = "") -> None:
        """Add another release's spends, reasons and assumptions (sequential composition).

        Parallel groups are renamed with ``prefix`` so that two releases never share one
        (two releases of the same data compose sequentially, even cluster by cluster).
        """
        if not isinstance(other, PrivacyLedger):
            raise TypeError(f"other must be a PrivacyLedger, got {type(other).__name__}.")
        tag = f"{prefix}: " if prefix else f"release {id(other)}: "
        for e in other.entries:
            group = None if e.parallel_group is None else tag + e.parallel_group
            self.entries.append(LedgerEntry(tag + e.label if prefix else e.label, e.epsilon,
                                            e.delta, group, e.noise))
        for r in other.not_dp_reasons:
            self.mark_not_dp(r)
        for f in other.floating_point:
            self.note_floating_point(f)
        for a in other.assumptions:
            self.assume(a)

    def describe(self) -> str:
        """One sentence for a page or a file header: the guarantee, or why there is none."""
        eps, dlt = self.nominal()
        if not self.is_dp:
            named = f" (the epsilon = {eps:.4g} it names is nominal)" if self.entries else ""
            return "Not differentially private" + named + ": " + " ".join(self.not_dp_reasons)
        if not self.entries:
            return "Nothing released yet: epsilon = 0."
        caveat = ""
        if self.floating_point:
            caveat = (" Part of the noise uses floating-point sampling ("
                      + "; ".join(self.floating_point)
                      + "), which can leak more than this epsilon through the low bits of its output.")
        if dlt > 0:
            return (f"({eps:.4g}, {dlt:.2g})-differentially private under the project's "
                    "neighbouring relation (one record replaced by any other)." + caveat)
        return (f"{eps:.4g}-differentially private under the project's neighbouring relation "
                "(one record replaced by any other)." + caveat)

    def __len__(self) -> int:
        return len(self.entries)

    def to_frame(self) -> pd.DataFrame:
        """The entries as a table (label, epsilon, delta, parallel_group, noise)."""
        return pd.DataFrame(
            [(e.label, e.epsilon, e.delta, e.parallel_group, e.noise) for e in self.entries],
            columns=["label", "epsilon", "delta", "parallel_group", "noise"],
        )

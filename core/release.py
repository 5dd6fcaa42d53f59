"""Where the noise of a release comes from, and how a released file says what it is.

Two kinds of randomness meet in this project (docs/design.md, "Noise that no viewer can
subtract"):

- **Display noise** follows the sidebar seed, so a teacher gets the same picture twice.
  :func:`display_seed` mixes the seed with what the picture shows (the method, epsilon,
  ...), so two pictures at different epsilons never share noise draws: nobody can subtract
  one from the other to cancel the noise.
- **Release noise** is for anything that leaves the app (a download, an export, a report).
  :class:`NoiseSource` draws it from fresh operating-system entropy, unless the user asks
  for a reproducible release, which is then labelled "not private" in the file and on the
  page (anyone who knows the seed can regenerate and subtract the noise).

A released file says what it is (docs/design.md section 2.1): :func:`release_header`
(the ``#`` lines of :func:`release_csv`) and :func:`release_metadata` (a JSON object)
carry ``is_dp`` and, for a release that is not differentially private, the reason in
words; :func:`release_file_name` puts ``NOT-DP`` in the name of such a file (and
``NOT_PRIVATE`` in the name of a reproducible one), so the label survives a rename of
nothing but the folder.
"""
from __future__ import annotations

import hashlib
import io
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pandas as pd

from core.export import guard_formulas
from core.mechanisms import NEIGHBOURING_RELATION, PrivacyLedger
from core.validation import check_positive_int

__all__ = ["NoiseSource", "display_seed", "release_header", "release_csv", "read_release",
           "release_file_name", "release_metadata", "NOT_DP_TAG", "NOT_PRIVATE_TAG"]

#: In the file name of every release that is not differentially private.
NOT_DP_TAG = "NOT-DP"
#: In the file name of every reproducible release (its noise can be regenerated).
NOT_PRIVATE_TAG = "NOT_PRIVATE"


def _key_int(key: Any) -> int:
    digest = hashlib.sha256(repr(key).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "little")


def display_seed(seed: int, *keys: Any) -> int:
    """A seed for an on-screen picture: the sidebar ``seed`` mixed with ``keys``.

    The same (seed, keys) gives the same int on every machine and in every process (keys
    are hashed through their ``repr``, not Python's salted ``hash``); any change in a key
    (epsilon 1 vs 2) gives unrelated draws.

    Parameters
    ----------
    seed : int
        The sidebar seed, 0 or more.
    *keys
        What the picture depends on: method name, epsilon, ...
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise TypeError(f"seed must be an int of 0 or more, got {seed!r}.")
    ss = np.random.SeedSequence([int(seed), *(_key_int(k) for k in keys)])
    return int(ss.generate_state(1, dtype=np.uint32)[0])


@dataclass(frozen=True)
class NoiseSource:
    """The randomness of one release that leaves the app.

    Parameters
    ----------
    reproducible_seed : int or None
        None (the default) draws fresh operating-system entropy: nobody, the operator
        included, can regenerate the noise. An int makes the release reproducible, and so
        **not private**: anyone who knows the seed can subtract the noise.
    """

    reproducible_seed: int | None = None

    def __post_init__(self) -> None:
        if self.reproducible_seed is not None:
            check_positive_int(self.reproducible_seed, name="reproducible_seed", minimum=0)

    @property
    def private(self) -> bool:
        """True when the noise cannot be regenerated (fresh entropy)."""
        return self.reproducible_seed is None

    def generator(self) -> np.random.Generator:
        """A new generator for this release (fresh entropy, or the reproducible seed)."""
        if self.reproducible_seed is None:
            return np.random.default_rng(np.random.SeedSequence())  # OS entropy
        return np.random.default_rng(self.reproducible_seed)

    def describe(self) -> str:
        """One sentence about the noise, for a page and a file header."""
        if self.private:
            return "Noise drawn from fresh operating-system entropy (cannot be regenerated)."
        return (f"REPRODUCIBLE release from seed {self.reproducible_seed}: NOT PRIVATE, anyone who "
                "knows the seed can regenerate the noise and remove it.")


def release_header(*, method: str, ledger: PrivacyLedger, noise: NoiseSource | None,
                   session_total: tuple[float, float] | None = None) -> list[str]:
    """Lines that say what a released file is: method, guarantee, noise, relation.

    Parameters
    ----------
    method : str
        What produced the release ("SSKM_DP (sound mode)", ...).
    ledger : PrivacyLedger
        The release's own ledger: its :meth:`~PrivacyLedger.describe` is the guarantee.
    noise : NoiseSource or None
        Where the noise came from; None for a release with no noise of its own.
    session_total : (float, float), optional
        What the session has released in all, this release included.
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError(f"ledger must be a PrivacyLedger, got {type(ledger).__name__}.")
    guarantee = ledger.describe()
    if noise is not None and not noise.private and ledger.is_dp:
        guarantee = "NOT PRIVATE as released (reproducible noise). Otherwise: " + guarantee
    lines = [
        f"pux release: {method}",
        f"created: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"privacy: {guarantee}",
        f"is_dp: {'true' if ledger.is_dp else 'false'}",
    ]
    if not ledger.is_dp:
        lines.append("not differentially private: " + " ".join(ledger.not_dp_reasons))
    lines += [f"not covered: {a}" for a in ledger.assumptions]
    if noise is not None:
        lines.append(f"noise: {noise.describe()}")
    if session_total is not None:
        eps, dlt = session_total
        total = "none (a release without a guarantee)" if math.isinf(eps) else (
            f"epsilon = {eps:.4g}" + (f", delta = {dlt:.2g}" if dlt else ""))
        lines.append(f"session total so far: {total}")
    lines.append(f"relation: {NEIGHBOURING_RELATION}")
    return lines


def release_metadata(*, method: str, ledger: PrivacyLedger, noise: NoiseSource | None,
                     session_total: tuple[float, float] | None = None) -> dict[str, Any]:
    """What a released file is, as a JSON-ready object (the same facts as :func:`release_header`).

    ``is_dp`` is False for a release that is not differentially private, with
    ``not_dp_reason`` in words and ``epsilon`` None (the epsilon it names is only
    ``nominal_epsilon``, no guarantee); a reproducible release of a DP mechanism keeps
    ``is_dp`` True but has ``private`` False.
    """
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError(f"ledger must be a PrivacyLedger, got {type(ledger).__name__}.")
    eps, dlt = ledger.total()
    nom_eps, nom_dlt = ledger.nominal()
    out: dict[str, Any] = {
        "method": str(method),
        "created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "is_dp": bool(ledger.is_dp),
        "not_dp_reason": None if ledger.is_dp else " ".join(ledger.not_dp_reasons),
        "guarantee": ledger.describe(),
        "epsilon": eps if ledger.is_dp else None,
        "delta": dlt if ledger.is_dp else None,
        "nominal_epsilon": nom_eps,
        "nominal_delta": nom_dlt,
        "not_covered": list(ledger.assumptions),
        "floating_point": list(ledger.floating_point),
        "private": noise is None or noise.private,
        "noise": None if noise is None else noise.describe(),
        "relation": NEIGHBOURING_RELATION,
    }
    if session_total is not None:
        s_eps, s_dlt = session_total
        out["session_total"] = None if math.isinf(s_eps) else {"epsilon": s_eps, "delta": s_dlt}
    return out


def release_file_name(file_name: str, *, ledger: PrivacyLedger, noise: NoiseSource | None = None,
                      number: int | None = None) -> str:
    """The name of a released file: ``file_name`` with the release number and its labels.

    ``stem_release3.csv`` for a DP release; ``NOT-DP`` is added when the ledger is not
    differentially private (``stem_release3_NOT-DP.csv``), ``NOT_PRIVATE`` when the noise
    is reproducible.

    Parameters
    ----------
    file_name : str
        The page's name for the file ("sskm_dp_release.csv").
    ledger : PrivacyLedger
        The release's ledger.
    noise : NoiseSource, optional
        Where the noise came from.
    number : int, optional
        The release's number in the session.
    """
    if not isinstance(file_name, str) or not file_name:
        raise TypeError("file_name must be a non-empty str.")
    if not isinstance(ledger, PrivacyLedger):
        raise TypeError(f"ledger must be a PrivacyLedger, got {type(ledger).__name__}.")
    stem, dot, ext = file_name.rpartition(".")
    if not dot:
        stem, ext = file_name, ""
    parts = [stem]
    if number is not None:
        parts.append(f"release{int(number)}")
    if not ledger.is_dp:
        parts.append(NOT_DP_TAG)
    if noise is not None and not noise.private:
        parts.append(NOT_PRIVATE_TAG)
    return "_".join(parts) + (f".{ext}" if ext else "")


def release_csv(frame: pd.DataFrame, *, method: str, ledger: PrivacyLedger,
                noise: NoiseSource | None, session_total: tuple[float, float] | None = None) -> bytes:
    """UTF-8 CSV of a release: ``#`` header lines (see :func:`release_header`), then the table.

    Text cells that a spreadsheet would run as formulas get a leading quote. Read it back
    with :func:`read_release`.
    """
    buf = io.StringIO()
    for line in release_header(method=method, ledger=ledger, noise=noise, session_total=session_total):
        buf.write("# " + line.replace("\n", " ") + "\n")
    guard_formulas(frame).to_csv(buf, index=False)
    return buf.getvalue().encode("utf-8")


def read_release(source: Any) -> tuple[list[str], pd.DataFrame]:
    """The header lines and the table of a file written by :func:`release_csv`.

    Parameters
    ----------
    source : path, bytes or text
        The file (or its content).
    """
    if isinstance(source, bytes):
        text = source.decode("utf-8")
    elif isinstance(source, str) and "\n" in source:
        text = source
    else:
        with open(source, encoding="utf-8") as fh:
            text = fh.read()
    lines = text.splitlines(keepends=True)
    n_header = 0
    while n_header < len(lines) and lines[n_header].startswith("# "):
        n_header += 1
    header = [line[2:].rstrip("\n") for line in lines[:n_header]]
    return header, pd.read_csv(io.StringIO("".join(lines[n_header:])))

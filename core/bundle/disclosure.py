"""What a bundle discloses, read from its files, in words and in the session's ledger.

Two kinds (:data:`KINDS`): ``"colleague"``, for someone who may see the data (exact statistics
of the private rows, every seed, the data itself only when asked: not differentially
private, and the ledger says so), and ``"publish"`` (only releases drawn from fresh entropy,
their guarantees and a public schema with no entry read from the rows: its guarantee is
theirs).

The sentence is not asserted from the kind: :func:`bundle_contents` reads the members the
bundle will hold (``config.json``, ``result.json``, the releases' sidecars, ``data/``) and
finds what in them was computed on the private rows -- exact numbers, the data's
fingerprint, seeds, the table itself, schema entries read from the data, releases without a
guarantee or drawn from a seed -- and :func:`disclosure_sentence` says what it found.
:func:`check_publishable` refuses, in one sentence, a schema that a bundle to publish cannot
carry, and :func:`check_contents` refuses a bundle to publish whose files hold anything exact.
"""
from __future__ import annotations

import json
import numbers
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from core.bundle.pages import BundleRelease
from core.privacy.ledger import PrivacyLedger

__all__ = ["KINDS", "KIND_WORDS", "Contents", "bundle_contents", "check_publishable", "check_contents",
           "disclosure_sentence", "bundle_ledger"]

#: The two kinds of bundle, and what the export asks the user.
KINDS = ("colleague", "publish")
KIND_WORDS = {
    "colleague": "For a colleague who may see the data (exact numbers, seeds; not private)",
    "publish": "To publish (only fresh-noise releases, their guarantees, the public schema)",
}
_COLLEAGUE_REASON = ("the bundle holds exact statistics of the private rows and the seeds of every seeded "
                     "number, for a colleague who may see the data")
_READ = "read from data"
#: the name a schema's correlated group size bound takes among the entries read from the data
GROUP_SIZE = "max_group_size"


@dataclass(frozen=True)
class Contents:
    """What a bundle's files hold, read from their bytes (:func:`bundle_contents`).

    Attributes
    ----------
    numbers : int
        How many numbers ``result.json``'s ``numbers`` holds: each computed on the private rows.
    seeds : tuple of str
        Where a seed is (``config.json`` ``seed``, a setting named after a seed, a release drawn
        from a seed).
    fingerprint : bool
        ``config.json`` holds the data's fingerprint (a hash of the private rows).
    data_files : tuple of str
        The members under ``data/``: the private table itself.
    read_from_data : tuple of str
        The schema entries read from the private rows that ``config.json`` or a release's
        sidecar carries (:data:`GROUP_SIZE` for the correlated group size bound).
    schema_entries : int
        How many schema entries the files carry (the most of any one file).
    releases : int
        How many released tables (sidecars under ``releases/``).
    releases_dp : int
        How many of them are differentially private.
    releases_fresh : int
        How many were drawn from fresh operating-system entropy.
    """

    numbers: int = 0
    seeds: tuple[str, ...] = ()
    fingerprint: bool = False
    data_files: tuple[str, ...] = ()
    read_from_data: tuple[str, ...] = ()
    schema_entries: int = 0
    releases: int = 0
    releases_dp: int = 0
    releases_fresh: int = 0

    @property
    def exact(self) -> list[str]:
        """What the files hold that was computed on the private rows without noise, in words."""
        found = []
        if self.numbers:
            found.append(f"exact statistics of the private rows ({self.numbers} numbers in result.json, shown in "
                         "report.html)")
        if self.fingerprint:
            found.append("the data's fingerprint (config.json)")
        if self.data_files:
            found.append("the private table itself (" + ", ".join(self.data_files) + ")")
        if self.read_from_data:
            found.append(f"{len(self.read_from_data)} schema entr{'y' if len(self.read_from_data) == 1 else 'ies'} "
                         "read from the data (" + ", ".join(f"'{c}'" for c in self.read_from_data[:6])
                         + (" ..." if len(self.read_from_data) > 6 else "") + ")")
        if self.seeds:
            found.append("the seed of every seeded number and draw (" + ", ".join(self.seeds[:4])
                         + (" ..." if len(self.seeds) > 4 else "") + ")")
        return found


def _json(files: Mapping[str, bytes], name: str) -> Any:
    raw = files.get(name)
    return None if raw is None else json.loads(raw.decode("utf-8"))


def _count_numbers(value: Any) -> int:
    """The numbers (not flags) in a JSON tree."""
    if isinstance(value, Mapping):
        return sum(_count_numbers(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(_count_numbers(v) for v in value)
    return int(isinstance(value, numbers.Number) and not isinstance(value, bool))


def _schema_reads(schema: Any) -> tuple[list[str], int]:
    """The entries of a schema's JSON read from the data, and how many entries it has."""
    if not isinstance(schema, Mapping) or not isinstance(schema.get("columns"), list):
        return [], 0
    columns = [c for c in schema["columns"] if isinstance(c, Mapping)]
    read = [str(c.get("name")) for c in columns if c.get("source") == _READ]
    if schema.get("max_group_size") is not None and schema.get("max_group_source") == _READ:
        read.append(GROUP_SIZE)
    return read, len(columns)


def _config_seeds(config: Mapping[str, Any]) -> list[str]:
    settings = config.get("settings") if isinstance(config.get("settings"), Mapping) else {}
    found = ["config.json seed"] if config.get("seed") is not None else []
    return found + [f"config.json setting '{k}'" for k, v in settings.items() if "seed" in str(k).lower()
                    and v is not None]


def bundle_contents(files: Mapping[str, bytes]) -> Contents:
    """Read what a bundle's members hold (see :class:`Contents`).

    Parameters
    ----------
    files : mapping of str to bytes
        The members by name: ``config.json``, ``result.json``, ``releases/*.json`` sidecars
        (beside their CSVs) and ``data/*`` are read; the README, the report and the script
        are written from these and add nothing of their own.
    """
    config = _json(files, "config.json") or {}
    result = _json(files, "result.json") or {}
    read, entries = _schema_reads(config.get("schema"))
    seeds = _config_seeds(config)
    sidecars = [(n, _json(files, n)) for n in sorted(files) if n.startswith("releases/") and n.endswith(".json")]
    for name, meta in sidecars:
        more, count = _schema_reads(meta.get("public_schema"))
        read += [c for c in more if c not in read]
        entries = max(entries, count)
        if not meta.get("private", True):
            seeds.append(f"{name} (drawn from a seed)")
    return Contents(numbers=_count_numbers(result.get("numbers")), seeds=tuple(seeds),
                    fingerprint=config.get("fingerprint") is not None,
                    data_files=tuple(n for n in sorted(files) if n.startswith("data/")),
                    read_from_data=tuple(read), schema_entries=entries, releases=len(sidecars),
                    releases_dp=sum(bool(m.get("is_dp")) for _, m in sidecars),
                    releases_fresh=sum(bool(m.get("private", True)) for _, m in sidecars))


def check_publishable(schema: Any) -> None:
    """Refuse, in one sentence, a public schema that a bundle to publish cannot carry.

    Its config, report and releases' sidecars carry the schema: an entry "read from data" (a
    drafted range is the rows' exact minimum and maximum, a drafted list holds every value,
    one that a single record holds included) would publish exact facts of the private rows.

    Raises
    ------
    ValueError
        Naming how many entries were read from the data and what to do.
    """
    read = list(schema.read_from_data())
    if schema.max_group_size is not None and schema.max_group_source == _READ:
        read.append(GROUP_SIZE)
    if not read:
        return
    shown = ", ".join(f"'{c}'" for c in read[:6]) + (f" and {len(read) - 6} more" if len(read) > 6 else "")
    raise ValueError(f"A bundle to publish cannot carry {len(read)} public schema entr"
                     f"{'y' if len(read) == 1 else 'ies'} read from the data ({shown}): its config, report and "
                     "sidecars would publish the rows' exact ranges and categories; confirm them as public "
                     "knowledge on the Data page, declare a schema file (the config's 'schema'), or estimate "
                     "them privately there, then prepare the bundle again.")


def check_contents(kind: str, contents: Contents) -> None:
    """Refuse a bundle to publish whose files hold anything computed on the rows without noise."""
    exact = contents.exact
    if kind == "publish" and exact:
        raise ValueError("A bundle to publish would hold " + "; ".join(exact) + ", which it must not: "
                         "make a bundle for a colleague instead.")


def _releases_words(c: Contents) -> str:
    if not c.releases:
        return "no released table"
    n = c.releases
    dp = ("differentially private" if c.releases_dp == n else "NOT differentially private" if not c.releases_dp
          else f"{c.releases_dp} differentially private, {n - c.releases_dp} not")
    fresh = ("drawn from fresh operating-system entropy" if c.releases_fresh == n else "drawn from a seed"
             if not c.releases_fresh else f"{c.releases_fresh} drawn from fresh entropy, {n - c.releases_fresh} "
             "from a seed")
    return f"{n} released table(s) ({dp}; {fresh})"


def disclosure_sentence(kind: str, contents: Contents, *, ledger: PrivacyLedger) -> str:
    """What the bundle discloses, for its README, its manifest and its report, from what its
    files hold (:func:`bundle_contents`)."""
    tables = _releases_words(contents)
    exact = contents.exact
    if kind == "publish" and not exact:
        read = f"{contents.schema_entries} entries, none read from the data"
        return (f"To publish: this bundle holds {tables}, their guarantees and the public schema ({read}); read "
                "file by file, it holds besides them no seed, no number computed on the private rows and no data "
                f"file. Its guarantee: {ledger.describe()}")
    data = [] if contents.data_files else ["not the private table itself"]
    held = "; ".join(exact + data + [tables])
    who = "For a colleague who may see the data" if kind == "colleague" else "Not to publish"
    return (f"{who}: read file by file, this bundle holds {held}. It is NOT differentially private: hand it "
            "only to someone allowed to see the data.")


def bundle_ledger(kind: str, releases: Sequence[BundleRelease], contents: Contents | None = None) -> PrivacyLedger:
    """The ledger of what the bundle lets out: its releases' budgets, and an entry without a
    guarantee when its files hold anything exact (always for a colleague's bundle)."""
    ledger = PrivacyLedger()
    for i, release in enumerate(releases, 1):
        ledger.extend(release.ledger, prefix=f"bundled release {i} ({release.method})")
    exact = [] if contents is None else contents.exact
    if kind == "colleague":
        ledger.mark_not_dp(_COLLEAGUE_REASON)
    elif exact:
        ledger.mark_not_dp("the bundle holds " + "; ".join(exact))
    return ledger

"""A schema drafted from the rows: every entry "read from data", for the user to review.

:func:`draft_schema` is where a table without a shipped or declared schema starts: observed
ranges, observed categories, detected identifiers. Nothing in it is private; a release
that uses it says so until the user confirms the entries or estimates them
(:mod:`core.privacy.schema_estimate`).

Confirming a draft must not turn a read of the rows into a "public" fact that a release
then relies on while claiming differential privacy (docs/design.md section 2.2). So
(:func:`bulk_confirmable`, :func:`confirm_draft`):

* a drafted numeric entry is never confirmed as it stands: its bounds are the rows' exact
  minimum and maximum; the user types a public range or estimates it privately;
* a drafted category list holding a value that fewer than :data:`RARE_CATEGORY_RECORDS`
  records hold is confirmed only when the user names that column and says its values are
  public; a bulk confirm (no column chosen) leaves it out;
* a bulk confirm declares identifier roles and category lists whose every value is held by
  at least :data:`RARE_CATEGORY_RECORDS` records, and says in one sentence what it left out.

Counting the records of each category reads the rows, but only to decide what the curator
is asked; the count is never released.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from core.data.categories import canonical, match_categories
from core.data.dataset import Dataset
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import OTHER, ColumnSchema

__all__ = ["RARE_CATEGORY_RECORDS", "draft_schema", "rare_categories", "bulk_confirmable",
           "confirm_draft"]

#: A category that fewer records hold is "rare": declaring a drafted list that holds it
#: public asks first. A value that a handful of records hold identifies them (a rare job
#: title, a small town), and declaring it public publishes that someone with that value is
#: in the table, a fact no noise then hides. 5 is the smallest cell size that statistical
#: agencies commonly publish (the "rule of five" of frequency-table disclosure control) and
#: is at or below the count a thresholded private category discovery needs at epsilon near
#: 1, so every value a private estimate could find is held by at least this many records.
RARE_CATEGORY_RECORDS = 5

_NOT_HELD = object()  # a missing cell: it holds no category

#: why a bulk confirm leaves an entry out (no value of the rows in the words)
EXACT_EXTREMES = "numeric: its drafted bounds are your data's exact minimum and maximum"
RARE_VALUES = (f"categorical: holds values that fewer than {RARE_CATEGORY_RECORDS} records "
               "hold, and declaring them public publishes that those records exist")


def draft_schema(dataset: Dataset, *, detect: bool = True) -> PublicSchema:
    """A schema drafted from the rows: every entry marked "read from data", except an
    identifier proposed from its name alone (the header is public: such an entry is public).

    Numbers get their observed min and max, categories their observed values (sorted by
    text, one per canonical form: :func:`core.data.categories.canonical`); a numeric label
    with exactly two whole values (a 0/1 outcome) is drafted as a category with those two. The dataset's identifier columns (:attr:`Dataset.identifiers`) are drafted as
    identifiers and, with ``detect``, so is every column the rule of
    :func:`core.data.identifiers.detect_identifiers` finds (row numbers, also unsorted or
    with gaps, IDs, text keys; never a number with decimals), unless it is the label or
    sensitive. Nothing here is private: the draft is for the user to review, confirm or
    replace by an estimate.
    """
    from core.data.identifiers import identifiers_by_name, propose_identifiers

    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")
    cols = []
    frame = dataset.frame
    roles = {dataset.label, *dataset.sensitive} - {None}
    ids = {c: "marked as an identifier" for c in dataset.identifiers}
    by_name = set(identifiers_by_name(frame.columns, exclude=roles))
    if detect:
        found = propose_identifiers(frame, exclude=roles)
        ids.update({c: f"{why}: an identifier" for c, why in found.items() if c not in ids})
    for name in frame.columns:
        s = frame[name]
        if name in ids and name not in roles:
            cols.append(_identifier(name, ids[name], name in by_name))
            continue
        if name in dataset.numeric and name == dataset.label and _two_whole_values(s):
            # a 0/1 outcome: the classifier's two classes (drafted, like every list here)
            cats = _drafted_categories(s)
            cols.append(ColumnSchema(name, "categorical", categories=tuple(cats), source="read from data",
                                     note="a numeric label with two whole values: drafted as two classes"))
        elif name in dataset.numeric:
            v = pd.to_numeric(s, errors="coerce").dropna()
            integer = bool(len(v)) and bool(np.all(v.to_numpy() == np.round(v.to_numpy())))
            lo = float(v.min()) if len(v) else 0.0
            hi = float(v.max()) if len(v) else 1.0
            if not lo < hi:
                hi = lo + 1.0
            cols.append(ColumnSchema(name, "numeric", lower=lo, upper=hi, integer=integer,
                                     source="read from data"))
        else:
            cats = _drafted_categories(s) or [OTHER]
            cols.append(ColumnSchema(name, "categorical", categories=tuple(cats), source="read from data"))
    return PublicSchema(tuple(cols), label=dataset.label, sensitive=dataset.sensitive,
                        name=dataset.name)



def _two_whole_values(values: pd.Series) -> bool:
    """True for a numeric column that holds exactly two distinct whole numbers (a 0/1 outcome)."""
    v = pd.to_numeric(values, errors="coerce").dropna().to_numpy()
    return len(np.unique(v)) == 2 and bool(np.all(v == np.round(v)))


def _identifier(name: str, why: str, by_name: bool) -> ColumnSchema:
    """A drafted identifier: proposed from its name (the public header: it costs nothing, so
    the entry is public) or from its values (a read of the rows, "read from data")."""
    if by_name:
        return ColumnSchema(name, "identifier", source="declared",
                            note="proposed from its name in the header (reads no value)")
    return ColumnSchema(name, "identifier", source="read from data", note=why)


def _drafted_categories(values: pd.Series) -> list:
    """The observed values of a column, sorted by text, one per canonical form (the form
    releases match a cell to a category in): the first of "1" and "1.0", "a" for "a " and " a";
    blank text is a missing value, not a category."""
    seen: dict = {}
    for v in sorted(values.dropna().unique(), key=str):
        key = canonical(v)
        if key != "":
            seen.setdefault(key, key if isinstance(key, str) else v)  # text: stripped
    return sorted(seen.values(), key=str)


def _check(schema: PublicSchema, dataset: Dataset) -> None:
    if not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema, got {type(schema).__name__}.")
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a Dataset, got {type(dataset).__name__}.")


def _rare(entry: ColumnSchema, frame: pd.DataFrame) -> tuple:
    """The categories of ``entry`` that 1 to :data:`RARE_CATEGORY_RECORDS` - 1 rows hold
    (a row holds the category its cell is matched to in a release: the canonical form)."""
    if entry.name not in frame.columns:
        raise ValueError(f"the table has no column '{entry.name}', so the records of its "
                         "categories cannot be counted.")
    matched = match_categories(frame[entry.name].to_numpy(dtype=object), entry.categories,
                               missing=_NOT_HELD)
    held = Counter(str(v) for v in matched if v is not _NOT_HELD)
    return tuple(c for c in entry.categories if 0 < held.get(str(c), 0) < RARE_CATEGORY_RECORDS)


def rare_categories(schema: PublicSchema, dataset: Dataset) -> dict[str, tuple]:
    """The rare values of each drafted category list, by column.

    Parameters
    ----------
    schema : PublicSchema
        The schema under review.
    dataset : Dataset
        The table it was drafted from (its rows are counted, never released).

    Returns
    -------
    dict of str to tuple
        For each categorical entry read from the data that holds a value fewer than
        :data:`RARE_CATEGORY_RECORDS` records (but at least one) hold, those values. For the
        curator's eyes only (the Data page): never write them to a file that leaves the app.

    Raises
    ------
    TypeError
        ``schema`` is not a PublicSchema or ``dataset`` not a Dataset.
    ValueError
        A drafted categorical entry names a column the table does not have.
    """
    _check(schema, dataset)
    out = {}
    for entry in schema.columns:
        if entry.kind == "categorical" and not entry.public:
            rare = _rare(entry, dataset.frame)
            if rare:
                out[entry.name] = rare
    return out


def bulk_confirmable(schema: PublicSchema, dataset: Dataset) -> tuple[list[str], dict[str, str]]:
    """Which drafted entries a bulk confirm ("Confirm as public knowledge", nothing chosen) declares.

    Parameters
    ----------
    schema : PublicSchema
        The schema under review.
    dataset : Dataset
        The table it was drafted from (to count the records of each category).

    Returns
    -------
    names_ok : list of str
        The entries read from the data that may be declared without asking: identifier roles
        and category lists whose every value at least :data:`RARE_CATEGORY_RECORDS` records hold.
    left_out : dict of str to str
        The other entries read from the data, each with why (:data:`EXACT_EXTREMES` for a
        number, :data:`RARE_VALUES` for a list with a rare value); the reasons name no value.

    Raises
    ------
    TypeError
        ``schema`` is not a PublicSchema or ``dataset`` not a Dataset.
    """
    rare = rare_categories(schema, dataset)
    ok, left_out = [], {}
    for name in schema.read_from_data():
        if schema[name].kind == "numeric":
            left_out[name] = EXACT_EXTREMES
        elif name in rare:
            left_out[name] = RARE_VALUES
        else:
            ok.append(name)
    return ok, left_out


def _typed_range(entry: ColumnSchema, bounds: tuple) -> ColumnSchema:
    """``entry`` declared with a range the user typed."""
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise ValueError(f"the public range of '{entry.name}' needs two numbers, lower and upper.") from None
    return ColumnSchema(entry.name, "numeric", lower=lo, upper=hi, integer=entry.integer,
                        source="declared", note="public range typed by the user on the Data page")


def _explicit(schema: PublicSchema, dataset: Dataset, columns: list[str],
              accept_rare: set[str]) -> tuple[list[str], dict[str, str]]:
    """The rule for entries the user chose by name: a number never as drafted, a list with
    rare values only when its column is in ``accept_rare``."""
    unknown = [c for c in columns if c not in schema]
    if unknown:
        raise ValueError(f"'{unknown[0]}' is not a column of the schema, so it cannot be confirmed.")
    rare = rare_categories(schema, dataset)
    ok, left_out = [], {}
    for name in (c for c in schema.read_from_data() if c in columns):
        if schema[name].kind == "numeric":
            left_out[name] = EXACT_EXTREMES
        elif name in rare and name not in accept_rare:
            left_out[name] = RARE_VALUES
        else:
            ok.append(name)
    return ok, left_out


def _sentence(declared: int, left_out: Mapping[str, str]) -> str:
    """What a confirm did, in one sentence."""
    done = (f"{declared} entr{'y' if declared == 1 else 'ies'} declared public knowledge"
            if declared else "No entry declared public knowledge")
    if not left_out:
        return done + "."
    numbers = sum(1 for r in left_out.values() if r == EXACT_EXTREMES)
    rare = len(left_out) - numbers
    why = " and ".join(part for part in (
        f"{numbers} numeric whose drafted bounds are your data's exact minimum and maximum" if numbers else "",
        f"{rare} categorical holding values that fewer than {RARE_CATEGORY_RECORDS} records hold"
        if rare else "") if part)
    todo = " and ".join(part for part in (
        "type a public range for each number (in the table or the public ranges) or estimate it "
        "privately" if numbers else "",
        "select each category list by name and tick that its values are public once you have "
        "reviewed them, or estimate it privately" if rare else "") if part)
    return f"{done}; {len(left_out)} left out ({why}): {todo}."


def confirm_draft(schema: PublicSchema, dataset: Dataset, columns: Iterable[str] | None = None, *,
                  ranges: Mapping[str, tuple] | None = None,
                  accept_rare: Iterable[str] = ()) -> tuple[PublicSchema, str]:
    """Declare drafted entries public knowledge, never a read of the rows that could leak.

    Parameters
    ----------
    schema : PublicSchema
        The schema under review.
    dataset : Dataset
        The table it was drafted from (to count the records of each category).
    columns : iterable of str or None
        The entries the user chose. None: a bulk confirm, which declares only
        :func:`bulk_confirmable`'s entries.
    ranges : mapping of str to (lower, upper), optional
        Public ranges the user typed: a drafted numeric entry among those confirmed is
        declared with its typed range (never with its drafted bounds, the rows' extremes).
    accept_rare : iterable of str
        Columns chosen by name whose rare values the user says are public (a box ticked after
        seeing them); ignored by a bulk confirm.

    Returns
    -------
    schema : PublicSchema
        A copy with those entries declared; entries not read from the data are kept as they are.
    sentence : str
        One sentence: how many entries were declared, how many left out and why, what to do.

    Raises
    ------
    TypeError
        ``schema`` is not a PublicSchema or ``dataset`` not a Dataset.
    ValueError
        A chosen column is not in the schema, or a typed range is not two ordered numbers.
    """
    _check(schema, dataset)
    if columns is None:
        ok, left_out = bulk_confirmable(schema, dataset)
        wanted = set(schema.read_from_data())
    else:
        wanted = set(columns)
        ok, left_out = _explicit(schema, dataset, list(wanted), set(accept_rare))
    typed = {c: r for c, r in dict(ranges or {}).items() if c in wanted and c in left_out
             and left_out[c] == EXACT_EXTREMES}
    new = schema.confirm(ok) if ok else schema
    for name, bounds in typed.items():
        new = new.replace_column(_typed_range(schema[name], bounds))
        del left_out[name]
    return new, _sentence(len(ok) + len(typed), left_out)

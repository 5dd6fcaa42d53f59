"""The real public datasets: UCI Adult and NLTCS, read from a directory the user names.

The files are never shipped with the project. ``data_dir`` falls back to the environment
variable ``PUX_DATA_DIR``.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import pandas as pd

from core.data.dataset import Dataset
from core.data.record_reader import ColumnRead, read_records, split_records
from core.validation import DataError

__all__ = ["ADULT_BOUNDS", "ADULT_CATEGORIES", "ADULT_COLUMNS", "ADULT_CUTS", "EXPECTED_ROWS", "available_public",
           "load_adult", "load_nltcs", "resolve_data_dir"]

ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education_num", "marital_status",
    "occupation", "relationship", "race", "sex", "capital_gain", "capital_loss",
    "hours_per_week", "native_country", "income",
]
#: UCI Adult's categories as its codebook (adult.names) lists them (the shipped schema's lists).
ADULT_CATEGORIES = {
    "workclass": ("Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
                  "State-gov", "Without-pay", "Never-worked"),
    "education": ("Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm",
                  "Assoc-voc", "9th", "7th-8th", "12th", "Masters", "1st-4th", "10th", "Doctorate",
                  "5th-6th", "Preschool"),
    "marital_status": ("Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
                       "Married-spouse-absent", "Married-AF-spouse"),
    "occupation": ("Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
                   "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
                   "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
                   "Armed-Forces"),
    "relationship": ("Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"),
    "race": ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"),
    "sex": ("Female", "Male"),
    "native_country": (
        "United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
        "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China", "Cuba", "Iran",
        "Honduras", "Philippines", "Italy", "Poland", "Jamaica", "Vietnam", "Mexico", "Portugal",
        "Ireland", "France", "Dominican-Republic", "Laos", "Ecuador", "Taiwan", "Haiti", "Columbia",
        "Hungary", "Guatemala", "Nicaragua", "Scotland", "Thailand", "Yugoslavia", "El-Salvador",
        "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands"),
    "income": ("<=50K", ">50K"),
}


#: UCI Adult's public bounds: (lower, upper, where the bound comes from).
ADULT_BOUNDS = {
    "age": (16, 100, "the census universe: persons aged 16 and over; 100 as a public cap"),
    "fnlwgt": (0, 1_500_000, "census sampling weights, capped at 1.5 million as a public bound"),
    "education_num": (1, 16, "{book}: 16 education levels"),
    "capital_gain": (0, 99_999, "the Census Bureau's top-code of 99,999"),
    "capital_loss": (0, 4_999, "capital losses, a public cap of 4,999"),
    "hours_per_week": (1, 99, "the census top-code of 99 hours"),
}
#: UCI Adult's public bin edges ("cuts", each starting a bin) for a release that bins its numbers
#: (MST and AIM: :mod:`core.marginal.domain`), with where they come from. Published groupings
#: and round amounts, never quantiles of the rows: without them capital gain and loss (zero
#: for most records) would sit almost entirely in the first of 16 equal bins of their range.
#: ``education_num`` needs none (16 levels, one cell each).
ADULT_CUTS = {
    "age": ((20, 25, 35, 45, 55, 65),
            ("the Current Population Survey's standard age groups: 16-19, 20-24, 25-34, 35-44, 45-54, 55-64, "
            "65 and over")),
    "fnlwgt": ((100_000, 200_000, 300_000, 400_000, 500_000),
               ("round hundreds of thousands: the weight is the number of people the census believes a "
                "record stands for ({book}), in the hundreds of thousands for the CPS")),
    "capital_gain": ((1, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 99_999),
                     ("none (0) on its own, then round dollar amounts (1-2-5 steps), and the top-code "
                     "99,999 on its own")),
    "capital_loss": ((1, 1_000, 1_500, 2_000, 2_500, 3_000),
                     ("none (0) on its own, then steps of 500 dollars up to 3,000, the yearly limit on "
                     "deducting net capital losses (IRS)")),
    "hours_per_week": ((35, 40, 41, 49, 60),
                       ("the CPS's published hours-of-work groups: 1-34 (part time), 35-39, 40, 41-48, 49-59, "
                       "60 and over")),
}
_HOW_TO_GET = {
    "adult": "adult.data and adult.test from the UCI Machine Learning Repository ('Adult')",
    "nltcs": "nltcs.csv (16 binary columns x1..x16, the NLTCS extract used in the DP literature)",
}


def resolve_data_dir(data_dir: str | os.PathLike | None = None) -> Path | None:
    """The directory to read public data from: ``data_dir``, else ``$PUX_DATA_DIR``, else None."""
    if data_dir is not None:
        return Path(data_dir)
    env = os.environ.get("PUX_DATA_DIR")
    return Path(env) if env else None


#: Data lines of the public files (n is public).
EXPECTED_ROWS = {"adult.data": 32_561, "adult.test": 16_281, "nltcs.csv": 21_574}
NLTCS_COLUMNS = [f"x{i}" for i in range(1, 17)]


def _require(files: list[str], key: str, data_dir: str | os.PathLike | None) -> list[Path]:
    root = resolve_data_dir(data_dir)
    if root is None:
        raise DataError(
            f"No data directory is set: put {_HOW_TO_GET[key]} in a folder and set "
            "PUX_DATA_DIR to it (or pass --data-dir)."
        )
    paths = [root / f for f in files]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        raise DataError(
            f"Looked for {', '.join(missing)} in the data directory and found nothing; put "
            f"{_HOW_TO_GET[key]} there, or point PUX_DATA_DIR (or --data-dir) at the folder "
            "that holds them."
        )
    return paths


def _unusable(name: str, reason: str) -> DataError:
    """One fixed sentence plus the reason; never a path or the file's contents."""
    return DataError(f"The public file {name} in the data directory cannot be used: {reason}.")


def _records(path: Path, specs: list[ColumnRead], *, header: list[str] | None = None,
             fix: Callable[[bytes], bytes] | None = None) -> pd.DataFrame:
    """The file's records read one data line each by ``specs`` (:mod:`core.data.record_reader`).

    What the file may make us refuse is public: that it is empty, or that its number of data
    lines is not the published one (n is public). A record's content never refuses the file:
    a cell that does not fit its column is that record's missing value or its "(other)".
    """
    raw = path.read_bytes()
    if not raw.strip():
        raise _unusable(path.name, "it is empty; download it again")
    if fix is not None:
        raw = b"\n".join(fix(line) for line in raw.split(b"\n"))
    n = len(split_records(b"-\n" + raw)[1]) if header is not None else len(split_records(raw)[1])
    expected = EXPECTED_ROWS[path.name]
    if n != expected:
        raise _unusable(path.name, f"it has {n:,} data rows where the published file has {expected:,} "
                                   "(truncated or a different file); download it again")
    try:
        return read_records(raw, specs, header=header)[0]
    except DataError as exc:  # the header (public): another file
        raise _unusable(path.name, str(exc).rstrip(".")) from None


def _adult_reads() -> list[ColumnRead]:
    return [ColumnRead(c, "numeric", ADULT_BOUNDS[c][0], ADULT_BOUNDS[c][1]) if c in ADULT_BOUNDS
            else ColumnRead(c, "categorical", categories=ADULT_CATEGORIES[c]) for c in ADULT_COLUMNS]


def _test_label(line: bytes) -> bytes:
    """adult.test writes its labels with a final dot (``>50K.``): taken off, line by line."""
    line = line.rstrip(b"\r")
    return line[:-1] if line.endswith(b".") else line


def load_adult(data_dir: str | os.PathLike | None = None) -> Dataset:
    """UCI Adult, both files (48,842 rows), ``?`` as missing, label ``income``.

    Read record by record by the codebook's public schema (:data:`ADULT_CATEGORIES`,
    :data:`ADULT_BOUNDS`; :mod:`core.data.record_reader`): a cell outside the codebook is
    that record's "(other)" or missing number, a number is clipped to its public bound, and
    nothing one record holds can refuse the file. The test file's labels end with a dot
    (``>50K.``); it is taken off so both parts share two classes. ``sex`` is marked
    sensitive, as in papers 002 and 003. Refused, in one sentence naming the file (never
    its path or contents): an empty file, or a number of data lines other than the UCI
    files' 32,561 and 16,281 (n is public).
    """
    train, test = _require(["adult.data", "adult.test"], "adult", data_dir)
    reads = _adult_reads()
    frame = pd.concat([_records(train, reads, header=ADULT_COLUMNS),
                       _records(test, reads, header=ADULT_COLUMNS, fix=_test_label)], ignore_index=True)
    numeric = tuple(c for c in ADULT_COLUMNS if c in ADULT_BOUNDS)
    categorical = tuple(c for c in ADULT_COLUMNS if c not in ADULT_BOUNDS)
    return Dataset(frame, "income", ("sex",), numeric, categorical, name="adult", declared=True)


def load_nltcs(data_dir: str | os.PathLike | None = None) -> Dataset:
    """NLTCS: 21,574 people x 16 binary disability indicators ``x1..x16``.

    No label; no column is marked sensitive (pages let the user choose). Read record by
    record (a cell that is not a number in [0, 1] is that record's missing value, clipped
    into [0, 1]); refused only for an empty file, a header that is not ``x1..x16`` or a
    number of rows other than 21,574 (all public).
    """
    (path,) = _require(["nltcs.csv"], "nltcs", data_dir)
    with open(path, "rb") as f:
        first = f.readline(4096).strip().decode("utf-8", errors="replace")
    if first and first.split(",") != NLTCS_COLUMNS:
        raise _unusable(path.name, "its header is not x1,x2,...,x16")
    frame = _records(path, [ColumnRead(c, "numeric", 0.0, 1.0) for c in NLTCS_COLUMNS])
    return Dataset(frame, None, (), tuple(frame.columns), (), name="nltcs", declared=True)


def available_public(data_dir: str | os.PathLike | None = None) -> dict[str, bool]:
    """Which public datasets can be read from the data directory."""
    root = resolve_data_dir(data_dir)
    if root is None:
        return {"adult": False, "nltcs": False}
    return {
        "adult": (root / "adult.data").is_file() and (root / "adult.test").is_file(),
        "nltcs": (root / "nltcs.csv").is_file(),
    }

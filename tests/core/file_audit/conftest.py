"""A table built here, with its declared schema: an identifier, a column whose values are all
distinct, a number, a category coded as numbers and one with text, and a binary label."""
from __future__ import annotations

import numpy as np
import pytest

from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import ColumnSchema

ROWS = 60
#: ``grade`` holds the text 'a' in this many records: 53 of 60 cells numbers (88 %), one short
#: of the 90 % that turns a column numeric under type inference across rows
GRADE_TEXT = 7


def _table() -> bytes:
    rng = np.random.default_rng(7)
    lines = ["id,code,age,grade,city,income"]
    for i in range(ROWS):
        grade = "a" if i >= ROWS - GRADE_TEXT else str(1 + i % 3)
        city = ("north", "south", "east")[int(rng.integers(3))]
        income = ">50K" if rng.random() < 0.3 else "<=50K"
        lines.append(f"{1000 + i},c{i:03d},{int(rng.integers(18, 90))},{grade},{city},{income}")
    return ("\n".join(lines) + "\n").encode()


def _schema() -> PublicSchema:
    return PublicSchema((
        ColumnSchema("id", "identifier"),
        ColumnSchema("code", "categorical", categories=tuple(f"c{i:03d}" for i in range(ROWS))),
        ColumnSchema("age", "numeric", lower=0, upper=100, integer=True),
        ColumnSchema("grade", "categorical", categories=("1", "2", "3", "a")),
        ColumnSchema("city", "categorical", categories=("north", "south", "east")),
        ColumnSchema("income", "categorical", categories=("<=50K", ">50K")),
    ), label="income", sensitive=("city",), name="table")


@pytest.fixture(scope="session")
def table() -> bytes:
    return _table()


@pytest.fixture(scope="session")
def schema() -> PublicSchema:
    return _schema()

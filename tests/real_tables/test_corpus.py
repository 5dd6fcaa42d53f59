"""The corpus manifest and the sweep's checks (issue 39), without running a page."""
from __future__ import annotations

import pytest

from core.claims.degenerate import pair_ceiling
from tests.real_tables.corpus import (
    BY_NAME,
    CORPUS,
    COVERAGE,
    Table,
    Unavailable,
    csv_bytes,
    frame,
    upload,
)
from tests.real_tables.sweep import degenerate_holds

#: small tables that ship in packages the dev extras install: read in the fast suite
SMALL = ("spector", "burtin", "cars", "fertility")


def test_the_corpus_holds_at_least_15_tables_with_distinct_names():
    assert len(CORPUS) >= 15
    assert len(BY_NAME) == len(CORPUS)


def test_every_kind_the_issue_names_is_covered_by_some_table():
    covered = {kind for table in CORPUS for kind in table.covers}
    assert set(COVERAGE) <= covered, set(COVERAGE) - covered


def test_every_covers_entry_is_a_known_kind():
    unknown = {kind for table in CORPUS for kind in table.covers} - set(COVERAGE)
    assert not unknown


def test_sizes_reach_from_tiny_to_adults_48k_rows():
    rows = sorted(table.rows for table in CORPUS)
    assert rows[0] <= 20 and rows[-1] == BY_NAME["adult"].rows == 48_842


def test_a_missing_package_is_unavailable_with_a_reason():
    ghost = Table("ghost", "no_such_package", "no_such_package:load", None, (), covers=(), rows=10)
    with pytest.raises(Unavailable, match="no_such_package is not installed"):
        frame(ghost)


def test_adult_without_a_data_folder_is_unavailable(monkeypatch, tmp_path):
    monkeypatch.setenv("PUX_DATA_DIR", str(tmp_path))
    with pytest.raises(Unavailable, match="PUX_DATA_DIR"):
        frame(BY_NAME["adult"])


@pytest.mark.parametrize("name", SMALL)
def test_a_small_table_uploads_with_its_rows_and_roles(name):
    table = BY_NAME[name]
    content, loaded, dataset = upload(table)
    assert content == csv_bytes(table)
    assert list(loaded.frame.columns) == list(frame(table).columns) and dataset.n_rows == table.rows
    assert dataset.sensitive == table.sensitive
    assert dataset.label == (None if table.refused else table.label)
    assert not set(dataset.identifiers) & {dataset.label, *dataset.sensitive}


@pytest.mark.slow
@pytest.mark.parametrize("name", [t.name for t in CORPUS if t.name not in SMALL])
def test_every_table_uploads_with_its_rows_and_roles(name):
    table = BY_NAME[name]
    try:
        _, _, dataset = upload(table)
    except Unavailable as exc:
        pytest.skip(str(exc))
    assert dataset.n_rows == table.rows
    assert dataset.label == (None if table.refused else table.label)


def test_r_rownames_become_a_first_column_counted_from_one():
    data = frame(BY_NAME["anes96"])
    assert data.columns[0] == "rownames" and data["rownames"].iloc[0] == 1


def test_a_holds_verdict_on_a_tie_is_found():
    text = "**Paper 000, Table 2 · Holds here.** CS is below GS at 4 of 4 stages (F: CS 1,309 vs GS 1,309)."
    assert "tie" in degenerate_holds(text)


def test_a_tie_is_found_in_markdown_escaped_text():
    text = "**Paper 000, Table 2 · Holds here.** CS 0\\.5 vs GS 0\\.5 \\(F\\_fb\\_del\\)."
    assert "tie" in degenerate_holds(text)


def test_a_holds_verdict_on_distinct_numbers_passes():
    text = "**Paper 000, Table 2 · Holds here.** CS is below GS at 4 of 4 stages (F: CS 1,209 vs GS 1,309)."
    assert degenerate_holds(text) is None


def test_a_holds_verdict_on_a_constant_series_is_found():
    text = "**Paper 000, Fig. 2 · Holds here.** DC falls: 493,697.50, 493,697.50, 493,697.50."
    assert "constant" in degenerate_holds(text)


def test_a_holds_verdict_at_the_pair_ceiling_is_found():
    text = f"**Paper 000, Fig. 1 · Holds here.** C starts at {pair_ceiling(2380):,.0f} and falls to 1,200."
    assert "ceiling" in degenerate_holds(text, n_rows=2380)
    assert degenerate_holds(text, n_rows=2381) is None


def test_what_a_holds_verdict_left_out_as_degenerate_is_not_flagged():
    text = ("**Paper 000, Fig. 1 · Holds here.** C(x) goes from 2,100 with 3 features to 1,200 with all 6. "
            f"Left out as degenerate: k = 2, where C(x) = N(N-1)/2 = {pair_ceiling(2380):,.0f} for N = 2,380.")
    assert degenerate_holds(text, n_rows=2380) is None


def test_a_verdict_that_cannot_be_judged_is_never_flagged():
    text = "**Paper 000, Table 2 · Cannot be judged here.** CS 1,309 vs GS 1,309 are tied."
    assert degenerate_holds(text) is None

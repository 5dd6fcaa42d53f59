"""One mutant per leak between the file and the release, each caught by the exact file audit.

Each test puts a leak back (the code as it was, or the step as a careless reading would do
it) and shows that :func:`core.file_audit.exact_check` sees more than one record move. They
are registered in ``tests/mutants.py``.
"""
from __future__ import annotations

import math

import pandas as pd
from sklearn.model_selection import train_test_split

import core.compare.config as compare_config
import core.compare.run as compare_run
import core.data.record_reader as record_reader
import core.privacy.schema_read as schema_read
from core.data.config_files import load_named
from core.data.identifiers import detect_identifiers
from core.file_audit import exact_check, file_pair, file_pairs
from core.runtime.randomness import draw_seed
from tests.core.file_audit.conftest import ROWS


def _pair(table, schema, kind):
    return next(p for p in file_pairs(table, schema, line=5, distinct="code") if p.kind == kind)


def test_mutant_type_inference_across_rows_is_caught(monkeypatch, table, schema):
    """Leak: the CSV's column types inferred from all its rows (``load_csv``), so one record's
    text turns a column numeric and every other text cell of it into a missing value."""
    monkeypatch.setattr(compare_config, "load_named_by_schema",
                        lambda name, *, schema, **kw: load_named(name, **kw))
    lines = table.split(b"\n")
    first_a = next(i for i, ln in enumerate(lines[1:]) if ln.split(b",")[3] == b"a")
    new = lines[1 + first_a].split(b",")
    new[3] = b"1"  # 54 of 60 cells numbers now: 90 %, numeric under inference
    pair = file_pair(table, first_a, b",".join(new), kind="junk cell", description="'a' becomes '1'")
    assert exact_check("pux compare", pair, schema).problems
    monkeypatch.undo()
    assert exact_check("pux compare", pair, schema).ok


def test_mutant_detection_drops_a_declared_column_is_caught(monkeypatch, table, schema):
    """Leak: identifiers detected from the values (a column whose values are all distinct is
    dropped although the schema declares it categorical)."""
    real = schema_read.read_csv_by_schema

    def detecting(*args, **kwargs):
        data = real(*args, **kwargs)
        found = detect_identifiers(data.frame, exclude=(data.label, *data.sensitive))
        return data.with_identifiers(sorted(set(found) | set(data.identifiers)))

    monkeypatch.setattr(schema_read, "read_csv_by_schema", detecting)
    check = exact_check("data page", _pair(table, schema, "distinct flip"), schema)
    assert any("columns differ" in p or "identifiers differ" in p for p in check.problems)


def _stratified(dataset, *, test_size, max_rows, rng):
    sample_seed, split_seed = draw_seed(rng), draw_seed(rng)
    data = dataset if max_rows is None else dataset.sample(max_rows, random_state=sample_seed)
    frame = data.frame
    assert math.ceil(test_size * len(frame)) >= 2
    train, hold = train_test_split(frame, test_size=test_size, random_state=split_seed,
                                   stratify=frame[data.label].astype(str))
    from dataclasses import replace

    return replace(data, frame=train.reset_index(drop=True)), hold.reset_index(drop=True)


def test_mutant_stratified_split_is_caught(monkeypatch, table, schema):
    """Leak: the split stratified on the label, so one label flip moves other records between
    the training part and the holdout."""
    monkeypatch.setattr(compare_run, "split", _stratified)
    check = exact_check("pux compare", _pair(table, schema, "label flip"), schema)
    assert check.problems, check


def test_mutant_skipped_line_is_caught(monkeypatch, table, schema):
    """Leak: an empty line skipped, so one record's content changes n and shifts every later row."""
    real = record_reader.split_records

    def skipping(raw):
        header, lines = real(raw)
        return header, [ln for ln in lines if ln.strip()]

    monkeypatch.setattr(record_reader, "split_records", skipping)
    check = exact_check("data page", _pair(table, schema, "empty line"), schema)
    assert any("n differ" in p for p in check.problems), check
    assert ROWS == len(pd.read_csv(pd.io.common.BytesIO(table)))

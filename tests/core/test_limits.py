"""One set of limits for every input (:mod:`core.limits`): each a named number agreeing with the
pages' own, each refusal one sentence naming the field, its value and the limit."""
from __future__ import annotations

import ast
import json
import time
from pathlib import Path

import pytest

from core import limits
from core.bundle.check import compare_trees
from core.compare.config import CompareConfig
from core.data.config_files import parse_json
from core.decide.config import SolveConfig
from core.limits import check_config_limits, load_json

ROOT = Path(__file__).resolve().parents[2]
DEEP = "[" * 100_000 + "]" * 100_000


# ----------------------------------------------------------------------------- JSON
@pytest.mark.parametrize("text", [DEEP, '{"a":' * 100_000 + "1" + "}" * 100_000, "[" * 100_000])
def test_deep_json_is_refused_before_parsing_in_one_sentence(text):
    start = time.perf_counter()
    with pytest.raises(ValueError) as info:
        load_json(text, what="the schema file s.json")
    assert time.perf_counter() - start < 1
    assert str(info.value) == (f"the schema file s.json nests more than {limits.MAX_JSON_DEPTH} levels deep; "
                               f"the limit is {limits.MAX_JSON_DEPTH}.")


def test_brackets_inside_strings_do_not_count():
    text = json.dumps({"name": "[" * 10_000 + '\\"{' * 1000, "list": [[1, 2], {"a": "]]]"}]})
    assert load_json(text, what="x")["list"] == [[1, 2], {"a": "]]]"}]
    nested = "[" * limits.MAX_JSON_DEPTH + "]" * limits.MAX_JSON_DEPTH
    assert load_json(nested, what="x") == json.loads(nested)


@pytest.mark.parametrize("text, words", [
    ("", "is not valid JSON (Expecting value at line 1, column 1)."),
    ("{broken", "is not valid JSON (Expecting property name enclosed in double quotes at line 1, column 2)."),
    (b"\xff\xfe{", "is not UTF-8 text."),
    ("1" * 5000, "is not valid JSON (Exceeds the limit"),
])
def test_bad_json_names_the_file(text, words):
    with pytest.raises(ValueError, match="^bundle.json in r.zip ") as info:
        load_json(text, what="bundle.json in r.zip")
    assert words in str(info.value)


def test_json_past_its_size_is_refused_before_parsing():
    with pytest.raises(ValueError, match=r"^x is 11 bytes; the limit is 10 bytes\.$"):
        load_json("[1,2,3,4,5]", what="x", max_bytes=10)
    with pytest.raises(TypeError):
        load_json(3, what="x")


def test_config_readers_check_depth():
    with pytest.raises(ValueError, match="the config nests more than"):
        parse_json(DEEP)
    for reader in (CompareConfig.from_json, SolveConfig.from_json):
        with pytest.raises(ValueError, match="nests more than"):
            reader(DEEP)


def test_a_deep_tree_compares_without_recursion():
    deep: list = [1.0]
    for _ in range(5000):
        deep = [deep]
    assert [c.ok for c in compare_trees(deep, deep)] == [True]


# ----------------------------------------------------------------------------- config values
def _compare(**kw):
    return CompareConfig(dataset="supplier", methods=("kRR",), **{"epsilons": (1.0,), "seed": 1, **kw})


@pytest.mark.parametrize("field, value, sentence", [
    ("repetitions", 10**6, "the config's repetitions is 1,000,000; the limit is 20 repetitions."),
    ("imposter_epochs", 10**9, "the config's imposter_epochs is 1,000,000,000; the limit is 1,000 epochs."),
    ("audit_runs", 10**6, "the config's audit_runs is 1,000,000; the limit is 5,000 runs per side."),
    ("max_rows", 10**12, f"the config's max_rows is 1,000,000,000,000; the limit is {limits.MAX_ROWS:,} rows."),
    ("dcr_records", 10**12, f"the config's dcr_records is 1,000,000,000,000; the limit is {limits.MAX_ROWS:,} rows."),
    ("epsilons", [0.1 + i for i in range(10**6)], "the config's epsilons lists 1,000,000 values; the limit is 50."),
])
def test_each_compare_limit_is_one_sentence(field, value, sentence):
    start = time.perf_counter()
    with pytest.raises(ValueError) as info:
        _compare(**{field: value})
    assert str(info.value) == sentence and time.perf_counter() - start < 2


@pytest.mark.parametrize("change, words", [
    ({"repetitions": 10**9}, "the config's repetitions is 1,000,000,000; the limit is 20"),
    ({"epsilons": [0.001 * (i + 1) for i in range(10**6)]}, "the config's epsilons lists 1,000,000 values"),
    ({"page": "compare", "methods": ["kRR"], "target": "utility>=0.5", "settings": {"imposter_epochs": 10**9}},
     "the config's settings.imposter_epochs is 1,000,000,000; the limit is 1,000 epochs."),
    ({"settings": {"max_rows": 10**12}}, "the config's settings.max_rows is 1,000,000,000,000"),
    ({"page": "compare", "methods": ["kRR"], "target": "utility>=0.5", "settings": {"audit_runs": 10**6}},
     "the config's settings.audit_runs is 1,000,000; the limit is 5,000"),
])
def test_each_solve_limit_is_one_sentence(change, words):
    data = json.loads((ROOT / "examples" / "solve.json").read_text())
    data.update(change)
    with pytest.raises(ValueError, match="^" + words.replace(".", r"\.").replace("(", r"\(")):
        SolveConfig.from_dict(data)


def test_page_settings_are_limited_at_any_depth():
    with pytest.raises(ValueError, match=r"^the config's settings\.imposter\.audit_runs is 9,999,999; the limit is"):
        check_config_limits({"page": "tour", "settings": {"imposter": {"audit_runs": 9_999_999}}})
    with pytest.raises(ValueError, match=r"^c's sweep_epochs is 5,000; the limit is 1,000 epochs\.$"):
        check_config_limits({"sweep_epochs": 5000}, what="c")
    check_config_limits({"repetitions": "many", "epochs": None, "rows": 10**9})  # types are the config's own check


def test_everything_the_project_ships_is_within_the_limits():
    from core.bundle.pages import PAGES, page_module

    for page in PAGES:
        check_config_limits(getattr(page_module(page), "DEFAULTS", {}))
    for path in (ROOT / "examples").glob("*.json"):
        check_config_limits(json.loads(path.read_text()))


# ----------------------------------------------------------------------------- the pages agree
def _widget_maxima(label_words: str) -> list[int]:
    """The largest value of every number input or slider of the dashboard whose label holds ``label_words``."""
    found = []
    for path in (ROOT / "dashboard").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("number_input", "slider") and node.args
                    and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
                    and label_words in node.args[0].value.lower()):
                continue
            keywords = {k.arg: k.value for k in node.keywords}
            high = keywords.get("max_value", node.args[2] if len(node.args) > 2 else None)
            if high is not None:  # an input without a largest value (the Data page's row count)
                found.append(ast.literal_eval(high))
    return found


@pytest.mark.parametrize("words, limit", [("repetitions", limits.MAX_REPETITIONS), ("epochs", limits.MAX_EPOCHS)])
def test_each_limit_is_the_most_a_page_offers(words, limit):
    maxima = _widget_maxima(words)
    assert len(maxima) >= 2 and max(maxima) == limit


def test_rows_and_runs_and_grids_agree_with_the_pages():
    from dashboard.compare.cached import AUDIT_CHOICES, EPSILON_CHOICES, ROW_CAPS
    from dashboard.shared.widgets.privacy import AUDIT_RUNS

    assert max(AUDIT_RUNS) == limits.MAX_AUDIT_RUNS and max(AUDIT_CHOICES) <= limits.MAX_AUDIT_RUNS
    assert max(ROW_CAPS) <= limits.MAX_ROWS and max(_widget_maxima("row")) <= limits.MAX_ROWS
    assert len(EPSILON_CHOICES) <= limits.MAX_EPSILONS
    assert limits.MAX_JSON_BYTES == limits.MAX_BYTES and limits.MAX_ZIP_MEMBER_BYTES >= limits.MAX_BYTES

"""Templates that are code: slots filled, unfilled ones refused, the result compiles."""
from __future__ import annotations

import ast

import pytest

from core.bundle.template import TEMPLATES, Template


def _filled() -> Template:
    return Template("rerun").fill_values(BUNDLE_TITLE="T", RERUN_COMMAND="python rerun.py", DATA_SENTENCE="D",
                                         PAGE_NAME="compare")


def test_every_template_is_python_as_it_is():
    for path in TEMPLATES.glob("*.py"):
        ast.parse(path.read_text(encoding="utf-8"))


def test_filled_template_has_the_values_and_no_slots_line():
    text = _filled().finish()
    assert "page = page_module('compare')" in text
    assert "print('T')" in text
    assert "core.bundle.slots" not in text


def test_unfilled_slot_is_refused():
    with pytest.raises(ValueError, match="unfilled slot.*DATA_SENTENCE"):
        Template("rerun").fill_values(BUNDLE_TITLE="T", RERUN_COMMAND="c", PAGE_NAME="x").finish()


def test_unknown_slot_is_refused():
    with pytest.raises(ValueError, match="no slot 'NOPE'"):
        Template("rerun").fill_values(NOPE=1)


def test_a_slot_is_filled_once():
    with pytest.raises(ValueError, match="already filled"):
        Template("rerun").fill_values(BUNDLE_TITLE="a").fill_values(BUNDLE_TITLE="b")


def test_unknown_template_names_the_known_ones():
    with pytest.raises(ValueError, match="rerun"):
        Template("nope")


def test_code_goes_in_as_given():
    template = Template("rerun")
    template.fill_code(PAGE_NAME="name_of_page")
    text = template.fill_values(BUNDLE_TITLE="T", RERUN_COMMAND="c", DATA_SENTENCE="d").finish()
    assert "page_module(name_of_page)" in text


def test_values_are_written_as_literals_not_code():
    text = (Template("rerun").fill_values(BUNDLE_TITLE="x'); import os; os.system('y", RERUN_COMMAND="c",
                                          DATA_SENTENCE="d", PAGE_NAME="m").finish())
    tree = ast.parse(text)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "system"]
    assert calls == []

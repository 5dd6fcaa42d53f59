"""Code from templates that are code: fill named slots, refuse unfilled ones (DP Wizard's approach).

A template is a Python file under ``core/bundle/templates/`` that linters and ``compile``
read as it is: its first line imports its slots from :mod:`core.bundle.slots`
(``from core.bundle.slots import A, B  # slots``). :meth:`Template.fill_values` puts a value's
``repr`` where a slot's name stands, :meth:`Template.fill_code` puts code (an identifier, an
expression) there, and :meth:`Template.finish` drops the slots line, refuses a template with a
slot left, and checks that the result compiles.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["TEMPLATES", "Template"]

#: The folder of the templates.
TEMPLATES = Path(__file__).with_name("templates")
_SLOTS_LINE = re.compile(r"^from core\.bundle\.slots import (?P<names>[A-Z_, ]+)  # slots\n", re.M)


class Template:
    """One template, filled slot by slot.

    Parameters
    ----------
    name : str
        The template's file name under ``core/bundle/templates/`` without ``.py``.
    """

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"name must be a string, got {type(name).__name__}.")
        path = TEMPLATES / f"{name}.py"
        if not path.is_file():
            known = sorted(p.stem for p in TEMPLATES.glob("*.py"))
            raise ValueError(f"there is no template {name!r}; the templates are {known}.")
        text = path.read_text(encoding="utf-8")
        match = _SLOTS_LINE.search(text)
        if match is None:
            raise ValueError(f"the template {name!r} has no slots line (from core.bundle.slots import ...  # slots).")
        self.name = name
        self.slots = tuple(n.strip() for n in match.group("names").split(","))
        self._text = text[:match.start()] + text[match.end():]
        self._filled: set[str] = set()

    def _fill(self, slot: str, text: str) -> None:
        if slot not in self.slots:
            raise ValueError(f"the template {self.name!r} has no slot {slot!r}; its slots are {list(self.slots)}.")
        if slot in self._filled:
            raise ValueError(f"the slot {slot!r} is already filled.")
        self._text = re.sub(rf"\b{slot}\b", lambda _: text, self._text)
        self._filled.add(slot)

    def fill_values(self, **values: Any) -> "Template":
        """Put ``repr(value)`` where each slot's name stands (strings, numbers, None, lists, dicts)."""
        for slot, value in values.items():
            self._fill(slot, repr(value))
        return self

    def fill_code(self, **code: str) -> "Template":
        """Put code (an identifier or an expression, as given) where each slot's name stands."""
        for slot, text in code.items():
            if not isinstance(text, str) or not text.strip():
                raise TypeError(f"the code for {slot!r} must be a non-empty string.")
            self._fill(slot, text)
        return self

    def finish(self) -> str:
        """The filled code; ValueError when a slot is left unfilled or the result does not compile."""
        left = [s for s in self.slots if s not in self._filled]
        if left:
            raise ValueError(f"the template {self.name!r} has unfilled slot(s) {left}.")
        compile(self._text, f"<{self.name}>", "exec")
        return self._text

"""Every file format of the project and its version: what each reader accepts, migrates or refuses.

A config or bundle carries ``"format": "<kind>/<version>"`` (``pux-compare/1``,
``pux-solve/1``, ``pux-page/1``, ``pux-bundle/1``, ``pux-release/1``). :func:`check_format`
reads that field before anything else: the current version passes, an older version that
this code can still read is migrated (:data:`MIGRATIONS`: one function per step, each
saying what it changed), and anything else is refused in one sentence that says what to
change. A file without the field is refused the same way (it names the field to add).
"""
from __future__ import annotations

from typing import Any, Callable

from core.validation import check_choice

__all__ = ["CURRENT", "MIGRATIONS", "check_format", "format_version"]

#: The version each reader writes and reads, by kind.
CURRENT: dict[str, int] = {
    "pux-compare": 1,
    "pux-solve": 1,
    "pux-page": 1,
    "pux-bundle": 1,
    "pux-release": 1,
}

#: ``(kind, from_version) -> migrate(data) -> data`` one version up. Empty while every kind is
#: at its first version; a format change adds its step here and a test of it.
MIGRATIONS: dict[tuple[str, int], Callable[[dict[str, Any]], dict[str, Any]]] = {}

_WHAT = {
    "pux-compare": "a compare config (what Compare's \"Settings\" download and pux compare read)",
    "pux-solve": "a solve config (pux solve)",
    "pux-page": "a page config (a method page's settings, in a bundle)",
    "pux-bundle": "a bundle's manifest (bundle.json)",
    "pux-release": "a release's JSON sidecar",
}


def format_version(value: Any) -> tuple[str, int] | None:
    """``("pux-compare", 1)`` for ``"pux-compare/1"``; None for anything else."""
    if not isinstance(value, str) or value.count("/") != 1:
        return None
    kind, _, version = value.partition("/")
    if not version.isdigit():
        return None
    return kind, int(version)


def check_format(data: Any, kind: str) -> dict[str, Any]:
    """``data`` at the current version of ``kind``: as it is, migrated, or refused.

    Parameters
    ----------
    data : dict
        A parsed JSON object with a ``format`` field.
    kind : str
        The kind the reader expects (a key of :data:`CURRENT`).

    Returns
    -------
    dict
        ``data`` itself when it is current, else a migrated copy with the current ``format``.

    Raises
    ------
    TypeError
        ``data`` is not a JSON object.
    ValueError
        One sentence: no ``format`` field, another kind of file, a newer version than this
        code reads (upgrade the project), or an older one with no migration (what to change).
    """
    check_choice(kind, CURRENT, name="kind")
    if not isinstance(data, dict):
        raise TypeError(f"{_WHAT[kind]} must be a JSON object, got {type(data).__name__}.")
    current = CURRENT[kind]
    parsed = format_version(data.get("format"))
    if parsed is None:
        raise ValueError(f'this is not {_WHAT[kind]}: it needs "format": "{kind}/{current}", '
                         f"got {data.get('format')!r}.")
    got_kind, version = parsed
    if got_kind != kind:
        raise ValueError(f'this is not {_WHAT[kind]} but a "{got_kind}" file; it needs "format": '
                         f'"{kind}/{current}".')
    if version > current:
        raise ValueError(f"this file's format is {kind}/{version}, newer than this version of the project reads "
                         f"({kind}/{current}): upgrade the project (git pull, make setup) to read it.")
    out = data
    while version < current:
        step = MIGRATIONS.get((kind, version))
        if step is None:
            raise ValueError(f"{kind}/{version} is no longer read (this version reads {kind}/{current}): "
                             f'save the settings again from the app, or change "format" to '
                             f'"{kind}/{current}" and add the fields it lacks.')
        out = dict(step(dict(out)))
        version += 1
        out["format"] = f"{kind}/{version}"
    return out

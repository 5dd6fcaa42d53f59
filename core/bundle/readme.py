"""A bundle's README.md: what it is, what it discloses, what each file is, the one command
that reruns it (``pux rerun``, which runs nothing from the bundle; the bundled script and
notebook are said to be code), and the versions it was made with (written for someone who
never saw the app)."""
from __future__ import annotations

import re
from typing import Any, Mapping

__all__ = ["FILE_WORDS", "PUBLISH_WORDS", "readme_text", "markdown_text"]

#: What each file of a bundle is (``releases/`` and ``data/`` by folder).
FILE_WORDS = {
    "README.md": "this file",
    "bundle.json": "the manifest: format, kind, page, what the bundle discloses, versions, every file",
    "config.json": "the settings: dataset, column roles, public schema, every seed and setting",
    "report.html": "the report: every number, beside its reference (opens offline in any browser)",
    "result.json": "every number of the report as JSON, and each release's guarantee and shape",
    "rerun.py": ("the script that recomputes result.json with this project's core and compares: it is code, "
                 "read it before you run it"),
    "rerun.ipynb": "the same script as a Jupyter notebook (the same cells, in order): code too",
    "releases/": "the released tables: a plain CSV each, with a JSON sidecar saying its guarantee",
    "data/": "the private table itself (included because the person who exported it asked)",
}
#: What differs in a bundle to publish, which holds no seed and no number computed on the rows.
PUBLISH_WORDS = {
    "config.json": "the settings: dataset, column roles, public schema and settings (no seed, no fingerprint)",
    "report.html": "the report: each release's guarantee and shape, and the settings (opens offline in any browser)",
    "result.json": "each release's guarantee and shape (no number computed on the private rows)",
    "rerun.py": ("the script that draws the releases again from the private table (only its holder can run "
                 "it): it is code, read it before you run it"),
}


#: invisible, and not a character of a web address: a renderer's autolinks stop at it
_JOINER = "\u2060"
#: what makes markup inside a line of running text (a link, an image, HTML, emphasis, code,
#: strike-through, math, a table cell, an entity), escaped with a backslash
_INLINE = re.compile(r"([\\`*_\[\]<>$~|&])")
_AUTOLINK = ((re.compile(r"://"), ":" + _JOINER + "//"), (re.compile(r"(www)(?=\.)", re.IGNORECASE), r"\1" + _JOINER),
             (re.compile(r"@"), "@" + _JOINER))


def markdown_text(value: Any) -> str:
    """``value`` (a sentence naming the user's dataset, file or columns) as one line of
    markdown that shows as typed: what makes inline markup is escaped, and a bare address
    (``http://``, ``www.``, ``name@host``), which GitHub links even when escaped, is broken
    by an invisible word joiner. Sentences stay readable in a text editor (``.``, ``-``,
    ``(`` and ``#`` inside a line make no markup and are left alone)."""
    text = re.sub(r"[\r\n]+", " ", str(value))
    for pattern, replacement in _AUTOLINK:
        text = pattern.sub(replacement, text)
    return _INLINE.sub(r"\\\1", text)


def _code(name: str) -> str:
    """A file name inside inline code, which shows everything as typed but a backtick."""
    return re.sub(r"[\r\n]+", " ", str(name)).replace("`", "'")


def _word(name: str, kind: str = "colleague") -> str:
    words = {**FILE_WORDS, **PUBLISH_WORDS} if kind == "publish" else FILE_WORDS
    folder = name.split("/", 1)[0] + "/" if "/" in name else name
    return words.get(name, words.get(folder, ""))


def readme_text(manifest: Mapping[str, Any]) -> str:
    """The README of a bundle whose ``bundle.json`` is ``manifest`` (its file list without the
    README and the manifest, which are added)."""
    files = dict(manifest["files"])
    lines = [f"# {markdown_text(manifest['title'])}", "",
             f"A bundle of the privacy-utility explorer, made {manifest['created']} ({manifest['kind']}).", "",
             "## What it discloses", "", markdown_text(manifest["disclosure"]), "",
             "## Rerun it", "",
             "With the privacy-utility explorer installed (same version: see below):", "",
             "    pux rerun THIS.zip", "",
             "reads this bundle as data and recomputes every number with the installed project; it runs "
             "nothing from the bundle.", "",
             "`rerun.py` and `rerun.ipynb` are code: whoever made or passed on this zip could have changed "
             "them, and running them runs whatever they hold on your machine. Read them before you run them "
             f"(in the unpacked folder: `{manifest['rerun']}`). `pux rerun THIS.zip --run-script` runs `rerun.py` "
             "only when it is byte for byte the script your installed version writes from this bundle's "
             "config, and shows the difference otherwise.", "",
             markdown_text(manifest["data"]), "",
             *(["A bundle to publish holds no seed and no data: a rerun draws new releases from the private "
                "table, so only its holder can rerun it; for anyone else the releases and their guarantees "
                "are the result.", ""] if manifest["kind"] == "publish" else []),
             "Either way every number of result.json is recomputed with the project's `core` (no dashboard) "
             "and compared, number by number (the script also writes rerun.json in the same shape). Releases drawn "
             "from fresh noise differ by design: for them it checks the guarantee and the shape.", "",
             "## Files", ""]
    rows = {**files, "README.md": None, "bundle.json": None}
    for name in sorted(rows):
        size = f" ({rows[name]:,} bytes)" if rows[name] is not None else ""
        lines.append(f"- `{_code(name)}`{size}: {_word(name, manifest['kind'])}")
    lines += ["", "## Versions it was made with", ""]
    lines += [f"- {k}: {v}" for k, v in manifest["versions"].items()]
    return "\n".join(lines) + "\n"

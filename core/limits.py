"""Every input limit in one place: uploads, configs, JSON files and zips (bundles).

Each limit is a named number derived from the project's own maxima, so that nothing a page
or a command writes is ever refused, and nothing larger starts unbounded work:

- **uploads**: the one upload limit (MB and bytes) and the most columns a table keeps, which
  :mod:`core.data.csv_loader` enforces (this module imports nothing of the project's);
- **config values** (``pux compare``, ``solve``, ``bundle`` and the pages' downloaded configs):
  the most repetitions, epochs and audit runs any page's widget offers, the longest epsilon
  grid any page or command needs, and the most rows a file within the upload limit can hold;
- **JSON** (configs, schemas, bundles' manifests and results, sidecars): the upload limit in
  bytes and a nesting depth far above what any file of the project holds, checked *before*
  parsing (:func:`load_json`, the depth by a linear scan of the brackets outside strings);
- **zips** (``pux rerun``): the bytes of one member and of all of them, the count of entries
  and the compression ratio, read from the zip's directory before anything is decompressed
  (:func:`check_zip`, :func:`read_member`).

Every refusal is one sentence naming the field, its value and the limit (a ValueError).
"""
from __future__ import annotations

import json
import numbers
import re
import zipfile
from typing import Any, Mapping

__all__ = [
    "MAX_UPLOAD_MB", "MAX_BYTES", "MAX_COLUMNS",
    "MAX_REPETITIONS", "MAX_EPOCHS", "MAX_AUDIT_RUNS", "MAX_EPSILONS", "MAX_ROWS", "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH", "MAX_SCHEMA_BYTES", "MAX_ZIP_MEMBER_BYTES", "MAX_ZIP_TOTAL_BYTES", "MAX_ZIP_ENTRIES",
    "MAX_ZIP_RATIO", "RATIO_FROM_BYTES", "MAX_SCRIPT_SECONDS", "CONFIG_LIMITS", "check_limit",
    "check_config_limits", "load_json", "json_depth_exceeds", "check_zip", "read_member",
]

# ----------------------------------------------------------------------------- uploads
#: The one upload limit, in MB as Streamlit counts them (2**20 bytes): the dashboard's
#: ``server.maxUploadSize`` in ``.streamlit/config.toml`` holds the same number (a test
#: checks it). Chosen from ``benchmarks/bench_upload_memory.py``: reading and encoding a
#: CSV peaks at about 5.6 MB of server memory per MB of file (12.2 before the typed
#: parse; reading alone about 2), so a 50 MB upload costs about 0.28 GB; the whole
#: server's rise on the Data page is at most 5.1x the file (``bench_upload_cycle``).
MAX_UPLOAD_MB = 50
#: Largest input read, in bytes (paths, bytes and file objects alike).
MAX_BYTES = MAX_UPLOAD_MB * 2**20
#: Wider files keep their first ``MAX_COLUMNS`` columns (with a note, :mod:`core.data.csv_loader`).
MAX_COLUMNS = 200

# ----------------------------------------------------------------------------- config values
#: Repetitions per point: the most a page offers (CDP-LR's and Publishing's sliders, the SSKM
#: studies' input: 1 to 20; Compare's input stops at 10).
MAX_REPETITIONS = 20
#: Training epochs: the most a page offers (the IMPOSTER page's inputs: 1 to 1,000; Compare's
#: input stops at 200).
MAX_EPOCHS = 1000
#: Audit runs per side: the most a page offers (the audit panel's choices, up to 5,000).
MAX_AUDIT_RUNS = 5000
#: Epsilons in one grid: five times the longest grid a page offers (CDP-LR's 10 points).
MAX_EPSILONS = 50
#: Rows (a row cap, a record count): the most rows a file within the upload limit can hold,
#: one byte and a line break each (the pages' row inputs stop at 50,000).
MAX_ROWS = MAX_BYTES // 2

#: Which config field (by its name, at any depth of the config) takes which limit, in words.
CONFIG_LIMITS: dict[str, tuple[int, str]] = {
    "repetitions": (MAX_REPETITIONS, "repetitions"), "sweep_repetitions": (MAX_REPETITIONS, "repetitions"),
    "epochs": (MAX_EPOCHS, "epochs"), "imposter_epochs": (MAX_EPOCHS, "epochs"),
    "sweep_epochs": (MAX_EPOCHS, "epochs"), "audit_runs": (MAX_AUDIT_RUNS, "runs per side"),
    "sound_runs": (MAX_AUDIT_RUNS, "runs per side"), "paper_runs": (MAX_AUDIT_RUNS, "runs per side"),
    "max_rows": (MAX_ROWS, "rows"), "mic_rows": (MAX_ROWS, "rows"), "dcr_records": (MAX_ROWS, "rows"),
    "heatmap_records": (MAX_ROWS, "rows"),
}
#: Config fields holding a grid whose length is limited.
GRID_FIELDS = ("epsilons", "a_values", "thetas", "lambdas", "grids", "sweep_grids")

# ----------------------------------------------------------------------------- JSON
#: Bytes of one JSON file: the upload limit (no file the project writes describes more than the
#: largest table it reads).
MAX_JSON_BYTES = MAX_BYTES
#: Nesting depth of one JSON file (the project's deepest, a bundle's result, nests about 8 levels).
MAX_JSON_DEPTH = 64
#: Bytes of one schema file: 10 kB for each of the :data:`MAX_COLUMNS` columns.
MAX_SCHEMA_BYTES = MAX_COLUMNS * 10_000

# ----------------------------------------------------------------------------- zips
#: Bytes of one member once unpacked: twice the upload limit (a bundled table written again as CSV).
MAX_ZIP_MEMBER_BYTES = 2 * MAX_BYTES
#: Bytes of all members once unpacked: four times the upload limit (the table, report, releases).
MAX_ZIP_TOTAL_BYTES = 4 * MAX_BYTES
#: Entries in one zip: the fixed files and two files (table and sidecar) per release, for a
#: release per method of a Compare grid as long as :data:`MAX_EPSILONS` (at most 10 methods).
MAX_ZIP_ENTRIES = 16 + 2 * 10 * MAX_EPSILONS
#: Unpacked size over packed size of one member (a table of CSV text stays below 30).
MAX_ZIP_RATIO = 200
#: Members smaller than this are not held to :data:`MAX_ZIP_RATIO` (a short file of repeats is harmless).
RATIO_FROM_BYTES = 2**20
#: Seconds a bundle's script may run under ``pux rerun --run-script``.
MAX_SCRIPT_SECONDS = 1800

_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_limit(name: str, value: Any, limit: int, *, unit: str = "") -> Any:
    """``value`` unchanged when it is not a number or at most ``limit``; else a ValueError.

    Parameters
    ----------
    name : str
        The field, as the sentence names it.
    value : any
        Its value (anything but a number passes: the field's own check says what it must be).
    limit : int
        The largest value allowed.
    unit : str
        What is counted, in words (``"rows"``).
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}.")
    if _is_number(value) and value > limit:
        words = f" {unit}" if unit else ""
        raise ValueError(f"{name} is {value:,}; the limit is {limit:,}{words}.")
    return value


def check_config_limits(config: Any, *, what: str = "the config") -> None:
    """Refuse a config whose repetitions, epochs, audit runs, rows or grids pass their limits.

    Every field of :data:`CONFIG_LIMITS` and :data:`GRID_FIELDS` is checked at any depth of
    ``config`` (a Tour's stories nest the pages' settings); other fields are left to the
    config's own checks.

    Raises
    ------
    ValueError
        One sentence naming the field (its path), its value and the limit.
    """
    stack: list[tuple[str, Any]] = [("", config)]
    while stack:
        path, node = stack.pop()
        items = node.items() if isinstance(node, Mapping) else ()
        for key, value in items:
            name = f"{path}.{key}" if path else str(key)
            if key in CONFIG_LIMITS:
                limit, unit = CONFIG_LIMITS[key]
                check_limit(f"{what}'s {name}", value, limit, unit=unit)
            elif key in GRID_FIELDS and isinstance(value, (list, tuple)) and len(value) > MAX_EPSILONS:
                raise ValueError(f"{what}'s {name} lists {len(value):,} values; the limit is {MAX_EPSILONS}.")
            elif isinstance(value, Mapping):
                stack.append((name, value))


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether ``text`` nests brackets deeper than ``limit`` outside strings (one linear scan,
    stopped at the first bracket past the limit)."""
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return True
        elif token in "]}":
            depth -= 1
    return False


def load_json(text: str | bytes, *, what: str, max_bytes: int | None = None) -> Any:
    """Parse JSON after checking its size and nesting depth; every error one sentence naming ``what``.

    Parameters
    ----------
    text : str or bytes
        The JSON (bytes are read as UTF-8, a BOM allowed).
    what : str
        The file, as a sentence names it (``"bundle.json in result.zip"``).
    max_bytes : int, optional
        The size limit (default :data:`MAX_JSON_BYTES`).

    Raises
    ------
    TypeError
        ``text`` is not a string or bytes.
    ValueError
        Too large, nested too deep, not UTF-8 or not valid JSON, in one sentence.
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise TypeError(f"text must be a string or bytes, got {type(text).__name__}.")
    if not isinstance(what, str):
        raise TypeError(f"what must be a string, got {type(what).__name__}.")
    limit = MAX_JSON_BYTES if max_bytes is None else max_bytes
    if len(text) > limit:
        raise ValueError(f"{what} is {len(text):,} bytes; the limit is {limit:,} bytes.")
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ValueError(f"{what} is not UTF-8 text.") from None
    if json_depth_exceeds(text):
        raise ValueError(f"{what} nests more than {MAX_JSON_DEPTH} levels deep; the limit is {MAX_JSON_DEPTH}.")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}).") from None
    except (ValueError, RecursionError) as exc:  # a number of too many digits
        raise ValueError(f"{what} is not valid JSON ({exc}).") from None


def check_zip(archive: zipfile.ZipFile, *, what: str) -> list[zipfile.ZipInfo]:
    """The zip's entries, refused before anything is decompressed when they pass a limit.

    Checks, from the zip's directory: the count of entries (:data:`MAX_ZIP_ENTRIES`), each
    member's unpacked bytes (:data:`MAX_ZIP_MEMBER_BYTES`) and ratio (:data:`MAX_ZIP_RATIO`),
    and the unpacked bytes of all members (:data:`MAX_ZIP_TOTAL_BYTES`).

    Raises
    ------
    ValueError
        One sentence naming the zip, the member, its value and the limit.
    """
    if not isinstance(archive, zipfile.ZipFile):
        raise TypeError(f"archive must be a ZipFile, got {type(archive).__name__}.")
    infos = archive.infolist()
    if len(infos) > MAX_ZIP_ENTRIES:
        raise ValueError(f"{what} holds {len(infos):,} entries; the limit is {MAX_ZIP_ENTRIES:,}.")
    total = 0
    for info in infos:
        if info.file_size > MAX_ZIP_MEMBER_BYTES:
            raise ValueError(f"{what}'s member {info.filename!r} unpacks to {info.file_size:,} bytes; "
                             f"the limit is {MAX_ZIP_MEMBER_BYTES:,} bytes.")
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size >= RATIO_FROM_BYTES and ratio > MAX_ZIP_RATIO:
            raise ValueError(f"{what}'s member {info.filename!r} is compressed {ratio:,.0f} to 1; "
                             f"the limit is {MAX_ZIP_RATIO} to 1.")
        total += info.file_size
        if total > MAX_ZIP_TOTAL_BYTES:
            raise ValueError(f"{what} unpacks to more than {MAX_ZIP_TOTAL_BYTES:,} bytes; "
                             f"the limit is {MAX_ZIP_TOTAL_BYTES:,} bytes.")
    return infos


def read_member(archive: zipfile.ZipFile, name: str, *, what: str, max_bytes: int | None = None) -> bytes:
    """One member's bytes, read in memory and never past ``max_bytes`` (default
    :data:`MAX_ZIP_MEMBER_BYTES`) whatever the zip's directory says.

    Raises
    ------
    ValueError
        The member is missing, larger than the limit or damaged, in one sentence naming ``what``.
    """
    limit = MAX_ZIP_MEMBER_BYTES if max_bytes is None else max_bytes
    try:
        with archive.open(name) as member:
            data = member.read(limit + 1)
    except KeyError:
        raise ValueError(f"{what} has no {name}.") from None
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        raise ValueError(f"{what}'s member {name} cannot be read ({exc}).") from None
    if len(data) > limit:
        raise ValueError(f"{what}'s member {name} is more than {limit:,} bytes; the limit is {limit:,} bytes.")
    return data

"""``pux bundle`` and ``pux rerun``: make a bundle from a config, rerun one number by number.

- ``pux bundle --config FILE --out result.zip [--publish] [--include-data] [--data-dir DIR]
  [--csv PATH]``: a ``pux-compare/1`` or ``pux-page/1`` config as a bundle
  (:func:`core.bundle.build.build_bundle`): for a colleague by default, ``--publish`` for a
  bundle to publish (no seed, no exact statistic, releases from fresh entropy), refused in one
  sentence, with nothing written, while its public schema holds entries read from the data (an
  upload without a declared schema: confirm, declare or estimate them first). Compare's bundle
  holds Compare's own report (:func:`dashboard.compare.report.build_report`).
- ``pux rerun result.zip [--data PATH] [--every] [--rtol X] [--json FILE] [--run-script]``: read the
  bundle as data, in memory, with every limit of :mod:`core.limits` (nothing from the zip runs),
  recompute its numbers with the installed ``core`` (:func:`core.bundle.rerun.rerun_bundle`) and
  say number by number whether they match; ``--json`` writes the recomputed numbers.
  ``--run-script`` runs the bundle's own ``rerun.py`` instead, only when it is byte for byte the
  script this version writes from the bundle's config (else the difference is shown and it is
  refused), under a time limit, after printing its SHA-256. A bundle without its data, run
  without ``--data`` (nor ``$PUX_DATA_DIR`` for a public dataset), is refused in one sentence
  before any work (:func:`core.bundle.rerun.data_missing`). Exit 0 when every number matches, 1
  otherwise, 2 for a file that is not a bundle or a config that cannot be read. One sentence on
  error, never a traceback.

Every file written (the bundle, ``--json``) is written whole or not at all
(:func:`core.runtime.atomic.atomic_write`).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


__all__ = ["add_commands", "check_schema_file"]


def _fail(message: str, code: int) -> int:
    print(f"pux: {message}", file=sys.stderr)
    return code


def check_schema_file(config) -> None:
    """A config's schema file (a ``schema`` path, relative to the config's folder) checked for its
    size and depth before anything parses it (:func:`core.limits.load_json`); a ValueError in one
    sentence naming the file. A missing file is left to the config's own reading."""
    from core.limits import MAX_SCHEMA_BYTES, load_json

    schema = getattr(config, "schema", None)
    if not isinstance(schema, str):
        return
    path = Path(schema).expanduser()
    path = path if path.is_absolute() else getattr(config, "_folder", Path.cwd()) / path
    if not path.is_file():
        return
    if path.stat().st_size > MAX_SCHEMA_BYTES:
        raise ValueError(f"the schema file {path} is {path.stat().st_size:,} bytes; the limit is "
                         f"{MAX_SCHEMA_BYTES:,} bytes.")
    load_json(path.read_bytes(), what=f"the schema file {path}")


def _compare_parts(config, dataset) -> tuple[dict, str, float]:
    """Compare's numbers, its own report and the seconds they took."""
    from core.compare.config import compare_dataset
    from dashboard.compare.report import build_report

    start = time.perf_counter()
    result = compare_dataset(config, dataset)
    seconds = time.perf_counter() - start
    return result.to_dict(), build_report(result, config=config, dataset=dataset), seconds


def _load(path: Path, data_dir: Path | None, csv: Path | None):
    """The config (as given and as a page config) and its dataset."""
    from core.bundle.configs import as_page_config, read_bundle_config
    from core.bundle.page_config import load_page_dataset
    from core.compare.config import CompareConfig
    from core.data.config_files import parse_json, read_config_text
    from core.data.formats import format_version
    from core.limits import check_config_limits

    data = parse_json(read_config_text(path)[0])
    check_config_limits(data)  # a page's settings too, before any work
    kind = format_version(data.get("format")) if isinstance(data, dict) else None
    if kind and kind[0] == "pux-compare":
        config = CompareConfig.from_dict(data)
        object.__setattr__(config, "_folder", path.resolve().parent)  # where a relative schema path lives
        check_schema_file(config)
    else:
        config = read_bundle_config(data)
    page = as_page_config(config)
    return config, page, load_page_dataset(page, data_dir=data_dir, csv=csv)


def _cmd_bundle(args: argparse.Namespace) -> int:
    """Make a bundle; exit 0 written, 1 the data cannot be loaded or the run fails, 2 a bad config."""
    from core.bundle.build import build_bundle
    from core.runtime.atomic import atomic_write
    from core.compare.config import CompareConfig
    from core.validation import DataError

    try:
        config, page, dataset = _load(args.config, args.data_dir, args.csv)
    except DataError as exc:
        return _fail(str(exc), 1)
    except (TypeError, ValueError) as exc:
        return _fail(f"the config {args.config} cannot be used: {exc}", 2)
    kind = "publish" if args.publish else "colleague"
    try:
        extra: dict = {}
        if isinstance(config, CompareConfig) and kind == "colleague":
            numbers, report, seconds = _compare_parts(config, dataset)
            extra = {"numbers": numbers, "report_html": report, "numbers_seconds": seconds}
        bundle = build_bundle(page, dataset, kind=kind, include_data=args.include_data, **extra)
    except (DataError, ValueError, TypeError) as exc:
        return _fail(str(exc), 1)
    except KeyboardInterrupt:
        return _fail("stopped before the bundle was made; nothing was written.", 1)
    except Exception as exc:  # noqa: BLE001 - one sentence, never a traceback
        return _fail(f"the bundle failed ({type(exc).__name__}: {exc}).", 1)
    try:
        atomic_write(args.out, bundle.data)
    except OSError as exc:
        return _fail(str(exc), 1)
    except KeyboardInterrupt:
        return _fail("stopped while the bundle was written; nothing was written.", 1)
    print(f"wrote {args.out} ({len(bundle.data):,} bytes, {len(bundle.files)} files): {bundle.manifest['disclosure']}",
          file=sys.stderr)
    return 0


def _say_rerun(rerun, args: argparse.Namespace) -> int:
    """The rerun's lines on stdout; its exit code."""
    from core.bundle.check import report_lines

    if not rerun.checks:
        return _fail(f"the bundle's script did not finish (exit {rerun.returncode}): {rerun.output}", 1)
    for line in report_lines(rerun.checks, every=args.every):
        print(line)
    ratio = "" if not rerun.original_seconds else f" ({rerun.seconds / rerun.original_seconds:.2f}x the original run)"
    print(f"rerun took {rerun.seconds:.1f} s{ratio}")
    if not args.run_script:
        same = ("it is the script this version writes from the bundle's config" if rerun.script_same else
                "it is NOT the script this version writes from the bundle's config")
        print(f"the bundle's rerun.py (SHA-256 {rerun.script_sha256}) was not run: {same}.")
    return 0 if rerun.ok else 1


def _cmd_rerun(args: argparse.Namespace) -> int:
    """Rerun a bundle and say number by number whether it matches."""
    from core.bundle.rerun import ScriptRefused, data_missing, open_bundle, rerun_bundle
    from core.runtime.atomic import atomic_write
    from core.validation import DataError

    try:
        missing = data_missing(args.bundle, data=args.data)  # one sentence before any work
        if missing is not None:
            return _fail(missing, 1)
        if args.run_script:
            print(f"running the bundle's rerun.py (SHA-256 {open_bundle(args.bundle).script_sha256})", file=sys.stderr)
        rerun = rerun_bundle(args.bundle, data=args.data, rtol=args.rtol, run_script=args.run_script)
    except ScriptRefused as exc:
        print("\n".join(exc.difference))
        return _fail(str(exc), 1)
    except DataError as exc:
        return _fail(str(exc), 1)
    except (TypeError, ValueError) as exc:
        return _fail(str(exc), 2)
    except KeyboardInterrupt:
        return _fail("stopped before the rerun finished; nothing was left behind.", 1)
    except OSError as exc:
        return _fail(f"the rerun could not use the disk ({exc.strerror or type(exc).__name__}); "
                     "nothing was left behind.", 1)
    except Exception as exc:  # noqa: BLE001 - one sentence, never a traceback
        return _fail(f"the rerun failed ({type(exc).__name__}: {exc}).", 1)
    if args.json is not None and rerun.result is not None:
        from core.papers.reproductions import json_default

        try:
            atomic_write(args.json, json.dumps(rerun.result, indent=2, default=json_default) + "\n")
        except OSError as exc:
            return _fail(str(exc), 1)
        print(f"wrote {args.json}", file=sys.stderr)
    return _say_rerun(rerun, args)


def add_commands(sub: argparse._SubParsersAction, *, help_data_dir: str) -> None:
    """Add ``bundle`` and ``rerun`` to the ``pux`` parser."""
    p_bundle = sub.add_parser("bundle", help="make a bundle a colleague can rerun (zip)")
    p_bundle.add_argument("--config", type=Path, required=True, help="a pux-compare/1 or pux-page/1 config")
    p_bundle.add_argument("--out", type=Path, required=True, help="the zip to write")
    p_bundle.add_argument("--publish", action="store_true",
                          help="a bundle to publish: fresh-noise releases, guarantees and schema only")
    p_bundle.add_argument("--include-data", action="store_true",
                          help="copy the private table (an uploaded CSV) into a colleague's bundle")
    p_bundle.add_argument("--data-dir", type=Path, default=None, help=help_data_dir)
    p_bundle.add_argument("--csv", type=Path, default=None, help="the CSV of a 'csv:<file name>' config")
    p_bundle.set_defaults(func=_cmd_bundle)
    p_rerun = sub.add_parser("rerun", help="recompute a bundle's numbers (running nothing from it) and compare")
    p_rerun.add_argument("bundle", type=Path, help="the bundle (zip)")
    p_rerun.add_argument("--data", type=Path, default=None,
                         help="the data a bundle without it needs: its CSV, or the folder of adult/nltcs")
    p_rerun.add_argument("--every", action="store_true", help="print every number, not only mismatches")
    p_rerun.add_argument("--rtol", type=float, default=1e-7, help="relative tolerance for numbers (default 1e-7)")
    p_rerun.add_argument("--json", type=Path, default=None, help="also write the recomputed numbers (JSON)")
    p_rerun.add_argument("--run-script", action="store_true",
                         help="run the bundle's own rerun.py (code!) instead, only when it is the script this "
                              "version writes from the bundle's config; under a time limit")
    p_rerun.set_defaults(func=_cmd_rerun)



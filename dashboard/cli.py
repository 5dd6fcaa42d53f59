"""Command line: ``pux dashboard | reproduce NAME | compare --config FILE --out FILE | data check``.

- ``pux dashboard [--port N] [--data-dir DIR]``: open the dashboard.
- ``pux reproduce NAME|list [--out FILE] [--seed N] [--quick] [--data-dir DIR]``: a paper's
  figure or table as JSON.
- ``pux compare --config run.json --out report.html [--data-dir DIR] [--csv PATH] [--json FILE]``:
  rerun the Compare page's saved settings (:class:`core.compare.config.CompareConfig`) and
  write its self-contained HTML report (:func:`dashboard.compare.report.build_report`), optionally
  the result as JSON (``ComparisonResult.to_dict()``: per summary row the audited lower bound
  ``audit_lower`` and the ceiling ``audit_ceiling`` of each DP point; a point whose bound
  exceeds its claim is also said on stderr). Exit 0 when written, 1 when the data
  cannot be loaded or the run fails, 2 for a config that cannot be read; errors are one
  sentence on stderr, never a traceback.
- ``pux solve --config solve.json [--out FILE] [--data-dir DIR] [--csv PATH]``: the epsilon
  range that meets a target for each method of a page's curve, with its uncertainty, as JSON
  (:func:`core.decide.run.run_solve`, ``"schema": "pux-solve/1"``); exit codes as ``compare``.
- ``pux bundle --config FILE --out result.zip [--publish]`` and ``pux rerun result.zip [--data PATH]``:
  a result as a bundle a colleague can rerun, and its rerun number by number
  (:mod:`dashboard.cli_bundle`).
- ``pux data check [--data-dir DIR]``: which datasets can be loaded.

``reproduce``, ``compare`` and ``dashboard`` take ``--scheduler ADDRESS`` (``local``,
``local:N`` or a Dask scheduler such as ``tcp://host:8786``; default ``$PUX_SCHEDULER``):
the work they hand to :mod:`core.runtime.compute` runs there, with the same numbers as here. A
scheduler that does not answer is one sentence and exit 1, within
:data:`core.runtime.compute.CONNECT_TIMEOUT` seconds.

Reproductions are registered by the paper packages: each ``core/<paper>/reproduce.py``
holds ``REPRODUCTIONS = {name: function}``, where a function takes keyword arguments
``data_dir``, ``quick``, ``random_state`` and ``progress`` and returns a
:class:`core.runtime.experiments.Reproduction` (parameters, seeds, every repetition, summary with
the checks it computes, and the paper's figures beside ours); the JSON written is its
``to_dict()``, with the run's wall time as ``seconds``.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from core.papers.reproductions import json_default, reproductions
from dashboard.cli_bundle import add_commands, check_schema_file

__all__ = ["main"]

SCHEDULER_HELP = ("where the work runs: 'local', 'local:N' (N worker processes here) or a Dask scheduler "
                  "such as tcp://host:8786 (default $PUX_SCHEDULER, else this process)")
def _use_scheduler(args: argparse.Namespace, say: Callable[[str], None]) -> int | None:
    """Point :mod:`core.runtime.compute` at ``--scheduler`` (through ``PUX_SCHEDULER``, so every task
    of the command goes there) and connect once; an exit code on error, else None."""
    from core.runtime import compute

    if getattr(args, "scheduler", None) is not None:
        try:
            compute.resolve_scheduler(args.scheduler)
        except ValueError as exc:
            return _fail(str(exc), 2)
        os.environ[compute.SCHEDULER_ENV] = args.scheduler
    try:
        if compute.resolve_scheduler() is None:
            return None
        compute.get_client()
    except ValueError as exc:
        return _fail(str(exc), 2)
    except compute.ComputeError as exc:
        return _fail(str(exc), 1)
    say(f"computing on {compute.describe_scheduler()}")
    return None


def _cmd_reproduce(args: argparse.Namespace) -> int:
    registry = reproductions()
    if args.name == "list" or args.name not in registry:
        if args.name != "list":
            print(f"pux: no reproduction called '{args.name}'.", file=sys.stderr)
        print("Available reproductions:", ", ".join(sorted(registry)) or "(none yet)")
        return 0 if args.name == "list" else 2
    if args.data_dir:
        os.environ["PUX_DATA_DIR"] = str(args.data_dir)
    start = time.perf_counter()

    def progress(message: str) -> None:
        print(f"[{time.perf_counter() - start:7.1f}s] {message}", file=sys.stderr, flush=True)

    failed = _use_scheduler(args, progress)
    if failed is not None:
        return failed
    from core.runtime.compute import ComputeError
    from core.runtime.experiments import Reproduction
    from core.validation import DataError

    try:
        result = registry[args.name](
            data_dir=args.data_dir, quick=args.quick, random_state=args.seed, progress=progress
        )
    except (DataError, ComputeError) as exc:
        print(f"pux: {exc}", file=sys.stderr)
        return 1
    if not isinstance(result, Reproduction) or result.name != args.name:
        raise TypeError(f"reproduction '{args.name}' must return a Reproduction named '{args.name}', "
                        f"got {type(result).__name__}.")
    result = dataclasses.replace(result, seconds=round(time.perf_counter() - start, 2))
    text = json.dumps(result.to_dict(), indent=2, default=json_default)
    if args.out:
        try:
            _write(Path(args.out), text)
        except OSError as exc:
            return _fail(str(exc), 1)
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        print(text)
    return 0


def _throttled(start: float, *, every: float = 0.3) -> Callable[[float, str], None]:
    """A ``progress(fraction, message)`` that prints at most one line per ``every`` seconds to stderr
    (and always the last report)."""
    last = [-math.inf]

    def progress(fraction: float, message: str) -> None:
        now = time.perf_counter()
        if now - last[0] >= every or fraction >= 1.0:
            last[0] = now
            print(f"[{now - start:7.1f}s] {fraction:4.0%} {message}", file=sys.stderr, flush=True)

    return progress


def _fail(message: str, code: int) -> int:
    print(f"pux: {message}", file=sys.stderr)
    return code


def _write(path: Path, text: str) -> None:
    """``text`` written whole or not at all (:func:`core.runtime.atomic.atomic_write`: on a full disk
    nothing is left at ``path``, and the error is one sentence)."""
    from core.runtime.atomic import atomic_write

    atomic_write(path, text)


def _cmd_compare(args: argparse.Namespace) -> int:
    """Run a saved comparison and write its report; one sentence on error, never a traceback.

    Exit codes: 0 written; 1 the data cannot be loaded, the run fails or a file cannot be
    written; 2 the config cannot be read (missing file, not JSON, unknown or missing fields,
    wrong types or values).
    """
    from core.compare.config import CompareConfig, compare_dataset, load_dataset
    from core.runtime.compute import ComputeError
    from core.validation import DataError

    start = time.perf_counter()
    try:
        config = CompareConfig.from_file(args.config)
        check_schema_file(config)
    except (TypeError, ValueError) as exc:
        return _fail(f"the config {args.config} cannot be used: {exc}", 2)
    failed = _use_scheduler(args, lambda message: print(f"pux: {message}", file=sys.stderr))
    if failed is not None:
        return failed
    try:
        dataset = load_dataset(config, data_dir=args.data_dir, csv=args.csv)
        result = compare_dataset(config, dataset, progress=_throttled(start))
    except (DataError, ValueError, TypeError, ComputeError) as exc:
        return _fail(str(exc), 1)
    except KeyboardInterrupt:
        return _fail("stopped before the comparison finished; nothing was written.", 1)
    except Exception as exc:  # noqa: BLE001 - one sentence, never a traceback
        return _fail(f"the comparison failed ({type(exc).__name__}: {exc}).", 1)
    from dashboard.compare.report import build_report

    try:
        _write(args.out, build_report(result, config=config, dataset=dataset))
        print(f"wrote {args.out}", file=sys.stderr)
        for _, row in result.audits.iterrows():  # the audit beside every DP point: a violation is said here too
            if row["audit_violation"] is True:
                print(f"pux: audit of {row['method']} at epsilon {row['epsilon']:g}: {row['audit_verdict']}",
                      file=sys.stderr)
        if args.json:
            _write(args.json, json.dumps(result.to_dict(), indent=2, default=json_default))
            print(f"wrote {args.json}", file=sys.stderr)
    except OSError as exc:
        return _fail(str(exc), 1)
    except KeyboardInterrupt:
        return _fail("stopped while the output was written; the file being written was not left behind.", 1)
    return 0


def _cmd_solve(args: argparse.Namespace) -> int:
    """Solve for epsilon (:func:`core.decide.run.run_solve`) and print its JSON, or write it to
    ``--out``; exit 0 done, 1 the data cannot be loaded or the run fails, 2 the config
    cannot be read. One sentence on error, never a traceback."""
    from core.decide.config import SolveConfig
    from core.decide.run import run_solve
    from core.validation import DataError

    start = time.perf_counter()
    try:
        config = SolveConfig.from_file(args.config)
        check_schema_file(config)
    except (TypeError, ValueError) as exc:
        return _fail(f"the config {args.config} cannot be used: {exc}", 2)
    try:
        answer = run_solve(config, data_dir=args.data_dir, csv=args.csv, progress=_throttled(start))
    except (DataError, ValueError, TypeError) as exc:
        return _fail(str(exc), 1)
    except KeyboardInterrupt:
        return _fail("stopped before the solve finished; nothing was written.", 1)
    except Exception as exc:  # noqa: BLE001 - one sentence, never a traceback
        return _fail(f"the solve failed ({type(exc).__name__}: {exc}).", 1)
    text = json.dumps(answer, indent=2, default=json_default)
    if args.out is None:
        print(text)
        return 0
    try:
        _write(args.out, text + "\n")
    except OSError as exc:
        return _fail(str(exc), 1)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


def _cmd_data_check(args: argparse.Namespace) -> int:
    """One line per dataset; exit 1 with one sentence per problem, never a traceback.

    A problem is a public dataset whose files are present but cannot be used (truncated,
    damaged, a different file), a data directory given that is not a folder, or any
    unexpected failure. Public files that are simply absent are reported, not failures.
    """
    from core.data import available_public, load_adult, load_nltcs, load_sample, resolve_data_dir
    from core.validation import DataError

    problems = 0
    for name in ("supplier", "census"):
        try:
            ds = load_sample(name)
            print(f"sample {name}: {ds.n_rows} rows x {ds.frame.shape[1]} columns")
        except Exception as exc:  # noqa: BLE001 - one sentence, never a traceback
            problems += 1
            print(f"sample {name}: problem: the sample cannot be built ({type(exc).__name__}).")
    root = resolve_data_dir(args.data_dir)
    if root is not None and not root.is_dir():
        print("data directory: problem: the data directory given is not a folder.")
        return 1
    try:
        avail = available_public(args.data_dir)
    except OSError:
        avail = {"adult": False, "nltcs": False}
    for name, loader in (("adult", load_adult), ("nltcs", load_nltcs)):
        try:
            ds = loader(args.data_dir)
            print(f"{name}: {ds.n_rows} rows x {ds.frame.shape[1]} columns")
        except DataError as exc:
            if avail[name]:
                problems += 1
                print(f"{name}: problem: {exc}")
            else:
                print(f"{name}: not available: {exc}")
        except Exception as exc:  # noqa: BLE001 - one sentence, never a traceback
            problems += 1
            print(f"{name}: problem: the files could not be read ({type(exc).__name__}).")
    return 1 if problems else 0


def _cmd_dashboard(args: argparse.Namespace) -> int:
    """Start Streamlit from the repository root (so .streamlit/config.toml applies).

    The data directory reaches the app only through the environment (``PUX_DATA_DIR``):
    viewers of the dashboard cannot name server paths.
    """
    root = Path(__file__).resolve().parents[1]
    app = root / "dashboard" / "app.py"
    cmd = [sys.executable, "-m", "streamlit", "run", str(app), "--server.port", str(args.port)]
    from dashboard.shared.serving.memory import server_env

    env = server_env()  # MALLOC_ARENA_MAX=2 unless set: freed memory goes back (make run does the same)
    if args.data_dir:
        data_dir = Path(args.data_dir).expanduser().resolve()
        if not data_dir.is_dir():
            print("pux: --data-dir is not a folder; give the folder that holds adult.data, "
                  "adult.test and nltcs.csv.", file=sys.stderr)
            return 2
        env["PUX_DATA_DIR"] = str(data_dir)
    if args.scheduler is not None:
        from core.runtime.compute import SCHEDULER_ENV, resolve_scheduler

        try:
            resolve_scheduler(args.scheduler)
        except ValueError as exc:
            return _fail(str(exc), 2)
        env[SCHEDULER_ENV] = args.scheduler
    return subprocess.call(cmd, cwd=str(root), env=env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pux", description="Privacy-utility explorer.")
    sub = parser.add_subparsers(dest="command", required=True)

    p_dash = sub.add_parser("dashboard", help="open the dashboard in the browser")
    p_dash.add_argument("--port", type=int, default=8501)
    p_dash.add_argument("--data-dir", type=Path, default=None, help="folder with Adult / NLTCS")
    p_dash.add_argument("--scheduler", default=None, help=SCHEDULER_HELP)
    p_dash.set_defaults(func=_cmd_dashboard)

    p_rep = sub.add_parser("reproduce", help="reproduce a figure or table of a paper (JSON)")
    p_rep.add_argument("name", help="reproduction name, or 'list'")
    p_rep.add_argument("--data-dir", type=Path, default=None, help="folder with Adult / NLTCS")
    p_rep.add_argument("--out", type=Path, default=None, help="JSON file to write (default stdout)")
    p_rep.add_argument("--seed", type=int, default=0, help="random seed of the whole run")
    p_rep.add_argument("--quick", action="store_true", help="fewer repetitions and a smaller grid")
    p_rep.add_argument("--scheduler", default=None, help=SCHEDULER_HELP)
    p_rep.set_defaults(func=_cmd_reproduce)

    p_cmp = sub.add_parser("compare", help="rerun a saved comparison and write its HTML report")
    p_cmp.add_argument("--config", type=Path, required=True, help="run.json saved by the Compare page")
    p_cmp.add_argument("--out", type=Path, required=True, help="HTML report to write")
    p_cmp.add_argument("--data-dir", type=Path, default=None, help="folder with Adult / NLTCS")
    p_cmp.add_argument("--csv", type=Path, default=None, help="the CSV of a 'csv:<file name>' config")
    p_cmp.add_argument("--json", type=Path, default=None, help="also write the result as JSON")
    p_cmp.add_argument("--scheduler", default=None, help=SCHEDULER_HELP)
    p_cmp.set_defaults(func=_cmd_compare)

    p_solve = sub.add_parser("solve", help="solve for the epsilon that meets a target (JSON)")
    p_solve.add_argument("--config", type=Path, required=True, help="a pux-solve/1 config (examples/solve.json)")
    p_solve.add_argument("--out", type=Path, default=None, help="JSON file to write (default stdout)")
    p_solve.add_argument("--data-dir", type=Path, default=None, help="folder with Adult / NLTCS")
    p_solve.add_argument("--csv", type=Path, default=None, help="the CSV of a 'csv:<file name>' config")
    p_solve.set_defaults(func=_cmd_solve)

    add_commands(sub, help_data_dir="folder with Adult / NLTCS")

    p_data = sub.add_parser("data", help="data utilities")
    data_sub = p_data.add_subparsers(dest="data_command", required=True)
    p_check = data_sub.add_parser("check", help="say which datasets can be loaded")
    p_check.add_argument("--data-dir", type=Path, default=None)
    p_check.set_defaults(func=_cmd_data_check)

    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

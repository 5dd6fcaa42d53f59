"""Run the benchmarks: ``python -m benchmarks [--quick] [--only NAME ...] [--out DIR]``.

Every ``benchmarks/bench_<name>.py`` holds ``run(*, quick: bool) -> dict``. Speeds are
reported as ratios against a reference measured in the same process (a bare matmul, an
anchor library), never as absolute targets. Each result is written to
``<out>/<name>.json`` and a summary to ``<out>/summary.json``.
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def discover() -> list[str]:
    return sorted(p.stem[len("bench_"):] for p in HERE.glob("bench_*.py"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--only", nargs="*", default=None, help="benchmark names to run")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument(
        "--data-dir", type=Path, default=None,
        help="folder with Adult / NLTCS (default: $PUX_DATA_DIR, else ../shared/data beside "
        "the repository when it exists; without data the benchmarks fall back to samples)",
    )
    args = parser.parse_args(argv)
    shared = HERE.parent.parent / "shared" / "data"
    if args.data_dir is not None:
        os.environ["PUX_DATA_DIR"] = str(args.data_dir)
    elif not os.environ.get("PUX_DATA_DIR") and shared.is_dir():
        os.environ["PUX_DATA_DIR"] = str(shared)
    names = args.only or discover()
    args.out.mkdir(parents=True, exist_ok=True)
    summary = {
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "data_dir": os.environ.get("PUX_DATA_DIR"),
        "quick": args.quick,
        "results": {},
    }
    failed = 0
    for name in names:
        print(f"== {name}", flush=True)
        start = time.perf_counter()
        try:
            mod = importlib.import_module(f"benchmarks.bench_{name}")
            result = mod.run(quick=args.quick)
            status = "ok"
        except Exception:  # a failing benchmark is reported, the others still run
            result = {"error": traceback.format_exc()}
            status = "error"
            failed += 1
        result = {"name": name, "status": status, "seconds": round(time.perf_counter() - start, 2), **result}
        (args.out / f"{name}.json").write_text(json.dumps(result, indent=2, default=str))
        summary["results"][name] = result
        print(json.dumps(result, indent=2, default=str), flush=True)
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2, default=str))
    print(f"wrote {args.out / 'summary.json'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

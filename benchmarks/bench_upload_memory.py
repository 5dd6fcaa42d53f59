"""Server memory per MB of uploaded CSV: ``load_csv`` then ``encode`` on a synthetic table.

The table is "wide-ish": 40 columns (24 decimal, 8 integer with a few empty cells,
8 categorical with 12 levels): :func:`synthetic_csv`, which ``bench_upload_cycle`` uploads
to a real server too. Each size runs in a fresh Python process, twice: once for the peak
resident set size above the process's size before loading (``VmHWM`` reset through
``/proc/self/clear_refs`` after the table is made, minus ``VmRSS``; ``ru_maxrss`` where the
kernel refuses the reset), once under ``tracemalloc`` (peak of the allocations Python and
numpy track). Both are divided by the CSV size: the figure is "MB of server memory per MB
uploaded".

Measured on the development container (2 shared cores, Python 3.11; peak RSS above the
process's size before loading, MB of memory per MB of CSV; 128 encoded columns):

=========================================  =========  =========  =========
code                                       10 MB      50 MB      100 MB
=========================================  =========  =========  =========
before (every cell parsed as a str,        11.6       12.2       -
frame copies, one-hot blocks stacked)      (116 MB)   (610 MB)
typed parse from the bytes, no full        6.0        6.4        -
copies, one preallocated X (pandas 2)      (60 MB)    (319 MB)
now (no ``strip()`` copy of the file, the  5.64       5.47       5.65
typed columns kept as parsed; pandas 3)    (56 MB)    (274 MB)   (564 MB)
=========================================  =========  =========  =========

tracemalloc now: 5.10, 5.08, 5.08. The same machine and pandas before the last change:
6.01 at 10 MB, 5.14 at 47 MB. ``load_csv`` alone now peaks at 1.9-2.0 MB per MB (2.4-2.75
before: a whole-file ``raw.strip()`` copy for the emptiness check, and the columns stacked
again into one block per type); about 3.6 of the total is the encoded float64 matrix itself
(128 columns x 8 bytes per 281-byte CSV row), which the Data page never builds.

The upload limit ``core.data.MAX_UPLOAD_MB`` = 50 MB (``server.maxUploadSize``) is chosen
from these figures: a 50 MB upload peaks near 0.28 GB here, so a few concurrent uploads fit
a small server (the old 200 MB limit meant about 2.4 GB per upload). The whole server's
rise during an upload on the Data page is measured by ``bench_upload_cycle`` (at most 5.1x
the file for a 47 MB table).
"""
from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Peak RSS per MB of CSV measured for each version of the code (see the docstring).
MEASURED = {"before": {"10MB": 11.56, "50MB": 12.21}, "typed": {"10MB": 5.99, "50MB": 6.38},
            "now": {"10MB": 5.64, "50MB": 5.47, "100MB": 5.65}}


def synthetic_csv(size_mb: float) -> bytes:
    """The benchmark's table as CSV bytes of about ``size_mb`` MB (10**6 bytes): 24 decimal
    columns, 8 integer columns with 1% empty cells, 8 categorical columns of 12 levels;
    the same bytes for the same size (seed 0). ``bench_upload_cycle`` uploads it too."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)

    def block(n):
        cols = {}
        for j in range(24):
            cols[f"d{j}"] = np.round(rng.normal(100, 30, n), 3)
        for j in range(8):
            v = rng.integers(0, 5000, n).astype(object)
            v[rng.random(n) < 0.01] = ""
            cols[f"i{j}"] = v
        levels = np.array([f"level_{k}" for k in range(12)])
        for j in range(8):
            cols[f"c{j}"] = levels[rng.integers(0, 12, n)]
        return pd.DataFrame(cols).to_csv(index=False).encode()

    rows = int(2000 * size_mb * 1e6 / len(block(2000)))
    return block(rows)


# The child runs in a fresh process on the checkout under test (an old one has no
# ``synthetic_csv``): the generator's source travels with it.
_CHILD = inspect.getsource(synthetic_csv) + r"""
import json, os, resource, sys, tracemalloc
sys.path.insert(0, sys.argv[1])
from core.data import encode, load_csv
import core.data.csv_loader as cl
size_mb, mode = float(sys.argv[2]), sys.argv[3]
raw = synthetic_csv(size_mb)
"""
_CHILD += r"""for attr in ("MAX_BYTES",):
    setattr(cl, attr, 10**12)
def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
before = status("VmRSS")
try:  # the high-water mark from here on, not the table's generation before
    open("/proc/self/clear_refs", "w").write("5")
    hwm = True
except OSError:
    hwm = False
if mode == "trace":
    tracemalloc.start()
ds = load_csv(raw)
enc = encode(ds)
out = {"csv_mb": len(raw) / 1e6, "rows": ds.n_rows, "columns": ds.frame.shape[1],
       "encoded_columns": enc.X.shape[1]}
if mode == "trace":
    out["peak_mb"] = tracemalloc.get_traced_memory()[1] / 1e6
else:
    peak = status("VmHWM") if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    out["peak_mb"] = (peak - before) / 1e6
print(json.dumps(out))
"""


def measure(size_mb: float, mode: str, root: Path = ROOT) -> dict:
    """One size in a fresh process: ``mode`` is "rss" or "trace"."""
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), str(size_mb), mode],
        capture_output=True, text=True, check=True,
    )
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["per_mb"] = round(out["peak_mb"] / out["csv_mb"], 2)
    out["peak_mb"] = round(out["peak_mb"], 1)
    out["csv_mb"] = round(out["csv_mb"], 1)
    return out


def run(*, quick: bool = False, root: Path = ROOT) -> dict:
    sizes = [2, 5] if quick else [10, 50, 100]
    results = {}
    for size in sizes:
        results[f"{size}MB"] = {mode: measure(size, mode, root) for mode in ("rss", "trace")}
    worst = max(r["rss"]["per_mb"] for r in results.values())
    return {
        "sizes_mb": sizes,
        "results": results,
        "rss_per_mb_worst": worst,
        "limit_mb": _limit(),
        "peak_at_limit_mb": round(worst * _limit(), 0),
    }


def _limit() -> int:
    sys.path.insert(0, str(ROOT))
    import core.data.csv_loader as cl

    return int(getattr(cl, "MAX_UPLOAD_MB", cl.MAX_BYTES // 2**20))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    root = Path(args[0]) if args else ROOT  # another checkout, to measure old code
    quick = "--quick" in sys.argv
    print(json.dumps(run(quick=quick, root=root), indent=2))

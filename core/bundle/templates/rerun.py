from core.bundle.slots import BUNDLE_TITLE, DATA_SENTENCE, PAGE_NAME, RERUN_COMMAND  # slots
# %% [markdown]
# # Rerun this bundle
#
# Run it in the unpacked folder (the notebook: open it there). It recomputes every number of
# `result.json` (the numbers `report.html` shows) with this project's `core` only: no
# dashboard, no hidden state. It writes `rerun.json`, the same shape as `result.json`, and
# says number by number whether the two match. Releases drawn from fresh noise differ by
# design: for them it checks the guarantee and the shape, not the values.

# %%
import argparse
import json
import os
import sys
import time
from pathlib import Path

from core.bundle.check import compare_trees, report_lines
from core.bundle.configs import read_bundle_config
from core.bundle.pages import page_module
from core.bundle.run_steps import bundle_data, release_shapes, seeded
from core.papers.reproductions import json_default
from core.privacy.noise_source import NoiseSource
from core.validation import DataError

page = page_module(PAGE_NAME)  # what the page computes: core/bundle/pages/<its module>.py
print(BUNDLE_TITLE)
print(DATA_SENTENCE)

# %% [markdown]
# ## 1. The settings: the public schema, every seed and setting (`config.json`)

# %%
here = Path.cwd()
parser = argparse.ArgumentParser(description=f"Rerun this bundle: {RERUN_COMMAND}")
parser.add_argument("--data", default=os.environ.get("PUX_BUNDLE_DATA"), help="the data: a CSV file, or the folder of adult/nltcs (default: $PUX_BUNDLE_DATA)")
args, _ = parser.parse_known_args()  # a notebook's kernel passes arguments of its own
config = read_bundle_config(here / "config.json")
print(json.dumps(config.settings, indent=2, default=json_default))

# %% [markdown]
# ## 2. The data, checked against the fingerprint the bundle was made from

# %%
try:
    dataset, schema = bundle_data(config, folder=here, data=args.data)
except (DataError, ValueError) as exc:  # no data, or other data than the bundle's: one sentence
    sys.exit(f"rerun: {exc}")
print(f"{dataset.name}: {dataset.n_rows} rows, {len(dataset.frame.columns)} columns")

# %% [markdown]
# ## 3. Every number, recomputed with `core`

# %%
start = time.perf_counter()
result = {}
if seeded(config):
    result["numbers"] = page.numbers(dataset, schema, seed=config.seed, settings=config.settings)
tables = page.releases(dataset, schema, noise=NoiseSource(None), settings=config.settings)
result["releases"] = release_shapes(tables)
print(f"recomputed in {time.perf_counter() - start:.1f} s")

# %% [markdown]
# ## 4. `rerun.json`, and how it compares with `result.json`

# %%
(here / "rerun.json").write_text(json.dumps(result, indent=2, default=json_default) + "\n", encoding="utf-8")
expected = json.loads((here / "result.json").read_text(encoding="utf-8"))
checks = compare_trees(expected, json.loads((here / "rerun.json").read_text(encoding="utf-8")))
for line in report_lines(checks):
    print(line)
if __name__ == "__main__" and "ipykernel" not in sys.modules:
    sys.exit(0 if all(c.ok for c in checks) else 1)

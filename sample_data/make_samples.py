"""Write the built-in synthetic samples to this folder: ``python sample_data/make_samples.py``.

The generators live in ``core/data/samples.py`` and are seeded, so the files are the same
on every run; a test checks that the committed CSVs match the generators.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.data.samples import SAMPLE_DIR, SAMPLES


def main() -> None:
    for spec in SAMPLES.values():
        frame = spec["make"]()
        path = SAMPLE_DIR / spec["file"]
        frame.to_csv(path, index=False)
        print(f"wrote {path} ({len(frame)} rows x {frame.shape[1]} columns)")


if __name__ == "__main__":
    main()

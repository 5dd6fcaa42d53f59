#!/usr/bin/env bash
# One setup step for everything: a virtual environment with the CPU build of torch,
# minepy built from its pinned sdist, and this project (editable) with its dev extra.
# Usage: bash scripts/setup_env.sh [VENV_DIR]   (default .venv). Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${1:-.venv}

PYTHON=${PYTHON:-}
if [ -z "$PYTHON" ]; then
  for cand in python3.11 python3 python; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)'; then
      PYTHON=$cand; break
    fi
  done
fi
if [ -z "$PYTHON" ]; then
  echo "setup: Python 3.11 is required (set PYTHON=/path/to/python3.11)." >&2
  exit 1
fi

[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
PY="$VENV/bin/python"
export PIP_DISABLE_PIP_VERSION_CHECK=1

# torch first and pinned: 2.13.0 is the CPU build on this project's machines; installing it
# before the project keeps pip from resolving a newer CUDA build as a dependency.
"$PY" -m pip install -q "torch==2.13.0"
bash scripts/install_minepy.sh "$PY"
"$PY" -m pip install -q -e ".[dev,bench]"
"$PY" -c "import torch, minepy, streamlit, sklearn, xgboost; print('setup OK: torch', torch.__version__, '| streamlit', streamlit.__version__)"

#!/usr/bin/env bash
# One setup step for everything: a virtual environment with the CPU build of torch,
# minepy built from its pinned sdist, and this project (editable) with its dev and bench
# extras -- every package at the version pinned in requirements/lock.txt.
# Usage: bash scripts/setup_env.sh [VENV_DIR]   (default .venv). Safe to re-run: a changed
#        lock moves the installed packages to its versions.
#        bash scripts/setup_env.sh --write-lock VENV_DIR   (what `make lock` runs): install
#        into a new VENV_DIR with no constraints (the newest versions pyproject.toml allows),
#        then write requirements/lock.txt from it.
set -euo pipefail
cd "$(dirname "$0")/.."
LOCK=requirements/lock.txt

WRITE_LOCK=0
if [ "${1:-}" = "--write-lock" ]; then
  WRITE_LOCK=1
  shift
  if [ -z "${1:-}" ] || [ -e "$1" ]; then
    echo "setup: --write-lock needs a new (not yet existing) VENV_DIR, so the lock comes from a fresh install." >&2
    exit 1
  fi
fi
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

# Every pip install below takes the lock as constraints: pip installs exactly the pinned
# version of every package it installs (and moves an installed one to it). A pin has no
# local suffix (torch==2.13.0, not +cpu), so torch's CPU or GPU build still comes from the
# platform's configured index.
CONSTRAINTS=()
if [ "$WRITE_LOCK" = 0 ]; then
  if [ ! -f "$LOCK" ]; then
    echo "setup: $LOCK is missing (make lock writes it)." >&2
    exit 1
  fi
  CONSTRAINTS=(-c "$LOCK")
fi

# --no-compile: no byte-compiling of every installed module (torch alone has thousands);
# Python compiles each module the first time it is imported and keeps the .pyc in the venv.
# It saves about a quarter of the install's CPU time (benchmarks/bench_install.py, with the first page).
PIP_INSTALL=("$PY" -m pip install -q --no-compile "${CONSTRAINTS[@]}")

# torch first and pinned: 2.13.0 is the CPU build on this project's machines; installing it
# before the project keeps pip from resolving a newer CUDA build as a dependency. minepy's
# build tools (setuptools < 81, wheel, Cython, numpy) come in the same pip run.
mapfile -t MINEPY_BUILD < <(bash scripts/install_minepy.sh --build-requirements)
"${PIP_INSTALL[@]}" "torch==2.13.0" "${MINEPY_BUILD[@]}"
bash scripts/install_minepy.sh "$PY" "${CONSTRAINTS[@]:1}"  # its pip installs take the lock too (none when writing it)
# --no-build-isolation: the editable build uses the venv's (locked) setuptools and wheel,
# installed above, instead of fetching them again into a throwaway build environment.
if ! "${PIP_INSTALL[@]}" --no-build-isolation -e ".[dev,bench]"; then
  if [ "$WRITE_LOCK" = 0 ]; then
    echo "setup: pip found no versions that satisfy both pyproject.toml and $LOCK. After changing" >&2
    echo "       pyproject.toml's dependencies run \`make lock\` (README, \"Upgrading the lock\")." >&2
  fi
  exit 1
fi
"$PY" -c "import torch, minepy, streamlit, sklearn, xgboost; print('setup OK: torch', torch.__version__, '| streamlit', streamlit.__version__)"

if [ "$WRITE_LOCK" = 1 ]; then
  mkdir -p "$(dirname "$LOCK")"
  {
    echo "# requirements/lock.txt -- every package of the installed stack, pinned (pip constraints format)."
    echo "# scripts/setup_env.sh installs with -c requirements/lock.txt, so every fresh machine gets these versions."
    echo "# Made by \`make lock\`: scripts/setup_env.sh --write-lock in a fresh temporary virtualenv (Python 3.11,"
    echo "# $(uname -s) $(uname -m)) installs torch, minepy (scripts/install_minepy.sh) and \`-e .[dev,bench]\` with no"
    echo "# constraints, then \`pip list --format=freeze --exclude-editable\` (pip itself left out). Local version"
    echo "# suffixes are dropped (torch==2.13.0, not +cpu): torch's CPU or GPU build comes from the platform's index."
    echo "# Upgrade: edit pyproject.toml, run \`make lock\`, run \`make test\` (tests/test_lock.py checks the two agree),"
    echo "# commit pyproject.toml and this file together. Do not edit by hand."
    "$PY" -m pip list --format=freeze --exclude-editable \
      | grep -viE '^pip==' \
      | sed -E 's/^([^=]+==[^+]+)\+.*$/\1/'
  } > "$LOCK.tmp"
  mv "$LOCK.tmp" "$LOCK"
  echo "wrote $LOCK ($(grep -vc '^#' "$LOCK") packages)"
fi

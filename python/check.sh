#!/usr/bin/env bash
# The Python package's check (docs/python.md), as CI runs it: a virtual environment under
# target/, maturin and pytest from pip, the package built from this repository by
# `pip install ./python` (as a user installs it), then its tests, which hold every answer
# and refusal to `puzzlebase query`.
#
#   python/check.sh [PUZZLEBASE_BINARY]
#
# The binary is the command line the tests compare with; without it they build the debug
# one (`cargo build --bin puzzlebase`). Debian's python3 and python3-venv are installed
# when missing.
set -euo pipefail
if [ $# -gt 0 ]; then
    PUZZLEBASE_BIN="$(realpath "$1")"
    export PUZZLEBASE_BIN
fi
cd "$(dirname "$0")/.."
venv=target/python-venv
if [ ! -x "$venv/bin/python" ]; then
    if ! command -v python3 >/dev/null || ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
        apt-get update
        apt-get install -y python3 python3-venv
    fi
    mkdir -p target
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check maturin pytest pyarrow
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check ./python
"$venv/bin/python" -m pytest python/tests

#!/usr/bin/env bash
# `export --format parquet` read by DuckDB and polars (issue 75), as CI runs it: a virtual
# environment under target/ with duckdb, polars and pyarrow from pip, a file with eight,
# eleven, english33 and pancake-10 (a two-bit table) built by the given binary, then
# tests/export/check.py, which compares 1,000 random rows of each Parquet file with
# `puzzlebase query --json` and prints each export's time and size.
#
#   tests/export/check.sh PUZZLEBASE_BINARY [PUZZLE...]
#
# Use a release binary: eleven's export is 239,500,800 rows. Debian's python3 and
# python3-venv are installed when missing.
set -euo pipefail
bin="$(realpath "$1")"
shift
cd "$(dirname "$0")/../.."
venv=target/export-venv
if [ ! -x "$venv/bin/python" ]; then
    if ! command -v python3 >/dev/null || ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
        apt-get update
        apt-get install -y python3 python3-venv
    fi
    mkdir -p target
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check duckdb polars pyarrow
work=target/export-check
mkdir -p "$work"
puzzles=("$@")
if [ ${#puzzles[@]} -eq 0 ]; then
    puzzles=(eight eleven english33 pancake-10)
fi
args=()
for p in "${puzzles[@]}"; do
    args+=(--puzzle "$p")
done
# Kept between runs: generate reuses the puzzles already built.
"$bin" generate --quiet --db "$work/puzzles.sqlite" "${args[@]}"
"$venv/bin/python" tests/export/check.py "$bin" "$work/puzzles.sqlite" "$work" "${puzzles[@]}"

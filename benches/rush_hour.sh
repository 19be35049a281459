#!/usr/bin/env bash
# How long `query --puzzle rush-hour --state BOARD` takes (issue 74's target: within
# 1 s a board): Fogleman's two hardest boards, a board no move solves, and N random
# boards of the positions along the hardest one's path, each timed end to end (the
# process started, the file opened, the cluster searched, the answer printed).
#
#   benches/rush_hour.sh [N]
#
# Environment:
#   PUZZLEBASE=path  the release binary (default: built here, `cargo build --release`)
#   DB=path          a file holding rush-hour (default: generated into a temporary
#                    directory with `generate --puzzle rush-hour`, which writes only its
#                    definition)
# Prints one line per board: the seconds, the distance, the cluster's size; then the
# host's CPU model.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-5}"
PB="${PUZZLEBASE:-}"
if [ -z "$PB" ]; then
    cargo build --release --quiet
    PB="${CARGO_TARGET_DIR:-target}/release/puzzlebase"
fi
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
DB="${DB:-$TMP/rush.sqlite}"
if [ ! -e "$DB" ]; then
    "$PB" generate --quiet --db "$DB" --puzzle rush-hour
fi
time_one() {
    local board="$1" start end out
    start=$(date +%s.%N)
    if out=$("$PB" query --db "$DB" --puzzle rush-hour --state "$board" --json 2>&1); then
        end=$(date +%s.%N)
        python3 -c 'import json,sys; a=json.loads(sys.argv[1]); print(f"{float(sys.argv[3])-float(sys.argv[2]):6.3f} s  distance {a[\"distance\"]:>3}  cluster {a[\"cluster\"]:>7}  {a[\"state\"]}")' "$out" "$start" "$end"
    else
        end=$(date +%s.%N)
        python3 -c 'import sys; print(f"{float(sys.argv[2])-float(sys.argv[1]):6.3f} s  refused: {sys.argv[3]}")' "$start" "$end" "$out"
    fi
}
time_one "BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM."
time_one "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM"
time_one "oooooooooooooAABBBoooooooooooooooooo"
# Boards along the hardest board's optimal path: every distance from 51 down.
"$PB" query --db "$DB" --puzzle rush-hour --start --json |
    python3 -c 'import json,sys,random; p=json.load(sys.stdin)["path"]; random.seed(74); print("\n".join(random.sample(p, min(int(sys.argv[1]), len(p)))))' "$N" |
    while read -r board; do time_one "$board"; done
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"

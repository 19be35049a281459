#!/usr/bin/env bash
# How long `query --puzzle rush-hour --state BOARD` takes (issue 74's target: within
# 1 s a board): Fogleman's two hardest boards, a board no move solves, a board of a
# large cluster, and N random
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
#   PORT=n           the port of the server whose position pages are timed (default 18874)
# Prints one line per board: the seconds, the distance, the cluster's size; then the
# position page of three boards from `serve` (the answer and every legal move with its
# distance: one search of the cluster for all the moves), three times each, with curl;
# then the host's CPU model.
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
# One line per board from the answer (JSON) or the refusal, and the two clock readings.
report() {
    python3 - "$@" <<'PY'
import json, sys
out, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
try:
    a = json.loads(out)
    print(f"{end - start:6.3f} s  distance {a['distance']:>3}  cluster {a['cluster']:>7}  {a['state']}")
except ValueError:
    print(f"{end - start:6.3f} s  refused: {out}")
PY
}
time_one() {
    local board="$1" start end out
    start=$(date +%s.%N)
    out=$("$PB" query --db "$DB" --puzzle rush-hour --state "$board" --json 2>&1) || true
    end=$(date +%s.%N)
    report "$out" "$start" "$end"
}
time_one "BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM."
time_one "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM"
time_one "oooooooooooooAABBBoooooooooooooooooo"
# The largest cluster among 300 random wall-free boards (117,090 positions).
time_one "HHoooooooEEoAAoooBGGGooBIDDoooICCoFF"
# Boards along the hardest board's optimal path: every distance from 51 down.
"$PB" query --db "$DB" --puzzle rush-hour --start --json |
    python3 -c 'import json,sys,random; p=json.load(sys.stdin)["path"]; random.seed(74); print("\n".join(random.sample(p, min(int(sys.argv[1]), len(p)))))' "$N" |
    while read -r board; do time_one "$board"; done
# The position pages: the answer and every legal move with its distance.
PORT="${PORT:-18874}"
"$PB" serve --db "$DB" --addr "127.0.0.1:$PORT" 2>/dev/null &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do
    curl -s -o /dev/null "http://127.0.0.1:$PORT/api/puzzles" && break
    sleep 0.1
done
for board in HHoooooooEEoAAoooBGGGooBIDDoooICCoFF BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM. IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM; do
    times=""
    for _ in 1 2 3; do
        times="$times $(curl -s -o "$TMP/page.json" -w '%{time_total}' "http://127.0.0.1:$PORT/api/puzzles/rush-hour/positions/$board")"
    done
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("page", sys.argv[2], "s  ", len(d["legal_moves"]), "legal moves, distance", d["distance"], "cluster", d["cluster"], sys.argv[3])' "$TMP/page.json" "$times" "$board"
done
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"

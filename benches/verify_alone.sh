#!/bin/bash
# A puzzle's check against its build, each alone, before and after:
#
#     benches/verify_alone.sh OLD_BINARY NEW_BINARY RUNS PUZZLE...
#
# For each puzzle, RUNS rounds of: `generate --puzzle X --json` into a fresh file, then
# `verify --puzzle X --json` of it, with the old binary and then the new one; prints the
# median and least of each JSON `seconds` and the ratio of the medians. For puzzles whose
# runs are short or noisy, where one pair of runs says little. Figures only:
# docs/performance.md, "verify against generate".
set -eu
OLD=$(realpath "$1"); NEW=$(realpath "$2"); RUNS=$3; shift 3
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
seconds() { # binary command puzzle
  "$1" "$2" --db "$D/x.sqlite" --puzzle "$3" --json |
    python3 -c 'import json, sys
print([json.loads(l)["seconds"] for l in sys.stdin if json.loads(l)["puzzle"] == sys.argv[1]][0])' "$3"
}
for p in "$@"; do
  : > "$D/before"; : > "$D/after"
  for _ in $(seq "$RUNS"); do
    for side in before after; do
      b=$OLD; [ $side = after ] && b=$NEW
      rm -f "$D"/x.sqlite*
      echo "$(seconds "$b" generate "$p") $(seconds "$b" verify "$p")" >> "$D/$side"
    done
  done
  for side in before after; do
    python3 - "$p" "$side" "$RUNS" "$D/$side" <<'PY'
import statistics, sys
p, side, runs, path = sys.argv[1:]
rows = [tuple(map(float, l.split())) for l in open(path)]
g, v = [r[0] for r in rows], [r[1] for r in rows]
mg, mv = statistics.median(g), statistics.median(v)
print(f"{p:<16} {side:<6} {runs} runs: generate median {mg:.3f} s (least {min(g):.3f}), "
      f"verify median {mv:.3f} s (least {min(v):.3f}), verify / generate {mv / mg:.2f}")
PY
  done
done

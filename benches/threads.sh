#!/bin/bash
# CPU seconds per position of the solvers at one and two threads, before and after:
#
#     benches/threads.sh OLD_BINARY NEW_BINARY [PUZZLE...]
#
# Runs `generate --puzzle X` in a fresh file for `twelve-codes`, `twelve` asked for two
# bits (the 2x6 at `storage = "two-bit"`, the search `fourteen` uses), `eleven` and
# `twelve` (one byte per rank) and `english33` (the peg solver), or for the PUZZLEs
# named, alternating the two binaries, with RAYON_NUM_THREADS 1 and 2; prints each
# process's wall time and user + system CPU (`/usr/bin/time`) and each table's checksum
# (the same before and after). Figures only: docs/performance.md, "Per core: one
# thread against two".
set -eu
OLD=$(realpath "$1"); NEW=$(realpath "$2"); shift 2
PUZZLES=("$@"); [ ${#PUZZLES[@]} -gt 0 ] || PUZZLES=(twelve-codes eleven twelve english33)
D=$(mktemp -d); trap 'rm -rf "$D"' EXIT
mkdir "$D/defs"
printf 'name = "twelve-codes"\nfamily = "sliding"\nrows = 2\ncols = 6\nstorage = "two-bit"\n' > "$D/defs/twelve-codes.toml"
one() { # binary label threads puzzle
  rm -f "$D"/x.sqlite*
  RAYON_NUM_THREADS=$3 /usr/bin/time -f "$2 $4 threads $3: %e s wall %U user %S sys %M KB" \
    "$1" generate -q --db "$D/x.sqlite" --definitions "$D/defs" --puzzle "$4" 2>&1 | tail -1
  "$1" list --db "$D/x.sqlite" --json | python3 -c 'import json, sys
for line in sys.stdin:
    print("   checksum", json.loads(line)["checksum"][:12])'
}
for p in "${PUZZLES[@]}"; do
  for th in 1 2; do one "$OLD" before "$th" "$p"; one "$NEW" after "$th" "$p"; done
done

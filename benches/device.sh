#!/bin/bash
# Issue 36's many-core figures, as one short run on a lent machine:
#
#     benches/device.sh BINARY OUT [PUZZLE]
#
# BINARY: a stripped release build (`cargo build --release`, then `strip` a copy into an
# ignored folder, carried to the machine); OUT: where the figures go (the device's $OUT);
# PUZZLE: the large puzzle, `fourteen` unless named (a small one tries the script here).
#
# In this order, each into a fresh file, most wanted first so that a run stopped by its
# time limit still brings back what it finished (each step's output is written as it
# ends):
#   1. `generate --puzzle PUZZLE --json`            (fourteen: about 4 min on 16 cores)
#   1b. the same with OWNED, when set               (as long or longer)
#   2. `generate --json`, the default run           (about 2 min)
#   3. `verify --json` of step 2's file             (about 1.5 min)
#   4. `verify --puzzle PUZZLE --json` of step 1's  (fourteen: about 4.5 min)
# OWNED=BINARY2: a build with `--features owned-claims` (threads owning the words they
# write), for step 1b.
# Each under `/usr/bin/time -v` where the machine has it (wall, CPU, peak memory), else
# bash's `time`. Also the machine: `nproc`, `lscpu`, memory. Figures only, never
# asserted: docs/performance.md, "fourteen".
set -u
BIN=$(realpath "$1"); OUT=$2; PUZZLE=${3:-fourteen}
OWNED=${OWNED:+$(realpath "$OWNED")}
TIME=${TIME:-/usr/bin/time}
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/device.XXXXXX"); trap 'rm -rf "$WORK"' EXIT
{ nproc; lscpu; free -g; } > "$OUT/machine.txt" 2>&1
step() { # name, then the command's arguments (the binary BIN unless RUN names another)
  local name=$1 bin=${RUN:-$BIN}; shift
  echo "$(date -u +%T) $name: $bin $*" | tee -a "$OUT/steps.txt"
  if [ -x "$TIME" ]; then
    "$TIME" -v "$bin" "$@" > "$OUT/$name.json" 2> "$OUT/$name.time"
  else
    { TIMEFORMAT='wall %R s, user %U s, system %S s'; time "$bin" "$@" \
        > "$OUT/$name.json" 2> "$OUT/$name.err"; } 2> "$OUT/$name.time"
  fi
  echo "$(date -u +%T) $name: exit $?" | tee -a "$OUT/steps.txt"
}
step 1-generate-"$PUZZLE" generate --db "$WORK/large.sqlite" --puzzle "$PUZZLE" --json
if [ -n "$OWNED" ]; then
  RUN=$OWNED step 1b-generate-"$PUZZLE"-owned generate --db "$WORK/owned.sqlite" \
      --puzzle "$PUZZLE" --json
  rm -f "$WORK/owned.sqlite"
fi
step 2-generate-default generate --db "$WORK/default.sqlite" --json
step 3-verify-default verify --db "$WORK/default.sqlite" --json
step 4-verify-"$PUZZLE" verify --db "$WORK/large.sqlite" --puzzle "$PUZZLE" --json

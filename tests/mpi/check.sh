#!/usr/bin/env bash
# Checks of the MPI build (docs/distributed.md), run by .ci/run:
#  1. under `mpirun -np 1`, `-np 2` and `-np 3` every puzzle the breadth-first search
#     serves (eight, nine, knight-swap, oshidori, fifteen's 6-6-3 tables, and nine with
#     two-bit distances and its columns read in turn, as fourteen has them) gets the
#     per-puzzle checksum of the plain build;
#  2. hanoi with 10 discs (1,023 moves: the shares widen past one byte) under
#     `mpirun -np 2` gets the plain build's checksum;
#  3. a run whose process is killed mid-search resumes with `generate --resume` from
#     its checkpoints (not from the start) to the same checksum;
#  4. a build without the feature started by mpirun as two processes says so, exit 2.
# Usage: tests/mpi/check.sh MPI_BINARY PLAIN_BINARY
set -euo pipefail
mpi_bin=$(realpath "$1")
plain_bin=$(realpath "$2")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

sums() { "$mpi_bin" list --json --db "$1" | python3 -c '
import json, sys
for line in sys.stdin:
    d = json.loads(line)
    print(d["puzzle"], d["checksum"])'; }

# nine-codes: nine with two-bit distances and the rank reading down and up the columns
# (the storage and rank order of fourteen), from a definition.
mkdir defs
printf 'name = "nine-codes"\nfamily = "sliding"\nrows = 2\ncols = 5\nstorage = "two-bit"\nrank_order = [0, 5, 6, 1, 2, 7, 8, 3, 4, 9]\n' > defs/nine-codes.toml
export PUZZLEBASE_DEFINITIONS="$work/defs"
puzzles=(--puzzle eight --puzzle nine --puzzle nine-codes --puzzle knight-swap --puzzle oshidori --puzzle fifteen --partition 6-6-3)
"$mpi_bin" generate -q --db plain.sqlite "${puzzles[@]}"
sums plain.sqlite > plain.sums
for np in 1 2 3; do
    mpirun -np "$np" "$mpi_bin" generate -q --db "np$np.sqlite" "${puzzles[@]}"
    sums "np$np.sqlite" > "np$np.sums"
    if ! diff plain.sums "np$np.sums"; then
        echo "FAIL: checksums under mpirun -np $np differ from the plain build" >&2
        exit 1
    fi
    [ ! -e "np$np.sqlite.checkpoints" ] || { echo "FAIL: checkpoints left after -np $np" >&2; exit 1; }
    echo "ok: mpirun -np $np gives the plain checksums ($(wc -l < plain.sums) puzzles)"
done

# hanoi-deep: 3 pegs and 10 discs, 1,023 moves from the farthest position, so the
# shares widen from one byte to four at distance 254; two processes give the plain file.
printf 'name = "hanoi-deep"\nfamily = "hanoi"\npegs = 3\ndiscs = 10\n' > defs/hanoi-deep.toml
"$mpi_bin" generate -q --db deep-plain.sqlite --puzzle hanoi-deep
mpirun -np 2 "$mpi_bin" generate -q --db deep.sqlite --puzzle hanoi-deep
if [ "$(sums deep.sqlite)" != "$(sums deep-plain.sqlite)" ]; then
    echo "FAIL: hanoi-deep under mpirun -np 2 differs from the plain build" >&2
    exit 1
fi
deepest=$("$mpi_bin" list --json --db deep.sqlite | python3 -c '
import json, sys
print(max(json.loads(line)["max_distance"] for line in sys.stdin))')
[ "$deepest" = 1023 ] || { echo "FAIL: hanoi-deep's farthest position is $deepest moves, not 1023" >&2; exit 1; }
echo "ok: mpirun -np 2 gives the plain checksum of hanoi-deep (farthest $deepest moves)"

# A killed process: twelve under two processes, process 1 killed once level 20 is
# checkpointed by both; mpirun then stops the job. The resumed run starts past level 20.
"$mpi_bin" generate -q --db twelve-plain.sqlite --puzzle twelve
mpirun -np 2 "$mpi_bin" generate -q --db twelve.sqlite --puzzle twelve --checkpoints ck &
job=$!
for _ in $(seq 3000); do
    ls ck/twelve-*/p0of2/level-20 ck/twelve-*/p1of2/level-20 >/dev/null 2>&1 && break
    sleep 0.1
done
ls ck/twelve-*/p0of2/level-20 ck/twelve-*/p1of2/level-20 >/dev/null
victim=$(pgrep -f "generate -q --db twelve.sqlite" | while read -r p; do
    [ -r "/proc/$p/environ" ] && tr '\0' '\n' < "/proc/$p/environ" | grep -qx OMPI_COMM_WORLD_RANK=1 && echo "$p"
done | head -1)
[ -n "$victim" ] || { echo "FAIL: no process of rank 1 found" >&2; exit 1; }
kill -9 "$victim"
if wait "$job"; then
    echo "FAIL: the run survived the loss of a process" >&2
    exit 1
fi
[ ! -e twelve.sqlite ] || { echo "FAIL: a killed run wrote the file" >&2; exit 1; }
mpirun -np 2 "$mpi_bin" generate -q --db twelve.sqlite --puzzle twelve --checkpoints ck --resume \
    --exchange-log resumed.csv
first=$(awk -F, 'NR == 2 { print $3 }' resumed.csv)
if [ "$first" -le 20 ]; then
    echo "FAIL: the resumed run started at level $first, not after level 20" >&2
    exit 1
fi
if [ "$(sums twelve.sqlite)" != "$(sums twelve-plain.sqlite)" ]; then
    echo "FAIL: the resumed twelve differs from the plain build" >&2
    exit 1
fi
[ ! -e ck ] || { echo "FAIL: checkpoints left after the resumed run" >&2; exit 1; }
echo "ok: killed at level >= 20, resumed from level $((first - 1)) to the plain checksum"

# A build without MPI under mpirun.
set +e
mpirun -np 2 "$plain_bin" generate -q --db plain-under-mpirun.sqlite --puzzle six 2> refused.txt
code=$?
set -e
if [ "$code" -ne 2 ] || ! grep -q "this build has no MPI" refused.txt; then
    echo "FAIL: a build without MPI under mpirun -np 2 exited $code:" >&2
    cat refused.txt >&2
    exit 1
fi
echo "ok: a build without MPI under mpirun -np 2 refuses with exit 2"

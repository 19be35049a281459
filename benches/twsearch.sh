#!/usr/bin/env bash
# Our imported puzzles against `twsearch -g` (issue 72): for each ksolve/twsearch
# sample our reader accepts, the counts per depth of `twsearch -g FILE` and of
# `puzzlebase generate` + `query --histogram --json`, compared term by term, with both
# wall times.
#
#   benches/twsearch.sh [TWSEARCH_SOURCE_DIR] [SAMPLE ...]
#
# TWSEARCH_SOURCE_DIR: a copy of rokicki/twsearch's source (a checkout or
#   `git archive`); twsearch is built there with its own Makefile
#   (`make build/bin/twsearch`). Without it nothing is compared: the script says so
#   and stops.
# SAMPLE: names (`2x2x2`) or paths of `.tws` files; default every
#   `samples/main/*.tws` of the source copy.
#
# Environment:
#   PUZZLEBASE=path  our release binary to use (default: built here with
#                    `cargo build --release -p puzzlebase-cli`, in $CARGO_TARGET_DIR
#                    or ./target)
#   TIMEOUT=s        per sample and per program (default 120)
#   TWSEARCH_MEM=MB  twsearch's -M (default 8192, its own default)
#   PB_LOCK=file     run each build and each timed run under `flock file` (the time
#                    is taken inside the lock, so waiting for it is not counted)
#   TWSEARCH_COMMIT  the source copy's commit, where it is not a git checkout
#   KEEP=dir         keep the outputs there (default: a temporary directory, removed)
#
# A sample is "beyond reach", and not run, when our `check-definition` counts more
# positions than two bits a position hold in 16 GiB (2^36), or estimates more than
# TIMEOUT seconds; a run that passes TIMEOUT is reported as such. Samples our reader
# refuses are listed after the table with the refusal's line.
#
# Each twsearch count is the `Dist D cnt N` lines of its -g output; ours the
# histogram of the stored table. Every power of a move is one move in both (twsearch's
# default without -q; our imported definitions' `metric = "face"`).
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
src=${1:-}
[ $# -gt 0 ] && shift
timeout_s=${TIMEOUT:-120}
mem=${TWSEARCH_MEM:-8192}
lock=${PB_LOCK:-}
limit_states=$((1 << 36))

locked() {
    if [ -n "$lock" ]; then flock "$lock" "$@"; else "$@"; fi
}

if [ -z "$src" ]; then
    echo "No twsearch source given: nothing compared."
    echo "Give a copy of rokicki/twsearch, e.g. \`git clone https://github.com/rokicki/twsearch\`,"
    echo "then: benches/twsearch.sh path/to/twsearch [SAMPLE ...]"
    exit 0
fi
if [ ! -f "$src/Makefile" ]; then
    echo "$src: no Makefile; not a twsearch source copy" >&2
    exit 2
fi
src=$(cd "$src" && pwd)

echo "Building twsearch in $src (make build/bin/twsearch)..." >&2
if ! locked make -C "$src" -j"$(nproc)" build/bin/twsearch >&2; then
    echo "twsearch did not build" >&2
    exit 1
fi
tws="$src/build/bin/twsearch"
tws_commit=${TWSEARCH_COMMIT:-$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo "commit unknown (not a git checkout; TWSEARCH_COMMIT names it)")}

if [ -n "${PUZZLEBASE:-}" ]; then
    pb=$PUZZLEBASE
else
    echo "Building puzzlebase (cargo build --release -p puzzlebase-cli)..." >&2
    (cd "$here" && locked cargo build --release -p puzzlebase-cli >&2) || exit 1
    pb="${CARGO_TARGET_DIR:-$here/target}/release/puzzlebase"
fi
[ -x "$pb" ] || { echo "$pb: not an executable" >&2; exit 2; }

if [ -n "${KEEP:-}" ]; then
    work=$KEEP
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi

if [ $# -gt 0 ]; then
    samples=()
    for s in "$@"; do
        case $s in
            */* | *.tws) samples+=("$s") ;;
            *) samples+=("$src/samples/main/$s.tws") ;;
        esac
    done
else
    samples=("$src"/samples/main/*.tws)
fi

host=$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -1)
host="$host (family $(sed -n 's/^cpu family[^:]*: *//p' /proc/cpuinfo | head -1) model $(sed -n 's/^model[^a-z:]*: *//p' /proc/cpuinfo | head -1))"
echo "Host: $host, $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB"
echo "twsearch: $tws_commit, \`twsearch -M $mem -g FILE\`; ours: $("$pb" --version), \`generate --definitions DIR --puzzle NAME --db X\`"
echo "Timeout: ${timeout_s} s per program and sample"
echo
echo "| sample | positions | depth | ours (s) | twsearch (s) | agree |"
echo "|---|---:|---:|---:|---:|---|"

# Runs "$@" under the lock with a timeout; the output goes to $1, "rc seconds" to $2.
timed() {
    local out=$1 tf=$2
    shift 2
    locked bash -c '
        out=$1 tf=$2 t=$3; shift 3
        s=$(date +%s.%N)
        timeout "$t" "$@" > "$out" 2>&1
        rc=$?
        e=$(date +%s.%N)
        echo "$rc $(echo "$e - $s" | bc)" > "$tf"
    ' _ "$out" "$tf" "$timeout_s" "$@"
}

refused=()
beyond=()
for f in "${samples[@]}"; do
    base=$(basename "$f" .tws)
    d="$work/$base"
    mkdir -p "$d/defs"
    cp "$f" "$d/defs/"
    if ! "$pb" check-definition --json "$d/defs/$base.tws" > "$d/check.json" 2> "$d/check.err"; then
        refused+=("$(sed 's/^puzzlebase: //; s|^.*/defs/||' "$d/check.err" | head -1)")
        continue
    fi
    name=$(jq -r .puzzle "$d/check.json")
    states=$(jq -r .states "$d/check.json")
    secs=$(jq -r '.seconds // 0' "$d/check.json")
    if [ "$(echo "$states > $limit_states" | bc)" = 1 ]; then
        beyond+=("$base: $states positions (check-definition), over 2^36, two bits each in 16 GiB")
        continue
    fi
    if [ "$(echo "$secs > $timeout_s" | bc)" = 1 ]; then
        beyond+=("$base: $states positions, about $secs s estimated by check-definition, over ${timeout_s} s")
        continue
    fi

    (cd "$d" && timed "$d/tws.out" "$d/tws.time" "$tws" -M "$mem" -g "$d/defs/$base.tws")
    read -r tws_rc tws_s < "$d/tws.time"
    timed "$d/gen.out" "$d/gen.time" "$pb" generate -q --definitions "$d/defs" --puzzle "$name" --db "$d/db.sqlite"
    read -r pb_rc pb_s < "$d/gen.time"

    # twsearch prints the first empty depth too (`Dist 5 cnt 0`): dropped.
    sed -n 's/^Dist \([0-9]*\) cnt \([0-9]*\) .*/\2/p' "$d/tws.out" |
        awk '{ a[NR] = $1 } END { n = NR; while (n > 0 && a[n] == 0) n--; for (i = 1; i <= n; i++) print a[i] }' > "$d/tws.counts"
    ours=""
    if [ "$pb_rc" = 0 ]; then
        "$pb" query --db "$d/db.sqlite" --puzzle "$name" --histogram --json > "$d/hist.json" 2>&1 &&
            jq -r '.histogram[]' "$d/hist.json" > "$d/pb.counts" && ours=1
    fi
    pos="" depth=""
    if [ -n "$ours" ]; then
        pos=$(paste -sd+ "$d/pb.counts" | bc)
        depth=$(($(wc -l < "$d/pb.counts") - 1))
    elif [ -s "$d/tws.counts" ]; then
        pos=$(paste -sd+ "$d/tws.counts" | bc)
        depth=$(($(wc -l < "$d/tws.counts") - 1))
        if [ "$tws_rc" != 0 ]; then
            # Cut short: what twsearch had counted, a lower bound.
            pos="≥ $pos" depth="≥ $depth"
        fi
    fi
    fmt() { if [ "$1" = 124 ]; then echo "> ${timeout_s}"; elif [ "$1" = 0 ]; then printf '%.2f' "$2"; else echo "failed ($1)"; fi; }
    if [ "$tws_rc" != 0 ] || [ -z "$ours" ]; then
        agree="not compared"
    elif cmp -s "$d/tws.counts" "$d/pb.counts"; then
        agree="yes"
    else
        agree="**no**"
    fi
    echo "| $base | $pos | $depth | $(fmt "$pb_rc" "$pb_s") | $(fmt "$tws_rc" "$tws_s") | $agree |"
done

if [ ${#beyond[@]} -gt 0 ]; then
    echo
    echo "Beyond reach here (not run):"
    printf -- '- %s\n' "${beyond[@]}"
fi
if [ ${#refused[@]} -gt 0 ]; then
    echo
    echo "Refused by our reader:"
    printf -- '- %s\n' "${refused[@]}"
fi

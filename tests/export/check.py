"""`export --format parquet` held to `query` in real tools (issue 75).

    check.py PUZZLEBASE_BINARY DB WORKDIR PUZZLE...

For each puzzle: export it to WORKDIR/PUZZLE.parquet, read it with DuckDB and with polars,
check the row count and the distance histogram against `query --histogram --json` (move
puzzles) or the layers (peg boards), the key-value metadata against `list --json`, then
draw 1,000 random rows (DuckDB's reservoir sample), read the same ranks with polars, and
compare every one with `query --state S --json`: its distance, its count of shortest
solutions where the file keeps counts, and the next position, the second of the path.
Prints each export's seconds and size. Exits non-zero at the first difference.
"""

import json
import os
import random
import subprocess
import sys
import time

import duckdb
import polars as pl

SAMPLE = 1000


def run(binary, *args):
    p = subprocess.run([binary, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr.strip()


def query(binary, db, *args):
    code, out, err = run(binary, "query", "--db", db, *args, "--json")
    return (code, err) if code else json.loads(out)


def check(binary, db, work, puzzle, seed):
    out = os.path.join(work, f"{puzzle}.parquet")
    start = time.monotonic()
    code, _, err = run(
        binary, "export", "--db", db, "--puzzle", puzzle, "--format", "parquet",
        "--output", out, "--quiet",
    )
    assert code == 0, f"{puzzle}: export failed: {err}"
    seconds = time.monotonic() - start
    con = duckdb.connect()
    rows = con.execute("SELECT count(*) FROM read_parquet(?)", [out]).fetchone()[0]
    info = next(
        json.loads(line)
        for line in run(binary, "list", "--db", db, "--json")[1].splitlines()
        if json.loads(line)["puzzle"] == puzzle
    )
    meta = dict(
        con.execute(
            "SELECT decode(key), decode(value) FROM parquet_kv_metadata(?)", [out]
        ).fetchall()
    )
    for key in ["checksum", "generated_at"]:
        assert meta[f"puzzlebase.{key}"] == info[key], (puzzle, key)
    assert int(meta["puzzlebase.rows"]) == rows, puzzle
    # Rows with a distance, per distance, by DuckDB and by polars.
    by_duckdb = con.execute(
        "SELECT distance, count(*) FROM read_parquet(?) WHERE distance IS NOT NULL "
        "GROUP BY 1 ORDER BY 1",
        [out],
    ).fetchall()
    by_polars = (
        pl.scan_parquet(out)
        .filter(pl.col("distance").is_not_null())
        .group_by("distance")
        .len()
        .sort("distance")
        .collect()
        .rows()
    )
    assert by_duckdb == [tuple(r) for r in by_polars], puzzle
    if info["family"] == "peg":
        layers = query(binary, db, "--puzzle", puzzle, "--layers")["layers"]
        assert sum(n for _, n in by_duckdb) == sum(l["can_finish_classes"] for l in layers)
    else:
        histogram = query(binary, db, "--puzzle", puzzle, "--histogram")["histogram"]
        assert by_duckdb == [(d, n) for d, n in enumerate(histogram) if n], puzzle
    # 1,000 random rows, by DuckDB; the same ranks by polars; each against `query`.
    sample = con.execute(
        f"SELECT rank, state, distance, solutions, next FROM read_parquet(?) "
        f"USING SAMPLE reservoir({SAMPLE} ROWS) REPEATABLE ({seed})",
        [out],
    ).fetchall()
    assert len(sample) == min(SAMPLE, rows), puzzle
    ranks = [r[0] for r in sample]
    same = (
        pl.scan_parquet(out)
        .filter(pl.col("rank").is_in(ranks))
        .select("rank", "state", "distance", "solutions", "next")
        .collect()
        .rows()
    )
    assert sorted(same) == sorted(sample), puzzle
    for rank, state, distance, solutions, nxt in sample:
        a = query(binary, db, "--puzzle", puzzle, "--state", state)
        if distance is None:
            assert isinstance(a, tuple) and a[0] == 1, (puzzle, state, a)
            assert solutions is None and nxt is None, (puzzle, state)
            continue
        assert isinstance(a, dict), (puzzle, state, a)
        assert a["distance"] == distance, (puzzle, state, a["distance"], distance)
        wanted = a["solutions"] if a["solutions_stored"] else None
        assert solutions == wanted, (puzzle, state, a["solutions"], solutions)
        assert nxt == (a["path"][1] if distance > 0 else None), (puzzle, state, a["path"], nxt)
    size = os.path.getsize(out)
    print(
        f"{puzzle}: {rows:,} rows, exported in {seconds:.1f} s, {size:,} bytes "
        f"({size / max(rows, 1):.2f} bytes/row); {len(sample)} sampled rows as `query` "
        f"gives them (DuckDB {duckdb.__version__}, polars {pl.__version__})"
    )


def main():
    binary, db, work, *puzzles = sys.argv[1:]
    seed = int(os.environ.get("PUZZLEBASE_SEED", "75"))
    random.seed(seed)
    for p in puzzles:
        check(binary, db, work, p, seed)
    print(f"{len(puzzles)} passed, 0 failed")


if __name__ == "__main__":
    main()

"""`Database.to_arrow` gives the rows of `puzzlebase export`, typed, for every storage kind."""

import json

import pyarrow as pa
import pytest

import puzzlebase

from conftest import PUZZLES

# Every puzzle of the fixture file with a table of positions (tiles8 and rush-hour are
# answered by search).
TABLES = [p for p in PUZZLES if p not in ("tiles8", "rush-hour")]


@pytest.mark.parametrize("puzzle", TABLES)
def test_to_arrow_is_the_export(db, cli, puzzle):
    table = db.to_arrow(puzzle)
    assert isinstance(table, pa.Table)
    code, out, err = cli.run("export", "--puzzle", puzzle, "--format", "jsonl", "--quiet")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert table.num_rows == len(rows) > 0
    assert table.to_pylist() == rows
    meta = table.schema.metadata
    assert meta[b"puzzlebase.puzzle"] == puzzle.encode()
    listed = {p["name"]: p for p in db.puzzles()}
    assert meta[b"puzzlebase.checksum"].decode() == listed[puzzle]["checksum"]
    assert meta[b"puzzlebase.generated_at"].decode() == listed[puzzle]["generated_at"]


def test_to_arrow_types(db):
    eight = db.to_arrow("eight")
    assert eight.schema.field("rank").type == pa.int64()
    assert eight.schema.field("state").type == pa.string()
    assert eight.schema.field("distance").type == pa.uint32()
    assert eight.schema.field("solutions").type == pa.int64()
    assert eight.schema.field("next").type == pa.string()
    # 9!/2 positions, and the histogram's counts per distance.
    assert eight.num_rows == 181440
    counts = eight.group_by("distance").aggregate([("rank", "count")]).to_pylist()
    by_distance = {r["distance"]: r["rank_count"] for r in counts}
    assert sorted(by_distance.items()) == [(d, n) for d, n in db.histogram("eight")]
    magic = db.to_arrow("magic-triangle")
    assert magic.schema.field("canonical").type == pa.bool_()
    assert magic.num_rows == 864
    assert sum(magic.column("canonical").to_pylist()) == 18


def test_to_arrow_refuses_a_puzzle_without_a_table(db):
    with pytest.raises(puzzlebase.Error, match="has no table of every position"):
        db.to_arrow("tiles8")

"""A puzzle of a family defined outside puzzlebase (examples/pancake, docs/library.md).

The package is built without that family's code, so every question about such a puzzle
is refused as `puzzlebase query` refuses it: a FileError carrying query's one line, which
names the family. The rows themselves stay readable with Python's own sqlite3.
"""

import pathlib
import sqlite3
import subprocess

import pytest

import puzzlebase

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pancakes(tmp_path_factory, cargo_target):
    """A file holding `pancakes-4`, written by the example program, which registers the
    family (built with `cargo build --example pancake`, a no-op after `cargo test`)."""
    subprocess.run(["cargo", "build", "--quiet", "--example", "pancake"], cwd=ROOT, check=True)
    target = cargo_target
    db = tmp_path_factory.mktemp("pancakes") / "pancakes.sqlite"
    subprocess.run(
        [str(target / "debug" / "examples" / "pancake"), "4", str(db)],
        check=True,
        capture_output=True,
    )
    return db


def test_an_unknown_family_is_query_s_file_error(binary, pancakes):
    p = subprocess.run(
        [binary, "query", "--db", str(pancakes), "--puzzle", "pancakes-4", "--state", "2413"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 1
    line = p.stderr.strip().removeprefix("puzzlebase: ")
    assert '"pancake"' in line and "registers it" in line, line
    db = puzzlebase.open(str(pancakes))
    for ask in [db.distance, db.solutions, db.path, db.moves]:
        with pytest.raises(puzzlebase.FileError) as e:
            ask("pancakes-4", "2413")
        assert str(e.value) == line


def test_its_rows_are_plain_sql(pancakes):
    # MathWorld, "Pancake Sorting": (2,4,1,3) is one of the three stacks of four that
    # need the maximum of four flips.
    con = sqlite3.connect(f"file:{pancakes}?mode=ro", uri=True)
    (d,) = con.execute(
        "SELECT distance FROM positions WHERE puzzle = 'pancakes-4' AND state = '2413'"
    ).fetchone()
    assert d == 4

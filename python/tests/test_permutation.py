"""A permutation puzzle read through the package: the pocket cube (`cube2`), rebuilt from
its stored definition by the registry with no code of its own in the package."""

import subprocess

import pytest

import puzzlebase

from conftest import Cli

SOLVED = "UUUURRRRFFFFDDDDLLLLBBBB"
# R then U from solved: two face turns, one shortest solution (U' R').
R_U = "UUFFUBRRRRFDDBDBFDLLLLUB"


@pytest.fixture(scope="module")
def cube(tmp_path_factory, binary):
    db = tmp_path_factory.mktemp("cube2") / "cube2.sqlite"
    subprocess.run([binary, "generate", "--quiet", "--db", str(db), "--puzzle", "cube2"],
                   check=True)
    return Cli(binary, db), puzzlebase.open(str(db))


def test_known_positions_have_their_distances(cube):
    cli, db = cube
    assert db.distance("cube2", SOLVED) == 0
    assert db.distance("cube2", R_U) == 2
    assert db.solutions("cube2", R_U) == 1
    want = cli.json("query", "--puzzle", "cube2", "--state", R_U)
    assert db.path("cube2", R_U) == want["path"]


def test_the_moves_of_the_path_have_their_names(cube):
    cli, db = cube
    assert db.path_moves("cube2", R_U) == ["U'", "R'"]
    assert db.path_moves("cube2", SOLVED) == []
    want = cli.json("query", "--puzzle", "cube2", "--start")
    assert db.path_moves("cube2", want["state"]) == want["moves"]
    assert db.start("cube2")["moves"] == want["moves"]


def test_the_histogram_is_the_published_one(cube):
    _, db = cube
    # Wikipedia, "Pocket Cube": positions per number of face turns, God's number 11.
    assert [n for _, n in db.histogram("cube2")] == [1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072,
                                                       1887748, 623800, 2644]


def test_a_twisted_corner_is_refused_as_query_refuses_it(cube):
    cli, db = cube
    twisted = "UUUFURRRFRFFDDDDLLLLBBBB"
    code, message = cli.json("query", "--puzzle", "cube2", "--state", twisted)
    assert code == 1
    with pytest.raises(puzzlebase.Error) as e:
        db.distance("cube2", twisted)
    assert str(e.value) == message

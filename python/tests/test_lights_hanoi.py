"""Lights Out and the Tower of Hanoi through the package, held to `puzzlebase query`.

The package rebuilds each puzzle from its stored definition through the registry, so
these families need no code of its own: the answers, the press and hop names of the
moves, and the refusal of a pattern no presses turn off come from the library.
"""

import random
import subprocess

import pytest

import puzzlebase

from conftest import Cli

PUZZLES = ["lights-out-3", "lights-out-5", "hanoi-3"]


@pytest.fixture(scope="module")
def files(tmp_path_factory, binary):
    db = tmp_path_factory.mktemp("lights-hanoi") / "lh.sqlite"
    args = [binary, "generate", "--quiet", "--db", str(db)]
    for name in PUZZLES:
        args += ["--puzzle", name]
    subprocess.run(args, check=True)
    return Cli(binary, db), puzzlebase.open(str(db))


@pytest.mark.parametrize("puzzle", PUZZLES)
def test_answers_are_querys(files, puzzle):
    cli, db = files
    start = cli.json("query", "--puzzle", puzzle, "--start")
    assert db.start(puzzle) == start
    longest = cli.json("query", "--puzzle", puzzle, "--longest")
    assert db.longest(puzzle)["distance"] == longest["distance"]
    hist = cli.json("query", "--puzzle", puzzle, "--histogram")["histogram"]
    assert db.histogram(puzzle) == list(enumerate(hist))
    size = sum(hist)
    rng = random.Random(38)
    states = [start["state"]] + longest["states"][:2]
    states += [db.unrank(puzzle, rng.randrange(size)) for _ in range(6)]
    for state in states:
        want = cli.json("query", "--puzzle", puzzle, "--state", state)
        assert db.distance(puzzle, state) == want["distance"]
        assert db.path(puzzle, state) == want["path"]
        assert db.solutions(puzzle, state) == want["solutions"]
        assert db.unrank(puzzle, db.rank(puzzle, state)) == state


def test_published_figures(files):
    _, db = files
    # 2^23 of the 2^25 5x5 patterns can be turned off (Anderson & Feil 1998), at most
    # 15 presses; every light on takes 15 (OEIS A075464), on 3x3 five.
    assert sum(n for _, n in db.histogram("lights-out-5")) == 1 << 23
    assert db.longest("lights-out-5")["distance"] == 15
    assert db.distance("lights-out-5", "1" * 25) == 15
    assert db.distance("lights-out-3", "1" * 9) == 5
    # Lucas: seven discs take 2^7 - 1 moves, in one way only.
    assert db.distance("hanoi-3", "AAAAAAA") == 127
    assert db.solutions("hanoi-3", "AAAAAAA") == 1


def test_moves_are_named(files):
    _, db = files
    moves = db.moves("lights-out-3", "111111111")
    assert len(moves) == 9
    assert all(m["move"]["name"].startswith("press ") for m in moves)
    assert moves[0]["distance"] == 4
    hops = sorted(m["move"]["name"] for m in db.moves("hanoi-3", "AAAAAAA"))
    assert hops == ["1: A\u2192B", "1: A\u2192C"]


def test_refusals_carry_querys_line(files):
    cli, db = files
    corner = "1" + "0" * 24
    code, why = cli.json("query", "--puzzle", "lights-out-5", "--state", corner)
    assert code == 1 and "cannot be solved" in why
    with pytest.raises(puzzlebase.BadPosition) as e:
        db.distance("lights-out-5", corner)
    assert str(e.value) == why
    code, why = cli.json("query", "--puzzle", "hanoi-3", "--state", "AAAAAAD")
    with pytest.raises(puzzlebase.BadPosition) as e:
        db.distance("hanoi-3", "AAAAAAD")
    assert str(e.value) == why

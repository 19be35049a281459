"""The package answers as `puzzlebase query --json` answers, for every storage kind."""

import csv
import io
import os
import random
import re
import subprocess
import sys
import threading

import pytest

import puzzlebase

from conftest import PUZZLES, assert_querys_line

SEED = int(os.environ.get("PUZZLEBASE_SEED", "33"))
PER_PUZZLE = 12

# What `query` says of a legal position without a distance (QueryError::Unreachable):
# the package answers None.
UNREACHABLE = re.compile(
    r"has no entry in|cannot finish with one peg|cannot be solved: the goal is not reachable"
    r"|cannot be solved: none of the \d+ positions of its cluster"
)

# Puzzles whose positions have a distance (all but the enumeration).
STATE_PUZZLES = [p for p in PUZZLES if p != "magic-triangle"]


# triangle21's holes seen in a mirror, left to right (data/puzzles/triangle21.toml).
MIRROR = [1, 0, 2, 4, 3, 7, 6, 5, 11, 10, 9, 8, 18, 17, 16, 15, 14, 13, 12, 20, 19]


def triangle_mirror(state):
    """A triangle21 position reflected left to right."""
    return "".join(state[MIRROR[i]] for i in range(len(state)))


def expect_same(cli, db, puzzle, state):
    """The package's distance, solutions, path and moves for one position are
    `query --state --json`'s; its refusal is query's, message and all."""
    answer = cli.json("query", "--puzzle", puzzle, "--state", state)
    if isinstance(answer, tuple):
        code, message = answer
        assert code == 1 and UNREACHABLE.search(message), message
        assert db.distance(puzzle, state) is None
        assert db.solutions(puzzle, state) is None
        assert db.path(puzzle, state) is None
        # Its moves are still listed, as on the server's page.
        for m in db.moves(puzzle, state):
            assert db.distance(puzzle, m["state"]) == m["distance"]
        return None
    assert db.distance(puzzle, state) == answer["distance"]
    assert db.solutions(puzzle, state) == answer["solutions"]
    assert db.path(puzzle, state) == answer["path"]
    moves = db.moves(puzzle, state)
    distances = [m["distance"] for m in moves]
    # Best first; the unsolvable (None) last.
    assert distances == sorted(distances, key=lambda d: (d is None, d)), moves
    if answer["distance"] > 0:
        assert moves, state
        assert distances[0] == answer["distance"] - 1
        assert answer["path"][1] in [m["state"] for m in moves if m["distance"] == distances[0]]
    for m in moves:
        assert list(m) == ["move", "state", "distance"]
        assert db.distance(puzzle, m["state"]) == m["distance"]
    return answer


def positions(db, puzzle, rng):
    """Random positions: random ranks of a move puzzle; the start's path, its
    mirror images, and random peg bitboards on a peg board; random 3x3
    arrangements (half of them of the wrong parity) for the searched 8-puzzle."""
    info = {p["name"]: p for p in db.puzzles()}[puzzle]
    if puzzle == "tiles8":
        return ["".join(rng.sample("012345678", 9)) for _ in range(PER_PUZZLE)]
    if puzzle == "rush-hour":
        # Nothing stored to draw from: boards along the start's path, Fogleman's hardest
        # with a wall, and one no move solves (a truck right of the red car).
        path = db.start(puzzle)["path"]
        return rng.sample(path, 4) + ["IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM",
                                      "oooooooooooooAABBBoooooooooooooooooo"]
    if info["family"] == "peg":
        start = db.start(puzzle)
        holes = len(start["state"])
        picked = rng.sample(start["path"], min(4, len(start["path"])))
        picked += [db.unrank(puzzle, rng.randrange(1 << holes)) for _ in range(PER_PUZZLE - 4)]
        if puzzle == "triangle21":
            picked += [triangle_mirror(s) for s in picked]
        return picked
    return [db.unrank(puzzle, rng.randrange(info["states"])) for _ in range(PER_PUZZLE)]


@pytest.mark.parametrize("puzzle", STATE_PUZZLES)
def test_positions_answer_as_query_does(cli, db, puzzle):
    rng = random.Random(f"{SEED}/{puzzle}")
    answered = 0
    for state in positions(db, puzzle, rng):
        answer = cli.json("query", "--puzzle", puzzle, "--state", state)
        if isinstance(answer, tuple) and not UNREACHABLE.search(answer[1]):
            # Refused (the searched puzzle's wrong parity): the same refusal.
            with pytest.raises(puzzlebase.BadPosition) as e:
                db.distance(puzzle, state)
            assert_querys_line(str(e.value), answer[1])
            continue
        answered += expect_same(cli, db, puzzle, state) is not None
    assert answered > 0


def test_the_example_of_the_issue_answers(cli, db):
    assert db.distance("eight", "867254301") == 31
    assert db.solutions("eight", "867254301") == 40
    assert expect_same(cli, db, "eight", "867254301")["distance"] == 31
    assert db.distance("eight", "123456780") == 0
    assert db.path("eight", "123456780") == ["123456780"]


@pytest.mark.parametrize("puzzle", STATE_PUZZLES)
def test_start_is_query_start(cli, db, puzzle):
    answer = cli.json("query", "--puzzle", puzzle, "--start")
    if isinstance(answer, tuple):
        with pytest.raises(puzzlebase.NotApplicable) as e:
            db.start(puzzle)
        assert_querys_line(str(e.value), answer[1])
    else:
        assert db.start(puzzle) == answer


@pytest.mark.parametrize("puzzle", PUZZLES)
def test_longest_is_query_longest(cli, db, puzzle):
    answer = cli.json("query", "--puzzle", puzzle, "--longest")
    if isinstance(answer, tuple):
        code, message = answer
        assert code == 2
        with pytest.raises(puzzlebase.NotApplicable) as e:
            db.longest(puzzle)
        assert_querys_line(str(e.value), message)
        return
    assert db.longest(puzzle) == {
        "distance": answer["distance"],
        "count": answer["count"],
        "states": answer["states"],
    }


@pytest.mark.parametrize("puzzle", PUZZLES)
def test_histogram_is_query_histogram(cli, db, puzzle):
    answer = cli.json("query", "--puzzle", puzzle, "--histogram")
    if isinstance(answer, tuple):
        with pytest.raises(puzzlebase.NotApplicable) as e:
            db.histogram(puzzle)
        assert_querys_line(str(e.value), answer[1])
        return
    rows = db.histogram(puzzle)
    if isinstance(answer["histogram"], dict):
        # The magic triangle: solutions per side sum.
        assert {str(v): n for v, n in rows} == answer["histogram"]
    else:
        counts = [0] * len(answer["histogram"])
        for distance, n in rows:
            counts[distance] = n
        assert counts == answer["histogram"]
    assert [v for v, _ in rows] == sorted(v for v, _ in rows)


def test_puzzles_are_list(cli, db):
    listed = cli.lines("list", "--json")
    mine = db.puzzles()
    assert [p["name"] for p in mine] == [p["puzzle"] for p in listed]
    for p, q in zip(mine, listed):
        for key in ["family", "states", "solvable", "max_distance", "generated_at",
                    "checksum", "storage", "counts"]:
            assert p[key] == q[key], (p["name"], key)
    assert {p["storage"] for p in mine} == {
        "positions", "packed", "peg-layers", "solutions", "patterns", "search"
    }


@pytest.mark.parametrize("puzzle", ["six", "knight-swap", "triangle21"])
def test_rank_is_the_stored_key(cli, db, puzzle):
    code, out, err = cli.run("export", "--puzzle", puzzle)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    for row in random.Random(SEED).sample(rows, 20):
        assert db.rank(puzzle, row["state"]) == int(row["rank"])
        assert db.unrank(puzzle, int(row["rank"])) == row["state"]


def test_a_mirrored_peg_position_answers_as_the_original(cli, db):
    start = db.start("triangle21")
    for state in start["path"][1:-1]:
        mirrored = triangle_mirror(state)
        if mirrored == state:
            continue
        assert db.rank("triangle21", mirrored) == db.rank("triangle21", state)
        assert db.distance("triangle21", mirrored) == db.distance("triangle21", state)
        answer = expect_same(cli, db, "triangle21", mirrored)
        assert answer is not None and answer["path"][0] == mirrored
        break
    else:
        pytest.fail("no asymmetric position on the start's path")


def test_a_peg_position_that_cannot_finish_is_none(cli, db):
    # Walk from the start until a move leads where the board cannot finish.
    seen, frontier = set(), [db.start("triangle21")["state"]]
    while frontier:
        state = frontier.pop()
        for m in db.moves("triangle21", state):
            if m["distance"] is None:
                assert db.distance("triangle21", m["state"]) is None
                code, message = cli.json("query", "--puzzle", "triangle21", "--state", m["state"])
                assert code == 1
                assert "is reachable in triangle21 but cannot finish" in message
                expect_same(cli, db, "triangle21", m["state"])
                return
            if m["state"] not in seen:
                seen.add(m["state"])
                frontier.append(m["state"])
    pytest.fail("every reachable position can finish")


def test_an_enumeration_has_no_distance(cli, db):
    code, message = cli.json("query", "--puzzle", "magic-triangle", "--state", "123456789")
    assert code == 2
    with pytest.raises(puzzlebase.NotApplicable) as e:
        db.distance("magic-triangle", "123456789")
    assert_querys_line(str(e.value), message)


def test_the_search_is_bounded(cli, db):
    state = "867254301"
    code, message = cli.json(
        "query", "--puzzle", "tiles8", "--state", state, "--timeout", "0.000001"
    )
    assert code == 1
    with pytest.raises(puzzlebase.SearchStopped) as e:
        db.distance("tiles8", state, timeout=0.000001)
    # Only the seconds it took differ.
    seconds = re.compile(r"after [0-9.]+ s")
    assert_querys_line(seconds.sub("after N s", str(e.value)), seconds.sub("after N s", message))
    assert db.distance("tiles8", state, timeout=30) == 31
    with pytest.raises(ValueError):
        db.distance("tiles8", state, timeout=-1)


def test_answers_from_threads(db):
    results = []

    def ask():
        results.append(db.distance("eight", "867254301"))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [31] * 4


def test_version_is_the_command_line_s(binary):
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["puzzlebase", puzzlebase.version()]
    assert puzzlebase.__version__ == puzzlebase.version()


def test_python_s_sqlite3_is_not_needed(db_path):
    program = (
        "import sys\n"
        "sys.modules['sqlite3'] = None\n"
        "sys.modules['_sqlite3'] = None\n"
        "import puzzlebase\n"
        f"db = puzzlebase.open({str(db_path)!r})\n"
        "print(db.distance('eight', '867254301'))\n"
        "assert sys.modules['sqlite3'] is None and sys.modules['_sqlite3'] is None\n"
    )
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "31"


def test_a_database_closes(db_path):
    with puzzlebase.open(db_path) as db:
        assert db.distance("six", db.unrank("six", 0)) is not None
        assert db.file == db_path
    with pytest.raises(puzzlebase.Error, match="is closed"):
        db.distance("six", "0123456")


def test_sliding_blocks(cli, db):
    # Klotski from its rows, Rush Hour by searching each board's cluster: both as query.
    start = "BAAB/BAAB/BCCB/BDDB/D..D"
    assert db.distance("klotski", start) == 81
    hardest = "BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM."
    assert db.distance("rush-hour", hardest) == 51
    want = cli.json("query", "--puzzle", "rush-hour", "--state", hardest)
    assert want["distance"] == 51 and want["cluster"] == 4780
    assert db.start("rush-hour")["cluster"] == 4780
    # A truck right of the red car on its row: no position of its cluster is solved.
    assert db.distance("rush-hour", "oooooooooooooAABBBoooooooooooooooooo") is None

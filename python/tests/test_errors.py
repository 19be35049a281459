"""Every refusal is a puzzlebase.Error subclass carrying the line `query` prints."""

import shutil

import pytest

import puzzlebase
from conftest import assert_querys_line

# (puzzle, state, the exception, the Python builtin it is also, query's exit code)
REFUSALS = [
    ("nope", "123456780", puzzlebase.UnknownPuzzle, LookupError, 2),
    ("eight", "12345678", puzzlebase.BadPosition, ValueError, 2),
    ("eight", "12345678x", puzzlebase.BadPosition, ValueError, 2),
    ("eight", "x" * 5000, puzzlebase.BadPosition, ValueError, 2),
    # The wrong permutation parity, refused whether or not eleven is in the file.
    ("eleven", "2,1,3,4,5,6,7,8,9,10,11,0", puzzlebase.BadPosition, ValueError, 1),
    ("eight", "213456780", puzzlebase.BadPosition, ValueError, 1),
    ("tiles8", "213456780", puzzlebase.BadPosition, ValueError, 1),
    ("triangle21", "11111101111111111111", puzzlebase.BadPosition, ValueError, 2),
    ("cross13-layers", "11111101111112", puzzlebase.BadPosition, ValueError, 2),
    ("eleven", "0,3,2,1,8,7,6,5,4,11,10,9", puzzlebase.FileError, None, 1),
    ("magic-triangle", "123456789", puzzlebase.NotApplicable, None, 2),
]


@pytest.mark.parametrize("puzzle,state,error,builtin,code", REFUSALS)
def test_refusals_are_query_s(cli, db, puzzle, state, error, builtin, code):
    got, message = cli.json("query", "--puzzle", puzzle, "--state", state)
    assert got == code
    for ask in [db.distance, db.solutions, db.path, db.moves]:
        if puzzle == "magic-triangle" and ask == db.moves:
            continue  # an arrangement's moves: none, as on the server's page
        with pytest.raises(error) as e:
            ask(puzzle, state)
        assert_querys_line(str(e.value), message)
        assert isinstance(e.value, puzzlebase.Error)
        if builtin:
            assert isinstance(e.value, builtin)


def test_a_long_position_is_cut_as_query_cuts_it(cli, db):
    state = "1" * 5000
    _, message = cli.json("query", "--puzzle", "eight", "--state", state)
    assert "characters left out" in message
    with pytest.raises(puzzlebase.BadPosition, match="characters left out") as e:
        db.distance("eight", state)
    assert_querys_line(str(e.value), message)


def test_a_missing_file_is_query_s_refusal(cli, tmp_path):
    missing = tmp_path / "missing.sqlite"
    _, message = cli.json("query", "--puzzle", "eight", "--state", "123456780", db=str(missing))
    with pytest.raises(puzzlebase.FileError) as e:
        puzzlebase.open(missing)
    assert_querys_line(str(e.value), message)
    assert not missing.exists()


def test_a_damaged_file_is_query_s_refusal(cli, db_path, tmp_path):
    # One byte changed in the middle of the file: a page that fails its checksum.
    damaged = tmp_path / "damaged.sqlite"
    shutil.copy(db_path, damaged)
    data = bytearray(damaged.read_bytes())
    page = 4096
    for at in range(len(data) // 2 // page * page + 100, len(data), page):
        data[at] ^= 0xFF
    damaged.write_bytes(bytes(data))
    code, message = cli.json("query", "--puzzle", "eight", "--state", "867254301",
                             db=str(damaged))
    listed, _, listing = cli.run("list", "--json", db=str(damaged))
    assert code == 1 or listed == 1, "the damage went unnoticed"
    try:
        db = puzzlebase.open(damaged)
    except puzzlebase.FileError as e:
        assert_querys_line(str(e), message)
        return
    if code == 1:
        with pytest.raises(puzzlebase.FileError) as e:
            db.distance("eight", "867254301")
        assert_querys_line(str(e.value), message)
    if listed == 1:
        with pytest.raises(puzzlebase.FileError) as e:
            db.puzzles()
        assert_querys_line(str(e.value), listing)


def test_unrank_outside_the_puzzle(db):
    with pytest.raises(puzzlebase.BadPosition, match="outside the positions of eight"):
        db.unrank("eight", 181440)
    with pytest.raises(puzzlebase.NotApplicable):
        db.rank("magic-triangle", "123456789")


def test_the_exceptions_are_documented():
    doc = puzzlebase.__doc__
    for name in ["Error", "UnknownPuzzle", "BadPosition", "NotApplicable", "FileError",
                 "SearchStopped"]:
        assert name in doc
        assert getattr(puzzlebase, name).__module__ == "puzzlebase"
        assert getattr(puzzlebase, name).__doc__
    assert issubclass(puzzlebase.SearchStopped, puzzlebase.Error)

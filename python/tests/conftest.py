"""Fixtures: the `puzzlebase` command line and a small file with every storage kind.

The command is $PUZZLEBASE_BIN when set, else the debug binary of this repository,
built with `cargo build --bin puzzlebase` (a no-op when it is up to date; CARGO_TARGET_DIR
is honoured). The file holds one puzzle of each storage kind the package reads:

    six, knight-swap, oshidori,  rows (`positions`): sliding, tokens, stone pairs
    eight
    eight-packed                 packed (eight asked for packed storage, a test fixture)
    triangle21                   a peg board's rows, one per symmetry class
    cross13-layers               a peg board stored as layers (`peg-layers`)
    magic-triangle               an enumeration (`solutions`)
    tiles8                       answered by search over pattern tables (`patterns`)
    klotski                      sliding blocks, packed: two-bit codes beside counts
    rush-hour                    nothing stored, each board's cluster searched (`search`)
    pyramorphix                  a puzzle read from twsearch's own `.tws` file (rows)
"""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The test fixtures shared with sqlite/check.py and the Rust tests: the 8-puzzle
# answered by search over pattern tables, and stored packed.
FIXTURES = ROOT / "tests" / "fixtures" / "definitions"

PUZZLES = [
    "six",
    "knight-swap",
    "oshidori",
    "eight",
    "eight-packed",
    "triangle21",
    "cross13-layers",
    "magic-triangle",
    "tiles8",
    "klotski",
    "rush-hour",
    "pyramorphix",
]

# A ksolve/twsearch definition as the community writes it (a copy of twsearch's sample,
# kept as the families crate's test data).
TWS = ROOT / "crates" / "puzzlebase-families" / "tests" / "data" / "pyramorphix.tws"


def target_dir():
    """Cargo's target directory for this workspace (wherever CARGO_TARGET_DIR puts it)."""
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return pathlib.Path(json.loads(meta.stdout)["target_directory"])


def _binary():
    if os.environ.get("PUZZLEBASE_BIN"):
        return os.environ["PUZZLEBASE_BIN"]
    subprocess.run(
        ["cargo", "build", "--quiet", "--bin", "puzzlebase"], cwd=ROOT, check=True
    )
    return str(target_dir() / "debug" / "puzzlebase")


class Cli:
    """`puzzlebase` against one file."""

    def __init__(self, binary, db):
        self.binary = binary
        self.db = str(db)

    def run(self, *args, db=None):
        """(exit code, stdout, the message after `puzzlebase: ` on stderr)."""
        p = subprocess.run(
            [self.binary, *args[:1], "--db", db or self.db, *args[1:]],
            capture_output=True,
            text=True,
        )
        err = p.stderr.strip()
        prefix = "puzzlebase: "
        return p.returncode, p.stdout, err[len(prefix):] if err.startswith(prefix) else err

    def json(self, *args, db=None):
        """`query ... --json`'s object, or (exit code, message) when it refuses."""
        code, out, err = self.run(*args, "--json", db=db)
        if code != 0:
            return code, err
        return json.loads(out)

    def lines(self, *args):
        code, out, err = self.run(*args)
        assert code == 0, err
        return [json.loads(line) for line in out.splitlines()]


@pytest.fixture(scope="session")
def cargo_target():
    return target_dir()


@pytest.fixture(scope="session")
def binary():
    return _binary()


@pytest.fixture(scope="session")
def db_path(tmp_path_factory, binary):
    where = tmp_path_factory.mktemp("puzzlebase")
    defs = where / "definitions"
    defs.mkdir()
    for name in ["tiles8", "eight-packed"]:
        (defs / f"{name}.toml").write_text((FIXTURES / f"{name}.toml").read_text())
    (defs / "pyramorphix.tws").write_text(TWS.read_text())
    # A small peg board in the storage of the French boards (docs/definitions.md).
    cross = (ROOT / "data" / "puzzles" / "examples" / "cross13.toml").read_text()
    (defs / "cross13-layers.toml").write_text(
        cross.replace('name = "cross13"', 'name = "cross13-layers"') + 'storage = "layers"\n'
    )
    db = where / "test.sqlite"
    args = [binary, "generate", "--quiet", "--db", str(db), "--definitions", str(defs)]
    for name in PUZZLES:
        args += ["--puzzle", name]
    subprocess.run(args, check=True)
    return db


@pytest.fixture(scope="session")
def cli(binary, db_path):
    return Cli(binary, db_path)


@pytest.fixture(scope="session")
def db(db_path):
    import puzzlebase

    return puzzlebase.open(str(db_path))


def assert_querys_line(library, command):
    """A refusal's line from the package is `query`'s: the library's line, which the
    command may follow with its hint (the flag or command that mends it, such as
    `--db PATH` or `puzzlebase verify`), which a Python program has no use for."""
    assert command.startswith(library), f"{library!r} is not the start of {command!r}"

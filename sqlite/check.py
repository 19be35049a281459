#!/usr/bin/env python3
"""The SQLite extension, checked as a user of Debian's `sqlite3` shell meets it.

    python3 sqlite/check.py EXTENSION PUZZLEBASE [PYTHON]

EXTENSION is the built extension (target/release/libpuzzlebase_sqlite.so), PUZZLEBASE
a puzzlebase binary, PYTHON (optional) a Python with `pysqlite3-binary` and `datasette`
installed (Debian's own `sqlite3` module cannot load extensions): with it, the same
answers are asked through Python's DB-API and through a Datasette instance started
with `--load-extension` on 127.0.0.1. A small file is generated with puzzles of every storage kind
(positions rows, packed, peg classes, an enumeration, a puzzle answered by search),
then every `pb_*` function is asked through `sqlite3` (a SQLite that knows nothing of
puzzlebase's page checksums) and each answer is held to what `puzzlebase query` says
of the same position: the same distance, solution count and path, the same error line,
`NULL` where query finds no distance. Prints one line per check; exits 1 on the first
failure.
"""

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

EXT, PB = (os.path.abspath(a) for a in sys.argv[1:3])
PYTHON = sys.argv[3] if len(sys.argv) > 3 else None
CHECKS = 0

# A puzzle read from twsearch's own `.tws` file (its sample, kept as test data).
TWS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crates",
                   "puzzlebase-families", "tests", "data", "pyramorphix.tws")

# The 8-puzzle answered by search over pattern tables (shared with python/tests), so
# its answers must agree with eight's table.
SEARCHED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                        "fixtures", "definitions", "tiles8.toml")


def fail(what):
    print(f"FAIL: {what}")
    sys.exit(1)


def ok(what):
    global CHECKS
    CHECKS += 1
    print(f"ok   {what}")


def sql(db, expr):
    """One SELECT through sqlite3 with the extension loaded: (value or None, error)."""
    r = subprocess.run(
        ["sqlite3", "-bail", "-json", db, f".load {EXT}", f"SELECT {expr} AS v;"],
        capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    rows = json.loads(r.stdout) if r.stdout.strip() else []
    return rows[0]["v"], None


def plain(db, select):
    """One SELECT through sqlite3 with no extension loaded: its rows as dicts."""
    r = subprocess.run(["sqlite3", "-bail", "-json", db, select], capture_output=True,
                       text=True)
    if r.returncode != 0:
        fail(f"{select}: {r.stderr.strip()}")
    return json.loads(r.stdout) if r.stdout.strip() else []


def query(db, *args):
    """`puzzlebase query --json`: (answer or None, error line without the prefix)."""
    r = subprocess.run([PB, "query", "--db", db, "--json", *args], capture_output=True,
                       text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().removeprefix("puzzlebase: ")
    return json.loads(r.stdout), None


def lit(s):
    return "'" + s.replace("'", "''") + "'"


def same_answer(db, puzzle, state):
    want, why = query(db, "--puzzle", puzzle, "--state", state)
    args = f"{lit(puzzle)}, {lit(state)}"
    d, e1 = sql(db, f"pb_distance({args})")
    n, e2 = sql(db, f"pb_solutions({args})")
    p, e3 = sql(db, f"pb_path({args})")
    if any((e1, e2, e3)):
        fail(f"{puzzle} {state}: {e1 or e2 or e3}")
    if want is None:
        if (d, n, p) != (None, None, None):
            fail(f"{puzzle} {state}: query has no distance ({why}) but SQL gives {d}")
        ok(f"{puzzle} {state}: NULL, as query finds no distance")
        return
    counts = want.get("solutions") if want.get("solutions_stored", True) else None
    if d != want["distance"] or n != counts or json.loads(p) != want["path"]:
        fail(f"{puzzle} {state}: SQL {d}, {n}, {p} against query {want}")
    named = want.get("moves")
    if isinstance(named, list) and all(isinstance(m, str) for m in named):
        m, e4 = sql(db, f"pb_path_moves({args})")
        if e4 or json.loads(m) != named:
            fail(f"{puzzle} {state}: pb_path_moves {m or e4} against query's moves {named}")
        ok(f"{puzzle} {state}: the moves by name, as query: {' '.join(named)[:40]}")
    ok(f"{puzzle} {state}: distance {d}, solutions {n}, a path of {len(want['path'])}")


def carries_querys_line(got, want):
    """Whether the SQL error holds query's line: the library's line, which is query's or
    its start (query adds the options to type after it, as in `(query --all or --sum N)`)."""
    if want is None or got is None:
        return False
    at = got.find(want[:30])
    return at >= 0 and want.startswith(got[at:].rstrip())


def same_error(db, puzzle, state):
    _, want = query(db, "--puzzle", puzzle, "--state", state)
    _, got = sql(db, f"pb_distance({lit(puzzle)}, {lit(state)})")
    if not carries_querys_line(got, want):
        fail(f"{puzzle} {state!r}: SQL error {got!r}, query's {want!r}")
    ok(f"{puzzle} {state!r}: the error query prints: {want[:60]}…")


def longest(db, puzzle):
    a, why = query(db, "--puzzle", puzzle, "--longest")
    if a is None:
        fail(f"{puzzle} --longest: {why}")
    return a["states"][:2]


def mirrored(state, rows):
    """A peg position seen in a mirror: each row of holes read right to left."""
    out, at = [], 0
    for n in rows:
        out.append(state[at:at + n][::-1])
        at += n
    return "".join(out)


def outside_family(tmp):
    """A puzzle of a family defined outside puzzlebase (examples/pancake, docs/library.md),
    in a file the example program writes: the extension, built without that family,
    refuses it with query's line naming the family; its rows stay plain SQL. The program
    is the debug build beside PUZZLEBASE (`cargo test` builds it)."""
    pancake = os.path.join(os.path.dirname(PB), "examples", "pancake")
    if not os.path.exists(pancake):
        print(f"skipped: a family outside puzzlebase ({pancake} is not built: "
              "cargo build --example pancake)")
        return
    db = os.path.join(tmp, "pancakes.sqlite")
    subprocess.run([pancake, "4", db], check=True, capture_output=True)
    _, line = query(db, "--puzzle", "pancakes-4", "--state", "2413")
    if not line or '"pancake"' not in line:
        fail(f"query on a family outside puzzlebase: {line!r}")
    same_error(db, "pancakes-4", "2413")
    # MathWorld, "Pancake Sorting": (2,4,1,3) is one of the three stacks of four that
    # need the maximum of four flips.
    rows = plain(db, "SELECT distance FROM positions WHERE puzzle = 'pancakes-4' "
                     "AND state = '2413'")
    if rows != [{"distance": 4}]:
        fail(f"pancakes-4 2413 by plain SQL: {rows}")
    ok("pancakes-4 2413: 4 flips by plain SQL, without the family")


def main(tmp):
    db = os.path.join(tmp, "p.sqlite")
    defs = os.path.join(tmp, "defs")
    os.mkdir(defs)
    shutil.copy(SEARCHED, os.path.join(defs, "tiles8.toml"))
    shutil.copy(TWS, os.path.join(defs, "pyramorphix.tws"))
    puzzles = ["seven", "eight", "nine", "eleven", "english33", "magic-triangle", "tiles8",
               "lights-out-5", "hanoi-3", "cube2", "klotski", "rush-hour", "pyramorphix"]
    cmd = [PB, "generate", "--db", db, "--quiet", "--definitions", defs]
    for p in puzzles:
        cmd += ["--puzzle", p]
    subprocess.run(cmd, check=True)

    # The seeds' puzzles need no extension: the first query a new user writes answers
    # with what query says (the 8-puzzle's hardest position, and the 2x5's two farthest).
    for puzzle, states in [("eight", ["867254301"]), ("nine", longest(db, "nine"))]:
        for state in states:
            want, why = query(db, "--puzzle", puzzle, "--state", state)
            rows = plain(db, "SELECT distance, solutions FROM positions WHERE puzzle = "
                             f"{lit(puzzle)} AND state = {lit(state)}")
            if want is None or rows != [{"distance": want["distance"],
                                         "solutions": want["solutions"]}]:
                fail(f"plain SELECT {puzzle} {state}: {rows}, query {want or why}")
            ok(f"plain SELECT {puzzle} {state}: distance {rows[0]['distance']}, "
               f"{rows[0]['solutions']} solutions, as query")

    v, e = sql(db, "pb_version()")
    if e or not v:
        fail(f"pb_version: {e}")
    ok(f"pb_version() = {v}")

    # Every storage kind answers as query does: the longest positions, and random ones
    # (random ranks of the move puzzles, random stored rows of the peg board).
    for puzzle in ["seven", "eight", "eleven", "english33"]:
        for state in longest(db, puzzle):
            same_answer(db, puzzle, state)
    rng = random.Random(33)
    for puzzle, ranks in [("seven", 20160), ("eight", 181440), ("eleven", 239500800)]:
        for _ in range(8):
            state, e = sql(db, f"pb_unrank({lit(puzzle)}, {rng.randrange(ranks)})")
            if e:
                fail(f"pb_unrank {puzzle}: {e}")
            same_answer(db, puzzle, state)
    rows, _ = sql(db, "(SELECT json_group_array(state) FROM (SELECT state FROM positions "
                      f"WHERE puzzle = 'english33' AND rank % 997 = {rng.randrange(997)} "
                      "LIMIT 8))")
    for state in json.loads(rows):
        same_answer(db, "english33", state)
    same_answer(db, "eight", "867254301")
    same_answer(db, "eleven", "0,3,2,1,8,7,6,5,4,11,10,9")
    # Answered by search, and equal to the table of the same puzzle.
    same_answer(db, "tiles8", "867254301")
    d, _ = sql(db, "pb_distance('tiles8', '867254301') = pb_distance('eight', '867254301')")
    if d != 1:
        fail("tiles8 and eight disagree")
    ok("tiles8 (search) and eight (table) agree")

    # Sliding blocks: Klotski from its rows (the standard start, 81 moves, and the
    # farthest), Rush Hour by searching each board's cluster (Fogleman's hardest boards,
    # 51 and 60 moves, and a board no move solves: NULL, as query finds no distance).
    same_answer(db, "klotski", "BAAB/BAAB/BCCB/BDDB/D..D")
    for state in longest(db, "klotski")[:4]:
        same_answer(db, "klotski", state)
    for board in ["BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM.", "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM",
                  "oooooooooooooAABBBoooooooooooooooooo"]:
        same_answer(db, "rush-hour", board)
    d, _ = sql(db, "pb_distance('rush-hour', 'BCDDE.BCF.EGB.FAAGHHHI.G..JIKKLLJMM.')")
    if d != 51:
        fail(f"rush-hour: Fogleman's hardest board is 51 moves, SQL says {d}")
    ok("rush-hour: Fogleman's hardest board, 51 moves")

    # A puzzle imported from twsearch's `.tws` text: its farthest positions and random
    # ranks answer as query does, moves by name included.
    for state in longest(db, "pyramorphix")[:4]:
        same_answer(db, "pyramorphix", state)
    size, _ = sql(db, "(SELECT states FROM puzzles WHERE name = 'pyramorphix')")
    for _ in range(4):
        state, e = sql(db, f"pb_unrank('pyramorphix', {rng.randrange(size)})")
        if e:
            fail(f"pb_unrank pyramorphix: {e}")
        same_answer(db, "pyramorphix", state)

    # Lights Out (two-bit codes over the presses' span) and the Tower of Hanoi (rows),
    # rebuilt from their stored definitions: the start, the farthest and random ranks
    # answer as query does; a pattern no presses turn off is refused with query's line.
    for puzzle, ranks in [("lights-out-5", 1 << 23), ("hanoi-3", 3 ** 7)]:
        start, _ = query(db, "--puzzle", puzzle, "--start")
        same_answer(db, puzzle, start["state"])
        for state in longest(db, puzzle)[:4]:
            same_answer(db, puzzle, state)
        for _ in range(4):
            state, e = sql(db, f"pb_unrank({lit(puzzle)}, {rng.randrange(ranks)})")
            if e:
                fail(f"pb_unrank {puzzle}: {e}")
            same_answer(db, puzzle, state)
    same_error(db, "lights-out-5", "1" + "0" * 24)
    same_error(db, "hanoi-3", "AAAAAAD")

    # A peg position in any orientation; one that cannot finish is NULL.
    english = [3, 3, 7, 7, 7, 3, 3]
    for state in longest(db, "english33"):
        same_answer(db, "english33", mirrored(state, english))
    same_answer(db, "english33", "1" * 32 + "0")

    # A permutation puzzle (the pocket cube, packed: two-bit codes beside u8 counts),
    # rebuilt from its stored definition: R then U from solved is two face turns; the
    # antipodes answer as query does; plain SQL reads its code and count at the rank the
    # extension gives, as docs/file-format.md shows; a corner twisted in place is refused
    # with query's line.
    for state in ["UUFFUBRRRRFDDBDBFDLLLLUB"] + longest(db, "cube2"):
        same_answer(db, "cube2", state)
    rank, _ = sql(db, "pb_rank('cube2', 'UUFFUBRRRRFDDBDBFDLLLLUB')")
    rows = plain(db, "SELECT (SELECT hex(substr(data, 1 + (%d %% 16000) / 4, 1)) "
                     "FROM packed_chunks WHERE puzzle = 'cube2' AND kind = 'distance' AND "
                     "chunk = %d / 16000) AS byte, (SELECT hex(substr(data, 1 + %d %% 4000, "
                     "1)) FROM packed_chunks WHERE puzzle = 'cube2' AND kind = 'solutions' "
                     "AND chunk = %d / 4000) AS count" % (rank, rank, rank, rank))
    code = (int(rows[0]["byte"], 16) >> (2 * (rank % 4))) & 3 if rows else None
    if code != 2 or rows[0]["count"] != "01":
        fail(f"plain SQL cube2 at rank {rank}: {rows}")
    ok(f"plain SQL cube2 rank {rank}: code 2 (distance 2 mod 3), count 1")
    same_error(db, "cube2", "UUUFURRRFRFFDDDDLLLLBBBB")

    # Refusals carry query's line.
    same_error(db, "eleven", "2,1,3,4,5,6,7,8,9,10,11,0")
    same_error(db, "eight", "12345678")
    same_error(db, "eight", "12345678x")
    same_error(db, "nosuch", "1")
    same_error(db, "eight", "1" * 5000)  # its middle left out, as query prints it
    same_error(db, "magic-triangle", "123456789")
    outside_family(tmp)

    # Moves: best first, each with the distance its position has.
    for puzzle, state in [("eight", "867254301"), ("english33", longest(db, "english33")[0]),
                          ("tiles8", "867254301")]:
        moves, e = sql(db, f"pb_moves({lit(puzzle)}, {lit(state)})")
        if e:
            fail(f"pb_moves {puzzle}: {e}")
        moves = json.loads(moves)
        keys = [(m["distance"] is None, m["distance"], m["state"]) for m in moves]
        if not moves or keys != sorted(keys):
            fail(f"pb_moves {puzzle}: not best first: {moves}")
        for m in moves:
            d, _ = sql(db, f"pb_distance({lit(puzzle)}, {lit(m['state'])})")
            if d != m["distance"]:
                fail(f"pb_moves {puzzle}: {m} but pb_distance gives {d}")
        ok(f"pb_moves {puzzle}: {len(moves)} moves, best first, distances as pb_distance")

    # Ranks join with the stored rows (a mirrored peg position finds its class's row),
    # and come back as the position.
    state = longest(db, "seven")[0]
    s = longest(db, "english33")[0]
    for puzzle, asked, original in [("seven", state, state),
                                    ("english33", mirrored(s, english), s)]:
        d, e = sql(db, f"(SELECT distance FROM positions WHERE puzzle = {lit(puzzle)} "
                       f"AND rank = pb_rank({lit(puzzle)}, {lit(asked)}))")
        want, _ = sql(db, f"pb_distance({lit(puzzle)}, {lit(original)})")
        if e or d != want:
            fail(f"pb_rank join {puzzle} {asked}: {d} {e} against {want}")
        ok(f"pb_rank({puzzle}, {asked}) joins with positions.rank")
    for puzzle, state in [("seven", state), ("eleven", "0,3,2,1,8,7,6,5,4,11,10,9")]:
        back, e = sql(db, f"pb_unrank({lit(puzzle)}, pb_rank({lit(puzzle)}, {lit(state)}))")
        if e or back != state:
            fail(f"pb_unrank(pb_rank) {puzzle}: {back} {e}")
    ok("pb_unrank(pb_rank(s)) = s")
    _, e = sql(db, "pb_unrank('eight', 362880)")
    if not e or "outside" not in e:
        fail(f"pb_unrank past the last rank: {e}")
    ok("pb_unrank past the last rank is refused")

    # A damaged chunk, in a copy changed behind puzzlebase's back: refused, never a
    # number (query refuses the copy too, its page checksums broken).
    damaged = os.path.join(tmp, "damaged.sqlite")
    with open(db, "rb") as src, open(damaged, "wb") as dst:
        dst.write(src.read())
    state = "0,3,2,1,8,7,6,5,4,11,10,9"
    subprocess.run(["sqlite3", damaged, f".load {EXT}",
                    "UPDATE packed_chunks SET data = substr(data, 1, 3) "
                    "WHERE puzzle = 'eleven' AND kind = 'distance' AND chunk = "
                    f"pb_rank('eleven', {lit(state)}) / (SELECT ranks_per_chunk FROM "
                    "packed_tables WHERE puzzle = 'eleven' AND kind = 'distance');"],
                   check=True)
    d, e = sql(damaged, f"pb_distance('eleven', {lit(state)})")
    if d is not None or not e or "damaged" not in e:
        fail(f"a damaged chunk gave {d!r} {e!r}")
    ok(f"a damaged chunk is refused: {e[:70]}…")
    _, why = query(damaged, "--puzzle", "eleven", "--state", state)
    if why is None:
        fail("query answered from the changed copy")
    ok(f"query refuses it too: {why[:60]}…")

    # A write-ahead log made by plain SQLite on a copy (eight's distance raised) and
    # planted beside the file: a host that opens the file immutable reads the file's own
    # pages, a host that reads through the log is refused.
    planted = os.path.join(tmp, "planted.sqlite")
    shutil.copy(db, planted)
    shutil.copy(db, os.path.join(tmp, "walcopy.sqlite"))
    import sqlite3 as plain_sqlite
    w = plain_sqlite.connect(os.path.join(tmp, "walcopy.sqlite"))
    w.execute("PRAGMA journal_mode = WAL")
    w.execute("PRAGMA wal_autocheckpoint = 0")
    w.execute("UPDATE positions SET distance = 33 WHERE puzzle = 'eight' "
              "AND state = '867254301'")
    w.commit()
    shutil.copy(os.path.join(tmp, "walcopy.sqlite-wal"), planted + "-wal")
    w.close()
    d, e = sql(f"file:{planted}?immutable=1", "pb_distance('eight', '867254301')")
    if d != 31:
        fail(f"the planted file opened immutable gave {d!r} {e!r}")
    ok("the same file opened immutable answers from its own pages: 31")
    # Last: the shell that reads through the log writes it into the copy on closing.
    d, e = sql(planted, "pb_distance('eight', '867254301')")
    if d is not None or not e or "write-ahead log" not in e:
        fail(f"a planted -wal gave {d!r} {e!r}")
    ok(f"a planted -wal is refused: {e[:70]}…")

    trusted(tmp)

    # docs/readers.md's decoding by hand, run on this file, agrees with the extension.
    page = open(os.path.join(os.path.dirname(__file__), "..", "docs", "readers.md")).read()
    code = page.split("## By hand")[1].split("```python\n")[1].split("```")[0]
    out = subprocess.run([sys.executable, "-c", code, db], capture_output=True, text=True,
                         check=True).stdout
    state = "0,3,2,1,8,7,6,5,4,11,10,9"
    rank, _ = sql(db, f"pb_rank('eleven', {lit(state)})")
    d, _ = sql(db, f"pb_distance('eleven', {lit(state)})")
    if f"rank {rank}:" not in out or not out.strip().endswith(f"distance {d}"):
        fail(f"docs/readers.md by hand: {out!r} against rank {rank}, distance {d}")
    ok(f"docs/readers.md's decoding by hand: {out.strip()}")

    if PYTHON:
        other_hosts(db)
    print(f"{CHECKS} checks passed")


def trusted(tmp):
    """`pb_trust(key)`: the connection answers only from the file its signature signed
    with that key; another key, or a changed byte, is refused."""
    pub, sec = os.path.join(tmp, "k.pub"), os.path.join(tmp, "k.key")
    other = os.path.join(tmp, "o.pub")
    subprocess.run([PB, "keygen", "--public", pub, "--secret", sec], check=True,
                   capture_output=True)
    subprocess.run([PB, "keygen", "--public", other, "--secret",
                    os.path.join(tmp, "o.key")], check=True, capture_output=True)
    signed = os.path.join(tmp, "signed.sqlite")
    subprocess.run([PB, "generate", "-q", "--db", signed, "--puzzle", "eight", "--sign",
                    sec], check=True)
    key = open(pub).read().splitlines()[1]
    wrong = open(other).read().splitlines()[1]

    def ask(db, k):
        r = subprocess.run(["sqlite3", "-bail", db, f".load {EXT}",
                            f"SELECT pb_trust({lit(k)});",
                            "SELECT pb_distance('eight', '867254301');"],
                           capture_output=True, text=True)
        return r.returncode, r.stdout.split(), r.stderr.strip()

    code, out, err = ask(signed, key)
    if code != 0 or out[-1:] != ["31"]:
        fail(f"pb_trust with the signing key: {code} {out} {err}")
    ok(f"pb_trust with the signing key ({out[0]}): answered, 31")
    code, out, err = ask(signed, wrong)
    if code == 0 or "31" in out:
        fail(f"pb_trust with another key answered: {out} {err}")
    ok(f"pb_trust with another key is refused: {err[:60]}…")
    data = bytearray(open(signed, "rb").read())
    data[-20] ^= 1
    open(signed, "wb").write(bytes(data))
    code, out, err = ask(signed, key)
    if code == 0 or "signature" not in err:
        fail(f"pb_trust on a changed file: {code} {out} {err}")
    ok(f"pb_trust on a file changed after signing is refused: {err[:60]}…")


def other_hosts(db):
    """The same answers through Python's DB-API (pysqlite3) and through Datasette."""
    asked = [("eight", "867254301"), ("eleven", "0,3,2,1,8,7,6,5,4,11,10,9"),
             ("english33", mirrored(longest(db, "english33")[0], [3, 3, 7, 7, 7, 3, 3])),
             ("english33", "1" * 32 + "0"), ("tiles8", "867254301")]
    want = [query(db, "--puzzle", p, "--state", s)[0] for p, s in asked]
    want = [w["distance"] if w else None for w in want]
    code = (
        "import json, sys, pysqlite3\n"
        f"c = pysqlite3.connect({db!r}); c.enable_load_extension(True)\n"
        f"c.load_extension({EXT!r})\n"
        f"print(json.dumps([c.execute('SELECT pb_distance(?, ?)', a).fetchone()[0] "
        f"for a in {asked!r}]))\n")
    got = json.loads(subprocess.run([PYTHON, "-c", code], capture_output=True, text=True,
                                    check=True).stdout)
    if got != want:
        fail(f"through Python: {got} against query's {want}")
    ok(f"through Python's DB-API (pysqlite3): {got}")

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen(
        [PYTHON, "-m", "datasette", "serve", db, "--load-extension", EXT,
         "-h", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        name = os.path.splitext(os.path.basename(db))[0]
        got = []
        for p, s in asked:
            sql_text = f"select pb_distance({lit(p)}, {lit(s)}) as d"
            url = (f"http://127.0.0.1:{port}/{name}.json?_shape=array&sql="
                   + urllib.parse.quote(sql_text))
            for _ in range(300):  # at most 30 s for the server to come up
                try:
                    with urllib.request.urlopen(url, timeout=10) as r:
                        got.append(json.load(r)[0]["d"])
                    break
                except OSError:
                    time.sleep(0.1)
            else:
                fail("Datasette did not answer on 127.0.0.1")
        if got != want:
            fail(f"through Datasette: {got} against query's {want}")
        ok(f"through Datasette --load-extension: {got}")
    finally:
        server.terminate()
        server.wait(timeout=30)


# The generated files (about 700 MB) go with the run, passed or failed.
with tempfile.TemporaryDirectory() as scratch:
    main(scratch)

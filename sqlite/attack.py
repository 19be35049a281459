#!/usr/bin/env python3
"""An attacker's run against the readers of other hosts: the SQLite extension loaded
into a plain SQLite (pysqlite3, no page checksums) and the Python package.

    PYTHON sqlite/attack.py PUZZLEBASE EXTENSION [CASES] [SEED]

PYTHON needs `pysqlite3` (pip's pysqlite3-binary) for the extension's part and the
`puzzlebase` package for the package's part; a part whose module is missing is
skipped and said so (CI runs the script once in each of its two environments).
A small file of every storage kind (rows with counts, packed, two-bit, peg boards) is
generated, then CASES seeded changes (default 1,000; a fifth each: two pages swapped,
a page copied over another, a page taken from another file, one value changed by a
plain `UPDATE`, one row deleted by a plain `DELETE`) are made to fresh copies, and the
same questions are asked of each copy as of the untouched file: distances, solution
counts and paths of fixed positions, and of the position the changed row holds. Each
answer must be the untouched one or a refusal (an exception). Prints the counts
(cases, answers unchanged, refused, silent) and exits 1 if any answer was silent.
"""

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

PB, EXT = (os.path.abspath(a) for a in sys.argv[1:3])
CASES = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
SEED = int(sys.argv[4]) if len(sys.argv) > 4 else 73
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "tests", "fixtures", "definitions")
PUZZLES = os.path.join(HERE, "..", "data", "puzzles")

try:
    import pysqlite3
except ImportError:
    pysqlite3 = None
try:
    import puzzlebase
except ImportError:
    puzzlebase = None

# (puzzle, state): every storage kind the file holds, goal and far positions alike.
FIXED = [
    ("seven", "07214365"), ("eight", "867254301"), ("eight", "123456780"),
    ("eight-packed", "867254301"), ("eight-packed", "123456708"),
    ("six-codes", "longest"), ("triangle21", "start"), ("hanoi-3", "start"),
]

# Every table a change may hit, with its primary key.
TABLES = [
    ("positions", ["puzzle", "rank"]), ("packed_chunks", ["puzzle", "kind", "chunk"]),
    ("histogram", ["puzzle", "distance"]), ("peg_layers", ["puzzle", "pegs"]),
    ("solutions", ["puzzle", "rank"]), ("packed_tables", ["puzzle", "kind"]),
    ("farthest", ["puzzle", "rank"]), ("puzzles", ["name"]),
    ("digests", ["puzzle", "tbl", "kind", "first"]),
]


def build(tmp):
    defs = os.path.join(tmp, "defs")
    os.mkdir(defs)
    shutil.copy(os.path.join(FIXTURES, "eight-packed.toml"), defs)
    six = open(os.path.join(PUZZLES, "six.toml")).read()
    open(os.path.join(defs, "six-codes.toml"), "w").write(
        six.replace('name = "six"', 'name = "six-codes"\nstorage = "two-bit"'))
    db = os.path.join(tmp, "good.sqlite")
    cmd = [PB, "generate", "-q", "--db", db, "--definitions", defs]
    for p in ["seven", "eight", "eight-packed", "six-codes", "triangle21", "hanoi-3"]:
        cmd += ["--puzzle", p]
    subprocess.run(cmd, check=True)
    foreign = os.path.join(tmp, "foreign.sqlite")
    subprocess.run([PB, "generate", "-q", "--db", foreign, "--puzzle", "six",
                    "--puzzle", "knight-swap", "--puzzle", "oshidori"], check=True)
    return db, open(foreign, "rb").read()


def start_states(db):
    """The fixed questions, with the starts and the longest positions asked for filled
    in from `puzzlebase query`."""
    out = []
    for p, s in FIXED:
        if s in ("start", "longest"):
            a = json.loads(subprocess.run([PB, "query", "--db", db, "--puzzle", p,
                                           f"--{s}", "--json"], capture_output=True,
                                          text=True, check=True).stdout)
            s = a["state"] if "state" in a else a["states"][-1]
        out.append((p, s))
    return out


def through_extension(path, questions):
    con = pysqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        con.enable_load_extension(True)
        con.load_extension(EXT)
    except Exception as e:  # the file refused at its first read is a refusal of all
        return [e] * (3 * len(questions))
    out = []
    for p, s in questions:
        for f in ["pb_distance", "pb_solutions", "pb_path"]:
            try:
                out.append(con.execute(f"SELECT {f}(?, ?)", (p, s)).fetchone()[0])
            except Exception as e:
                out.append(e)
    con.close()
    return out


def through_package(path, questions):
    try:
        db = puzzlebase.open(path)
    except Exception as e:
        return [e] * (3 * len(questions))
    out = []
    for p, s in questions:
        for f in [db.distance, db.solutions, db.path]:
            try:
                out.append(f(p, s))
            except Exception as e:
                out.append(e)
    db.close()
    return out


def plain_change(path, rng, delete):
    """One plain `UPDATE` of a value or `DELETE` of a row (as Debian's sqlite3 would
    make it: page sums left stale). Returns what was done and the (puzzle, state) the
    row holds where it is a position, or None when SQLite refused the change."""
    con = pysqlite3.connect(path)
    con.execute("PRAGMA foreign_keys = OFF")
    # (A file older than the digests has no `digests` table.)
    have = {r[0] for r in con.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    while True:
        table, key = rng.choice([t for t in TABLES if t[0] in have])
        n = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        if n:
            break
    vals = con.execute(f"SELECT {', '.join(key)} FROM {table} LIMIT 1 OFFSET ?",
                       (rng.randrange(n),)).fetchone()
    cond = " AND ".join(f"{k} = ?" for k in key)
    target = None
    if table == "positions":
        target = con.execute(f"SELECT puzzle, state FROM positions WHERE {cond}",
                             vals).fetchone()
    try:
        if delete:
            con.execute(f"DELETE FROM {table} WHERE {cond}", vals)
            what = f"DELETE {table} {vals}"
        else:
            cols = [d[0] for d in con.execute(f"SELECT * FROM {table} LIMIT 0").description]
            col = rng.choice(cols)
            now = con.execute(f"SELECT {col} FROM {table} WHERE {cond}", vals).fetchone()[0]
            if isinstance(now, int):
                new = now + rng.choice([-1, 1])
            elif isinstance(now, bytes) and now:
                b = bytearray(now)
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
                new = bytes(b)
            elif isinstance(now, str) and now:
                i = rng.randrange(len(now))
                new = now[:i] + ("1" if now[i] != "1" else "2") + now[i + 1:]
            else:
                new = 1
            con.execute(f"UPDATE {table} SET {col} = ? WHERE {cond}", (new, *vals))
            what = f"UPDATE {table}.{col} {now!r:.40} -> {new!r:.40} at {vals}"
        con.commit()
    except Exception:
        con.close()
        return None
    con.close()
    return what, target


def main(tmp):
    good, foreign = build(tmp)
    original = open(good, "rb").read()
    size = int.from_bytes(original[16:18], "big")
    size = 65536 if size == 1 else size
    pages = len(original) // size
    readers = []
    if pysqlite3:
        readers.append(("extension", through_extension))
    else:
        print("extension: pysqlite3 is not installed here; skipped")
    if puzzlebase:
        readers.append(("package", through_package))
    else:
        print("package: puzzlebase is not installed here; skipped")
    if not readers:
        sys.exit("no reader to attack: install pysqlite3-binary or the package")
    if not pysqlite3:
        # The plain SQL changes need a plain SQLite; Python's own one serves.
        import sqlite3 as plain_sqlite
        globals()["pysqlite3"] = plain_sqlite
    questions = start_states(good)
    answers = {name: ask(good, questions) for name, ask in readers}
    for name, a in answers.items():
        bad = [x for x in a if isinstance(x, Exception)]
        if bad:
            sys.exit(f"{name}: the untouched file is refused: {bad[0]}")
    rng = random.Random(SEED)
    attacked = os.path.join(tmp, "attacked.sqlite")
    tally = {name: [0, 0, 0] for name, _ in readers}  # unchanged, refused, silent
    cases = 0
    while cases < CASES:
        kind = cases % 5
        data = bytearray(original)
        target = None
        if kind < 3:
            a, b = 1 + rng.randrange(pages), 1 + rng.randrange(pages)
            if a == b and kind < 2:
                continue
            pa = bytes(data[(a - 1) * size:a * size])
            if kind == 0:
                data[(a - 1) * size:a * size] = data[(b - 1) * size:b * size]
                data[(b - 1) * size:b * size] = pa
                what = f"pages {a} and {b} swapped"
            elif kind == 1:
                data[(b - 1) * size:b * size] = pa
                what = f"page {a} copied over page {b}"
            else:
                f = 1 + rng.randrange(len(foreign) // size)
                data[(b - 1) * size:b * size] = foreign[(f - 1) * size:f * size]
                what = f"page {b} replaced by page {f} of another file"
            open(attacked, "wb").write(data)
        else:
            open(attacked, "wb").write(data)
            done = plain_change(attacked, rng, kind == 4)
            if done is None:
                continue
            what, target = done
        cases += 1
        qs = list(questions)
        extra = {}
        if target:
            qs.append(tuple(target))
            for name, ask in readers:
                extra[name] = ask(good, [tuple(target)])
        for name, ask in readers:
            want = answers[name] + extra.get(name, [])
            got = ask(attacked, qs)
            for q, w, g in zip([q for q in qs for _ in range(3)], want, got):
                if isinstance(g, Exception):
                    tally[name][1] += 1
                elif isinstance(w, Exception) or g != w:
                    tally[name][2] += 1
                    print(f"SILENT {name}: {what}: {q} answered {g!r:.60} "
                          f"where the untouched file gives {w!r:.60}")
                else:
                    tally[name][0] += 1
    silent = 0
    for name, (same, refused, wrong) in tally.items():
        print(f"{name}: {cases:,} changes (pages swapped, copied, foreign; plain UPDATEs "
              f"and DELETEs), seed {SEED}: {same:,} answers unchanged, {refused:,} "
              f"refused, {wrong} silent")
        silent += wrong
    sys.exit(1 if silent else 0)


with tempfile.TemporaryDirectory() as scratch:
    main(scratch)

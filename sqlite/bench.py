#!/usr/bin/env python3
"""Lookups per second through each reader, on random `eleven` positions.

    python3 sqlite/bench.py DB EXTENSION PUZZLEBASE [N]

DB must hold `eleven` (the default `generate` builds it). Prints, for N random
positions (default 100,000): `pb_distance` calls per second in one SQL statement
through Debian's `sqlite3`; `db.distance` calls per second through the Python package
when `import puzzlebase` works; and `puzzlebase query` processes per second, one per
position (on 50 of them). The positions are drawn with `pb_unrank` from random ranks.
"""

import os
import random
import re
import subprocess
import sys
import time

DB, EXT, PB = (os.path.abspath(a) for a in sys.argv[1:4])
N = int(sys.argv[4]) if len(sys.argv) > 4 else 100_000
RANKS = 239_500_800  # eleven's solvable half
random.seed(1)
ranks = [random.randrange(RANKS) for _ in range(N)]

script = f""".load {EXT}
CREATE TEMP TABLE r (k INTEGER);
BEGIN;
{chr(10).join(f"INSERT INTO r VALUES ({k});" for k in ranks)}
COMMIT;
CREATE TEMP TABLE s AS SELECT pb_unrank('eleven', k) AS s FROM r;
.timer on
SELECT count(pb_distance('eleven', s)) FROM s;
.timer off
"""
r = subprocess.run(["sqlite3", DB], input=script, capture_output=True, text=True, check=True)
seconds = float(re.search(r"Run Time: real ([0-9.]+)", r.stdout).group(1))
print(f"extension (sqlite3 {subprocess.run(['sqlite3', '--version'], capture_output=True, text=True).stdout.split()[0]}): "
      f"{N:,} pb_distance calls in {seconds:.3f} s = {N / seconds:,.0f} lookups/s")

# The same positions, as text, for the other readers.
states = subprocess.run(
    ["sqlite3", DB],
    input=f".load {EXT}\nSELECT pb_unrank('eleven', value) FROM "
          f"json_each('[{','.join(map(str, ranks[:20000]))}]');\n",
    capture_output=True, text=True, check=True).stdout.split()

try:
    import puzzlebase
    db = puzzlebase.open(DB)
    started = time.perf_counter()
    for s in states:
        db.distance("eleven", s)
    seconds = time.perf_counter() - started
    print(f"python: {len(states):,} db.distance calls in {seconds:.3f} s = "
          f"{len(states) / seconds:,.0f} lookups/s")
    # The same positions again: each group's digest is checked once per Database.
    started = time.perf_counter()
    for s in states:
        db.distance("eleven", s)
    seconds = time.perf_counter() - started
    print(f"python, the same again: {len(states) / seconds:,.0f} lookups/s")
except ImportError:
    print("python: the package is not installed (pip install ./python); skipped")

started = time.perf_counter()
for s in states[:50]:
    subprocess.run([PB, "query", "--db", DB, "--puzzle", "eleven", "--state", s],
                   capture_output=True, check=True)
seconds = time.perf_counter() - started
print(f"query: 50 processes in {seconds:.2f} s = {50 / seconds:,.1f} lookups/s")

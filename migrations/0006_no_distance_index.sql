-- puzzlebase schema, version 6: no index of `positions` by distance. Its only reader was
-- the question for the farthest positions, which now reads the puzzle's rows by key (0.12 s
-- for nine's 1,814,400, docs/performance.md), and it took 69 MB of the default file. No
-- table or column changes: SQL written for version 5 runs as it did (a filter on
-- `distance` reads the puzzle's rows), and the puzzles' rows and checksums are version 5's.
DROP INDEX IF EXISTS positions_by_distance;

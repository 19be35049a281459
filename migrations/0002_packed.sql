-- puzzlebase schema, version 2: packed tables for state spaces too large for one row per
-- position (nine, eleven). Layouts are documented in src/packed.rs and the README.

-- Where a puzzle's answers are: 'positions' (one row per position), 'packed'
-- (packed_tables and packed_chunks, plus farthest), or 'solutions' (enumerations).
ALTER TABLE puzzles ADD COLUMN storage TEXT NOT NULL DEFAULT 'positions';
-- 1 when the number of shortest solutions of every position is stored: in
-- positions.solutions, or in a packed table of kind 'solutions'. Left out (0) for
-- spaces above 10^8 states and for the enumeration puzzles.
ALTER TABLE puzzles ADD COLUMN counts INTEGER NOT NULL DEFAULT 0;

-- One packed table of a puzzle: what its chunks hold and how to find an entry.
CREATE TABLE packed_tables (
    puzzle          TEXT NOT NULL REFERENCES puzzles(name),
    kind            TEXT NOT NULL,      -- 'distance' or 'solutions'
    encoding        TEXT NOT NULL,      -- see docs/file-format.md: 'run-steps', 'mod4', 'mod3', 'peg-layers', 'u8' .. 'u64le'
    ranks_per_chunk INTEGER NOT NULL,   -- rank r is in chunk r / ranks_per_chunk
    chunks          INTEGER NOT NULL,   -- chunks 0 .. chunks-1 are all present
    layout          TEXT NOT NULL,      -- JSON: every number needed to find an entry
    PRIMARY KEY (puzzle, kind)
) WITHOUT ROWID;

-- The blobs of the packed tables, one per range of ranks (about 4 KB: one page each).
-- A rowid table on purpose: WITHOUT ROWID rows this large would spill onto overflow
-- pages.
CREATE TABLE packed_chunks (
    puzzle TEXT NOT NULL,
    kind   TEXT NOT NULL,
    chunk  INTEGER NOT NULL,
    data   BLOB NOT NULL,
    PRIMARY KEY (puzzle, kind, chunk),
    FOREIGN KEY (puzzle, kind) REFERENCES packed_tables (puzzle, kind)
);

-- Packed puzzles: every position at the maximum distance (their `query --longest`).
CREATE TABLE farthest (
    puzzle   TEXT NOT NULL REFERENCES puzzles(name),
    rank     INTEGER NOT NULL,
    state    TEXT NOT NULL,
    distance INTEGER NOT NULL,
    PRIMARY KEY (puzzle, rank)
) WITHOUT ROWID;

-- puzzlebase schema, version 1. Migrations are add-only: never edit a released file,
-- add migrations/NNNN_name.sql instead (applied in order, recorded in user_version).

-- One row per puzzle in the file.
CREATE TABLE puzzles (
    name            TEXT PRIMARY KEY,   -- command-line identifier, e.g. 'eight'
    family          TEXT NOT NULL,      -- sliding | tokens | oshidori | peg | magic | tour
    definition      TEXT NOT NULL,      -- the full definition as JSON
    states          INTEGER NOT NULL,   -- size of the rank space (or positions examined)
    solvable        INTEGER NOT NULL,   -- positions that can reach the goal / solutions found
    max_distance    INTEGER,            -- largest stored distance (NULL: no distances)
    generated_at    TEXT NOT NULL,      -- UTC, ISO 8601
    definition_hash TEXT NOT NULL,      -- sha256 of generator version + definition
    checksum        TEXT NOT NULL,      -- sha256 of this puzzle's rows in every table
    seconds         REAL NOT NULL       -- wall time of the computation that produced it
);

-- Every stored position of a move puzzle, keyed by its rank.
CREATE TABLE positions (
    puzzle    TEXT NOT NULL REFERENCES puzzles(name),
    rank      INTEGER NOT NULL,         -- dense rank (see the puzzle's definition.ranking)
    state     TEXT NOT NULL,            -- the position in the puzzle's notation
    distance  INTEGER,                  -- moves to the goal; NULL: cannot reach it
    next_rank INTEGER,                  -- rank of the next position on an optimal path
    solutions INTEGER,                  -- distinct shortest solutions; NULL: above 2^63-1
    move      TEXT,                     -- peg puzzles: the optimal next move, '[3,10,12,3]'
    PRIMARY KEY (puzzle, rank)
) WITHOUT ROWID;
CREATE INDEX positions_by_distance ON positions (puzzle, distance);

-- How many positions lie at each distance.
CREATE TABLE histogram (
    puzzle    TEXT NOT NULL REFERENCES puzzles(name),
    distance  INTEGER NOT NULL,
    positions INTEGER NOT NULL,         -- all positions at this distance
    classes   INTEGER NOT NULL,         -- stored rows (positions up to symmetry)
    PRIMARY KEY (puzzle, distance)
) WITHOUT ROWID;

-- Peg solitaire: positions reachable from the start, and those that can still finish,
-- per number of pegs.
CREATE TABLE peg_layers (
    puzzle             TEXT NOT NULL REFERENCES puzzles(name),
    pegs               INTEGER NOT NULL,
    reachable          INTEGER NOT NULL,
    can_finish         INTEGER NOT NULL,
    reachable_classes  INTEGER NOT NULL,   -- up to symmetry
    can_finish_classes INTEGER NOT NULL,   -- up to symmetry
    PRIMARY KEY (puzzle, pegs)
) WITHOUT ROWID;

-- Peg solitaire: every single-vacancy start against every single-peg finish.
CREATE TABLE peg_matrix (
    puzzle   TEXT NOT NULL REFERENCES puzzles(name),
    start    INTEGER NOT NULL,          -- the hole empty at the start
    finish   INTEGER NOT NULL,          -- the hole of the last peg
    distance INTEGER,                   -- minimum moves; NULL: that finish is unreachable
    PRIMARY KEY (puzzle, start, finish)
) WITHOUT ROWID;

-- Enumeration puzzles (magic triangle, knight's tours): every solution found.
CREATE TABLE solutions (
    puzzle    TEXT NOT NULL REFERENCES puzzles(name),
    rank      INTEGER NOT NULL,         -- rank of the arrangement (see definition)
    state     TEXT NOT NULL,
    value     INTEGER,                  -- magic triangle: the side sum
    canonical INTEGER NOT NULL,         -- 1 for the one representative of its class
    PRIMARY KEY (puzzle, rank)
) WITHOUT ROWID;
CREATE INDEX solutions_by_value ON solutions (puzzle, canonical, value);

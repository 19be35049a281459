-- puzzlebase schema, version 5: a digest beside each group of a puzzle's stored rows, so
-- that a reader on a plain SQLite host (which reads pages without puzzlebase's page
-- checksums) can check every value it answers from: one digest per 64 `positions` rows,
-- per packed chunk, and per whole small table. docs/file-format.md ("digests") says
-- exactly what each covers and how it is computed. Nothing else changes: the puzzles'
-- rows and checksums are those of version 4, so its puzzles are copied, not rebuilt.
CREATE TABLE digests (
    puzzle TEXT NOT NULL,     -- puzzles.name
    tbl    TEXT NOT NULL,     -- the data table: positions, packed_chunks, histogram, ...
    kind   TEXT NOT NULL,     -- packed_chunks' kind; '' for the other tables
    first  INTEGER NOT NULL,  -- the group's first key (its rows have first <= key < next)
    next   INTEGER NOT NULL,  -- the next group's first key
    rows   INTEGER NOT NULL,  -- how many rows the group holds
    digest BLOB NOT NULL,     -- SHA-256 of the group's rows (32 bytes)
    PRIMARY KEY (puzzle, tbl, kind, first)
) WITHOUT ROWID;

-- puzzlebase schema, version 3: the file describes itself. Add-only, like every
-- migration: tools that read version 2 files read version 3 files unchanged.

-- Facts about the file as a whole, one row per key:
--   generator          'puzzlebase'
--   generator_version  the crate version of the binary that wrote the file
--   tables_version     the generator version string that is part of every definition hash
--   schema_version     PRAGMA user_version when the file was written
--   created_at         UTC, ISO 8601, when the file was written
--   puzzles            what `generate --puzzle` asked for, comma-separated, or 'all'
--   git_commit         the commit the binary was built from (absent when unknown)
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

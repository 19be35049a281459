-- puzzlebase schema, version 4: peg boards also count the (position, last-moved peg)
-- pairs reachable from the start, per peg count: the states of a search in moves (a
-- chain of jumps by one peg is one move), which is what J.-C. Meyrignac's published
-- enumeration of the French board counts. The start counts once, with no last peg.
-- Files of version 2 and 3 are rebuilt by `generate`, never copied from.
ALTER TABLE peg_layers ADD COLUMN reachable_pairs INTEGER NOT NULL DEFAULT 0;

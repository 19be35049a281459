//! The packed run layout over real sliding puzzles: tables packed chunk by chunk read
//! back rank by rank (moved here from `core::packed`, which cannot name a family).

use crate::sliding::Sliding;
use puzzlebase_core::format::UNREACHED;
use puzzlebase_core::packed::*;
use puzzlebase_core::progress::Silent;
use puzzlebase_core::space::StateSpace;
use puzzlebase_solvers::bfs::{self, COUNT_OVERFLOW};

fn layout(p: &Sliding) -> RunLayout {
    RunLayout::new(p.cells() as u64, p.tile_ranks(), &p.runs()).unwrap()
}

/// Packs a whole table chunk by chunk and reads every rank back.
fn round_trip(l: &RunLayout, dist: &[u8]) {
    let chunks: Vec<Vec<u8>> = (0..l.chunks())
        .map(|c| l.encode_chunk(c, dist).unwrap())
        .collect();
    for (r, &d) in dist.iter().enumerate() {
        let s = l.locate(r as u64);
        let want = (d != UNREACHED).then_some(u32::from(d));
        assert_eq!(
            l.distance(&chunks[s.chunk as usize], r as u64),
            Ok(want),
            "rank {r}"
        );
    }
    let bytes: usize = chunks.iter().map(Vec::len).sum();
    assert_eq!(bytes as u64, 2 * l.blocks() * l.runs().len() as u64);
    assert!(chunks.iter().all(|c| c.len() <= CHUNK_BYTES));
    for (c, blob) in chunks.iter().enumerate() {
        assert_eq!(l.chunk_bytes(c as u64), blob.len() as u64, "chunk {c}");
    }
    assert_eq!(l.chunk_bytes(l.chunks()), 0);
}

#[test]
fn distances_of_small_puzzles_round_trip() {
    for p in [
        Sliding::grid("seven", 2, 4),
        Sliding::grid("eight", 3, 3),
        Sliding::grid("nine", 2, 5),
        Sliding::grid("row", 1, 10),
    ] {
        let t = bfs::solve_with(&p, bfs::Outputs::DISTANCES, &Silent).unwrap();
        let l = layout(&p);
        round_trip(&l, &t.dist);
        assert_eq!(RunLayout::from_description(&l.describe()), Ok(l));
    }
}

#[test]
fn a_long_row_is_split_into_runs_of_at_most_nine() {
    let l = layout(&Sliding::grid("row", 1, 10));
    assert_eq!(l.runs(), [(0, 9), (9, 1)]);
    assert_eq!(
        l.locate(10 + 9),
        Slot {
            chunk: 0,
            offset: 6,
            step: 0
        }
    );
    assert_eq!(
        l.locate(10 + 8),
        Slot {
            chunk: 0,
            offset: 4,
            step: 8
        }
    );
}

/// The Manhattan distance of every tile from its goal cell changes by exactly one
/// with every move, as a true distance does: a stand-in for eleven's table, which the
/// test run does not compute.
fn manhattan(p: &Sliding, rank: u64, cols: usize) -> u8 {
    let cells = p.unrank(rank);
    let mut sum = 0;
    for (i, &v) in cells.iter().enumerate() {
        if v != 0 {
            let g = v as usize - 1;
            sum += (i / cols).abs_diff(g / cols) + (i % cols).abs_diff(g % cols);
        }
    }
    sum as u8
}

#[test]
fn sampled_chunks_of_the_3x4_space() {
    let p = Sliding::grid("eleven", 3, 4);
    let l = layout(&p);
    assert_eq!(l.ranks(), p.size());
    // Rows of four: three two-byte entries per block, 666 blocks in 3,996 bytes.
    assert_eq!(l.blocks_per_chunk(), 666);
    assert_eq!(l.chunks(), p.tile_ranks().div_ceil(666));
    let last = l.chunks() - 1;
    for c in [0, 1, 12_345, last / 2, last] {
        let lo = c * l.ranks_per_chunk();
        let hi = (lo + l.ranks_per_chunk()).min(p.size());
        let dist: Vec<u8> = (lo..hi).map(|r| manhattan(&p, r, 4)).collect();
        let blob = (l.encode_chunk_with(c, |r| Some(u32::from(dist[(r - lo) as usize])))).unwrap();
        for r in lo..hi {
            assert_eq!(l.locate(r).chunk, c);
            let want = Some(u32::from(dist[(r - lo) as usize]));
            assert_eq!(l.distance(&blob, r), Ok(want), "rank {r}");
        }
    }
    // The last rank is in the last chunk, inside its blob.
    let s = l.locate(p.size() - 1);
    assert_eq!(s.chunk, last);
    assert_eq!(s.step, 3);
}

#[test]
fn neighbours_that_do_not_differ_by_one_are_refused() {
    let l = RunLayout::new(2, 2, &[(0, 2)]).unwrap();
    assert_eq!(
        l.encode_chunk(0, &[3, 4, 5, 5]),
        Err(PackError::NotBipartite(2, 3))
    );
    assert_eq!(
        l.encode_chunk(0, &[3, 4, UNREACHED, 5]),
        Err(PackError::NotBipartite(2, 3))
    );
    let ok = l.encode_chunk(0, &[3, 2, UNREACHED, UNREACHED]).unwrap();
    assert_eq!(ok, [3, 0, UNREACHED, 0]);
    assert_eq!(l.distance(&ok, 1), Ok(Some(2)));
    assert_eq!(l.distance(&ok, 3), Ok(None));
    assert!(l.distance(&ok[..2], 3).is_err(), "a short blob is an error");
    // Distance 0 and a step down is no distance at all: a damaged entry.
    assert!(l.distance(&[0, 0, 0, 0], 1).is_err());
    assert!(RunLayout::new(4, 1, &[(0, 2), (3, 1)]).is_err());
}

#[test]
fn bytes_round_trip_and_damage_is_noticed() {
    let values: Vec<u8> = (0..9001u32).map(|i| (i * 7 % 251) as u8).collect();
    let l = ByteLayout::new(values.len() as u64);
    assert_eq!(l.chunks(), 3);
    let chunks: Vec<Vec<u8>> = (0..l.chunks())
        .map(|c| l.encode_chunk(c, &values))
        .collect();
    let s = l.locate(8000);
    assert_eq!((s.chunk, s.offset), (2, 0));
    assert_eq!(l.decode(chunks.clone()).as_deref(), Some(&values[..]));
    assert_eq!(l.decode(chunks[..2].to_vec()), None);
    let mut short = chunks.clone();
    short[1].pop();
    assert_eq!(l.decode(short), None);
    assert_eq!(ByteLayout::from_description(&l.describe()), Ok(l));
}

/// Encodes `counts` chunk by chunk in `l`, reads every rank back (the overflow marker
/// as `None`) and checks the chunk lengths and the description.
fn counts_round_trip(l: &CountLayout, counts: &[u64]) {
    let chunks: Vec<Vec<u8>> = (0..l.chunks()).map(|c| l.encode_chunk(c, counts)).collect();
    for (r, &c) in counts.iter().enumerate() {
        let s = l.locate(r as u64);
        let want = (c != COUNT_OVERFLOW).then_some(c);
        assert_eq!(
            l.count(&chunks[s.chunk as usize], r as u64),
            Ok(want),
            "{} rank {r}",
            l.encoding()
        );
    }
    for (c, blob) in chunks.iter().enumerate() {
        assert_eq!(l.chunk_bytes(c as u64), blob.len() as u64, "chunk {c}");
    }
    assert_eq!(l.chunk_bytes(l.chunks()), 0);
    assert_eq!(CountLayout::from_description(&l.describe()), Ok(*l));
}

#[test]
fn counts_round_trip_with_the_overflow_marker() {
    let counts: Vec<u64> = (0..2000u64)
        .map(|i| i * i * 1_000_003)
        .chain([COUNT_OVERFLOW])
        .collect();
    let l = CountLayout::for_counts(counts.len() as u64, COUNT_OVERFLOW);
    assert_eq!((l.encoding(), l.ranks_per_chunk()), ("u64le", 500));
    counts_round_trip(&l, &counts);
}

#[test]
fn counts_take_the_narrowest_width_that_keeps_all_ones_free() {
    for (max, width, encoding) in [
        (0, 1, "u8"),
        (254, 1, "u8"),
        (255, 2, "u16le"),
        (65_534, 2, "u16le"),
        (65_535, 4, "u32le"),
        (u32::MAX as u64 - 1, 4, "u32le"),
        (u32::MAX as u64, 8, "u64le"),
        (COUNT_OVERFLOW - 1, 8, "u64le"),
        (COUNT_OVERFLOW, 8, "u64le"),
    ] {
        let counts: Vec<u64> = (0..9000u64)
            .map(|i| (i * 7919) % max.max(1))
            .chain([max])
            .collect();
        let l = CountLayout::for_counts(counts.len() as u64, max);
        assert_eq!(
            (l.describe()["entry_bytes"].as_u64(), l.encoding()),
            (Some(width), encoding),
            "max {max}"
        );
        assert_eq!(l.ranks_per_chunk(), 4000 / width);
        counts_round_trip(&l, &counts);
        assert_eq!(
            CountLayout::with_encoding(counts.len() as u64, encoding),
            Some(l)
        );
    }
    assert_eq!(CountLayout::with_encoding(10, "u24le"), None);
    // An encoding whose entry width disagrees is not a layout.
    let mut v = CountLayout::for_counts(10, 300).describe();
    v["entry_bytes"] = 1.into();
    assert!(CountLayout::from_description(&v).is_err());
}

/// What [`ChunkLayout`] promises, for a layout of each kind: rank `r` is in chunk
/// `r / ranks_per_chunk` at an offset inside that chunk's blob, every chunk but the last
/// is full and none follows the last, and the description names the encoding and the
/// chunk size and reads back as the same layout.
fn keeps_the_contract<L: ChunkLayout + PartialEq + std::fmt::Debug>(l: &L) {
    let per = l.ranks_per_chunk();
    assert_eq!(l.chunks(), l.ranks().div_ceil(per), "{}", l.encoding());
    for c in 0..l.chunks() {
        let full = c + 1 < l.chunks();
        assert_eq!(l.ranks_in(c), if full { per } else { l.ranks() - c * per });
        if full {
            assert_eq!(
                l.chunk_bytes(c),
                l.chunk_bytes(0),
                "{} chunk {c}",
                l.encoding()
            );
        }
    }
    assert_eq!((l.ranks_in(l.chunks()), l.chunk_bytes(l.chunks())), (0, 0));
    for r in (0..l.ranks()).step_by(997).chain([l.ranks() - 1]) {
        let s = l.locate(r);
        assert_eq!(s.chunk, r / per, "{} rank {r}", l.encoding());
        assert!(
            (s.offset as u64) < l.chunk_bytes(s.chunk),
            "{} rank {r}",
            l.encoding()
        );
    }
    let v = l.describe();
    assert_eq!(v["encoding"], l.encoding());
    assert_eq!(v["ranks_per_chunk"], per);
    assert_eq!(L::from_description(&v).as_ref(), Ok(l));
}

#[test]
fn every_layout_keeps_the_chunk_contract() {
    let runs = layout(&Sliding::grid("eight", 3, 3));
    keeps_the_contract(&runs);
    for max in [300, 70_000] {
        keeps_the_contract(&runs.fitting(max));
    }
    keeps_the_contract(&DistanceLayout::Runs(runs.fitting(70_000)));
    keeps_the_contract(&DistanceLayout::Runs(runs));
    let codes = CodeLayout::new(2 * CODE_RANKS_PER_CHUNK + 13, 3).unwrap();
    keeps_the_contract(&codes);
    keeps_the_contract(&DistanceLayout::Codes(codes));
    for max in [0, 300, 70_000, u64::MAX] {
        keeps_the_contract(&CountLayout::for_counts(9001, max));
    }
    keeps_the_contract(&ByteLayout::new(9001));
}

/// A run-steps description whose ranks, or whose ranks per chunk, do not fit in 64 bits
/// is refused when read, so that no layout read from a file overflows later.
#[test]
fn run_steps_descriptions_too_large_to_count_are_refused() {
    let l = layout(&Sliding::grid("eight", 3, 3));
    for (key, value) in [("blocks", u64::MAX / 2), ("blocks_per_chunk", u64::MAX / 2)] {
        let mut v = l.describe();
        v[key] = value.into();
        assert!(RunLayout::from_description(&v).is_err(), "{key} {value}");
    }
    let mut v = l.describe();
    v["blocks_per_chunk"] = 1_000_000.into();
    assert_eq!(RunLayout::from_description(&v).map(|l| l.chunks()), Ok(1));
}

/// Distances for `blocks` blocks of `l`'s runs, as a search could find them: per run, a
/// first distance drawn up to `max` (or, one run in seven, unreachable) and a step up or
/// down to each next position, never below 0.
fn walks(l: &RunLayout, max: u32, seed: u64) -> Vec<Option<u32>> {
    let mut x = seed | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut dist = Vec::with_capacity(l.ranks() as usize);
    for _ in 0..l.blocks() {
        for &(_, len) in l.runs() {
            if next() % 7 == 0 {
                dist.extend((0..len).map(|_| None));
                continue;
            }
            let mut d = (next() % (u64::from(max) + 1)) as u32;
            for _ in 0..len {
                dist.push(Some(d));
                d = if d == 0 || (next() % 2 == 0 && d < max) {
                    d + 1
                } else {
                    d - 1
                };
            }
        }
    }
    dist
}

/// Past distance 254 the entries widen: `fitting` picks the narrowest of one, two and
/// four bytes for a table's largest distance, and distances to 2^32 - 2, with runs out
/// of reach among them, read back from the chunks of each width, chunked to the size
/// the width gives; the description names the width and reads back.
#[test]
fn distances_past_a_byte_round_trip_in_wider_entries() {
    let l = RunLayout::new(10, 2000, &[(0, 10)]).unwrap();
    for (max, encoding, entry) in [
        (0, "run-steps", 2),
        (254, "run-steps", 2),
        (255, "run-steps-16", 3),
        (65_534, "run-steps-16", 3),
        (65_535, "run-steps-32", 5),
        (u32::MAX - 1, "run-steps-32", 5),
    ] {
        let w = l.fitting(max);
        assert_eq!((w.encoding(), w.entry_bytes()), (encoding, entry), "{max}");
        assert!(w.max_distance() >= max, "{max}");
        assert_eq!(w.blocks_per_chunk(), (CHUNK_BYTES / (entry * 2)) as u64);
        assert!(w.same_shape(&l));
        assert_eq!(RunLayout::from_description(&w.describe()).as_ref(), Ok(&w));
        assert_eq!(w.with_encoding(encoding).as_ref(), Some(&w));
        let dist = walks(&w, max, u64::from(max) + 7);
        let chunks: Vec<Vec<u8>> = (0..w.chunks())
            .map(|c| w.encode_chunk_with(c, |r| dist[r as usize]).unwrap())
            .collect();
        for (c, blob) in chunks.iter().enumerate() {
            assert_eq!(
                blob.len() as u64,
                w.chunk_bytes(c as u64),
                "{encoding} chunk {c}"
            );
            assert!(blob.len() <= CHUNK_BYTES);
        }
        for (r, &d) in dist.iter().enumerate() {
            let s = w.locate(r as u64);
            let got = w.distance(&chunks[s.chunk as usize], r as u64);
            assert_eq!(got, Ok(d), "{encoding} rank {r}");
        }
    }
    // The first distance is little-endian, then the steps; out of reach is all ones.
    let w = RunLayout::new(2, 1, &[(0, 2)]).unwrap().fitting(300);
    assert_eq!(
        w.encode_chunk_with(0, |r| Some(300 - r as u32)),
        Ok(vec![0x2c, 0x01, 0])
    );
    assert_eq!(w.encode_chunk_with(0, |_| None), Ok(vec![0xff, 0xff, 0]));
    assert_eq!(w.distance(&[0x2c, 0x01, 1], 1), Ok(Some(301)));
    assert!(
        RunLayout::new(2, 1, &[(0, 2)])
            .unwrap()
            .with_encoding("mod4")
            .is_none()
    );
}

/// What no encoder writes is refused: a distance past the width's, a blob cut short,
/// an entry that steps below 0, a description whose entry size or encoding is not one
/// of the widths.
#[test]
fn wide_entries_no_encoder_writes_are_refused() {
    let l = RunLayout::new(3, 2, &[(0, 3)]).unwrap();
    assert_eq!(
        l.encode_chunk_with(0, |r| Some(254 + r as u32)),
        Err(PackError::TooDeep {
            rank: 1,
            distance: 255,
            encoding: "run-steps",
            max: 254
        })
    );
    let w = l.fitting(65_534);
    assert!(matches!(
        w.encode_chunk_with(0, |r| Some(65_533 + r as u32)),
        Err(PackError::TooDeep {
            rank: 2,
            distance: 65_535,
            ..
        })
    ));
    assert_eq!(
        w.encode_chunk_with(0, |r| Some([400, 401, 403][r as usize % 3])),
        Err(PackError::NotBipartite(1, 2))
    );
    let blob = w
        .encode_chunk_with(0, |r| Some(400 + (r % 3) as u32))
        .unwrap();
    assert_eq!(blob.len(), 6);
    assert_eq!(w.distance(&blob, 5), Ok(Some(402)));
    assert!(w.distance(&blob[..5], 5).is_err(), "a blob cut short");
    assert!(w.distance(&[0, 0, 0], 1).is_err(), "a step below 0");
    assert!(
        w.distance(&[0xfe, 0xff, 3], 2).is_err(),
        "a step to out of reach"
    );
    assert_eq!(w.distance(&[0xff, 0xff, 3], 2), Ok(None));
    for (key, value) in [
        ("encoding", "run-steps-8".into()),
        ("entry_bytes", 2.into()),
    ] {
        let mut v = w.describe();
        v[key] = value;
        assert!(RunLayout::from_description(&v).is_err(), "{key}");
        assert!(DistanceLayout::from_description(&v).is_err(), "{key}");
    }
}

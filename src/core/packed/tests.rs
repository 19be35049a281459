//! Tests of `core::packed`.

use super::*;

/// Two-bit chunks: 16,000 ranks in 4,000 bytes, four ranks to a byte from the low
/// bits, the last chunk cut to its ranks with its unused bits cleared; blocks of any
/// size give the same chunks; the description reads back; `3` is "out of reach" in
/// `mod3` and a distance of 3 modulo 4 in `mod4`.
#[test]
fn two_bit_codes_pack_four_ranks_to_a_byte() {
    let ranks = 2 * CODE_RANKS_PER_CHUNK + 13;
    let code = |r: u64| ((r * 7 + r / 5) % 4) as u8;
    let words: Vec<u64> = (0..ranks.div_ceil(32))
        .map(|w| {
            (0..32).fold(0u64, |acc, i| {
                let r = w * 32 + i;
                acc | (if r < ranks { code(r) as u64 } else { 3 }) << (2 * i)
            })
        })
        .collect();
    let l = CodeLayout::new(ranks, 4).unwrap();
    assert_eq!(l.chunks(), 3);
    assert_eq!(
        (0..4).map(|c| l.chunk_bytes(c)).collect::<Vec<_>>(),
        [4000, 4000, 4, 0]
    );
    let whole: Vec<Vec<u8>> = l.chunks_from_blocks(0, vec![words.clone()]).collect();
    for (c, chunk) in whole.iter().enumerate() {
        assert_eq!(l.chunk_from_words(c as u64, |i| words[i as usize]), *chunk);
    }
    let split: Vec<Vec<u8>> = l
        .chunks_from_blocks(0, words.chunks(7).map(<[u64]>::to_vec).collect())
        .collect();
    assert_eq!(whole, split);
    // A process's share: whole chunks from its first, and the last chunk when the
    // share ends the table.
    let per = (l.ranks_per_chunk() / 32) as usize;
    let head: Vec<Vec<u8>> = l
        .chunks_from_blocks(0, vec![words[..2 * per].to_vec()])
        .collect();
    assert_eq!(head, whole[..2]);
    let tail: Vec<Vec<u8>> = l
        .chunks_from_blocks(1, vec![words[per..].to_vec()])
        .collect();
    assert_eq!(tail, whole[1..]);
    assert_eq!(
        whole.iter().map(Vec::len).collect::<Vec<_>>(),
        [4000, 4000, 4]
    );
    assert_eq!(whole[2][3] >> 2, 0, "unused bits are cleared");
    for r in (0..ranks).step_by(37).chain([ranks - 1]) {
        let s = l.locate(r);
        let d = l.code(&whole[s.chunk as usize], r).unwrap();
        assert_eq!(d, Some(code(r)), "rank {r}");
        assert_eq!(whole[s.chunk as usize][s.offset] >> s.step & 3, code(r));
    }
    assert_eq!(CodeLayout::from_description(&l.describe()), Ok(l));
    assert_eq!(
        DistanceLayout::from_description(&l.describe()),
        Ok(DistanceLayout::Codes(l))
    );
    assert_eq!(l.closer(0), 3);
    let three = CodeLayout::new(ranks, 3).unwrap();
    assert_eq!(three.code(&[0b11], 0), Ok(None));
    assert_eq!(three.closer(0), 2);
    assert_eq!(l.code(&[0b11], 0), Ok(Some(3)));
    assert!(l.code(&[], 0).is_err());
    assert!(CodeLayout::new(10, 5).is_err());
    let mut other = l.describe();
    other["ranks_per_chunk"] = 8000.into();
    assert!(CodeLayout::from_description(&other).is_err());
}

/// The rule every reader of chunks shares: in order from the run's start, each of
/// its size and none empty, all of them and nothing after.
#[test]
fn chunk_runs_take_every_chunk_in_order_and_nothing_else() {
    let mut run = ChunkRun::new(2..4);
    assert!(run.accept(2, &[0; 5], 5) && run.accept(3, &[0; 3], 3));
    assert!(run.complete());
    assert!(!run.accept(4, &[0; 3], 3) && !run.complete());
    // After chunk 0 of 0..2: a missing, short, empty or repeated chunk is refused,
    // and then even the right chunk 1 is not taken, so the run is never complete.
    for (c, len, size) in [(2, 4, 4), (1, 3, 4), (1, 0, 0), (0, 4, 4)] {
        let mut run = ChunkRun::new(0..2);
        assert!(run.accept(0, &[0; 4], 4));
        assert!(
            !run.accept(c, &vec![0; len], size),
            "chunk {c}, {len} of {size} bytes"
        );
        assert!(!run.accept(1, &[0; 4], 4) && !run.complete());
    }
    let mut short = ChunkRun::new(0..2);
    assert!(short.accept(0, &[1], 1) && !short.complete());
}
use crate::core::format::UNREACHED;
use crate::core::progress::Silent;
use crate::core::space::StateSpace;
use crate::families::sliding::Sliding;
use crate::solvers::bfs::{self, COUNT_OVERFLOW};

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
        let want = (d != UNREACHED).then_some(d);
        assert_eq!(
            l.distance(&chunks[s.chunk as usize], r as u64),
            Ok(want),
            "rank {r}"
        );
    }
    let bytes: usize = chunks.iter().map(Vec::len).sum();
    assert_eq!(bytes as u64, 2 * l.blocks * l.runs.len() as u64);
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
    assert_eq!(l.runs, [(0, 9), (9, 1)]);
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
    assert_eq!(l.blocks_per_chunk, 666);
    assert_eq!(l.chunks(), p.tile_ranks().div_ceil(666));
    let last = l.chunks() - 1;
    for c in [0, 1, 12_345, last / 2, last] {
        let lo = c * l.ranks_per_chunk();
        let hi = (lo + l.ranks_per_chunk()).min(p.size());
        let dist: Vec<u8> = (lo..hi).map(|r| manhattan(&p, r, 4)).collect();
        let blob = l.encode_chunk_with(c, |r| dist[(r - lo) as usize]).unwrap();
        for r in lo..hi {
            assert_eq!(l.locate(r).chunk, c);
            let want = Some(dist[(r - lo) as usize]);
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

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

/// Codes made from distances are the codes the two-bit search's words give: the distance
/// modulo 4 or 3, `3` out of reach in `mod3` (refused in `mod4`), unused bits clear.
#[test]
fn codes_from_distances_are_the_searchs_codes() {
    let ranks = CODE_RANKS_PER_CHUNK + 6;
    let distance = |r: u64| (r % 11 != 5).then_some((r * 13 % 97) as u32);
    for modulus in [3u8, 4] {
        let l = CodeLayout::new(ranks, modulus).unwrap();
        let code = |r: u64| match distance(r) {
            Some(d) => d as u64 % modulus as u64,
            None => 3,
        };
        let word = |w: u64| {
            (0..32).fold(0u64, |acc, i| {
                let r = w * 32 + i;
                acc | (if r < ranks { code(r) } else { 3 }) << (2 * i)
            })
        };
        for c in 0..l.chunks() {
            let made = l.encode_chunk_with(c, distance);
            if modulus == 4 {
                // Rank 5 (of chunk 0) is out of reach; chunk 1 has none.
                assert_eq!(made.is_err(), c == 0, "mod4 has no code for out of reach");
                continue;
            }
            let made = made.unwrap();
            assert_eq!(made, l.chunk_from_words(c, word), "chunk {c}");
            assert_eq!(made.len() as u64, l.chunk_bytes(c));
        }
    }
    let l = CodeLayout::new(ranks, 4).unwrap();
    let all = |r: u64| Some((r % 9) as u32);
    let last = l.encode_chunk_with(1, all).unwrap();
    assert_eq!(last.len(), 2);
    assert_eq!(last[1] >> 4, 0, "bits past the last rank are clear");
    assert_eq!(
        l.code(&last, CODE_RANKS_PER_CHUNK + 5),
        Ok(Some(((CODE_RANKS_PER_CHUNK + 5) % 9 % 4) as u8))
    );
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

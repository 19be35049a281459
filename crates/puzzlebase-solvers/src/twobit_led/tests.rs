//! Tests of `twobit_led`: the check accepts every table the search builds and refuses
//! every table with a wrong code.

use super::*;
use crate::twobit;
use puzzlebase_core::progress::Silent;

fn words(t: &twobit::TwoBitTable) -> Vec<u64> {
    t.blocks.concat()
}

fn atomic(words: &[u64]) -> Vec<AtomicU64> {
    words.iter().map(|&w| AtomicU64::new(w)).collect()
}

/// `words` handed to [`Codes::extend`] as little-endian bytes in runs of 1 to 4
/// words, the last one cut to the bytes that hold ranks.
fn read_as_stored<'a>(
    space: &'a dyn StateSpace,
    modulus: u8,
    words: &[u64],
    in_place: bool,
) -> Codes<'a, dyn StateSpace + 'a> {
    let groups = space.size().div_ceil(GROUP) as usize;
    let mut bytes: Vec<u8> = words[..groups]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    bytes.truncate(space.size().div_ceil(4) as usize);
    let mut c = Codes::unread(space, modulus, atomic(&vec![0; groups]), in_place);
    let mut at = 0;
    for run in (1..=4).cycle() {
        if at == bytes.len() {
            break;
        }
        let end = (at + 8 * run).min(bytes.len());
        c.extend(&bytes[at..end]);
        at = end;
    }
    c
}

/// `squeeze` undoes `spread`.
#[test]
fn squeeze_undoes_spread() {
    for x in [0u32, 1, 0x8000_0001, 0xDEAD_BEEF, !0] {
        assert_eq!(squeeze(spread(x)), x);
    }
}

/// Every code of the solver's tables passes, with its levels and farthest ranks
/// (mod 4 for the 2x3 rectangle, searched in place and not, and with its parities
/// unknown;
/// mod 3 for the hexagonal six, with triangles, and for a space with ranks that
/// cannot reach the goal); every single changed code fails, naming that rank,
/// whether levels are pushed or pulled.
#[test]
fn the_solver_s_codes_pass_and_every_changed_code_fails() {
    struct NoParity<'a>(&'a dyn StateSpace);
    impl StateSpace for NoParity<'_> {
        fn size(&self) -> u64 {
            self.0.size()
        }
        fn goals(&self) -> Vec<u64> {
            self.0.goals()
        }
        fn neighbors(&self, r: u64, out: &mut Vec<u64>) {
            self.0.neighbors(r, out)
        }
    }
    use puzzlebase_families::sliding::Sliding;
    let grid = Sliding::grid("2x3", 2, 3);
    let spaces: Vec<(Box<dyn StateSpace + '_>, u8)> = vec![
        (Box::new(Sliding::grid("2x3", 2, 3)), 4),
        (Box::new(NoParity(&grid)), 3),
        // 40,320 ranks: five units, groups across them.
        (Box::new(Sliding::grid("2x4", 2, 4)), 4),
        (Box::new(twobit::tests::hexagonal_six()), 3),
        (Box::new(twobit::tests::Islands), 3),
    ];
    for (space, modulus) in &spaces {
        let t = twobit::solve(space.as_ref(), &Silent).unwrap();
        assert_eq!(t.modulus, *modulus);
        // The in-place search, and the codes kept, on the same mod-4 table.
        let hidden = NoParity(space.as_ref());
        let mut tables = vec![space.as_ref()];
        if *modulus == 4 {
            tables.push(&hidden);
        }
        // Pushing and pulling as the sizes say, and each of them alone.
        let ways: [fn(u64, u64) -> bool; 3] = [
            |unreached, frontier| unreached < frontier,
            |_, _| false,
            |_, _| true,
        ];
        let (codes, m) = (words(&t), t.modulus);
        for space in tables {
            for (pull, in_place) in ways.into_iter().flat_map(|w| [(w, true), (w, false)]) {
                let led = Codes::from_words(space, m, atomic(&codes), in_place)
                    .search_with(&Silent, pull)
                    .unwrap();
                assert_eq!(led.levels, t.levels);
                assert_eq!(led.farthest, t.farthest);
                // Every rank of the small spaces; every 7th of the hexagonal six's 5040,
                // every 389th of the 2x4's.
                let every = match space.size() {
                    0..=1000 => 1,
                    1001..=10_000 => 7,
                    _ => 389,
                };
                let read = read_as_stored(space, m, &codes, in_place);
                assert_eq!(read.search_with(&Silent, pull).unwrap(), led);
                for r in (0..space.size()).step_by(every) {
                    for flip in 1..4u64 {
                        let mut bad = codes.clone();
                        bad[(r / 32) as usize] ^= flip << (2 * (r % 32));
                        let err = Codes::from_words(space, m, atomic(&bad), in_place)
                            .search_with(&Silent, pull)
                            .expect_err("a changed code fails");
                        assert_eq!(err.rank, r, "{err:?}");
                        // Read as a file stores them, made ready word by word.
                        let read = read_as_stored(space, m, &bad, in_place);
                        let err = read.search_with(&Silent, pull).expect_err("read");
                        assert_eq!(err.rank, r, "{err:?}");
                    }
                }
            }
        }
    }
}

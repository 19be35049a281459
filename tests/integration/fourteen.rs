//! The 2x7 sliding puzzle (`fourteen`, 43,589,145,600 states) by the two-bit search:
//! its levels are OEIS A346736 term by term, and a walk through the table's codes
//! finds the distance of the farthest position. About half an hour and 11 GiB: ignored
//! by default, run with `cargo test --release --test integration fourteen -- --ignored
//! --nocapture`.

use puzzlebase::core::progress::Silent;
use puzzlebase::core::space::{GraphPuzzle, StateSpace};
use puzzlebase::families::sliding::Sliding;
use puzzlebase::solvers::twobit;

/// OEIS A346736: positions of the 2x7 puzzle at each distance from the goal (blank in a
/// corner), 0 to 108. Korf computed it; the full list is Ben Whitmore's table on the
/// OEIS, and lightln2/SlidingTilesSolver's log of its GPU run prints the same 109 terms.
const A346736: [u64; 109] = [
    1,
    2,
    3,
    6,
    11,
    20,
    37,
    67,
    117,
    198,
    329,
    557,
    942,
    1575,
    2597,
    4241,
    6724,
    10_535,
    16_396,
    25_515,
    39_362,
    60_532,
    92_089,
    138_969,
    207_274,
    307_725,
    453_000,
    664_240,
    964_874,
    1_392_975,
    1_992_353,
    2_832_063,
    3_988_528,
    5_586_275,
    7_756_511,
    10_698_721,
    14_621_717,
    19_840_724,
    26_676_629,
    35_605_683,
    47_083_756,
    61_775_128,
    80_280_617,
    103_437_923,
    131_954_019,
    166_799_476,
    208_715_971,
    258_659_945,
    317_168_280,
    384_949_885,
    462_104_381,
    548_743_615,
    644_208_445,
    747_728_714,
    857_838_218,
    972_826_409,
    1_090_524_780,
    1_208_492_639,
    1_324_294_771,
    1_435_166_611,
    1_538_445_477,
    1_631_318_167,
    1_711_407_623,
    1_776_313_778,
    1_824_122_769,
    1_853_119_548,
    1_862_320_864,
    1_851_238_359,
    1_820_042_135,
    1_769_350_453,
    1_700_564_453,
    1_615_557_458,
    1_516_675_570,
    1_406_502_343,
    1_288_154_452,
    1_164_716_069,
    1_039_257_451,
    914_718_314,
    793_783_415,
    678_934_877,
    571_912_137,
    474_232_181,
    386_713_150,
    309_907_682,
    243_779_436,
    188_010_782,
    142_009_132,
    104_838_064,
    75_576_381,
    52_999_438,
    36_159_280,
    23_830_790,
    15_194_456,
    9_260_117,
    5_426_429,
    3_003_444,
    1_590_744,
    784_126,
    369_889,
    159_376,
    65_645,
    23_761,
    8357,
    2499,
    779,
    198,
    43,
    8,
    1,
];

#[test]
fn the_published_list_is_whole() {
    assert_eq!(A346736.iter().sum::<u64>(), 43_589_145_600);
    assert_eq!(A346736[66], 1_862_320_864);
    assert_eq!(A346736.iter().max(), Some(&1_862_320_864));
    assert_eq!(A346736[108], 1);
}

#[test]
#[ignore = "the whole 2x7 space: about half an hour and 11 GiB"]
fn fourteen_levels_are_a346736() {
    let g = Sliding::grid("fourteen", 2, 7);
    assert_eq!(g.size(), 43_589_145_600);
    let t = twobit::solve(&g, &Silent).unwrap();
    assert_eq!(t.levels.len(), A346736.len(), "radius");
    for (d, (&ours, &published)) in t.levels.iter().zip(&A346736).enumerate() {
        assert_eq!(ours, published, "level {d}");
    }
    // The one position at 108 moves: the OEIS gives its tiles in cell order.
    assert_eq!(t.farthest.len(), 1);
    let far = g.format(t.farthest[0]);
    let tiles: Vec<&str> = far.split(',').filter(|&c| c != "0").collect();
    assert_eq!(tiles.join(","), "7,6,12,4,3,9,1,13,5,11,10,2,8", "{far}");
    // Every rank is reached, so the table holds distances mod 4 (the 2x7 is bipartite).
    assert_eq!(t.modulus, 4);
    // Walking to a neighbour one level closer (code minus one) reaches the goal in
    // exactly 108 steps, and every step has such a neighbour.
    let (mut r, mut steps, mut nbs) = (t.farthest[0], 0, Vec::new());
    while !g.goals().contains(&r) {
        let want = (t.get(r) + t.modulus - 1) % t.modulus;
        nbs.clear();
        g.neighbors(r, &mut nbs);
        r = *nbs
            .iter()
            .find(|&&nb| t.get(nb) == want)
            .expect("a neighbour one closer");
        steps += 1;
    }
    assert_eq!(steps, 108);
}

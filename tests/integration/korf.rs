//! Korf's 100 random 15-puzzle instances, read from `data/fifteen/korf100.txt` as its
//! header describes them (shared with `benches/fifteen.rs`, which includes this file).

/// One of Korf's 100 random 15-puzzle instances (`data/fifteen/korf100.txt`): his
/// number, the published optimal length, and the cells turned to puzzlebase's goal.
pub struct Korf {
    pub number: u32,
    pub length: u32,
    pub cells: Vec<u8>,
}

/// Korf's 100 instances, read from the data file as its header describes them: each
/// board rotated 180 degrees and tile `t` relabelled `16 - t` (the blank stays 0), which
/// turns his goal (blank top left) into puzzlebase's (blank bottom right).
pub fn korf100() -> Vec<Korf> {
    include_str!("../../data/fifteen/korf100.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let v: Vec<u32> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            assert_eq!(v.len(), 18, "{l}");
            let cells = (v[2..].iter().rev())
                .map(|&t| if t == 0 { 0 } else { 16 - t as u8 })
                .collect();
            Korf {
                number: v[0],
                length: v[1],
                cells,
            }
        })
        .collect()
}

//! One integration binary: the command line and the file, end to end.

mod audit;
mod bad_input;
mod blocks;
mod bounded;
mod browser;
mod coded;
mod cycles;
mod damage;
mod definitions;
mod digests;
mod distributed;
mod docs;
mod english33;
mod export;
mod external;
mod fifteen;
mod flips;
mod fourteen;
mod hardened;
mod hostile;
mod http;
mod journals;
mod korf;
mod lights_hanoi;
mod limits;
mod missing;
mod moves;
mod newcomer;
mod nightly;
mod others;
mod packed;
mod peg;
mod peg_layers;
mod permutation;
mod progress;
mod rebuild;
mod recovery;
mod resident;
mod rules;
mod serve;
mod shipped;
mod signature;
mod sliding;
mod util;
mod wide_runs;

/// Every connection this test process opens, the tests' own included, goes through the
/// checksum VFS as the binary's do: edits a test makes through SQL keep valid page
/// checksums, so that they stand for edits of the file's facts (which the answers'
/// checks and `verify` must catch), not for damaged pages. Installed before `main`, so
/// that no test can open a connection before it.
#[used]
#[unsafe(link_section = ".init_array")]
static INSTALL_PAGE_CHECKSUMS: extern "C" fn() = {
    extern "C" fn install() {
        puzzlebase::install_page_checksums().expect("the checksum VFS installs");
    }
    install
};

//! Progress reporting without knowing about terminals: the library reports phases and
//! amounts of work; the binary decides whether and how to draw them.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Receives progress from long computations. All methods default to doing nothing.
pub trait Progress: Sync {
    /// A new phase begins with `total` units of work (0 when unknown).
    fn phase(&self, _name: &str, _total: u64) {}
    /// `n` more units of the current phase are done.
    fn advance(&self, _n: u64) {}
}

/// Reports nothing.
pub struct Silent;
impl Progress for Silent {}

/// Shows the work of a parallel pass while it is done: each thread adds what it did to
/// its own count not yet shown, which goes to the [`Progress`] once it reaches
/// [`Steps::EVERY`] units (a call per chunk would take the bar's lock thousands of times
/// a pass); [`Steps::end`] shows the rest when the pass is over.
pub struct Steps<'a> {
    progress: &'a dyn Progress,
    shown: AtomicU64,
}

impl<'a> Steps<'a> {
    /// The units a thread does between two calls to the progress.
    pub const EVERY: u64 = 1 << 16;

    pub fn new(progress: &'a dyn Progress) -> Steps<'a> {
        Steps {
            progress,
            shown: AtomicU64::new(0),
        }
    }

    /// `n` more units done by the thread whose units not yet shown are `unshown`.
    #[inline]
    pub fn add(&self, unshown: &mut u64, n: u64) {
        *unshown += n;
        if *unshown >= Self::EVERY {
            self.progress.advance(*unshown);
            self.shown.fetch_add(*unshown, Relaxed);
            *unshown = 0;
        }
    }

    /// The pass is over, having done `done` units in all: those not shown yet are.
    pub fn end(self, done: u64) {
        self.progress
            .advance(done.saturating_sub(self.shown.into_inner()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    /// Adds up what it is told, call by call.
    #[derive(Default)]
    struct Told(std::sync::Mutex<Vec<u64>>);
    impl Progress for Told {
        fn advance(&self, n: u64) {
            self.0.lock().unwrap().push(n);
        }
    }

    #[test]
    fn steps_show_a_pass_as_it_goes_and_all_of_it_at_the_end() {
        let told = Told::default();
        let steps = Steps::new(&told);
        let done: u64 = (0..1000u64)
            .into_par_iter()
            .map_init(
                || 0,
                |unshown, i| {
                    steps.add(unshown, 1000 + i);
                    1000 + i
                },
            )
            .sum();
        steps.end(done);
        let told = told.0.into_inner().unwrap();
        assert_eq!(told.iter().sum::<u64>(), done);
        // Shown on the way, in steps of at least EVERY, not once at the end.
        assert!(told.len() > 2, "{told:?}");
        assert!(told[..told.len() - 1].iter().all(|&n| n >= Steps::EVERY));
    }
}

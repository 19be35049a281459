//! Progress reporting without knowing about terminals: the library reports phases and
//! amounts of work; the binary decides whether and how to draw them.

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

//! The census's own dense rank of the layouts: group by group (in the order of
//! [`Census::groups`]), and inside a group in the order its search numbers them. A group's
//! layouts are then one run of ranks, so a table in this order is written a group at a
//! time, in order, by the group's own search, and every move stays inside the run.
//!
//! It is a second rank beside the transfer matrix's ([`super::Layouts`]): same layouts,
//! another order. Which one a stored table uses is the table's choice.

use super::{Census, CensusError, Group};
use crate::blocks::layouts::{Cell, Layout};

impl Census {
    /// The first rank of each group, and the count after the last: `groups() + 1`
    /// entries. A group too large to number is refused.
    pub fn offsets(&self) -> Result<Vec<u64>, CensusError> {
        use rayon::prelude::*;
        let sizes = (0..self.groups())
            .into_par_iter()
            .map(|g| Ok(Group::new(self, g)?.total()))
            .collect::<Result<Vec<u64>, CensusError>>()?;
        let mut out = Vec::with_capacity(sizes.len() + 1);
        let mut sum = 0u64;
        out.push(0);
        for s in sizes {
            sum += s;
            out.push(sum);
        }
        Ok(out)
    }

    /// The census rank of `layout`, given the census's [`Census::offsets`]. Refused when
    /// the layout is not one of this board's.
    pub fn rank(&self, offsets: &[u64], layout: &Layout) -> Result<u64, CensusError> {
        let bad = || CensusError::NotALayout;
        let g = self.group_of(layout).ok_or_else(bad)?;
        let group = Group::new(self, g)?;
        let (rows, cols) = (self.rows, self.cols);
        // The rows' placements: each row's pieces' first columns.
        let mut h = 0usize;
        for r in 0..rows {
            let starts: Vec<u8> = (0..cols)
                .filter(|&c| {
                    matches!(
                        layout.cells[r * cols + c],
                        Cell::HCar | Cell::HTruck | Cell::Red
                    )
                })
                .map(|c| c as u8)
                .collect();
            let line = group.lines[r];
            let p = line.starts.binary_search(&starts).map_err(|_| bad())?;
            h += p * group.hstride[r] as usize;
        }
        // Each column's vertical pieces, as a filling's cells.
        let columns = &self.columns;
        let mut i = group.base[h] as u64;
        for c in 0..cols {
            let mut cells = vec![Cell::Empty; rows];
            let mut r = 0;
            while r < rows {
                let len = match layout.cells[r * cols + c] {
                    Cell::VCar => 2,
                    Cell::VTruck => 3,
                    _ => 1,
                };
                if len > 1 {
                    if r + len > rows {
                        return Err(bad());
                    }
                    cells[r] = layout.cells[r * cols + c];
                    for x in 1..len {
                        cells[r + x] = Cell::Covered;
                    }
                }
                r += len;
            }
            let f = columns
                .cells
                .iter()
                .position(|x| *x == cells)
                .ok_or_else(bad)?;
            let m = group.colmask[h * cols + c] as usize;
            let k = columns.pos[m * columns.masks.len() + f];
            if k == u8::MAX {
                return Err(bad());
            }
            i += k as u64 * group.stride[h * super::MAX_SIDE + c] as u64;
        }
        // The group rebuilds the layout it numbers `i`: anything else was no layout.
        if group.layout(i as u32) != *layout {
            return Err(bad());
        }
        Ok(offsets[g as usize] + i)
    }

    /// The layout of census rank `rank`, given the census's [`Census::offsets`].
    pub fn unrank(&self, offsets: &[u64], rank: u64) -> Result<Layout, CensusError> {
        let count = *offsets.last().unwrap_or(&0);
        if rank >= count {
            return Err(CensusError::RankOutside { rank, count });
        }
        let g = offsets.partition_point(|&o| o <= rank) - 1;
        let group = Group::new(self, g as u64)?;
        Ok(group.layout((rank - offsets[g]) as u32))
    }
}

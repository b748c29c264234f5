//! The packed cell: a vertex's solver state in one `u32`, shared by the sequential solver
//! (`retro.rs`), the level engine (`levels.rs`, in atomic cells) and the shares' checks.
//! The top two bits are 0 while the vertex is open (the rest is its counter of moves not
//! yet known to lose), else 1 + the outcome code (the rest is its remoteness).

use crate::value::Outcome;

pub(crate) const WIN: u8 = Outcome::Win as u8;
pub(crate) const LOSS: u8 = Outcome::Loss as u8;
pub(crate) const TIE: u8 = Outcome::Tie as u8;
/// Undecided while solving; whatever is still undecided at the end is a draw.
pub(crate) const OPEN: u8 = Outcome::Draw as u8;

/// The packed layout's tag position, and the mask of its counter or remoteness.
pub(crate) const TAG: u32 = 30;
pub(crate) const LOW: u32 = (1 << TAG) - 1;

/// A packed cell: is it open (its value is the counter)?
#[inline(always)]
pub(crate) fn packed_is_open(cell: u32) -> bool {
    cell >> TAG == 0
}

/// A packed cell's outcome code (`OPEN` for an open cell).
#[inline(always)]
pub(crate) fn packed_state(cell: u32) -> u8 {
    ((cell >> TAG) as u8 + 3) & 3
}

/// The packed cell of a decided vertex.
#[inline(always)]
pub(crate) fn packed_decided(state: u8, remoteness: u32) -> u32 {
    debug_assert!(remoteness <= LOW);
    ((state as u32 + 1) & 3) << TAG | remoteness
}

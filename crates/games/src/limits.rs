//! The sizes the built-in games support, in one place: their rules keep to them, and their
//! errors ([`GameError`](crate::GameError)) name them.

/// The most pieces of a chess ending, kings included.
pub const MAX_PIECES: usize = 5;

/// The most lines of a Dots and Boxes board (a line set is a `u64`; and tiers must fit the
/// engine).
pub const MAX_LINES: u32 = 40;

/// [`MAX_PITS`] as a literal, for help texts that state it (`concat!`).
#[macro_export]
macro_rules! kalah_max_pits {
    () => {
        8
    };
}

/// [`MAX_CELLS`] as a literal, for help texts that state it (`concat!`).
#[macro_export]
macro_rules! kalah_max_cells {
    () => {
        64
    };
}

/// The most pits a side of a Kalah board (a board of 16 pits in a `u128`, 8 bits each).
pub const MAX_PITS: u32 = kalah_max_pits!();

/// The most cells of a Kalah board's index: `2 x pits x (seeds + 1) - 1` (seeds in all plus
/// pits on the board, less one) must be at most this.
pub const MAX_CELLS: u64 = kalah_max_cells!();

/// The most seeds a Kalah pit: with one pit a side, `2 x (seeds + 1) - 1` cells are at most
/// [`MAX_CELLS`] (more pits allow fewer seeds).
pub const MAX_SEEDS: u32 = ((MAX_CELLS - 1) / 2) as u32;

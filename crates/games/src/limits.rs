//! The sizes the built-in games support, in one place: their rules keep to them, and their
//! errors ([`GameError`](crate::GameError)) name them.

/// The most pieces of a chess ending, kings included.
pub const MAX_PIECES: usize = 5;

/// The most lines of a Dots and Boxes board (a line set is a `u64`; and tiers must fit the
/// engine).
pub const MAX_LINES: u32 = 40;

/// The most pits a side of a Kalah board (a board of 16 pits in a `u128`, 8 bits each).
pub const MAX_PITS: u32 = 8;

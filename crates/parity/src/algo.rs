//! What every parity algorithm implements, apart from the driver that calls them
//! (`solve.rs`), so that neither imports the other.

/// An algorithm over a subgame: the vertices of `order` (sorted by compressed priority,
/// highest first, ids increasing within a priority), each of which has a move to another of
/// them. It writes the winner (0 or 1) and the strategy of exactly these vertices; the others
/// it leaves alone. Its state is made once per game, so that solving many small subgames
/// (components) costs their size, not the game's.
pub(crate) trait Algo {
    fn solve(&mut self, order: &[u32], won: &mut [u8], strategy: &mut [u32]);
    /// The algorithm's count of its main steps so far.
    fn iterations(&self) -> u64;
}

//! A solved parity game: the winner of every vertex and a winning strategy.

use crate::game::Player;

/// No move: the strategy entry of a vertex its winner does not own.
pub const NONE: u32 = u32::MAX;

/// The winner of every vertex and, for every vertex its winner owns, the move that wins
/// (a positional strategy: the same move every time the play comes back). Following the
/// winner's moves from a vertex it wins keeps the play in its region whatever the opponent
/// does, and every cycle that can arise has a largest priority of the winner's parity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    winner: Vec<Player>,
    strategy: Vec<u32>,
}

impl Solution {
    /// A solution from its parts: the winner of every vertex, and the move of every vertex
    /// ([`NONE`] where there is none). Nothing is checked: [`crate::verify`] does.
    ///
    /// # Panics
    /// When the two lists differ in length.
    pub fn new(winner: Vec<Player>, strategy: Vec<u32>) -> Solution {
        assert_eq!(
            winner.len(),
            strategy.len(),
            "a winner and a move per vertex"
        );
        Solution { winner, strategy }
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.winner.len()
    }

    /// Who wins from `v`.
    #[inline]
    pub fn winner(&self, v: u32) -> Player {
        self.winner[v as usize]
    }

    /// The winning move from `v` when its winner owns it, else `None`.
    #[inline]
    pub fn strategy(&self, v: u32) -> Option<u32> {
        Some(self.strategy[v as usize]).filter(|&s| s != NONE)
    }

    /// Every vertex's winner, by vertex.
    pub fn winners(&self) -> &[Player] {
        &self.winner
    }

    /// Every vertex's move ([`NONE`] where there is none), by vertex.
    pub fn strategies(&self) -> &[u32] {
        &self.strategy
    }

    /// How many vertices `p` wins.
    pub fn won_by(&self, p: Player) -> usize {
        self.winner.iter().filter(|&&w| w == p).count()
    }
}

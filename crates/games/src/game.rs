//! The [`Game`] trait: a game stated by its rules.

use retrograde_graph::Primitive;
use std::hash::Hash;

/// A two-player game given by its rules rather than by a graph.
///
/// Required methods first (the start, the moves, the value the rules fix), provided ones
/// after: a turn rule for go-again moves and a dense index so that results can live in flat
/// arrays instead of a hash map. [`solve_game`](crate::solve_game) explores the reachable
/// positions into a graph for the graph engine: fine for games of up to some hundred million
/// moves. Big games are tier games (`retrograde_tier::TierGame`), solved without a graph.
///
/// Every value is stated for the player to move at a position; by default every move passes
/// the turn, and a position without moves is lost for the player to move (see
/// `retrograde_solve::Rules`).
///
/// # Example
/// ```
/// use retrograde_games::{solve_game, Game};
/// use retrograde_graph::Primitive;
/// use retrograde_solve::{Rules, Value};
///
/// /// Take 1 or 2 pebbles; who faces an empty bag cannot move and loses.
/// struct Pebbles(u32);
/// impl Game for Pebbles {
///     type Position = u32;
///     fn start(&self) -> u32 { self.0 }
///     fn moves(&self, p: &u32, out: &mut Vec<u32>) {
///         out.extend((1..=2).filter(|&t| t <= *p).map(|t| p - t));
///     }
///     fn primitive(&self, _: &u32) -> Option<Primitive> { None }
/// }
/// let s = solve_game(&Pebbles(10), &Rules::default()).unwrap();
/// assert_eq!(s.value(&10), Some(Value::Win(7)));
/// assert_eq!(s.value(&9), Some(Value::Loss(6)));
/// assert_eq!(s.stats().positions, 11);
/// ```
pub trait Game {
    /// A position: everything that decides what can happen next, including (when it matters)
    /// whose turn it is.
    type Position: Clone + Eq + Hash;

    /// The position the game starts from.
    fn start(&self) -> Self::Position;

    /// Appends to `out` the position after each legal move from `p` (duplicates allowed:
    /// they are parallel edges). Not called when [`Game::primitive`] fixes `p`'s value.
    fn moves(&self, p: &Self::Position, out: &mut Vec<Self::Position>);

    /// The value the rules fix at `p`, for the player to move there (the game is over), or
    /// `None` to play on. A position with no moves and no fixed value takes the no-move rule.
    fn primitive(&self, p: &Self::Position) -> Option<Primitive>;

    /// Whether the move from `p` to `q` leaves the same player to move (a go-again move).
    /// Default: every move passes the turn.
    fn keeps_turn(&self, p: &Self::Position, q: &Self::Position) -> bool {
        let _ = (p, q);
        false
    }

    /// The size `N` of a dense index `0..N` that holds every reachable position, if the game
    /// has one; then [`Game::index`] must be implemented, and results are kept in flat arrays
    /// indexed by it instead of a hash map.
    fn index_size(&self) -> Option<u64> {
        None
    }

    /// The dense index of `p`, below [`Game::index_size`]. Called only when `index_size` is
    /// `Some`; distinct positions must get distinct indices.
    fn index(&self, p: &Self::Position) -> u64 {
        let _ = p;
        unreachable!("Game::index is called only when Game::index_size returns Some")
    }
}

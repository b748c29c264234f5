//! What a solve is asked: the rules beyond the graph, what to compute and by which engine;
//! and what it reports of its phases.

use retrograde_graph::Primitive;

/// What the rules say beyond the graph.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    /// The value of a position with no move, for the player to move there: a loss by default
    /// (normal play); a win gives misère play; a tie ends the game level.
    pub no_move: Primitive,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            no_move: Primitive::Loss,
        }
    }
}

/// What to compute beyond values, and how.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SolveOptions {
    /// Choose a best move for every vertex (default). Without them the solution has values
    /// only ([`Solution::has_best_moves`] is false), which saves a pass over all edges when
    /// only totals are wanted.
    pub best_moves: bool,
    /// Which solver computes the values. Every engine gives the same solution, bit for bit.
    pub engine: Engine,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            best_moves: true,
            engine: Engine::Auto,
        }
    }
}

/// Which solver computes the values. The choice changes the time taken, never the solution
/// (outcomes, remoteness and best moves are the same for every engine and thread count).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// The parallel engine when the current rayon pool has more than one thread, else the
    /// sequential one (default).
    #[default]
    Auto,
    /// The sequential FIFO solver: the readable reference.
    Sequential,
    /// The level-synchronous parallel solver, on the threads of the current rayon pool
    /// (`rayon::ThreadPool::install` chooses the pool). Graphs too big for its packed cells
    /// (more than 2^30 vertices, or a vertex with 2^30 moves or more) are solved by the
    /// sequential engine instead.
    Parallel,
}

/// Time spent in each phase of [`solve`], and the work done.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Phases {
    /// Seeding the terminals and spreading wins and losses.
    pub propagate: std::time::Duration,
    /// Spreading ties (and turning the solver's cells into the solution's arrays).
    pub ties: std::time::Duration,
    /// Choosing best moves.
    pub best_moves: std::time::Duration,
    /// Reverse edges looked at while spreading wins and losses (the same for both engines).
    pub edges_scanned: u64,
    /// The engine that computed the values: `Sequential` or `Parallel` (never `Auto`).
    pub engine: Engine,
    /// Threads the values were computed with: 1 for the sequential engine, else the size of
    /// the rayon pool the parallel engine ran in.
    pub threads: usize,
}

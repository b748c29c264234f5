//! The driver: which engine solves a graph or a rank's share of one ([`Engine`]), then the
//! best-move pass. The sequential FIFO solver (`retro.rs`) is the readable reference; the
//! level engine (`levels.rs`) computes the same values on many threads, in one process or
//! across ranks; both share the best-move pass (`moves.rs`).

use crate::error::Error;
use crate::exchange::{Exchange, Solo};
use crate::place::Placement;
use crate::retro::solve_layout;
use crate::share::Share;
use crate::solution::{DistSolution, Solution};
use crate::value::{Scored, Value};
use crate::{DistGraph, Engine, Phases, Rules, SolveOptions};
use retrograde_graph::Graph;

/// The value the rules fix at `v` (a primitive label, or the no-move rule at a dead end), if
/// any. Such a vertex is terminal: it has no best move. A vertex with a score is terminal too,
/// and has the value of its score's sign ([`terminal_score`] says by how much).
pub fn terminal_value(g: &Graph, rules: &Rules, v: u32) -> Option<Value> {
    terminal_score(g, rules, v).and_then(Scored::value)
}

/// The value the rules fix at `v`, if any, as a score: its score, or a label (or the no-move
/// rule at a dead end) as +1, -1 or 0.
pub fn terminal_score(g: &Graph, rules: &Rules, v: u32) -> Option<Scored> {
    crate::share::terminal(g, rules, v)
}

/// Solves every vertex of `g` under `rules`.
///
/// # Complexity
/// O(n + m) time; memory as described in the module docs.
///
/// # Example
/// ```
/// use retrograde_graph::GraphBuilder;
/// use retrograde_solve::{solve, Rules, Value};
/// // Pebbles 0..=10, take 1 or 2: v is lost exactly when v % 3 == 0.
/// let mut b = GraphBuilder::new();
/// for v in 1..=10u32 {
///     b.add_edge(v, v - 1);
///     if v >= 2 { b.add_edge(v, v - 2); }
/// }
/// let g = b.build().unwrap();
/// let s = solve(&g, &Rules::default());
/// assert_eq!(s.value(10), Value::Win(7));
/// assert_eq!(s.value(9), Value::Loss(6));
/// assert_eq!(s.best_move(10), Some(9));
/// ```
pub fn solve(g: &Graph, rules: &Rules) -> Solution {
    solve_with_phases(g, rules).0
}

/// [`solve`], also reporting how long each phase took.
pub fn solve_with_phases(g: &Graph, rules: &Rules) -> (Solution, Phases) {
    solve_with_options(g, rules, &SolveOptions::default())
}

/// [`solve`] with options, also reporting how long each phase took.
pub fn solve_with_options(g: &Graph, rules: &Rules, opts: &SolveOptions) -> (Solution, Phases) {
    match solve_share(g, rules, opts, &Solo) {
        Ok(solved) => solved,
        // One process exchanges no message and falls back to the sequential engine where the
        // parallel one does not fit: nothing can fail.
        Err(e) => unreachable!("one process: {e}"),
    }
}

/// [`solve_with_options`] on a [`Share`] of a graph: the values (and best moves) of the
/// vertices `g` holds, by place, equal bit for bit to [`solve`]'s. Across the ranks of `ex`
/// (every rank calls it with its share and the same rules and options; a collective) the
/// level engine runs whatever `opts.engine` says: the sequential one needs a whole graph.
///
/// # Errors
/// Across ranks: a graph the packed cells do not hold ([`Error::TooLarge`], the same on every
/// rank), a malformed message from another rank.
pub fn solve_share<G: Share + ?Sized>(
    g: &G,
    rules: &Rules,
    opts: &SolveOptions,
    ex: &dyn Exchange,
) -> Result<(Solution, Phases), Error> {
    let packed = if G::Place::ALONE {
        g.fits_packed()
    } else {
        ex.all(g.fits_packed())
    };
    let parallel = packed
        && match opts.engine {
            Engine::Auto => rayon::current_num_threads() > 1,
            Engine::Sequential => false,
            Engine::Parallel => true,
        };
    let (mut s, mut phases) = match g.whole() {
        Some(whole) if !parallel => solve_layout(whole, rules, packed),
        _ if !packed => return Err(Error::TooLarge),
        _ => crate::levels::values(g, rules, crate::levels::CHUNK, ex)?,
    };
    if opts.best_moves {
        let clock = std::time::Instant::now();
        s.best = crate::moves::best_moves(g, rules, &s, ex)?;
        phases.best_moves = clock.elapsed();
    }
    Ok((s, phases))
}

/// [`solve_share`] on a rank's [`DistGraph`], with the part given as a [`DistSolution`]
/// (by vertex id): what every rank calls with its share, for the same rules.
///
/// # Errors
/// As [`solve_share`].
pub fn solve_distributed(
    g: &DistGraph,
    rules: &Rules,
    best_moves: bool,
    ex: &dyn Exchange,
) -> Result<DistSolution, Error> {
    let opts = SolveOptions {
        best_moves,
        engine: Engine::Parallel,
    };
    DistSolution::new(g, solve_share(g, rules, &opts, ex)?.0)
}

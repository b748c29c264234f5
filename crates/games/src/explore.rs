//! Solving a [`Game`] exhaustively: discover the reachable positions, lay them out as a
//! [`Graph`], and solve that with the engine.

use crate::Game;
use retrograde_graph::{BitSet, Graph, GraphBuilder, MAX_VERTICES};
use retrograde_solve::{solve, Rules, Solution, Value};
pub use retrograde_tier::Stats;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// The process-wide memory limit of exploring games ([`u64::MAX`]: none).
static MEMORY_LIMIT: AtomicU64 = AtomicU64::new(u64::MAX);

/// Sets the memory that exploring a game ([`solve_game`], and the Great Game's memoised
/// search) may use, in bytes; `None` for no limit (the default). Past it, they stop with
/// [`ExploreError::Memory`] instead of growing until the allocator fails. The number of
/// reachable positions is not known in advance, so the estimate is checked as they are
/// discovered (and, for a dense index, before its table is made).
pub fn set_memory_limit(limit: Option<u64>) {
    MEMORY_LIMIT.store(limit.unwrap_or(u64::MAX), Relaxed);
}

/// The limit set by [`set_memory_limit`].
pub fn memory_limit() -> Option<u64> {
    Some(MEMORY_LIMIT.load(Relaxed)).filter(|&l| l != u64::MAX)
}

/// [`ExploreError::Memory`] when `needed` bytes are over the limit.
pub(crate) fn check_memory(needed: u64) -> Result<(), ExploreError> {
    match memory_limit() {
        Some(limit) if needed > limit => Err(ExploreError::Memory { needed, limit }),
        _ => Ok(()),
    }
}

/// Bytes to lay out and solve a graph of `vertices` and `moves` (the graph engine's peak: 41
/// a vertex, 16 a move) beside `ids` bytes of position ids.
fn graph_bytes(vertices: u64, moves: u64, ids: u64) -> u64 {
    vertices
        .saturating_mul(41)
        .saturating_add(moves.saturating_mul(16))
        .saturating_add(ids)
}

/// Why a game could not be solved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExploreError {
    /// More reachable positions than vertex ids.
    TooManyPositions,
    /// `Game::index` returned an index at or past `Game::index_size`.
    IndexOutOfRange {
        /// The index.
        index: u64,
        /// The size.
        size: u64,
    },
    /// The graph layout failed.
    Build(String),
    /// More memory than the limit ([`set_memory_limit`]) would be needed.
    Memory {
        /// Bytes needed (at least: the positions found so far).
        needed: u64,
        /// The limit, in bytes.
        limit: u64,
    },
}

impl fmt::Display for ExploreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExploreError::TooManyPositions => {
                write!(
                    f,
                    "the game has more than {MAX_VERTICES} reachable positions"
                )
            }
            ExploreError::IndexOutOfRange { index, size } => write!(
                f,
                "the game's index gave {index}, past its index size {size} (a bug in the game)"
            ),
            ExploreError::Build(e) => f.write_str(e),
            ExploreError::Memory { needed, limit } => write!(
                f,
                "the positions found need at least {} bytes of memory, over the limit of {limit}",
                needed
            ),
        }
    }
}

impl std::error::Error for ExploreError {}

/// How positions map to vertex ids.
enum Ids<P> {
    /// No dense index: ids handed out in discovery order.
    Map(HashMap<P, u32>),
    /// The game's dense index is the vertex id; `reached` marks what was discovered.
    Dense { reached: BitSet },
}

/// Every reachable position of a game, solved.
pub struct GameSolution<'g, G: Game> {
    game: &'g G,
    rules: Rules,
    ids: Ids<G::Position>,
    graph: Graph,
    solution: Solution,
    stats: Stats,
}

impl<'g, G: Game> GameSolution<'g, G> {
    /// The vertex id of `p`, if it is reachable from the start.
    pub fn id(&self, p: &G::Position) -> Option<u32> {
        match &self.ids {
            Ids::Map(m) => m.get(p).copied(),
            Ids::Dense { reached } => {
                let i = self.game.index(p);
                (i < reached.len() as u64 && reached.get(i as usize)).then_some(i as u32)
            }
        }
    }

    /// The value of `p` for the player to move, if `p` is reachable from the start.
    pub fn value(&self, p: &G::Position) -> Option<Value> {
        self.id(p).map(|v| self.solution.value(v))
    }

    /// The value of the start position.
    pub fn start_value(&self) -> Value {
        self.value(&self.game.start())
            .expect("the start is reachable")
    }

    /// The game that was solved.
    pub fn game(&self) -> &'g G {
        self.game
    }

    /// The rules it was solved under (what a position without moves is worth).
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The totals.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The solved graph (vertex ids as given by [`GameSolution::id`]).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The engine's solution over [`GameSolution::graph`].
    pub fn solution(&self) -> &Solution {
        &self.solution
    }

    /// The moves from `p` with their values seen from `p` (the child's value through the
    /// move), best first; ties between equal values keep the game's move order.
    pub fn ranked_moves(&self, p: &G::Position) -> Vec<(G::Position, Value)> {
        let mut out = Vec::new();
        if self.game.primitive(p).is_some() {
            return out;
        }
        let mut children = Vec::new();
        self.game.moves(p, &mut children);
        for c in children {
            if let Some(v) = self.value(&c) {
                let seen = v.through(self.game.keeps_turn(p, &c));
                out.push((c, seen));
            }
        }
        out.sort_by_key(|m| std::cmp::Reverse(m.1));
        out
    }
}

/// Discovers every position reachable from the start (breadth first), lays the moves out as
/// a graph, and solves it with the engine's semantics.
///
/// Memory: with a dense index (`Game::index_size`), one bit per index to mark what was
/// reached plus the frontier of positions being expanded, and no per-position hash map;
/// without one, a hash map from position to id. The graph itself takes 8 bytes per move.
///
/// # Errors
/// [`ExploreError`] when there are more positions than ids, the game's index is wrong, or
/// the positions need more memory than the limit ([`set_memory_limit`]).
pub fn solve_game<'g, G: Game>(
    game: &'g G,
    rules: &Rules,
) -> Result<GameSolution<'g, G>, ExploreError> {
    let clock = Instant::now();
    let mut builder = GraphBuilder::new();
    let mut children = Vec::new();
    let start = game.start();
    let mut frontier: VecDeque<(G::Position, u32)> = VecDeque::new();

    let mut ids = match game.index_size() {
        Some(size) => {
            if size > MAX_VERTICES {
                return Err(ExploreError::TooManyPositions);
            }
            // A graph vertex for every index, reached or not, and the bit set.
            check_memory(graph_bytes(size, 0, size / 8))?;
            Ids::Dense {
                reached: BitSet::new(size as usize),
            }
        }
        None => Ids::Map(HashMap::new()),
    };
    // Returns (id, newly discovered).
    let intern =
        |ids: &mut Ids<G::Position>, p: &G::Position| -> Result<(u32, bool), ExploreError> {
            match ids {
                Ids::Map(m) => {
                    if let Some(&id) = m.get(p) {
                        return Ok((id, false));
                    }
                    let id = m.len() as u64;
                    if id >= MAX_VERTICES {
                        return Err(ExploreError::TooManyPositions);
                    }
                    if m.len() == m.capacity() {
                        // The table is about to double: old and new at once (8/7 slots an
                        // entry, each an entry and a control byte).
                        let slot = std::mem::size_of::<(G::Position, u32)>() as u64 + 1;
                        let slots = (m.capacity() as u64 * 8 / 7).max(16);
                        check_memory(slots.saturating_mul(3 * slot))?;
                    }
                    m.insert(p.clone(), id as u32);
                    Ok((id as u32, true))
                }
                Ids::Dense { reached } => {
                    let i = game.index(p);
                    if i >= reached.len() as u64 {
                        return Err(ExploreError::IndexOutOfRange {
                            index: i,
                            size: reached.len() as u64,
                        });
                    }
                    let new = !reached.get(i as usize);
                    reached.set(i as usize, true);
                    Ok((i as u32, new))
                }
            }
        };

    let (start_id, _) = intern(&mut ids, &start)?;
    builder
        .ensure_vertices(start_id as u64 + 1)
        .map_err(|e| ExploreError::Build(e.to_string()))?;
    frontier.push_back((start, start_id));
    let mut positions = 1u64;
    let mut moves = 0u64;
    while let Some((p, id)) = frontier.pop_front() {
        if let Some(value) = game.primitive(&p) {
            builder.set_primitive(id, value);
            continue;
        }
        children.clear();
        game.moves(&p, &mut children);
        for c in children.drain(..) {
            let (cid, new) = intern(&mut ids, &c)?;
            if game.keeps_turn(&p, &c) {
                builder.add_edge_again(id, cid);
            } else {
                builder.add_edge(id, cid);
            }
            moves += 1;
            if new {
                positions += 1;
                frontier.push_back((c, cid));
            }
            // Every 2^16 positions or 2^20 moves (games with many moves a position).
            if (new && positions % (1 << 16) == 0) || moves % (1 << 20) == 0 {
                check_memory(need(&ids, positions, moves))?;
            }
        }
    }
    check_memory(need(&ids, positions, moves))?;
    if let Ids::Dense { reached } = &ids {
        builder
            .ensure_vertices(reached.len() as u64)
            .map_err(|e| ExploreError::Build(e.to_string()))?;
    }
    let graph = builder
        .build()
        .map_err(|e| ExploreError::Build(e.to_string()))?;
    let explore = clock.elapsed();

    let clock = Instant::now();
    let solution = solve(&graph, rules);
    let solve_time = clock.elapsed();

    let mut stats = Stats {
        positions,
        moves,
        classes: positions,
        states: positions,
        explore,
        solve: solve_time,
        ..Stats::default()
    };
    let reached = |v: u32| match &ids {
        Ids::Map(_) => true,
        Ids::Dense { reached } => reached.get(v as usize),
    };
    for v in 0..graph.vertex_count() as u32 {
        if !reached(v) {
            continue;
        }
        stats.count(solution.value(v));
    }
    Ok(GameSolution {
        game,
        rules: *rules,
        ids,
        graph,
        solution,
        stats,
    })
}

/// The memory an exploration with `positions` found and `moves` made so far will need to be
/// laid out and solved: the graph, and the ids (a hash map entry, about twice a position and
/// its id with the table's slack; or one bit an index).
fn need<P>(ids: &Ids<P>, positions: u64, moves: u64) -> u64 {
    match ids {
        Ids::Map(_) => {
            let entry = (std::mem::size_of::<(P, u32)>() as u64 + 1) * 2;
            graph_bytes(positions, moves, positions.saturating_mul(entry))
        }
        Ids::Dense { reached } => {
            let size = reached.len() as u64;
            graph_bytes(size, moves, size / 8)
        }
    }
}

impl<G: Game> retrograde_tier::Solved for GameSolution<'_, G> {
    type Position = G::Position;

    fn start(&self) -> Option<G::Position> {
        Some(self.game.start())
    }

    fn value(&self, p: &G::Position) -> Result<Option<Value>, retrograde_tier::Error> {
        Ok(GameSolution::value(self, p))
    }

    fn ranked_moves(
        &self,
        p: &G::Position,
    ) -> Result<Vec<(G::Position, Value)>, retrograde_tier::Error> {
        Ok(GameSolution::ranked_moves(self, p))
    }

    fn stats(&self) -> &Stats {
        &self.stats
    }
}

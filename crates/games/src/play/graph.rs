//! Playing any solved graph: positions are vertices, moves are edges.

use super::{Move, Playable};
use retrograde_graph::{Graph, VertexId};
use retrograde_solve::{Scored, Solution, Value};

/// A graph and its solution, played from a start vertex.
///
/// Moves are labelled by the successor's id, with its name (when the file gives one) as an
/// alias; parallel edges that mean the same move are listed once. When a vertex has both a
/// go-again edge and a turn-passing edge to the same successor, the go-again one is labelled
/// `ID again`. A terminal ([`Graph::is_terminal`]: a `terminal` label or a score) has no
/// moves, whatever edges its file gives it: the game is over there. In an arena the sides are "player 0" and "player 1" (the owners), and the
/// start's owner moves first; otherwise they are the first and the second player, and the
/// turn passes on every move but go-again ones.
///
/// ```
/// use retrograde_games::play::{PlayGraph, Session};
/// use retrograde_graph::format::{parse, Format, ParseOptions};
/// use retrograde_solve::{solve, Rules};
///
/// let g = parse(b"0 1\n1 2\n0 2\n", Format::Edges, &ParseOptions::default()).unwrap();
/// let s = solve(&g, &Rules::default());
/// let game = PlayGraph::new(&g, &s, 0).unwrap();
/// let (mut session, intro) = Session::new(&game, 1).unwrap(); // the engine moves first
/// assert!(intro.contains("The first player (engine) plays 2: win in 1."));
/// assert!(intro.contains("Game over: the first player wins. You lose."));
/// ```
pub struct PlayGraph<'a> {
    graph: &'a Graph,
    solution: &'a Solution,
    start: VertexId,
}

/// Why a graph cannot be played ([`PlayGraph::new`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayGraphError {
    /// The solution is not the graph's: it has `values` values for `vertices` vertices.
    Mismatch {
        /// The solution's values.
        values: usize,
        /// The graph's vertices.
        vertices: usize,
    },
    /// The start is no vertex of the graph.
    NoVertex {
        /// The start asked.
        start: VertexId,
        /// The graph's vertices.
        vertices: usize,
    },
}

impl std::fmt::Display for PlayGraphError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayGraphError::Mismatch { values, vertices } => write!(
                f,
                "the solution has {values} values for {vertices} vertices"
            ),
            PlayGraphError::NoVertex { start, vertices } => write!(
                f,
                "vertex {start} does not exist (the graph has {vertices} vertices)"
            ),
        }
    }
}

impl std::error::Error for PlayGraphError {}

impl<'a> PlayGraph<'a> {
    /// Play `graph` (solved as `solution`) from `start`.
    ///
    /// # Errors
    /// When `start` is not a vertex, or the solution does not fit the graph.
    pub fn new(
        graph: &'a Graph,
        solution: &'a Solution,
        start: VertexId,
    ) -> Result<PlayGraph<'a>, PlayGraphError> {
        let vertices = graph.vertex_count();
        if solution.len() != vertices {
            return Err(PlayGraphError::Mismatch {
                values: solution.len(),
                vertices,
            });
        }
        if start as usize >= vertices {
            return Err(PlayGraphError::NoVertex { start, vertices });
        }
        Ok(PlayGraph {
            graph,
            solution,
            start,
        })
    }

    /// `7 (name)` or `7`.
    fn label(&self, v: VertexId) -> String {
        match self.graph.name(v) {
            Some(n) => format!("{v} ({n})"),
            None => v.to_string(),
        }
    }
}

impl Playable for PlayGraph<'_> {
    type Position = VertexId;

    fn start(&self) -> VertexId {
        self.start
    }

    fn moves(&self, &u: &VertexId) -> Result<Vec<Move<VertexId>>, retrograde_tier::Error> {
        let g = self.graph;
        // The game is over at a terminal: the moves its file gave are not moves.
        if g.is_terminal(u) {
            return Ok(Vec::new());
        }
        let targets = g.forward_targets();
        let mut edges: Vec<(VertexId, bool)> = g
            .successor_range(u)
            .map(|e| (targets[e], g.forward_keeps_turn(e, u, targets[e])))
            .collect();
        // Parallel edges with the same turn rule are one move.
        edges.sort_unstable();
        edges.dedup();
        let both = |v: VertexId| edges.iter().filter(|e| e.0 == v).count() > 1;
        Ok(edges
            .iter()
            .map(|&(v, keeps)| {
                let again = keeps && both(v);
                let suffix = if again { " again" } else { "" };
                let mut m = Move::new(format!("{v}{suffix}"), v).keeps_turn(keeps);
                if let Some(name) = g.name(v) {
                    m = m.note(name).alias(format!("{name}{suffix}"));
                }
                m
            })
            .collect())
    }

    fn value(&self, &v: &VertexId) -> Result<Value, retrograde_tier::Error> {
        Ok(self.solution.value(v))
    }

    /// A scored graph's values say by how much (its moves collect nothing on the way).
    fn scored(&self, &v: &VertexId) -> Result<Option<Scored>, retrograde_tier::Error> {
        Ok(self.solution.is_scored().then(|| self.solution.scored(v)))
    }

    fn render(&self, &v: &VertexId) -> String {
        let mut s = format!("At vertex {}", self.label(v));
        if self.graph.is_arena() {
            s.push_str(&format!(", owned by player {}", self.graph.owner(v)));
        }
        if let Some(score) = self.graph.score(v) {
            s.push_str(&format!(" (terminal: worth {score} to the player to move)"));
        } else if let Some(p) = self.graph.primitive(v) {
            s.push_str(&format!(" (terminal: {p} for the player to move)"));
        } else if self.graph.out_degree(v) == 0 {
            s.push_str(" (no move)");
        }
        s.push('.');
        s
    }

    fn side_names(&self) -> [String; 2] {
        if self.graph.is_arena() {
            ["player 0".into(), "player 1".into()]
        } else {
            ["the first player".into(), "the second player".into()]
        }
    }

    fn first_side(&self) -> usize {
        self.graph.owner(self.start) as usize
    }

    fn title(&self) -> String {
        let g = self.graph;
        let mut s = format!(
            "A game graph of {} vertices and {} moves, from vertex {}",
            g.vertex_count(),
            g.edge_count(),
            self.label(self.start)
        );
        s.push_str(if g.is_arena() {
            ": an arena, where the owner of a vertex moves there."
        } else if matches!(g.turn_rule(), retrograde_graph::TurnRule::GoAgain { .. }) {
            ": the turn passes on every move except go-again ones."
        } else {
            ": the turn passes on every move."
        });
        s
    }
}

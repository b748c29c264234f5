//! Compact game graphs: vertices are positions, directed edges are legal moves.
//!
//! A [`Graph`] stores its moves twice in compressed sparse row (CSR) form, forward
//! (successors) and reverse (predecessors), so that both "what can I play here?" and "which
//! positions can reach this one?" are O(1) slices. Vertices are `u32` ids `0..n`; the id
//! `u32::MAX` is reserved (see [`MAX_VERTICES`]), so a graph holds at most 4 294 967 295
//! vertices, and building a bigger one is an error, never a wrap-around.
//!
//! Beside the moves, a graph carries the few facts a game needs and nothing more:
//! - a [`TurnRule`]: every move passes the turn (the default), some moves let the same player
//!   go again, or an *arena* gives each vertex an owner who moves there;
//! - optional [`Primitive`] labels: a vertex whose result is fixed by the rules (win, loss or
//!   tie for the player to move), whatever moves it has;
//! - optional scores: a scored vertex is terminal, worth a signed number of points to the
//!   player to move there (a graph with at least one score is *scored*);
//! - optional names and a start vertex, for printing and play.
//!
//! This crate knows nothing about solving; `retrograde-solve` gives these labels their
//! meaning. Parsers for the text formats live in [`format`].
//!
//! # Example
//! ```
//! use retrograde_graph::GraphBuilder;
//!
//! // The pebble game of seed 004 with 3 pebbles: take 1 or 2.
//! let mut b = GraphBuilder::new();
//! for v in 1..=3u32 {
//!     b.add_edge(v, v - 1);
//!     if v >= 2 {
//!         b.add_edge(v, v - 2);
//!     }
//! }
//! let g = b.build().unwrap();
//! assert_eq!(g.vertex_count(), 4);
//! assert_eq!(g.edge_count(), 5);
//! assert_eq!(g.successors(3), &[1, 2]);
//! assert_eq!(g.predecessors(1), &[2, 3]); // in the order added
//! ```
#![warn(missing_docs)]

mod bits;
mod builder;
pub mod format;
pub mod huge;
mod scores;

pub use bits::BitSet;
pub use builder::{BuildError, GraphBuilder, Labels};
use scores::Scores;

use std::fmt;
use std::str::FromStr;

/// A vertex id.
pub type VertexId = u32;

/// The most vertices a graph can hold: ids run from 0 to `MAX_VERTICES - 1`, and `u32::MAX`
/// stays free as a "no vertex" marker.
pub const MAX_VERTICES: u64 = u32::MAX as u64;

/// Not a score: `i64::MIN`, the one `i64` that cannot be negated, marks a vertex without a
/// score in a scored graph. Scores lie in `-(2^63 - 1)..=2^63 - 1`.
pub const NO_SCORE: i64 = i64::MIN;

/// The largest valid vertex id.
pub const MAX_VERTEX_ID: u64 = MAX_VERTICES - 1;

/// A result fixed by the rules at a vertex, stated for the player to move there.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Primitive {
    /// The player to move has won.
    Win,
    /// The player to move has lost.
    Loss,
    /// The game has ended level.
    Tie,
}

impl Primitive {
    /// Every label, in the order the command line lists them (`--no-move loss|win|tie`).
    pub const ALL: [Primitive; 3] = [Primitive::Loss, Primitive::Win, Primitive::Tie];

    /// The label of one of [`Primitive::ALL`]'s words ([`Primitive::as_str`]), and of no
    /// other: the words `--no-move` and Python's `no_move` take.
    pub fn from_word(word: &str) -> Option<Primitive> {
        Primitive::ALL.into_iter().find(|p| p.as_str() == word)
    }

    /// The lowercase word used in every text format: `win`, `loss`, `tie`.
    pub fn as_str(self) -> &'static str {
        match self {
            Primitive::Win => "win",
            Primitive::Loss => "loss",
            Primitive::Tie => "tie",
        }
    }
}

impl fmt::Display for Primitive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Primitive {
    type Err = String;
    /// Reads a label of a graph file: the words of [`Primitive::from_word`], and `lose` for
    /// `loss` too.
    fn from_str(s: &str) -> Result<Self, String> {
        let old = (s == "lose").then_some(Primitive::Loss);
        Primitive::from_word(s).or(old).ok_or_else(|| {
            format!(
                "expected win, loss or tie, found {}",
                format::show(s.as_bytes())
            )
        })
    }
}

/// Who moves after a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnRule {
    /// Every move passes the turn to the opponent (the seeds' model).
    Alternate,
    /// Every move passes the turn except the flagged "go-again" ones, after which the same
    /// player moves again. `forward` is indexed like [`Graph::successors`] edges, `reverse`
    /// like [`Graph::predecessors`] edges.
    GoAgain {
        /// One bit per forward edge.
        forward: BitSet,
        /// One bit per reverse edge.
        reverse: BitSet,
    },
    /// Each vertex has an owner (player 0 or 1) who moves there; a move passes the turn
    /// exactly when the owners of its ends differ. Bit set = owned by player 1.
    Arena {
        /// One bit per vertex.
        owner: BitSet,
    },
}

/// A directed multigraph of positions and moves, in forward and reverse CSR form.
///
/// # Invariants
/// - `fwd_off` and `rev_off` have `n + 1` entries, are non-decreasing, start at 0 and end at
///   `m`, the number of edges; `fwd` and `rev` have `m` entries, each `< n`.
/// - The successors of `u` are `fwd[fwd_off[u]..fwd_off[u+1]]` sorted by id; the
///   predecessors of `v` are `rev[rev_off[v]..rev_off[v+1]]` in the order the edges were
///   added. Parallel edges appear once per edge (to the same successor, in the order added).
/// - The reverse edges are exactly the forward edges turned around, with the same go-again
///   flags.
/// - `primitive`, `names`, and an arena's `owner` have one entry per vertex when present;
///   `scores` (present only when some vertex has a score) has a bit per vertex and a score
///   per bit set (`scores.rs`).
#[derive(Clone, Debug)]
pub struct Graph {
    n: u32,
    fwd_off: Vec<u64>,
    fwd: Vec<u32>,
    rev_off: Vec<u64>,
    rev: Vec<u32>,
    turn: TurnRule,
    primitive: Option<Vec<Option<Primitive>>>,
    scores: Option<Scores>,
    names: Option<Vec<String>>,
    start: Option<u32>,
}

impl Graph {
    /// Number of vertices `n`.
    #[inline]
    pub fn vertex_count(&self) -> usize {
        self.n as usize
    }

    /// Number of edges `m`, parallel edges and self-loops included.
    #[inline]
    pub fn edge_count(&self) -> usize {
        self.fwd.len()
    }

    /// The moves from `u`, as successor ids in increasing order.
    ///
    /// # Panics
    /// When `u >= n`.
    #[inline]
    pub fn successors(&self, u: VertexId) -> &[VertexId] {
        let u = u as usize;
        &self.fwd[self.fwd_off[u] as usize..self.fwd_off[u + 1] as usize]
    }

    /// The index range of `u`'s forward edges (for [`Graph::forward_keeps_turn`]).
    #[inline]
    pub fn successor_range(&self, u: VertexId) -> std::ops::Range<usize> {
        let u = u as usize;
        self.fwd_off[u] as usize..self.fwd_off[u + 1] as usize
    }

    /// The positions with a move to `v`, one entry per edge, in the order the edges were added.
    #[inline]
    pub fn predecessors(&self, v: VertexId) -> &[VertexId] {
        let v = v as usize;
        &self.rev[self.rev_off[v] as usize..self.rev_off[v + 1] as usize]
    }

    /// The index range of `v`'s reverse edges (for [`Graph::reverse_keeps_turn`]).
    #[inline]
    pub fn predecessor_range(&self, v: VertexId) -> std::ops::Range<usize> {
        let v = v as usize;
        self.rev_off[v] as usize..self.rev_off[v + 1] as usize
    }

    /// All forward targets, indexed by forward edge index.
    #[inline]
    pub fn forward_targets(&self) -> &[VertexId] {
        &self.fwd
    }

    /// All reverse sources, indexed by reverse edge index.
    #[inline]
    pub fn reverse_sources(&self) -> &[VertexId] {
        &self.rev
    }

    /// The forward offsets: `n + 1` entries; `u`'s edges are `offsets[u]..offsets[u + 1]`.
    #[inline]
    pub fn forward_offsets(&self) -> &[u64] {
        &self.fwd_off
    }

    /// The reverse offsets: `n + 1` entries; `v`'s reverse edges are
    /// `offsets[v]..offsets[v + 1]`.
    #[inline]
    pub fn reverse_offsets(&self) -> &[u64] {
        &self.rev_off
    }

    /// Number of moves from `u`.
    #[inline]
    pub fn out_degree(&self, u: VertexId) -> usize {
        let u = u as usize;
        (self.fwd_off[u + 1] - self.fwd_off[u]) as usize
    }

    /// The turn rule.
    pub fn turn_rule(&self) -> &TurnRule {
        &self.turn
    }

    /// True when the graph is an arena (vertices have owners).
    pub fn is_arena(&self) -> bool {
        matches!(self.turn, TurnRule::Arena { .. })
    }

    /// The player (0 or 1) who moves at `v`: its owner in an arena, else 0 ("the player to
    /// move").
    #[inline]
    pub fn owner(&self, v: VertexId) -> u8 {
        match &self.turn {
            TurnRule::Arena { owner } => owner.get(v as usize) as u8,
            _ => 0,
        }
    }

    /// Does forward edge `e` (from `u` to `v`) leave the same player to move?
    #[inline]
    pub fn forward_keeps_turn(&self, e: usize, u: VertexId, v: VertexId) -> bool {
        match &self.turn {
            TurnRule::Alternate => false,
            TurnRule::GoAgain { forward, .. } => forward.get(e),
            TurnRule::Arena { owner } => owner.get(u as usize) == owner.get(v as usize),
        }
    }

    /// Does reverse edge `e` (from `u` to `v`, stored at `v`) leave the same player to move?
    #[inline]
    pub fn reverse_keeps_turn(&self, e: usize, u: VertexId, v: VertexId) -> bool {
        match &self.turn {
            TurnRule::Alternate => false,
            TurnRule::GoAgain { reverse, .. } => reverse.get(e),
            TurnRule::Arena { owner } => owner.get(u as usize) == owner.get(v as usize),
        }
    }

    /// The fixed result at `v`, if the rules give one.
    #[inline]
    pub fn primitive(&self, v: VertexId) -> Option<Primitive> {
        self.primitive.as_ref().and_then(|p| p[v as usize])
    }

    /// True when some vertex carries a primitive label.
    pub fn has_primitives(&self) -> bool {
        self.primitive.is_some()
    }

    /// The score of `v`, if it has one: `v` is then terminal, worth that many points to the
    /// player to move there, whatever moves it has.
    #[inline]
    pub fn score(&self, v: VertexId) -> Option<i64> {
        self.scores.as_ref()?.get(v)
    }

    /// True when the rules fix the value of `v`: it has a [`Primitive`] label or a score. The
    /// game is over there, and its moves, if the file gave any, are not moves of the game
    /// (every reader treats it as a vertex without moves).
    #[inline]
    pub fn is_terminal(&self, v: VertexId) -> bool {
        self.primitive(v).is_some() || self.score(v).is_some()
    }

    /// True for a scored graph: some vertex has a score. Its values then say by how much
    /// (a `terminal` label is worth +1, -1 or 0 there).
    pub fn is_scored(&self) -> bool {
        self.scores.is_some()
    }

    /// The name of `v`, if the file gave one.
    pub fn name(&self, v: VertexId) -> Option<&str> {
        self.names
            .as_ref()
            .map(|n| n[v as usize].as_str())
            .filter(|s| !s.is_empty())
    }

    /// True when some vertex has a name.
    pub fn has_names(&self) -> bool {
        self.names.is_some()
    }

    /// The start vertex, if the file gave one.
    pub fn start(&self) -> Option<VertexId> {
        self.start
    }

    /// Bytes of heap memory held by the graph.
    pub fn heap_bytes(&self) -> usize {
        let turn = match &self.turn {
            TurnRule::Alternate => 0,
            TurnRule::GoAgain { forward, reverse } => forward.heap_bytes() + reverse.heap_bytes(),
            TurnRule::Arena { owner } => owner.heap_bytes(),
        };
        self.fwd_off.capacity() * 8
            + self.rev_off.capacity() * 8
            + self.fwd.capacity() * 4
            + self.rev.capacity() * 4
            + turn
            + self.primitive.as_ref().map_or(0, |p| p.capacity())
            + self.scores.as_ref().map_or(0, Scores::heap_bytes)
            + self
                .names
                .as_ref()
                .map_or(0, |n| n.iter().map(|s| s.capacity() + 24).sum())
    }
}

//! A parity game: an arena (every vertex has an owner who moves there) and a priority per
//! vertex.

use retrograde_graph::{BitSet, BuildError, Graph};
use std::fmt;
use std::str::FromStr;

/// One of the two players. Even wins an infinite play when the largest priority seen
/// infinitely often is even, Odd when it is odd. In files and in the CSV and JSON outputs
/// Even is 0 and Odd is 1.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Player {
    /// Player 0: wins plays whose largest recurring priority is even.
    Even = 0,
    /// Player 1: wins plays whose largest recurring priority is odd.
    Odd = 1,
}

impl Player {
    /// The player a priority is good for: Even for an even priority.
    #[inline(always)]
    pub fn of_priority(p: u32) -> Player {
        Player::from_bit(p & 1 == 1)
    }

    /// The player of a bit: Odd when set (the bit of an arena's owners, 1 in files).
    #[inline(always)]
    pub fn from_bit(odd: bool) -> Player {
        if odd {
            Player::Odd
        } else {
            Player::Even
        }
    }

    /// 0 for Even, 1 for Odd (the numbers of files and outputs).
    #[inline(always)]
    pub fn index(self) -> u8 {
        self as u8
    }

    /// The other player.
    #[inline(always)]
    pub fn opponent(self) -> Player {
        Player::from_bit(self == Player::Even)
    }

    /// `even` or `odd`.
    pub fn as_str(self) -> &'static str {
        match self {
            Player::Even => "even",
            Player::Odd => "odd",
        }
    }
}

impl fmt::Display for Player {
    /// `Even` or `Odd`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::Even => "Even",
            Player::Odd => "Odd",
        })
    }
}

impl FromStr for Player {
    type Err = String;
    /// `0`, `even` or `Even`; `1`, `odd` or `Odd`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "0" | "even" | "Even" => Ok(Player::Even),
            "1" | "odd" | "Odd" => Ok(Player::Odd),
            _ => Err(format!(
                "expected a player (0 or even, 1 or odd), found {s:?}"
            )),
        }
    }
}

/// Why a game could not be made from its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// The priorities (or names) are not one per vertex.
    Length {
        /// What has the wrong length.
        what: &'static str,
        /// How many were given.
        given: usize,
        /// How many vertices the game has.
        vertices: usize,
    },
    /// A move names a vertex the game does not have.
    NoSuchVertex {
        /// The move's source.
        from: u64,
        /// The missing vertex.
        to: u64,
        /// How many vertices the game has.
        vertices: usize,
    },
    /// The graph could not be laid out (too many vertices or moves).
    Build(BuildError),
    /// The graph is not an arena: a parity game needs an owner for every vertex.
    NotArena,
    /// A start vertex that is not a vertex.
    Start {
        /// The start given.
        start: u64,
        /// How many vertices the game has.
        vertices: usize,
    },
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::Length {
                what,
                given,
                vertices,
            } => write!(
                f,
                "{given} {what} for {vertices} vertices: a parity game needs one per vertex"
            ),
            GameError::NoSuchVertex { from, to, vertices } => write!(
                f,
                "a move from {from} to {to}, but the vertices are 0 to {}",
                *vertices as i64 - 1
            ),
            GameError::Build(e) => e.fmt(f),
            GameError::NotArena => f.write_str(
                "the graph has no owners: a parity game needs the player who moves at every vertex",
            ),
            GameError::Start { start, vertices } => write!(
                f,
                "the start {start} is not a vertex (the vertices are 0 to {})",
                *vertices as i64 - 1
            ),
        }
    }
}

impl std::error::Error for GameError {}

impl From<BuildError> for GameError {
    fn from(e: BuildError) -> Self {
        GameError::Build(e)
    }
}

/// Vertex names, kept as one text and the end of each name in it (a `String` a vertex
/// would take 24 bytes and an allocation each).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Names {
    text: String,
    /// `ends[v]`: where the name of `v` ends in `text` (it starts where `v - 1`'s ends).
    ends: Vec<u64>,
}

impl Names {
    pub(crate) fn new(text: String, ends: Vec<u64>) -> Names {
        Names { text, ends }
    }

    fn get(&self, v: usize) -> &str {
        let start = if v == 0 { 0 } else { self.ends[v - 1] as usize };
        &self.text[start..self.ends[v] as usize]
    }

    fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * 8
    }
}

/// A parity game: a directed graph whose every vertex has an owner (the player who chooses
/// the move there) and a priority.
///
/// A play follows moves forever; Even wins it when the largest priority seen infinitely
/// often is even, Odd when it is odd. A vertex without moves (a *dead end*) ends the play:
/// its owner, who cannot move, loses (as in every game of this project; PGSolver and Oink
/// refuse such games).
///
/// The moves are a [`Graph`] (an arena: the owner bit is set for Odd), so that the graph
/// engine's propagation computes the attractors every algorithm is made of.
///
/// # Example
/// ```
/// use retrograde_parity::{ParityGame, Player};
/// // Even at 0 chooses between a loop through 1 (priority 3) and the self-loop at 2 (4).
/// let game = ParityGame::new(
///     vec![2, 3, 4],
///     vec![Player::Even, Player::Odd, Player::Even],
///     &[(0, 1), (1, 0), (0, 2), (2, 2)],
/// )
/// .unwrap();
/// assert_eq!(game.vertex_count(), 3);
/// assert_eq!(game.successors(0), &[1, 2]);
/// assert_eq!(game.owner(1), Player::Odd);
/// assert_eq!(game.max_priority(), Some(4));
/// ```
#[derive(Clone, Debug)]
pub struct ParityGame {
    graph: Graph,
    priority: Vec<u32>,
    names: Option<Names>,
    start: Option<u32>,
}

impl ParityGame {
    /// A game of `priority.len()` vertices with these owners and moves (pairs `(from, to)`,
    /// in any order; parallel moves and self-loops are kept).
    ///
    /// # Errors
    /// [`GameError::Length`] when `owner` has another length than `priority`,
    /// [`GameError::NoSuchVertex`] for a move to or from a vertex past the last, and
    /// [`GameError::Build`] past the graph's limits.
    pub fn new(
        priority: Vec<u32>,
        owner: Vec<Player>,
        moves: &[(u32, u32)],
    ) -> Result<ParityGame, GameError> {
        let n = priority.len();
        if owner.len() != n {
            return Err(GameError::Length {
                what: "owners",
                given: owner.len(),
                vertices: n,
            });
        }
        if let Some(&(from, to)) = moves
            .iter()
            .find(|&&(u, v)| u as usize >= n || v as usize >= n)
        {
            return Err(GameError::NoSuchVertex {
                from: from as u64,
                to: to as u64,
                vertices: n,
            });
        }
        let mut offsets = vec![0u64; n + 1];
        for &(u, _) in moves {
            offsets[u as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut targets = vec![0u32; moves.len()];
        let mut next: Vec<u64> = offsets[..n].to_vec();
        for &(u, v) in moves {
            targets[next[u as usize] as usize] = v;
            next[u as usize] += 1;
        }
        let mut bits = BitSet::new(n);
        for (v, &o) in owner.iter().enumerate() {
            bits.set(v, o == Player::Odd);
        }
        let graph = Graph::from_successors(offsets, targets, Some(bits))?;
        ParityGame::from_graph(graph, priority)
    }

    /// A game on an arena `graph` (its owners are the players, bit set for Odd) with these
    /// priorities.
    ///
    /// # Errors
    /// [`GameError::NotArena`] for a graph without owners, [`GameError::Length`] when the
    /// priorities are not one per vertex.
    pub fn from_graph(graph: Graph, priority: Vec<u32>) -> Result<ParityGame, GameError> {
        if !graph.is_arena() {
            return Err(GameError::NotArena);
        }
        if priority.len() != graph.vertex_count() {
            return Err(GameError::Length {
                what: "priorities",
                given: priority.len(),
                vertices: graph.vertex_count(),
            });
        }
        Ok(ParityGame {
            graph,
            priority,
            names: None,
            start: None,
        })
    }

    /// The same game with these vertex names (one per vertex; an empty name is no name).
    ///
    /// # Errors
    /// [`GameError::Length`] when the names are not one per vertex.
    pub fn with_names<S: AsRef<str>>(mut self, names: &[S]) -> Result<ParityGame, GameError> {
        if names.len() != self.vertex_count() {
            return Err(GameError::Length {
                what: "names",
                given: names.len(),
                vertices: self.vertex_count(),
            });
        }
        let mut text = String::new();
        let mut ends = Vec::with_capacity(names.len());
        for s in names {
            text.push_str(s.as_ref());
            ends.push(text.len() as u64);
        }
        self.names = (!text.is_empty()).then(|| Names::new(text, ends));
        Ok(self)
    }

    pub(crate) fn set_names(&mut self, names: Option<Names>) {
        self.names = names;
    }

    /// The same game with a start vertex (`None`: none).
    ///
    /// # Errors
    /// [`GameError::Start`] when `start` is not a vertex.
    pub fn with_start(mut self, start: Option<u32>) -> Result<ParityGame, GameError> {
        if let Some(s) = start {
            if s as usize >= self.vertex_count() {
                return Err(GameError::Start {
                    start: s as u64,
                    vertices: self.vertex_count(),
                });
            }
        }
        self.start = start;
        Ok(self)
    }

    /// Number of vertices.
    #[inline]
    pub fn vertex_count(&self) -> usize {
        self.graph.vertex_count()
    }

    /// Number of moves (parallel moves and self-loops included).
    #[inline]
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// The priority of `v`.
    ///
    /// # Panics
    /// When `v` is not a vertex.
    #[inline]
    pub fn priority(&self, v: u32) -> u32 {
        self.priority[v as usize]
    }

    /// Every vertex's priority, by vertex.
    pub fn priorities(&self) -> &[u32] {
        &self.priority
    }

    /// The largest priority (`None` for a game without vertices).
    pub fn max_priority(&self) -> Option<u32> {
        self.priority.iter().copied().max()
    }

    /// The player who moves at `v`.
    #[inline]
    pub fn owner(&self, v: u32) -> Player {
        Player::from_bit(self.graph.owner(v) == 1)
    }

    /// The moves from `v`, as successor ids in increasing order.
    #[inline]
    pub fn successors(&self, v: u32) -> &[u32] {
        self.graph.successors(v)
    }

    /// The vertices with a move to `v`, one entry per move.
    #[inline]
    pub fn predecessors(&self, v: u32) -> &[u32] {
        self.graph.predecessors(v)
    }

    /// The moves as a graph (an arena whose owner bit is set for Odd).
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The name of `v`, if it has one.
    pub fn name(&self, v: u32) -> Option<&str> {
        self.names
            .as_ref()
            .map(|n| n.get(v as usize))
            .filter(|s| !s.is_empty())
    }

    /// True when some vertex has a name.
    pub fn has_names(&self) -> bool {
        self.names.is_some()
    }

    /// The start vertex, if the game names one.
    pub fn start(&self) -> Option<u32> {
        self.start
    }

    /// The vertex a name or an id names: an id if `s` is a number below the vertex count,
    /// else the first vertex with that name.
    pub fn vertex_named(&self, s: &str) -> Option<u32> {
        if let Ok(v) = s.parse::<u64>() {
            if v < self.vertex_count() as u64 {
                return Some(v as u32);
            }
        }
        (0..self.vertex_count() as u32).find(|&v| self.name(v) == Some(s))
    }

    /// Bytes of heap memory the game holds.
    pub fn heap_bytes(&self) -> usize {
        self.graph.heap_bytes()
            + self.priority.capacity() * 4
            + self.names.as_ref().map_or(0, Names::heap_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_what_is_wrong() {
        let e = ParityGame::new(vec![0, 1], vec![Player::Even], &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "1 owners for 2 vertices: a parity game needs one per vertex"
        );
        let e = ParityGame::new(vec![0], vec![Player::Even], &[(0, 3)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a move from 0 to 3, but the vertices are 0 to 0"
        );
        let g = ParityGame::new(vec![0], vec![Player::Even], &[(0, 0)]).unwrap();
        assert!(g.clone().with_start(Some(1)).is_err());
        assert!(g.clone().with_names(&["a", "b"]).is_err());
        let plain = retrograde_graph::GraphBuilder::new().build().unwrap();
        assert_eq!(
            ParityGame::from_graph(plain, vec![]).unwrap_err(),
            GameError::NotArena
        );
    }

    #[test]
    fn names_and_ids() {
        let g = ParityGame::new(
            vec![1, 2, 3],
            vec![Player::Odd, Player::Even, Player::Odd],
            &[(0, 1), (1, 2), (2, 0)],
        )
        .unwrap()
        .with_names(&["a", "", "c d"])
        .unwrap();
        assert_eq!(g.name(0), Some("a"));
        assert_eq!(g.name(1), None);
        assert_eq!(g.name(2), Some("c d"));
        assert_eq!(g.vertex_named("c d"), Some(2));
        assert_eq!(g.vertex_named("1"), Some(1));
        assert_eq!(g.vertex_named("7"), None);
        assert_eq!(g.owner(0), Player::Odd);
        assert_eq!(g.predecessors(0), &[2]);
    }

    #[test]
    fn players_read_and_print() {
        assert_eq!("odd".parse::<Player>(), Ok(Player::Odd));
        assert_eq!("0".parse::<Player>(), Ok(Player::Even));
        assert!("2".parse::<Player>().is_err());
        assert_eq!(Player::of_priority(7), Player::Odd);
        assert_eq!(Player::Even.opponent(), Player::Odd);
        assert_eq!(Player::Odd.to_string(), "Odd");
    }
}

//! The Great Game (seed 001, ETH Algolab): two meeples racing down a topologically sorted DAG.
//!
//! # The game
//! The board is a directed acyclic graph on the vertices `1..=n` whose every edge `u → v` has
//! `u < v`; vertex `n` is the target, and it is reachable from every vertex (equivalently, as
//! ids grow along every edge: every vertex below `n` has an outgoing edge). A red meeple starts
//! at `r` and a black one at `b`, both below `n`.
//!
//! Sherlock and Moriarty alternate, Sherlock first. Each moves one meeple along one edge, and
//! which meeple is fixed by the parity `t` of the number of moves *that player* has made so far:
//! Sherlock moves red when `t = 0` and black when `t = 1`; Moriarty moves black when `t = 0`
//! and red when `t = 1`. So the meeples move in the order red, black, black, red, red, black,
//! black, … . The game ends as soon as a meeple reaches `n`: **red on `n` means Sherlock
//! wins, black on `n` means Moriarty wins — whoever moved it there**. Sherlock can be forced
//! to move black onto `n` (and lose), and Moriarty to move red onto `n`.
//!
//! # Input
//! The Algolab format, read token by token (any ASCII whitespace separates tokens; line
//! numbers are kept for the errors): `t`, the number of test cases; then per case `n m`,
//! `r b`, and `m` edges `u v`, all 1-based. See [`parse`]. The answer to a case is `0` when
//! Sherlock wins, `1` when Moriarty does ([`format_output`]).
//!
//! # Three methods
//! [`Method`] picks one; all three give the same [`Winner`] (the tests check it on random
//! graphs and on the public Algolab cases).
//! - [`Method::Product`]: the game as a [`Game`] ([`GreatGame`]) whose [`Position`] is the
//!   seed's state `(r, b, p, t)`, solved exhaustively by [`solve_game`] over the positions
//!   reachable from the start. The terminal positions are primitive: red on `n` is a win for
//!   Sherlock, so it is [`Primitive::Win`] when Sherlock is to move there and
//!   [`Primitive::Loss`] when Moriarty is; black on `n` the other way round.
//!   Time `O(n·(n + m))` (each of the `O(n²)` pairs `(r, b)` scans the successors of `r` or
//!   `b`); memory `O(R·B + moves)`: the dense index has `4·R·B` entries, `R` and `B` the
//!   numbers of vertices reachable from `r` and from `b`, and the engine lays out a graph
//!   vertex per entry and 8 bytes a move (past 2²⁷ entries, a hash map of the positions
//!   actually reached replaces the index).
//! - [`Method::Memo`]: the seed's memoised search — the mutually recursive `sherlock(r, b, t)`
//!   and `moriarty(r, b, t)` — run with an explicit stack instead of recursion (its depth is
//!   at most `2n` frames, as each move raises `r` or `b`), stopping at the first winning move.
//!   Time `O(n·(n + m))` in the worst case; memory 2 bits per entry of the same dense
//!   index, `4·R·B` (a hash map of the visited states when that is too big), plus the stack.
//! - [`Method::Minimax`]: the seed's `O(n + m)` solution. The meeples never interact, so each
//!   runs its own race: in the red race Sherlock (who makes red's 1st, 3rd, … moves) hurries
//!   and Moriarty stalls; in the black race Moriarty (who makes black's 1st, 3rd, … moves)
//!   hurries and Sherlock stalls. Backwards over the vertices,
//!   `mini(n) = maxi(n) = 0`, `mini(i) = 1 + min over i → j of maxi(j)`,
//!   `maxi(i) = 1 + max over i → j of mini(j)`; red needs `mini(r)` moves and black `mini(b)`.
//!   The fewer wins; on a tie `k`, red's `k`-th move comes first exactly when `k` is odd
//!   (red moves at plies 1, 4, 5, 8, 9, …, black at plies 2, 3, 6, 7, …), so Sherlock wins a
//!   tie iff `k` is odd. Time `O(n + m)`, memory `O(n)`.
//!
//! ```
//! use retrograde_games::great_game::{format_output, parse, solve_all, Method, Winner};
//! let text = b"2\n3 2\n1 1\n1 2\n2 3\n7 9\n1 2\n1 2\n2 3\n3 4\n4 5\n5 6\n6 7\n1 5\n3 5\n4 6\n";
//! let cases = parse(text).unwrap();
//! for method in [Method::Product, Method::Memo, Method::Minimax] {
//!     let winners = solve_all(&cases, method);
//!     assert_eq!(winners, [Winner::Moriarty, Winner::Sherlock]);
//!     assert_eq!(format_output(&winners), "1\n0\n");
//! }
//! ```

use crate::about::{About, Kind, Param};
use crate::{solve_game, ExploreError, Game, GameError};
use retrograde_graph::format::ParseError;
use retrograde_graph::Primitive;
use retrograde_solve::{Outcome, Rules};
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

/// What the game says of itself: its command, rules, parameters and notation.
pub const ABOUT: About = About {
    name: "great-game",
    about: "the Great Game (ETH Algolab): red and black meeples on a DAG",
    help: "The Great Game (ETH Algolab): red and black meeples on a topologically sorted \
           DAG; input t cases of `n m`, `r b`, m edges `u v` (1-based, u < v). Prints one \
           line per case: 0 when Sherlock wins, 1 when Moriarty wins. --method product: \
           retrograde analysis of the product game (memory quadratic in n); memo: a \
           memoized search; minimax: O(n + m) min/max distances. All three agree.",
    examples: &[
        "great-game < cases.in",
        "great-game cases.in --method product",
    ],
    params: &[
        Param {
            name: "file",
            help: "The input file (`-` or nothing: standard input).",
            kind: Kind::Input,
            default: Some("-"),
            positional: true,
            value_name: "FILE",
        },
        Param {
            name: "method",
            help: "How to solve each case.",
            kind: Kind::Choice(&["product", "memo", "minimax"]),
            default: Some("minimax"),
            positional: false,
            value_name: "METHOD",
        },
    ],
    moves: None,
    symmetry: "",
};

/// One test case: the board and the two starts.
///
/// # Invariants
/// `2 ≤ n`; `1 ≤ r, b < n`; every edge `u → v` has `1 ≤ u < v ≤ n`; every vertex below `n`
/// has an outgoing edge (so `n ≤ m + 1`, which bounds every `n`-sized array by the input).
/// The successors of `v` are `heads[first[v]..first[v + 1]]`, in input order (parallel edges
/// kept); `first` has `n + 2` entries, the last equal to `m`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    n: u32,
    red: u32,
    black: u32,
    first: Vec<usize>,
    heads: Vec<u32>,
}

/// Why [`Instance::new`] refused a board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstanceError {
    /// Fewer than 2 vertices: the starts must lie below the target `n`.
    TooFewVertices {
        /// The number of vertices.
        n: u32,
    },
    /// A start outside `1..n`.
    StartOutOfRange {
        /// `"red"` or `"black"`.
        meeple: &'static str,
        /// The start.
        vertex: u32,
        /// The number of vertices.
        n: u32,
    },
    /// An edge with an end outside `1..=n`.
    VertexOutOfRange {
        /// The edge.
        edge: (u32, u32),
        /// The number of vertices.
        n: u32,
    },
    /// An edge `u → v` with `u ≥ v`.
    NotIncreasing {
        /// The edge.
        edge: (u32, u32),
    },
    /// A vertex below `n` without an outgoing edge (the smallest such), from which the
    /// target cannot be reached.
    DeadEnd {
        /// The vertex.
        vertex: u32,
        /// The number of vertices.
        n: u32,
    },
}

impl fmt::Display for InstanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstanceError::TooFewVertices { n } => write!(
                f,
                "the board needs at least 2 vertices (the starts lie below the target n), found n = {n}"
            ),
            InstanceError::StartOutOfRange { meeple, vertex, n } => write!(
                f,
                "the {meeple} meeple's start must be a vertex from 1 to {} (below the target {n}), found {vertex}",
                n.saturating_sub(1)
            ),
            InstanceError::VertexOutOfRange { edge: (u, v), n } => {
                write!(f, "edge {u} {v} has an end outside the vertices 1 to {n}")
            }
            InstanceError::NotIncreasing { edge: (u, v) } => write!(
                f,
                "edges must go from a smaller to a larger vertex, found \"{u} {v}\""
            ),
            InstanceError::DeadEnd { vertex, n } => write!(
                f,
                "vertex {vertex} has no outgoing edge, but the target {n} must be reachable from every vertex"
            ),
        }
    }
}

impl std::error::Error for InstanceError {}

impl Instance {
    /// A board on the vertices `1..=n` with the red meeple at `red`, the black one at `black`,
    /// and the given edges (1-based, parallel edges allowed).
    ///
    /// # Errors
    /// An [`InstanceError`] when an invariant of [`Instance`] fails; the checks go in that
    /// order, and no array of size `n` is allocated before `n ≤ m + 1` is known.
    ///
    /// # Complexity
    /// `O(n + m)`, or `O(m log m)` when there are too few edges to leave every vertex.
    pub fn new(n: u32, red: u32, black: u32, edges: &[(u32, u32)]) -> Result<Self, InstanceError> {
        if n < 2 {
            return Err(InstanceError::TooFewVertices { n });
        }
        for (meeple, vertex) in [("red", red), ("black", black)] {
            if vertex < 1 || vertex >= n {
                return Err(InstanceError::StartOutOfRange { meeple, vertex, n });
            }
        }
        for &(u, v) in edges {
            if u < 1 || u > n || v < 1 || v > n {
                return Err(InstanceError::VertexOutOfRange { edge: (u, v), n });
            }
            if u >= v {
                return Err(InstanceError::NotIncreasing { edge: (u, v) });
            }
        }
        let n_us = n as usize;
        if n_us - 1 > edges.len() {
            // Too few edges for every vertex below n to have one: name the first without.
            let mut tails: Vec<u32> = edges.iter().map(|e| e.0).collect();
            tails.sort_unstable();
            tails.dedup();
            let vertex = tails
                .iter()
                .zip(1u32..)
                .find(|(&u, i)| u != *i)
                .map_or(tails.len() as u32 + 1, |(_, i)| i);
            return Err(InstanceError::DeadEnd { vertex, n });
        }
        // Counting sort by tail, stable, so each vertex keeps its edges in input order.
        let mut first = vec![0usize; n_us + 2];
        for &(u, _) in edges {
            first[u as usize + 1] += 1;
        }
        if let Some(vertex) = (1..n).find(|&v| first[v as usize + 1] == 0) {
            return Err(InstanceError::DeadEnd { vertex, n });
        }
        for v in 1..first.len() {
            first[v] += first[v - 1];
        }
        let mut fill = first.clone();
        let mut heads = vec![0u32; edges.len()];
        for &(u, v) in edges {
            let slot = &mut fill[u as usize];
            heads[*slot] = v;
            *slot += 1;
        }
        Ok(Instance {
            n,
            red,
            black,
            first,
            heads,
        })
    }

    /// The number of vertices; vertex `n` is the target.
    pub fn n(&self) -> u32 {
        self.n
    }

    /// The red meeple's start.
    pub fn red(&self) -> u32 {
        self.red
    }

    /// The black meeple's start.
    pub fn black(&self) -> u32 {
        self.black
    }

    /// The number of edges.
    pub fn edge_count(&self) -> usize {
        self.heads.len()
    }

    /// The heads of the edges leaving `v` (1-based), in input order; empty for `n` and for
    /// ids outside `1..=n`.
    pub fn successors(&self, v: u32) -> &[u32] {
        let v = v as usize;
        if v == 0 || v + 1 >= self.first.len() {
            return &[];
        }
        &self.heads[self.first[v]..self.first[v + 1]]
    }
}

/// Who won a case: printed as `0` for Sherlock, `1` for Moriarty.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Winner {
    /// Sherlock (the red meeple reached the target first); printed `0`.
    Sherlock,
    /// Moriarty (the black meeple reached the target first); printed `1`.
    Moriarty,
}

impl Winner {
    /// The output digit: 0 for Sherlock, 1 for Moriarty.
    pub fn code(self) -> u8 {
        match self {
            Winner::Sherlock => 0,
            Winner::Moriarty => 1,
        }
    }

    /// The other player.
    pub fn other(self) -> Winner {
        match self {
            Winner::Sherlock => Winner::Moriarty,
            Winner::Moriarty => Winner::Sherlock,
        }
    }
}

impl fmt::Display for Winner {
    /// `0` or `1`, as the Algolab output.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code())
    }
}

/// How to solve a case.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// The product game of both meeples and both parities, solved by the engine.
    Product,
    /// The seed's memoised search over `(r, b, p, t)`, with an explicit stack.
    Memo,
    /// The seed's `O(n + m)` mini/maxi race lengths.
    Minimax,
}

impl Method {
    /// Every method, in the order of [`Method::as_str`]'s list.
    pub const ALL: [Method; 3] = [Method::Product, Method::Memo, Method::Minimax];

    /// `product`, `memo` or `minimax`.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Product => "product",
            Method::Memo => "memo",
            Method::Minimax => "minimax",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Method {
    type Err = GameError;
    fn from_str(s: &str) -> Result<Self, GameError> {
        match s {
            "product" => Ok(Method::Product),
            "memo" => Ok(Method::Memo),
            "minimax" => Ok(Method::Minimax),
            _ => Err(GameError::Method { found: s.into() }),
        }
    }
}

/// A state of the game: the seed's `(r, b, p, t)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The red meeple's vertex.
    pub red: u32,
    /// The black meeple's vertex.
    pub black: u32,
    /// The player to move (`p`).
    pub player: Winner,
    /// The parity `t` (0 or 1) of the number of moves the player to move has made so far.
    pub parity: u8,
}

impl Position {
    /// The start of a case: Sherlock to move, with no moves made (so he moves red).
    pub fn start(inst: &Instance) -> Position {
        Position {
            red: inst.red,
            black: inst.black,
            player: Winner::Sherlock,
            parity: 0,
        }
    }

    /// Whether the player to move moves the red meeple: Sherlock at even parity, Moriarty
    /// at odd parity.
    pub fn moves_red(&self) -> bool {
        (self.player == Winner::Sherlock) == (self.parity & 1 == 0)
    }

    /// The vertex of the meeple to move.
    pub fn mover_vertex(&self) -> u32 {
        if self.moves_red() {
            self.red
        } else {
            self.black
        }
    }

    /// The position after the meeple to move goes to `to`. Sherlock's move hands Moriarty
    /// the same parity (they have made equally many moves); Moriarty's move hands Sherlock
    /// the flipped one (Sherlock's count grows by one).
    pub fn play(&self, to: u32) -> Position {
        let (red, black) = if self.moves_red() {
            (to, self.black)
        } else {
            (self.red, to)
        };
        let parity = match self.player {
            Winner::Sherlock => self.parity & 1,
            Winner::Moriarty => (self.parity & 1) ^ 1,
        };
        Position {
            red,
            black,
            player: self.player.other(),
            parity,
        }
    }

    /// Who has won, if a meeple is on the target `n`: red there is Sherlock's win, black
    /// there Moriarty's, whoever moved it.
    pub fn winner(&self, n: u32) -> Option<Winner> {
        if self.red == n {
            Some(Winner::Sherlock)
        } else if self.black == n {
            Some(Winner::Moriarty)
        } else {
            None
        }
    }
}

/// A dense index of the states that can occur from the start: the red meeple only ever
/// stands on vertices reachable from `r`, the black one on vertices reachable from `b`.
/// With those ranked in increasing order (`R` and `B` of them), a state's index is
/// `(rank_red · B + rank_black) · 4 + 2p + t`, below `size = 4·R·B`. Any other position
/// (an unreachable vertex, an id past `n`) gets `u64::MAX`, past every size.
///
/// On the Algolab test set 3 this is 14 times smaller than the plain rectangle
/// `[r, n] × [b, n]`, which matters: the product method lays out a graph vertex per index.
#[derive(Clone, Debug)]
struct Dense {
    red_rank: Vec<u32>,
    black_rank: Vec<u32>,
    height: u64,
    /// `4·R·B`, if it fits in a `u64`.
    size: Option<u64>,
}

/// Not reachable from the start vertex.
const NO_RANK: u32 = u32::MAX;

impl Dense {
    fn new(inst: &Instance) -> Dense {
        let (red_rank, width) = Dense::ranks(inst, inst.red);
        let (black_rank, height) = Dense::ranks(inst, inst.black);
        Dense {
            red_rank,
            black_rank,
            height,
            size: width.checked_mul(height).and_then(|s| s.checked_mul(4)),
        }
    }

    /// The rank of every vertex among those reachable from `from` (in increasing order),
    /// [`NO_RANK`] for the others, and how many there are. One sweep in vertex order, as
    /// every edge goes up. `O(n + m)`.
    fn ranks(inst: &Instance, from: u32) -> (Vec<u32>, u64) {
        let n = inst.n as usize;
        let mut reached = vec![false; n + 1];
        reached[from as usize] = true;
        let mut rank = vec![NO_RANK; n + 1];
        let mut count = 0u32;
        for v in from as usize..=n {
            if reached[v] {
                rank[v] = count;
                count += 1;
                for &w in inst.successors(v as u32) {
                    reached[w as usize] = true;
                }
            }
        }
        (rank, u64::from(count))
    }

    fn index(&self, p: &Position) -> u64 {
        let rank = |ranks: &[u32], v: u32| ranks.get(v as usize).copied().filter(|&r| r != NO_RANK);
        match (rank(&self.red_rank, p.red), rank(&self.black_rank, p.black)) {
            (Some(r), Some(b)) if p.parity < 2 => u64::from(r)
                .checked_mul(self.height)
                .and_then(|c| c.checked_add(u64::from(b)))
                .and_then(|c| c.checked_mul(4))
                .and_then(|c| c.checked_add(u64::from(p.player.code()) * 2 + u64::from(p.parity)))
                .unwrap_or(u64::MAX),
            _ => u64::MAX,
        }
    }
}

/// The largest dense index [`GreatGame`] offers the engine: each index becomes a graph vertex,
/// so past this a hash map of the positions actually reached is the cheaper layout.
const PRODUCT_DENSE_MAX: u64 = 1 << 27;

/// The Great Game as a [`Game`], for [`solve_game`] ([`Method::Product`]).
///
/// Positions are [`Position`]s; a position with a meeple on `n` is primitive (see
/// [`GreatGame::primitive`]). The dense index ranks the vertices each meeple can reach from
/// its start: `((rank of red)·B + rank of black)·4 + 2p + t`, with `B` the number of
/// vertices reachable from `b` (any position that cannot occur gets `u64::MAX`). When its
/// size `4·R·B` exceeds 2²⁷ (the engine would lay out a graph vertex for each, reached or
/// not), a hash map holds the reachable positions instead.
#[derive(Clone, Debug)]
pub struct GreatGame<'a> {
    inst: &'a Instance,
    dense: Dense,
}

impl<'a> GreatGame<'a> {
    /// The game of one case.
    pub fn new(inst: &'a Instance) -> Self {
        GreatGame {
            inst,
            dense: Dense::new(inst),
        }
    }
}

impl Game for GreatGame<'_> {
    type Position = Position;

    fn start(&self) -> Position {
        Position::start(self.inst)
    }

    fn moves(&self, p: &Position, out: &mut Vec<Position>) {
        out.extend(
            self.inst
                .successors(p.mover_vertex())
                .iter()
                .map(|&to| p.play(to)),
        );
    }

    /// A meeple on `n` ends the game: red there is a win for Sherlock, black there one for
    /// Moriarty, stated for the player to move — so `Win` when the winner is to move (the
    /// loser was forced to move the winner's meeple home, or simply moved last), `Loss`
    /// otherwise.
    fn primitive(&self, p: &Position) -> Option<Primitive> {
        p.winner(self.inst.n).map(|w| {
            if w == p.player {
                Primitive::Win
            } else {
                Primitive::Loss
            }
        })
    }

    fn index_size(&self) -> Option<u64> {
        self.dense.size.filter(|&s| s <= PRODUCT_DENSE_MAX)
    }

    fn index(&self, p: &Position) -> u64 {
        self.dense.index(p)
    }
}

/// Solves one case with `method`.
///
/// # Panics
/// Only if [`Method::Product`] cannot lay out the game (more than
/// [`MAX_VERTICES`](retrograde_graph::MAX_VERTICES) reachable positions, which needs far
/// more memory than any machine has); [`try_solve`] returns that as an error instead.
///
/// # Complexity
/// See the [module documentation](self).
pub fn solve(inst: &Instance, method: Method) -> Winner {
    match try_solve(inst, method) {
        Ok(w) => w,
        Err(e) => panic!("the Great Game: the product method failed: {e}"),
    }
}

/// Like [`solve`], but returns the product method's failure.
///
/// # Errors
/// [`ExploreError`] from [`solve_game`] ([`Method::Product`]), or [`ExploreError::Memory`]
/// when the memoised search outgrows the limit ([`crate::set_memory_limit`]).
pub fn try_solve(inst: &Instance, method: Method) -> Result<Winner, ExploreError> {
    Ok(match method {
        Method::Product => solve_product(inst)?,
        Method::Memo => solve_memo(inst)?,
        Method::Minimax => solve_minimax(inst),
    })
}

/// Solves every case with `method`, in order.
///
/// # Panics
/// As [`solve`].
pub fn solve_all(insts: &[Instance], method: Method) -> Vec<Winner> {
    insts.iter().map(|i| solve(i, method)).collect()
}

/// The Algolab output: one line per case, `0` (Sherlock) or `1` (Moriarty).
pub fn format_output(winners: &[Winner]) -> String {
    let mut s = String::with_capacity(winners.len() * 2);
    for w in winners {
        s.push(if *w == Winner::Sherlock { '0' } else { '1' });
        s.push('\n');
    }
    s
}

/// [`Method::Product`]: the engine's value of the start, for Sherlock (to move there).
fn solve_product(inst: &Instance) -> Result<Winner, ExploreError> {
    let game = GreatGame::new(inst);
    let solution = solve_game(&game, &Rules::default())?;
    // A DAG without dead ends below n: every position is won or lost.
    Ok(match solution.start_value().outcome() {
        Outcome::Win => Winner::Sherlock,
        _ => Winner::Moriarty,
    })
}

/// The memo of [`Method::Memo`].
enum Memo {
    /// 2 bits a state of the [`Dense`] index: 0 unknown, 1 Sherlock, 2 Moriarty.
    Dense { dense: Dense, words: Vec<u64> },
    /// The visited states, when the dense table would be too large.
    Sparse(HashMap<Position, Winner>),
}

/// The most states [`Memo::Dense`] holds (64 MiB at 2 bits a state).
const MEMO_DENSE_MAX: u64 = 1 << 28;

impl Memo {
    fn new(inst: &Instance) -> Result<Memo, ExploreError> {
        let dense = Dense::new(inst);
        Ok(match dense.size {
            Some(size) if size <= MEMO_DENSE_MAX => {
                crate::explore::check_memory(size / 4)?;
                Memo::Dense {
                    dense,
                    words: vec![0; size.div_ceil(32) as usize],
                }
            }
            _ => Memo::Sparse(HashMap::new()),
        })
    }

    fn get(&self, p: &Position) -> Option<Winner> {
        match self {
            Memo::Dense { dense, words } => {
                let i = dense.index(p);
                match (words[(i / 32) as usize] >> (2 * (i % 32))) & 3 {
                    1 => Some(Winner::Sherlock),
                    2 => Some(Winner::Moriarty),
                    _ => None,
                }
            }
            Memo::Sparse(map) => map.get(p).copied(),
        }
    }

    /// Records a state's winner.
    ///
    /// # Errors
    /// [`ExploreError::Memory`] when the hash map of visited states outgrows the limit.
    fn set(&mut self, p: &Position, w: Winner) -> Result<(), ExploreError> {
        match self {
            Memo::Dense { dense, words } => {
                let i = dense.index(p);
                words[(i / 32) as usize] |= (u64::from(w.code()) + 1) << (2 * (i % 32));
            }
            Memo::Sparse(map) => {
                if map.len() == map.capacity() {
                    // The table is about to double: the old one (8/7 slots an entry, each
                    // an entry and a control byte) and the new one, twice as big, at once.
                    let slot = std::mem::size_of::<(Position, Winner)>() as u64 + 1;
                    let slots = (map.capacity() as u64 * 8 / 7).max(16);
                    crate::explore::check_memory(slots.saturating_mul(3 * slot))?;
                }
                map.insert(*p, w);
            }
        }
        Ok(())
    }
}

/// [`Method::Memo`]: the seed's `sherlock`/`moriarty` search, iteratively.
///
/// A frame is a state being evaluated and the next edge of its moving meeple to try. The
/// player to move wins as soon as one child is won for him (the seed's loop, cut short);
/// otherwise, once every child is lost for him, the opponent wins. A child already known —
/// a meeple on `n` (the seed's `if r == n` / `if b == n`) or memoised — is settled on the
/// spot; an unknown one is pushed, and its result comes back in `returned`.
fn solve_memo(inst: &Instance) -> Result<Winner, ExploreError> {
    struct Frame {
        pos: Position,
        next: usize,
        end: usize,
    }
    let n = inst.n;
    let frame = |pos: Position| {
        let v = pos.mover_vertex() as usize;
        Frame {
            pos,
            next: inst.first[v],
            end: inst.first[v + 1],
        }
    };
    let mut memo = Memo::new(inst)?;
    let start = Position::start(inst);
    if let Some(w) = start.winner(n) {
        return Ok(w);
    }
    let mut stack = vec![frame(start)];
    let mut returned: Option<Winner> = None;
    while let Some(top) = stack.last_mut() {
        let mover = top.pos.player;
        let mut settled = (returned.take() == Some(mover)).then_some(mover);
        let mut push = None;
        while settled.is_none() && push.is_none() {
            if top.next == top.end {
                settled = Some(mover.other());
                break;
            }
            let child = top.pos.play(inst.heads[top.next]);
            top.next += 1;
            match child.winner(n).or_else(|| memo.get(&child)) {
                Some(w) if w == mover => settled = Some(w),
                Some(_) => {}
                None => push = Some(child),
            }
        }
        if let Some(w) = settled {
            let done = top.pos;
            stack.pop();
            memo.set(&done, w)?;
            returned = Some(w);
        } else if let Some(child) = push {
            stack.push(frame(child));
        }
    }
    // The last frame popped was the start's.
    Ok(returned.unwrap_or(Winner::Moriarty))
}

/// [`Method::Minimax`]: the seed's bottom-up `mini`/`maxi` and its comparison.
fn solve_minimax(inst: &Instance) -> Winner {
    let n = inst.n as usize;
    let low = inst.red.min(inst.black) as usize;
    // mini(i): moves to reach n when the one moving from i hurries and the next stalls;
    // maxi(i): the same when the one moving from i stalls. Every vertex below n has an edge,
    // so both end finite, and below n.
    let mut mini = vec![u32::MAX; n + 1];
    let mut maxi = vec![0u32; n + 1];
    mini[n] = 0;
    maxi[n] = 0;
    for i in (low..n).rev() {
        for &j in inst.successors(i as u32) {
            let j = j as usize;
            mini[i] = mini[i].min(maxi[j].saturating_add(1));
            maxi[i] = maxi[i].max(mini[j].saturating_add(1));
        }
    }
    let sherlock = mini[inst.red as usize];
    let moriarty = mini[inst.black as usize];
    if sherlock < moriarty {
        Winner::Sherlock
    } else if moriarty < sherlock {
        Winner::Moriarty
    } else if sherlock % 2 == 1 {
        // Equal race lengths k: red's k-th move comes first iff k is odd.
        Winner::Sherlock
    } else {
        Winner::Moriarty
    }
}

/// Whitespace-separated tokens with their 1-based line numbers.
struct Tokens<'a> {
    text: &'a [u8],
    pos: usize,
    line: u64,
}

/// The most characters of a bad token quoted in an error.
const QUOTE_MAX: usize = 40;

impl<'a> Tokens<'a> {
    fn next(&mut self) -> Option<(&'a [u8], u64)> {
        let text = self.text;
        while self.pos < text.len() && is_space(text[self.pos]) {
            if text[self.pos] == b'\n' {
                self.line += 1;
            }
            self.pos += 1;
        }
        if self.pos == text.len() {
            return None;
        }
        let start = self.pos;
        while self.pos < text.len() && !is_space(text[self.pos]) {
            self.pos += 1;
        }
        Some((&text[start..self.pos], self.line))
    }

    /// The last line of the input (1 for an empty input), where "the end" is reported.
    fn last_line(&self) -> u64 {
        let newlines = self.text.iter().filter(|&&c| c == b'\n').count() as u64;
        let open = self.text.last().is_some_and(|&c| c != b'\n');
        (newlines + u64::from(open)).max(1)
    }

    /// The next token as a number in `lo..=hi`; `what` describes it for the error.
    fn number(
        &mut self,
        lo: u64,
        hi: u64,
        what: impl FnOnce() -> String,
    ) -> Result<(u64, u64), ParseError> {
        let Some((tok, line)) = self.next() else {
            return Err(ParseError {
                line: Some(self.last_line()),
                message: format!("expected {}, found the end of the input", what()),
            });
        };
        match decimal(tok) {
            Some(v) if (lo..=hi).contains(&v) => Ok((v, line)),
            _ => Err(ParseError {
                line: Some(line),
                message: format!("expected {}, found {}", what(), quote(tok)),
            }),
        }
    }
}

/// Whitespace as C++'s `std::cin >>` skips it.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// A decimal number of ASCII digits only (no sign), if it fits in a `u64`.
fn decimal(tok: &[u8]) -> Option<u64> {
    if tok.is_empty() {
        return None;
    }
    tok.iter().try_fold(0u64, |acc, &c| {
        if c.is_ascii_digit() {
            acc.checked_mul(10)?.checked_add(u64::from(c - b'0'))
        } else {
            None
        }
    })
}

/// A token as quoted in an error, cut after [`QUOTE_MAX`] characters.
fn quote(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(tok);
    if s.chars().count() > QUOTE_MAX {
        let cut: String = s.chars().take(QUOTE_MAX).collect();
        format!("{:?}…", cut)
    } else {
        format!("{s:?}")
    }
}

/// Reads the Algolab input: `t`, then `t` cases of `n m`, `r b` and `m` edges `u v`.
///
/// Tokens are separated by any ASCII whitespace; line breaks only count for the errors.
///
/// # Errors
/// A [`ParseError`] with the line of the offending token (or of the last line, when the
/// input ends early): a missing or non-numeric token (digits only, no sign), `n` below 2 or
/// above 4 294 967 295, a start outside `1..n`, an edge end outside `1..=n`, an edge
/// `u → v` with `u ≥ v`, a vertex below `n` without an outgoing edge (reported on the case's
/// `n m` line), or anything after the `t`-th case. Never panics.
///
/// # Complexity
/// `O(size of the input + Σ (n + m))`; no allocation is sized by a number read from the
/// input beyond what the input itself holds.
pub fn parse(text: &[u8]) -> Result<Vec<Instance>, ParseError> {
    let mut tokens = Tokens {
        text,
        pos: 0,
        line: 1,
    };
    let (t, _) = tokens.number(0, u64::MAX, || "the number of test cases t".into())?;
    let mut cases = Vec::new();
    for case in 1..=t {
        let (n, case_line) = tokens.number(2, u64::from(u32::MAX), || {
            format!(
                "the number of vertices n of test case {case}, from 2 to {}",
                u32::MAX
            )
        })?;
        let (m, _) = tokens.number(0, u64::MAX, || {
            format!("the number of edges m of test case {case}")
        })?;
        let (red, _) = tokens.number(1, n - 1, || {
            format!(
                "the red meeple's start r, a vertex from 1 to {} (below the target {n})",
                n - 1
            )
        })?;
        let (black, _) = tokens.number(1, n - 1, || {
            format!(
                "the black meeple's start b, a vertex from 1 to {} (below the target {n})",
                n - 1
            )
        })?;
        // Each edge takes at least 4 bytes ("u v" and a separator): never reserve more.
        let room = (text.len() - tokens.pos) / 4 + 1;
        let mut edges = Vec::with_capacity(m.min(room as u64) as usize);
        for i in 1..=m {
            let (u, line) = tokens.number(1, n, || {
                format!("edge {i} of {m}: a vertex u from 1 to {n}")
            })?;
            let (v, _) = tokens.number(1, n, || {
                format!("edge {i} of {m}: a vertex v from 1 to {n}")
            })?;
            if u >= v {
                return Err(ParseError {
                    line: Some(line),
                    message: format!(
                        "edges must go from a smaller to a larger vertex, found \"{u} {v}\""
                    ),
                });
            }
            edges.push((u as u32, v as u32));
        }
        let inst =
            Instance::new(n as u32, red as u32, black as u32, &edges).map_err(|e| ParseError {
                line: Some(case_line),
                message: format!("test case {case}: {e}"),
            })?;
        cases.push(inst);
    }
    if let Some((tok, line)) = tokens.next() {
        return Err(ParseError {
            line: Some(line),
            message: format!(
                "expected the end of the input after {t} test case{}, found {}",
                if t == 1 { "" } else { "s" },
                quote(tok)
            ),
        });
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(n: u32, r: u32, b: u32, edges: &[(u32, u32)]) -> Instance {
        Instance::new(n, r, b, edges).unwrap()
    }

    #[test]
    fn the_meeples_move_red_black_black_red() {
        let i = inst(9, 1, 1, &(1..9).map(|v| (v, v + 1)).collect::<Vec<_>>());
        let mut p = Position::start(&i);
        let mut order = String::new();
        for _ in 0..8 {
            order.push(if p.moves_red() { 'r' } else { 'b' });
            p = p.play(p.mover_vertex() + 1);
        }
        assert_eq!(order, "rbbrrbbr");
        // 8 moves: 4 each; Sherlock to move again with parity 0.
        assert_eq!(
            (p.red, p.black, p.player, p.parity),
            (5, 5, Winner::Sherlock, 0)
        );
    }

    #[test]
    fn forced_to_move_the_enemy_meeple_home() {
        // The sample's first case: red 1 → 2, black 1 → 2, then Sherlock must move black
        // onto 3, and Moriarty has won.
        let i = inst(3, 1, 1, &[(1, 2), (2, 3)]);
        let g = GreatGame::new(&i);
        let p = Position {
            red: 2,
            black: 3,
            player: Winner::Moriarty,
            parity: 0,
        };
        assert_eq!(g.primitive(&p), Some(Primitive::Win));
        let p = Position {
            red: 3,
            black: 2,
            player: Winner::Sherlock,
            parity: 0,
        };
        assert_eq!(g.primitive(&p), Some(Primitive::Win));
        let p = Position {
            player: Winner::Moriarty,
            ..p
        };
        assert_eq!(g.primitive(&p), Some(Primitive::Loss));
        for m in Method::ALL {
            assert_eq!(solve(&i, m), Winner::Moriarty, "{m}");
        }
    }

    #[test]
    fn ties_go_to_red_when_odd() {
        // Both meeples one edge from n: red moves first and wins.
        let i = inst(3, 1, 2, &[(1, 3), (2, 3)]);
        // Both two edges from n on separate chains: black's 2nd move (ply 3) beats red's
        // (ply 4).
        let j = inst(5, 1, 2, &[(1, 3), (3, 5), (2, 4), (4, 5)]);
        for m in Method::ALL {
            assert_eq!(solve(&i, m), Winner::Sherlock, "{m}");
            assert_eq!(solve(&j, m), Winner::Moriarty, "{m}");
        }
    }

    #[test]
    fn dense_index_ranks_the_reachable_vertices() {
        // From 2 the red meeple reaches {2, 4, 6}; from 3 the black one {3, 5, 6}.
        let edges = [(1, 6), (2, 4), (3, 5), (4, 6), (5, 6)];
        let i = inst(6, 2, 3, &edges);
        let g = GreatGame::new(&i);
        let size = g.index_size().unwrap();
        assert_eq!(size, 4 * 3 * 3);
        let mut seen = vec![false; size as usize];
        for red in 0..=7 {
            for black in 0..=7 {
                for player in [Winner::Sherlock, Winner::Moriarty] {
                    for parity in 0..3 {
                        let p = Position {
                            red,
                            black,
                            player,
                            parity,
                        };
                        let ix = g.index(&p);
                        let occurs = [2, 4, 6].contains(&red) && [3, 5, 6].contains(&black);
                        if occurs && parity < 2 {
                            assert!(!std::mem::replace(&mut seen[ix as usize], true));
                        } else {
                            assert_eq!(ix, u64::MAX, "{p:?}");
                        }
                    }
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn instance_checks() {
        assert_eq!(
            Instance::new(1, 1, 1, &[]),
            Err(InstanceError::TooFewVertices { n: 1 })
        );
        assert!(matches!(
            Instance::new(3, 3, 1, &[(1, 3), (2, 3)]),
            Err(InstanceError::StartOutOfRange { meeple: "red", .. })
        ));
        assert_eq!(
            Instance::new(3, 1, 1, &[(2, 1)]),
            Err(InstanceError::NotIncreasing { edge: (2, 1) })
        );
        assert_eq!(
            Instance::new(4, 1, 1, &[(1, 3), (3, 4)]),
            Err(InstanceError::DeadEnd { vertex: 2, n: 4 })
        );
        assert_eq!(
            Instance::new(4_000_000_000, 1, 1, &[(1, 2)]),
            Err(InstanceError::DeadEnd {
                vertex: 2,
                n: 4_000_000_000
            })
        );
        let i = inst(4, 1, 2, &[(2, 4), (1, 2), (3, 4), (1, 3), (1, 2)]);
        assert_eq!(i.successors(1), &[2, 3, 2]);
        assert_eq!(i.successors(4), &[] as &[u32]);
        assert_eq!(i.successors(0), &[] as &[u32]);
        assert_eq!(i.successors(99), &[] as &[u32]);
        assert_eq!(i.edge_count(), 5);
    }

    #[test]
    fn methods_parse_and_print() {
        for m in Method::ALL {
            assert_eq!(m.as_str().parse::<Method>(), Ok(m));
        }
        assert_eq!(
            "fast".parse::<Method>(),
            Err(GameError::Method {
                found: "fast".into()
            })
        );
        assert_eq!(
            format_output(&[Winner::Sherlock, Winner::Moriarty]),
            "0\n1\n"
        );
        assert_eq!(Winner::Moriarty.to_string(), "1");
    }

    #[test]
    fn decimal_and_quote() {
        assert_eq!(decimal(b"0042"), Some(42));
        assert_eq!(decimal(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(decimal(b"18446744073709551616"), None);
        assert_eq!(decimal(b"-1"), None);
        assert_eq!(decimal(b"+1"), None);
        assert_eq!(quote(&[b'x'; 50]), format!("\"{}\"…", "x".repeat(40)));
    }
}

//! Solving a parity game: preprocessing, then one of the algorithms on what is left.
//!
//! # The pipeline
//! 1. Priorities are compressed ([`crate::reduce::compressed_priorities`]): the same winners,
//!    with levels 0..=d that alternate in parity, so that the algorithms' work depends on the
//!    number of distinct levels, not on the numbers in the file.
//! 2. Preprocessing (unless [`Options::preprocess`] is off): a dead end is lost by its owner;
//!    a self-loop whose priority is its owner's parity is won by the owner, who stays there; a
//!    self-loop that is a vertex's only move and whose priority is the opponent's is won by
//!    the opponent. Each of these is a dominion: its attractor (the graph engine's, in the
//!    whole game) is solved too. If what is left has priorities of one parity only, that
//!    player wins all of it.
//! 3. The algorithm ([`Algorithm`]) solves what is left, whole, or (with [`Options::scc`])
//!    one strongly connected component at a time, bottom components first, each solved
//!    component's regions attracted in the rest before the next.
//!
//! Every vertex left after step 2 has a move to another vertex left (a vertex with all its
//! moves into solved regions was attracted to one of them), so what the algorithms see is a
//! proper subgame: every algorithm relies on it.

use crate::algo::Algo;
use crate::game::{ParityGame, Player};
use crate::solution::{Solution, NONE};
use retrograde_graph::Graph;
use retrograde_solve::attract::{Attractor, Subgame};
use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

/// Which algorithm solves what preprocessing leaves. Every one gives the same winners (the
/// game's); strategies may differ.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Zielonka's recursive algorithm (McNaughton 1993, Zielonka 1998), on an explicit stack,
    /// with the optimisations of Oink's `zlk`: the top priorities of one parity attracted
    /// together (until the parity changes), and the subgame solved again only when the
    /// opponent attracts from it. Exponential in the worst case, the fastest on the games of
    /// practice (SYNTCOMP's). The default.
    #[default]
    Zielonka,
    /// Priority promotion (Benerecetti, Dell'Erba, Mogavero 2016): regions of the top
    /// priority are attracted and, when closed, promoted to the lowest higher region the
    /// opponent escapes to, until one is a dominion. Exponential in the worst case, fast in
    /// practice.
    PriorityPromotion,
    /// The quasi-polynomial recursive algorithm (Parys 2019; Lehtinen, Parys, Schewe,
    /// Wojtczak 2022): Zielonka's recursion with a precision for each player that halves on
    /// the sides of each level, which bounds the work by n^O(log d). Slower on easy games,
    /// never exponential.
    QuasiPolynomial,
}

impl Algorithm {
    /// Every algorithm, in the order the help lists them.
    pub const ALL: [Algorithm; 3] = [
        Algorithm::Zielonka,
        Algorithm::PriorityPromotion,
        Algorithm::QuasiPolynomial,
    ];

    /// The name the command line and Python use: `zielonka`, `pp`, `qpz`.
    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::Zielonka => "zielonka",
            Algorithm::PriorityPromotion => "pp",
            Algorithm::QuasiPolynomial => "qpz",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Algorithm {
    type Err = String;
    /// `zielonka` (or `zlk`), `pp` (or `priority-promotion`), `qpz` (or
    /// `quasi-polynomial`).
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "zielonka" | "zlk" => Ok(Algorithm::Zielonka),
            "pp" | "priority-promotion" => Ok(Algorithm::PriorityPromotion),
            "qpz" | "quasi-polynomial" => Ok(Algorithm::QuasiPolynomial),
            _ => Err(format!(
                "unknown algorithm {s:?} (expected zielonka, pp or qpz)"
            )),
        }
    }
}

/// How to solve.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The algorithm for what preprocessing leaves.
    pub algorithm: Algorithm,
    /// Solve dead ends, self-loops and one-parity games first (default: on). Off, the
    /// algorithm solves everything (still with dead ends lost by their owners, as seeds).
    pub preprocess: bool,
    /// Solve one strongly connected component at a time, bottom ones first (default: off).
    pub scc: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            algorithm: Algorithm::default(),
            preprocess: true,
            scc: false,
        }
    }
}

/// What a solve did, and how long each part took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Phases {
    /// Compressing priorities, preprocessing, and the algorithm's own set-up.
    pub preprocess: Duration,
    /// The algorithm, and the attractors between components.
    pub solve: Duration,
    /// Vertices solved by preprocessing.
    pub preprocessed: usize,
    /// Distinct priority levels after compression.
    pub levels: u32,
    /// Strongly connected components solved (1 without [`Options::scc`], 0 when
    /// preprocessing solved everything).
    pub components: usize,
    /// The algorithm's count of its main steps (attractors of a level, promotions,
    /// recursive calls), summed over components.
    pub iterations: u64,
}

/// Solves `game` with the default options.
///
/// # Example
/// ```
/// use retrograde_parity::{solve, verify, Claim, ParityGame, Player};
/// // 0 (Even, priority 1) -> 1 (Odd, priority 2) -> 0, and 1 -> 2 (Even, priority 3) -> 2.
/// let game = ParityGame::new(
///     vec![1, 2, 3],
///     vec![Player::Even, Player::Odd, Player::Even],
///     &[(0, 1), (1, 0), (1, 2), (2, 2)],
/// )
/// .unwrap();
/// let s = solve(&game);
/// // Odd escapes from 1 to 2, whose loop has the odd priority 3.
/// assert_eq!(s.winners(), &[Player::Odd; 3]);
/// assert_eq!(s.strategy(1), Some(2));
/// verify(&game, &Claim::from(&s)).unwrap();
/// ```
pub fn solve(game: &ParityGame) -> Solution {
    solve_with(game, &Options::default()).0
}

/// The state of a solve: who has won each vertex so far (`UNSOLVED`: nobody yet).
pub(crate) const UNSOLVED: u8 = 2;

/// Solves `game` as `opts` say, reporting the phases.
///
/// # Complexity
/// Preprocessing is O(n + m) (compression O(n log n) when priorities are sparse); the
/// algorithms as documented on [`Algorithm`]. Memory: the game, then about 30 bytes per
/// vertex (the solution's 5, the attractor's 12, the algorithm's 4 to 12).
pub fn solve_with(game: &ParityGame, opts: &Options) -> (Solution, Phases) {
    let clock = Instant::now();
    let g = game.graph();
    let n = game.vertex_count();
    let (prio, levels) = crate::priority::compressed_priorities(game.priorities());
    let mut phases = Phases {
        levels,
        ..Phases::default()
    };
    let mut state = State {
        won: vec![UNSOLVED; n],
        strategy: vec![NONE; n],
        attr: Attractor::new(n),
    };
    let mut solved = preprocess(g, &prio, &mut state, opts.preprocess);
    let mut left: Vec<u32> = (0..n as u32)
        .filter(|&v| state.won[v as usize] == UNSOLVED)
        .collect();
    if opts.preprocess && !left.is_empty() {
        let parity = prio[left[0] as usize] & 1;
        if left.iter().all(|&v| prio[v as usize] & 1 == parity) {
            one_parity(g, &left, parity as u8, &mut state);
            solved += left.len();
            left.clear();
        }
    }
    phases.preprocessed = solved;
    phases.preprocess = clock.elapsed();
    if !left.is_empty() {
        let clock = Instant::now();
        let mut algo: Box<dyn Algo + '_> = match opts.algorithm {
            Algorithm::Zielonka => Box::new(crate::zielonka::Zielonka::new(g, &prio)),
            Algorithm::PriorityPromotion => Box::new(crate::pp::PriorityPromotion::new(g, &prio)),
            Algorithm::QuasiPolynomial => Box::new(crate::qpz::Qpz::new(g, &prio)),
        };
        if opts.scc {
            phases.components = by_components(g, &prio, levels, &left, &mut *algo, &mut state);
        } else {
            let order = by_priority(&prio, levels, left);
            algo.solve(&order, &mut state.won, &mut state.strategy);
            phases.components = 1;
        }
        phases.iterations = algo.iterations();
        phases.solve = clock.elapsed();
    }
    let winner = state
        .won
        .iter()
        .map(|&w| {
            assert!(w != UNSOLVED, "every vertex is solved");
            Player::from_bit(w == 1)
        })
        .collect();
    (Solution::new(winner, state.strategy), phases)
}

/// `vertices` sorted by priority, highest first (a counting sort when the levels are few).
pub(crate) fn by_priority(prio: &[u32], levels: u32, mut vertices: Vec<u32>) -> Vec<u32> {
    let levels = levels as usize;
    if levels <= 4 * vertices.len() + 16 {
        let mut start = vec![0usize; levels + 1];
        for &v in &vertices {
            start[levels - 1 - prio[v as usize] as usize + 1] += 1;
        }
        for i in 0..levels {
            start[i + 1] += start[i];
        }
        let mut out = vec![0u32; vertices.len()];
        for &v in &vertices {
            let k = &mut start[levels - 1 - prio[v as usize] as usize];
            out[*k] = v;
            *k += 1;
        }
        out
    } else {
        vertices.sort_by_key(|&v| (std::cmp::Reverse(prio[v as usize]), v));
        vertices
    }
}

/// What preprocessing and the attractors between components see: the vertices not yet
/// solved may join; those won by the attracting player are the set; those won by the other
/// player are in the game, and the opponent's moves to them are escapes.
struct Unsolved<'a> {
    won: &'a mut [u8],
    strategy: &'a mut [u32],
    player: u8,
    joined: usize,
}

impl Subgame for Unsolved<'_> {
    #[inline(always)]
    fn open(&self, v: u32) -> bool {
        self.won[v as usize] == UNSOLVED
    }
    #[inline(always)]
    fn escape(&self, v: u32) -> bool {
        self.won[v as usize] != self.player
    }
    #[inline(always)]
    fn in_set(&self, v: u32) -> bool {
        self.won[v as usize] == self.player
    }
    #[inline(always)]
    fn join(&mut self, v: u32, via: u32) {
        self.won[v as usize] = self.player;
        self.strategy[v as usize] = via;
        self.joined += 1;
    }
}

/// Attracts for each player, in the unsolved part of the game, from `seeds` (vertices it
/// has just been found to win, already marked). Returns the vertices newly solved.
pub(crate) fn attract_solved(
    g: &Graph,
    seeds: [&[u32]; 2],
    won: &mut [u8],
    strategy: &mut [u32],
    attr: &mut Attractor,
) -> usize {
    let mut joined = 0;
    for player in [0u8, 1] {
        if seeds[player as usize].is_empty() {
            continue;
        }
        let mut sub = Unsolved {
            won,
            strategy,
            player,
            joined: 0,
        };
        attr.start();
        for &v in seeds[player as usize] {
            attr.seed(v);
        }
        attr.attract(g, player, &mut sub);
        joined += sub.joined;
    }
    joined
}

/// Dead ends (lost by their owners) and, with `loops`, self-loops: winning ones (the owner
/// stays) and losing ones that are a vertex's only move; then their attractors. Returns the
/// vertices solved.
fn preprocess(g: &Graph, prio: &[u32], state: &mut State, loops: bool) -> usize {
    let (won, strategy) = (&mut state.won, &mut state.strategy);
    let mut seeds: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
    for v in 0..g.vertex_count() as u32 {
        let owner = g.owner(v);
        let moves = g.successors(v);
        let winner = if moves.is_empty() {
            1 - owner
        } else if loops && moves.binary_search(&v).is_ok() {
            if (prio[v as usize] & 1) as u8 == owner {
                strategy[v as usize] = v;
                owner
            } else if moves.iter().all(|&w| w == v) {
                1 - owner
            } else {
                continue;
            }
        } else {
            continue;
        };
        won[v as usize] = winner;
        seeds[winner as usize].push(v);
    }
    let seeded = seeds[0].len() + seeds[1].len();
    seeded + attract_solved(g, [&seeds[0], &seeds[1]], won, strategy, &mut state.attr)
}

/// A subgame whose priorities all have parity `parity`: that player wins every vertex, with
/// any move that stays in it.
fn one_parity(g: &Graph, left: &[u32], parity: u8, state: &mut State) {
    let (won, strategy) = (&mut state.won, &mut state.strategy);
    for &v in left {
        won[v as usize] = parity;
    }
    for &v in left {
        if g.owner(v) == parity {
            strategy[v as usize] = *g
                .successors(v)
                .iter()
                .find(|&&w| won[w as usize] == parity)
                .expect("every vertex left has a move to another vertex left");
        }
    }
}

/// The strongly connected components of the vertices left, bottom ones first (Tarjan's
/// order), each solved by `algo` once the attractors of the ones before it have taken what
/// they can. Returns the number of components the algorithm solved.
fn by_components(
    g: &Graph,
    prio: &[u32],
    levels: u32,
    left: &[u32],
    algo: &mut dyn Algo,
    state: &mut State,
) -> usize {
    let (members, ends) = crate::scc::components(g, left);
    let mut solved = 0;
    let mut seeds: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
    let mut from = 0;
    for &end in &ends {
        let c = &members[from..end];
        from = end;
        let rest: Vec<u32> = c
            .iter()
            .copied()
            .filter(|&v| state.won[v as usize] == UNSOLVED)
            .collect();
        if rest.is_empty() {
            continue;
        }
        let order = by_priority(prio, levels, rest);
        algo.solve(&order, &mut state.won, &mut state.strategy);
        solved += 1;
        seeds[0].clear();
        seeds[1].clear();
        for &v in &order {
            seeds[state.won[v as usize] as usize].push(v);
        }
        attract_solved(
            g,
            [&seeds[0], &seeds[1]],
            &mut state.won,
            &mut state.strategy,
            &mut state.attr,
        );
    }
    solved
}

/// What a solve has found so far, and the attractor it uses between the algorithm's runs.
struct State {
    won: Vec<u8>,
    strategy: Vec<u32>,
    attr: Attractor,
}

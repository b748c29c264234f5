//! Kalah with `pits` pits a side and `seeds` seeds in each at the start, solved with scores:
//! the value of a position is the net number of seeds the player to move will put into their
//! store from there on (with the end rule's).
//!
//! # Rules
//! The player to move takes every seed of one of their pits and sows them one by one into
//! the following pits counter-clockwise: their own pits, their own store, the opponent's
//! pits, skipping the opponent's store. A last seed in their own store gives them another
//! move. A last seed in one of their own pits that was empty captures it, with the seeds of
//! the opposite pit, into their store — when the opposite pit holds seeds (the usual rule;
//! with `empty_capture` also when it is empty, the variant Irving, Donkers and Uiterwijk
//! solved in 2000). When either side has no seed left, the game ends and each player puts
//! the seeds of their own side into their own store (the usual end rule: a player whose
//! side is empty at their turn has no move, and the other takes what is on their side).
//!
//! # As a tier game
//! A position is the board as the player to move sees it (their pits in sowing order, then
//! the opponent's in theirs); the stores are not part of it, since values count the seeds
//! still to gain. The tier is the number of seeds on the board: a move that puts seeds into
//! the store leaves its tier with a reward of that many seeds; one that does not stays in it
//! (it only moves the mover's seeds towards their store, so no tier has a cycle). The
//! positions of a tier are numbered by the colex rank of their stars-and-bars set.
//!
//! # Notation
//! A move is a pit number, `1` (the pit farthest from the mover's store) to `pits` (next to
//! it). A position (`--position`) is the first player's pits in sowing order, `/`, the
//! second player's, each a list of seed counts separated by commas, then the side to move,
//! `x` (first) or `o`: `3,3,3/3,3,3 x`.
//!
//! ```
//! use retrograde_games::kalah::Kalah;
//! use retrograde_tier::{solve_scored, SolveOptions};
//! let g = Kalah::new(1, 1, false).unwrap();
//! let s = solve_scored(&g, &SolveOptions::default()).unwrap();
//! // One pit each with one seed: the first player sows it into the store, moves again with
//! // an empty side, and the second player takes their own seed: level.
//! assert_eq!(s.start_value().unwrap().unwrap().to_string(), "tie in 1");
//! ```

use crate::about::{About, Kind, Param};
use crate::GameError;
use retrograde_graph::Primitive;
use retrograde_tier::index::Colex;
use retrograde_tier::NotationError;
use retrograde_tier::{
    Dense, DenseIndex, GoAgain, GoAgainGame, NoSymmetry, Notation, ReverseEdges, ScoredGame,
    Scores, TierGame,
};

/// What the game says of itself: its command, rules, parameters and notation.
pub const ABOUT: About = About {
    name: "kalah",
    about: "Kalah (mancala): who stores more seeds, and by how many",
    help: "Kalah with P pits a side and S seeds in each: take every seed of one of your \
           pits and sow them counter-clockwise, one a pit, into your own store but not the \
           opponent's; a last seed in your store moves again; a last seed in an empty pit \
           of yours captures it with the opposite pit's seeds, when there are some (with \
           --empty-capture also when there are none, the variant Irving, Donkers and \
           Uiterwijk solved in 2000). When either side is empty, the game ends and each \
           player stores the seeds on their side. Values are scores: the net number of \
           seeds the player to move stores from there on. A move is a pit number, 1 (the \
           farthest from your store) to P. A position (--position) is the first player's \
           pits in sowing order, '/', the second player's, then the side to move: \
           3,3,3/3,3,3 x. Every board of the game's seeds is solved, in memory (4 bytes a \
           board, C(2PS + 2P, 2P) boards): 3x3 and 4x2 in a second, 4x3 (10.5M boards) \
           in seconds, 4x4 (77M) about a GiB.",
    examples: &[
        "kalah --pits 3 --seeds 3",
        "kalah --pits 4 --seeds 3 --output json",
        "kalah --pits 3 --seeds 3 --query 1",
    ],
    params: &[
        Param::number(
            "pits",
            concat!("Pits a side, 1 to ", crate::kalah_max_pits!(), "."),
            1,
            MAX_PITS as u64,
            "3",
        ),
        Param::number(
            "seeds",
            concat!(
                "Seeds in each pit at the start: 2 x pits x (seeds + 1) - 1 at most ",
                crate::kalah_max_cells!(),
                " (the more pits, the fewer seeds)."
            ),
            1,
            MAX_SEEDS as u64,
            "3",
        ),
        Param {
            name: "empty-capture",
            help: "A last seed in an empty pit of yours captures even when the opposite \
                   pit is empty.",
            kind: Kind::Flag,
            default: None,
            positional: false,
            value_name: "",
        },
    ],
    moves: Some("a pit number, 1 (farthest from your store) to the number of pits"),
    symmetry: "",
};

pub use crate::limits::{MAX_CELLS, MAX_PITS, MAX_SEEDS};

/// A board as the mover sees it: pit `k` in bits `8k..8k+8`; the mover's pits first.
pub type Board = u128;

/// Kalah on `pits` pits a side with `seeds` seeds each.
#[derive(Clone, Debug)]
pub struct Kalah {
    pits: u32,
    seeds: u32,
    empty_capture: bool,
    colex: Colex,
}

/// One move's outcome.
struct Sown {
    child: Board,
    keeps: bool,
}

impl Kalah {
    /// Kalah with `pits` pits a side, `seeds` seeds in each, and the capture rule.
    ///
    /// # Errors
    /// No pit or no seed, more than [`MAX_PITS`] pits, or a board whose index does not fit
    /// (seeds in all + pits on the board - 1 must be at most [`MAX_CELLS`]).
    pub fn new(pits: u32, seeds: u32, empty_capture: bool) -> Result<Kalah, GameError> {
        if pits == 0 || seeds == 0 {
            return Err(GameError::KalahEmpty);
        }
        if pits > MAX_PITS {
            return Err(GameError::KalahPits { pits });
        }
        let cells = 2 * u64::from(pits) * u64::from(seeds) + 2 * u64::from(pits) - 1;
        if cells > MAX_CELLS || seeds > MAX_SEEDS {
            return Err(GameError::KalahIndex { pits, seeds, cells });
        }
        Ok(Kalah {
            pits,
            seeds,
            empty_capture,
            colex: Colex::new(cells as u32),
        })
    }

    /// Pits a side.
    pub fn pits(&self) -> u32 {
        self.pits
    }

    /// Seeds in every pit at the start.
    pub fn seeds(&self) -> u32 {
        self.seeds
    }

    /// Seeds in all.
    fn total(&self) -> u32 {
        2 * self.pits * self.seeds
    }

    fn m(&self) -> usize {
        2 * self.pits as usize
    }

    /// The seeds of pit `k`.
    #[inline]
    pub fn pit(b: Board, k: usize) -> u32 {
        (b >> (8 * k) & 0xFF) as u32
    }

    fn unpack(&self, b: Board) -> Vec<u32> {
        (0..self.m()).map(|k| Self::pit(b, k)).collect()
    }

    fn pack(a: &[u32]) -> Board {
        a.iter()
            .enumerate()
            .fold(0, |b, (k, &s)| b | Board::from(s) << (8 * k))
    }

    /// The seeds on the mover's side and on the opponent's.
    fn sides(&self, b: Board) -> (u32, u32) {
        let p = self.pits as usize;
        let mine = (0..p).map(|k| Self::pit(b, k)).sum();
        let theirs = (p..2 * p).map(|k| Self::pit(b, k)).sum();
        (mine, theirs)
    }

    /// The board from the other side.
    fn turned(&self, b: Board) -> Board {
        let half = 8 * self.pits;
        let mask = (1u128 << half) - 1;
        (b >> half) | (b & mask) << half
    }

    /// Sowing pit `i` (the mover's, not empty).
    fn sow(&self, b: Board, i: usize) -> Sown {
        let p = self.pits as usize;
        let mut a = self.unpack(b);
        let mut s = a[i];
        a[i] = 0;
        // The cycle: the mover's pits 0..p, the store (p), the opponent's pits.
        let mut c = i;
        while s > 0 {
            c = (c + 1) % (2 * p + 1);
            if c != p {
                a[if c < p { c } else { c - 1 }] += 1;
            }
            s -= 1;
        }
        let keeps = c == p;
        if c < p && a[c] == 1 {
            let opp = 2 * p - 1 - c;
            if a[opp] > 0 || self.empty_capture {
                a[opp] = 0;
                a[c] = 0;
            }
        }
        let child = Self::pack(&a);
        Sown {
            child: if keeps { child } else { self.turned(child) },
            keeps,
        }
    }

    fn over(&self, b: Board) -> bool {
        let (mine, theirs) = self.sides(b);
        mine == 0 || theirs == 0
    }

    /// The mover's pits with seeds, and what sowing each gives.
    fn sowings(&self, b: Board) -> impl Iterator<Item = (usize, Sown)> + '_ {
        let playable = !self.over(b);
        (0..self.pits as usize)
            .filter(move |&i| playable && Self::pit(b, i) > 0)
            .map(move |i| (i, self.sow(b, i)))
    }

    fn parse_side(&self, text: &str) -> Result<Vec<u32>, String> {
        let a: Vec<u32> = text
            .split(',')
            .map(|s| {
                s.trim()
                    .parse::<u32>()
                    .map_err(|_| format!("{s:?} is not a number of seeds"))
            })
            .collect::<Result<_, _>>()?;
        if a.len() != self.pits as usize {
            return Err(format!("a side has {} pits, found {}", self.pits, a.len()));
        }
        Ok(a)
    }
}

impl TierGame for Kalah {
    type Position = Board;
    type Tier = u32;
    type Layout = Dense;
    type Parents = ReverseEdges;
    type Symmetry = NoSymmetry;
    type Turn = GoAgain;
    type Score = Scores;
    const MOVER_VIEW: bool = true;

    fn name(&self) -> String {
        format!(
            "kalah {}x{}{}",
            self.pits,
            self.seeds,
            if self.empty_capture {
                " empty-capture"
            } else {
                ""
            }
        )
    }
    fn start(&self) -> Option<Board> {
        Some(Self::pack(&vec![self.seeds; self.m()]))
    }
    fn tier(&self, b: &Board) -> u32 {
        let (mine, theirs) = self.sides(*b);
        mine + theirs
    }
    fn child_tiers(&self, t: u32, out: &mut Vec<u32>) {
        out.extend(0..t);
    }
    fn tier_name(&self, t: u32) -> String {
        format!("{t:03}")
    }
    fn primitive(&self, b: &Board) -> Option<Primitive> {
        let (mine, theirs) = self.sides(*b);
        (mine == 0 || theirs == 0).then(|| match mine.cmp(&theirs) {
            std::cmp::Ordering::Greater => Primitive::Win,
            std::cmp::Ordering::Less => Primitive::Loss,
            std::cmp::Ordering::Equal => Primitive::Tie,
        })
    }
    fn moves(&self, b: &Board, out: &mut Vec<Board>) {
        out.extend(self.sowings(*b).map(|(_, s)| s.child));
    }
    /// A move is one of the mover's pits.
    fn moves_inside_bound(&self) -> Option<u64> {
        Some(u64::from(self.pits))
    }
}

impl DenseIndex for Kalah {
    fn tier_size(&self, t: u32) -> u64 {
        let m = self.m() as u32;
        self.colex.binom(t + m - 1, m - 1)
    }
    fn rank(&self, b: &Board) -> u64 {
        // Bars after each pit but the last: pit k's bar at (seeds of pits 0..=k) + k.
        let mut set = 0u64;
        let mut sum = 0;
        for k in 0..self.m() - 1 {
            sum += Self::pit(*b, k);
            set |= 1 << (sum + k as u32);
        }
        self.colex.rank(set)
    }
    fn unrank(&self, t: u32, i: u64) -> Option<Board> {
        let m = self.m();
        let set = self.colex.unrank(i, m as u32 - 1);
        let mut a = vec![0u32; m];
        let mut prev: i64 = -1;
        let mut rest = set;
        for slot in a.iter_mut().take(m - 1) {
            let bar = i64::from(rest.trailing_zeros());
            rest &= rest - 1;
            *slot = (bar - prev - 1) as u32;
            prev = bar;
        }
        a[m - 1] = (i64::from(t) + m as i64 - 2 - prev) as u32;
        a.iter().all(|&s| s < 256).then(|| Self::pack(&a))
    }
}

impl GoAgainGame for Kalah {
    fn keeps_turn(&self, from: &Board, to: &Board) -> bool {
        self.sowings(*from)
            .find(|(_, s)| s.child == *to)
            .is_some_and(|(_, s)| s.keeps)
    }
}

impl ScoredGame for Kalah {
    fn score_range(&self) -> (i64, i64) {
        let n = i64::from(self.total());
        (-n, n)
    }
    fn terminal_score(&self, b: &Board) -> i64 {
        let (mine, theirs) = self.sides(*b);
        i64::from(mine) - i64::from(theirs)
    }
    fn reward(&self, from: &Board, to: &Board) -> i64 {
        i64::from(self.tier(from)) - i64::from(self.tier(to))
    }
}

impl Notation for Kalah {
    fn named_moves(&self, b: &Board, _side: u8, out: &mut Vec<(String, Board)>) {
        out.extend(
            self.sowings(*b)
                .map(|(i, s)| ((i + 1).to_string(), s.child)),
        );
    }

    fn render(&self, b: &Board, side: u8) -> String {
        let p = self.pits as usize;
        let a = self.unpack(*b);
        let (x, o) = if side == 0 {
            (&a[..p], &a[p..])
        } else {
            (&a[p..], &a[..p])
        };
        let row = |v: &mut dyn Iterator<Item = &u32>| {
            v.map(|s| format!("{s:>3}")).collect::<Vec<_>>().join("")
        };
        format!("o {}\nx {}\n", row(&mut o.iter().rev()), row(&mut x.iter()))
    }

    fn position_string(&self, b: &Board, side: u8) -> String {
        let p = self.pits as usize;
        let a = self.unpack(*b);
        let (x, o) = if side == 0 {
            (&a[..p], &a[p..])
        } else {
            (&a[p..], &a[..p])
        };
        let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        format!(
            "{}/{} {}",
            list(x),
            list(o),
            if side == 0 { 'x' } else { 'o' }
        )
    }

    fn parse_position(&self, text: &str) -> Result<(Board, u8), NotationError> {
        let (board, side) = retrograde_tier::notation::split_side(text)?;
        let (x, o) = board
            .split_once('/')
            .ok_or("expected the two sides separated by '/'")?;
        let (x, o) = (self.parse_side(x)?, self.parse_side(o)?);
        let sum: u32 = x.iter().chain(&o).sum();
        if sum > self.total() {
            return Err(format!("{sum} seeds on the board, this game has {}", self.total()).into());
        }
        let mut a = if side == 0 { x.clone() } else { o.clone() };
        a.extend(if side == 0 { o } else { x });
        Ok((Self::pack(&a), side))
    }

    fn position_help(&self) -> String {
        "the first player's pits in sowing order, '/', the second player's, seed counts \
         separated by commas, then the side to move: 3,3,3/3,3,3 x"
            .into()
    }

    fn title(&self) -> String {
        format!(
            "Kalah, {} pits of {} seeds a side{}: sow from one of your pits \
             counter-clockwise; a last seed in your store moves again, in an empty pit of \
             yours captures. Values count the seeds still to gain.",
            self.pits,
            self.seeds,
            if self.empty_capture {
                " (empty capture)"
            } else {
                ""
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrograde_solve::Scored;
    use retrograde_tier::{check_scored, solve_scored, SolveOptions};
    use std::collections::HashMap;

    /// A plain memoised minimax over the positions reachable from the start (the game's
    /// graph has no cycle: a move either stores seeds or moves the mover's seeds towards
    /// their store), with an explicit stack: the net seeds the player to move gains, and
    /// the plies to the end by `Scored`'s preference.
    fn minimax(g: &Kalah) -> HashMap<Board, Scored> {
        let mut memo: HashMap<Board, Scored> = HashMap::new();
        let mut on_stack: HashMap<Board, bool> = HashMap::new();
        let mut stack = vec![(g.start().unwrap(), false)];
        while let Some((b, expanded)) = stack.pop() {
            if memo.contains_key(&b) {
                continue;
            }
            let moves: Vec<Sown> = g.sowings(b).map(|(_, s)| s).collect();
            if moves.is_empty() {
                let (mine, theirs) = g.sides(b);
                memo.insert(b, Scored::new(i64::from(mine) - i64::from(theirs), Some(0)));
                continue;
            }
            if !expanded {
                assert!(on_stack.insert(b, true).is_none(), "a cycle through {b:x}");
                stack.push((b, true));
                stack.extend(moves.iter().map(|s| (s.child, false)));
                continue;
            }
            let seeds = |x: Board| {
                let (m, t) = g.sides(x);
                i64::from(m + t)
            };
            let best = moves
                .iter()
                .map(|s| {
                    let c = memo[&s.child];
                    let gained = seeds(b) - seeds(s.child);
                    let v = if s.keeps { c.score } else { -c.score };
                    Scored::new(v + gained, c.remoteness.map(|r| r + 1))
                })
                .max()
                .unwrap();
            memo.insert(b, best);
        }
        memo
    }

    #[test]
    fn small_boards_match_a_plain_minimax() {
        for (p, s) in [
            (1, 1),
            (1, 3),
            (2, 1),
            (2, 2),
            (2, 3),
            (3, 1),
            (3, 2),
            (3, 3),
        ] {
            for empty in [false, true] {
                let g = Kalah::new(p, s, empty).unwrap();
                check_scored(&g, 500).unwrap();
                let sol = solve_scored(&g, &SolveOptions::default()).unwrap();
                let want = minimax(&g);
                for (b, v) in &want {
                    assert_eq!(sol.value(b).unwrap(), *v, "{} {b:x}", g.name());
                }
                // Boards are the mover's view: the minimax's boards are the distinct states,
                // and a board reached with either side to move counts as two positions.
                let st = sol.stats();
                assert_eq!(st.states, want.len() as u64, "{}", g.name());
                assert!(st.positions >= st.states && st.positions <= 2 * st.states);
            }
        }
    }

    /// Kalah's tiers have moves inside them (sowings that store nothing), settled by the
    /// dense engine's levels, in parallel: every pool gives the minimax's values and the
    /// same totals.
    #[test]
    fn every_thread_count_gives_the_same_values() {
        let g = Kalah::new(3, 3, false).unwrap();
        let want = minimax(&g);
        let mut totals = Vec::new();
        for threads in 1..=4 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let sol = pool.install(|| solve_scored(&g, &SolveOptions::default()).unwrap());
            for (b, v) in &want {
                assert_eq!(sol.value(b).unwrap(), *v, "{threads} threads, {b:x}");
            }
            let s = sol.stats();
            totals.push((s.win, s.loss, s.tie, s.draw, s.positions, s.moves));
        }
        assert!(totals.windows(2).all(|w| w[0] == w[1]), "{totals:?}");
    }

    #[test]
    fn sowing_follows_the_rules() {
        let g = Kalah::new(3, 3, false).unwrap();
        let start = g.start().unwrap();
        // Pit 1 of 3: one seed each into pits 2, 3 and the store: go again.
        let (b, side) = g.parse_position("3,3,3/3,3,3 x").unwrap();
        assert_eq!((b, side), (start, 0));
        let s = g.sow(start, 0);
        assert!(s.keeps);
        assert_eq!(g.position_string(&s.child, 0), "0,4,4/3,3,3 x");
        assert_eq!(g.reward(&start, &s.child), 1);
        // Around the board into the empty pit 1: one seed stored on the way, and the last
        // captures itself and the 5 opposite.
        let (b, _) = g.parse_position("0,0,5/1,1,4 x").unwrap();
        let s = g.sow(b, 2);
        assert!(!s.keeps);
        assert_eq!(g.position_string(&s.child, 1), "0,0,0/2,2,0 o");
        assert_eq!(g.reward(&b, &s.child), 7);
        // Without seeds opposite, no capture (unless empty capture).
        let (b, _) = g.parse_position("1,0,0/0,0,1 x").unwrap();
        assert_eq!(g.reward(&b, &g.sow(b, 0).child), 0);
        let e = Kalah::new(3, 3, true).unwrap();
        assert_eq!(e.reward(&b, &e.sow(b, 0).child), 1);
        assert!(g
            .parse_position("1,0/0,0,1 x")
            .unwrap_err()
            .to_string()
            .contains("3 pits"));
        assert!(g
            .parse_position("9,9,9/9,9,9 x")
            .unwrap_err()
            .to_string()
            .contains("seeds"));
        assert!(Kalah::new(9, 1, false).is_err());
        assert_eq!(
            Kalah::new(9, 1, false).unwrap_err(),
            GameError::KalahPits { pits: 9 }
        );
        let e = Kalah::new(6, 6, false).unwrap_err();
        assert!(
            matches!(e, GameError::KalahIndex { cells: 83, .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("index"));
    }
}

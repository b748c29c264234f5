//! Zielonka's recursive algorithm, on an explicit stack.
//!
//! # Algorithm
//! To solve a subgame G whose top priority p is player P's:
//! 1. A = P's attractor (in G) of the vertices of priority p, and of the next priorities
//!    of P's parity as long as the top of what is left has P's parity (the top priorities
//!    of one parity act as one: on-the-fly compression).
//! 2. Solve G \ A (a *level* deeper). If the opponent wins nothing there, P wins all of G.
//! 3. Else B = the opponent's attractor (in G) of what it won there. If B takes nothing
//!    more, P wins G \ B and the opponent B (the subgame need not be solved again: the
//!    optimisation of Oink's `zlk`). Else solve G \ B (a level deeper): the opponent wins B
//!    and what it wins there, P the rest. B is attracted from the opponent's set or from
//!    A's vertices, whichever has fewer moves to look at (the root level of a game P wins
//!    nearly whole has a huge A and a few vertices of the opponent's).
//!
//! # Representation
//! A *region* number per vertex says where it is: `OUT` (not in the game being solved),
//! `OPEN` (in the subgame of the deepest level, not yet assigned), or the number of the level
//! that assigned it (numbers grow as levels are made, so a level's subgame is the vertices
//! `OPEN` or assigned by it or by deeper levels). The attractors are the graph engine's
//! ([`retrograde_solve::attract`]). The stack holds, per level, its first position in the
//! priority order, its number, its phase and its set A (then B); the two winning sets of the
//! level just solved are lists too. The depth of the stack is at most the number of priority
//! levels plus one per level solved again, and nothing recurses.
//!
//! Each vertex P owns in A joins with a move into A, except the vertices of the top priority
//! (the heads): when P wins the whole level, a head takes a move to any vertex P wins in it.

use crate::algo::Algo;
use crate::solution::NONE;
use retrograde_graph::Graph;
use retrograde_solve::attract::{Attractor, Subgame};

const OUT: u32 = 0;
const OPEN: u32 = u32::MAX;

pub(crate) struct Zielonka<'a> {
    g: &'a Graph,
    prio: &'a [u32],
    region: Vec<u32>,
    attr: Attractor,
    iterations: u64,
}

impl<'a> Zielonka<'a> {
    pub(crate) fn new(g: &'a Graph, prio: &'a [u32]) -> Self {
        let n = g.vertex_count();
        Zielonka {
            g,
            prio,
            region: vec![OUT; n],
            attr: Attractor::new(n),
            iterations: 0,
        }
    }
}

/// One level of the recursion.
struct Level {
    /// The position in the priority order from which its subgame's top is looked for.
    cursor: usize,
    /// Its number.
    r: u32,
    /// 0: to attract; 1: G \ A solved; 2: G \ B solved.
    phase: u8,
    /// The player of its top priority.
    pl: u8,
    /// A, then B.
    set: Vec<u32>,
}

/// Phase 1's subgame: the open vertices; the set is the level's A.
struct Attract<'s> {
    region: &'s mut [u32],
    won: &'s mut [u8],
    strategy: &'s mut [u32],
    r: u32,
    pl: u8,
}

impl Subgame for Attract<'_> {
    #[inline(always)]
    fn open(&self, v: u32) -> bool {
        self.region[v as usize] == OPEN
    }
    #[inline(always)]
    fn in_set(&self, v: u32) -> bool {
        self.region[v as usize] == self.r
    }
    #[inline(always)]
    fn counts(&self, v: u32) -> Option<bool> {
        // Only this run writes the level's number.
        let r = self.region[v as usize];
        Some(r == OPEN || r == self.r)
    }
    #[inline(always)]
    fn join(&mut self, v: u32, via: u32) {
        self.region[v as usize] = self.r;
        self.won[v as usize] = self.pl;
        self.strategy[v as usize] = via;
    }
    #[inline(always)]
    fn prefetch(&self, v: u32) {
        retrograde_solve::prefetch(self.region, v as usize);
    }
}

/// Phase 2's subgame: the level's whole subgame (assigned by it or deeper); the vertices the
/// level's player wins may join the opponent's set.
struct Lose<'s> {
    region: &'s mut [u32],
    won: &'s mut [u8],
    strategy: &'s mut [u32],
    r: u32,
    /// The attracting player (the opponent of the level's).
    opp: u8,
}

impl Lose<'_> {
    #[inline(always)]
    fn inside(&self, v: u32) -> bool {
        let r = self.region[v as usize];
        r >= self.r && r != OPEN
    }
}

impl Subgame for Lose<'_> {
    #[inline(always)]
    fn open(&self, v: u32) -> bool {
        self.inside(v) && self.won[v as usize] != self.opp
    }
    #[inline(always)]
    fn in_set(&self, v: u32) -> bool {
        self.inside(v) && self.won[v as usize] == self.opp
    }
    #[inline(always)]
    fn join(&mut self, v: u32, via: u32) {
        self.region[v as usize] = self.r;
        self.won[v as usize] = self.opp;
        self.strategy[v as usize] = via;
    }
}

impl Algo for Zielonka<'_> {
    fn iterations(&self) -> u64 {
        self.iterations
    }

    fn solve(&mut self, order: &[u32], won: &mut [u8], strategy: &mut [u32]) {
        let (g, prio) = (self.g, self.prio);
        for &v in order {
            self.region[v as usize] = OPEN;
        }
        let mut next_r = 1u32;
        let mut stack = vec![Level {
            cursor: 0,
            r: next_r,
            phase: 0,
            pl: 0,
            set: Vec::new(),
        }];
        next_r += 1;
        // Spare sets, reused.
        let mut pool: Vec<Vec<u32>> = Vec::new();
        // What the level just solved has won: Even's, Odd's.
        let mut w: [Vec<u32>; 2] = [Vec::new(), Vec::new()];
        while let Some(level) = stack.last_mut() {
            let r = level.r;
            match level.phase {
                0 => {
                    let mut k = level.cursor;
                    while self.region[order[k] as usize] != OPEN {
                        k += 1;
                    }
                    level.cursor = k;
                    let pl = (prio[order[k] as usize] & 1) as u8;
                    level.pl = pl;
                    self.iterations += 1;
                    self.attr.start();
                    let mut sub = Attract {
                        region: &mut self.region,
                        won: &mut *won,
                        strategy: &mut *strategy,
                        r,
                        pl,
                    };
                    // The heads, down to the first open vertex of the other parity.
                    while let Some(&v) = order.get(k) {
                        if sub.open(v) {
                            if (prio[v as usize] & 1) as u8 != pl {
                                break;
                            }
                            self.attr.add(v, &mut sub);
                            self.attr.attract(g, pl, &mut sub);
                        }
                        k += 1;
                    }
                    level.set.extend_from_slice(self.attr.joined());
                    level.phase = 1;
                    if k < order.len() {
                        let set = pool.pop().unwrap_or_default();
                        stack.push(Level {
                            cursor: k,
                            r: next_r,
                            phase: 0,
                            pl: 0,
                            set,
                        });
                        next_r += 1;
                    }
                }
                1 => {
                    let (pl, opp) = (level.pl, 1 - level.pl);
                    let mut taken = 0;
                    // Where the newly taken vertices start in the run's list.
                    let mut from = 0;
                    if !w[opp as usize].is_empty() {
                        // The opponent attracts from what P holds: from its set (each of its
                        // vertices' predecessors looked at), or from A (each of A's vertices
                        // tried by its moves; only a vertex of A can be taken first, as the
                        // opponent won the rest of its set below A), whichever looks at fewer
                        // moves. Both give the same set.
                        let (rev, fwd) = (g.reverse_offsets(), g.forward_offsets());
                        let degrees = |set: &[u32], off: &[u64]| -> u64 {
                            set.iter()
                                .map(|&v| off[v as usize + 1] - off[v as usize])
                                .sum()
                        };
                        let from_set = degrees(&w[opp as usize], rev) < degrees(&level.set, fwd);
                        self.attr.start();
                        let mut sub = Lose {
                            region: &mut self.region,
                            won: &mut *won,
                            strategy: &mut *strategy,
                            r,
                            opp,
                        };
                        if from_set {
                            for &v in &w[opp as usize] {
                                self.attr.seed(v);
                            }
                            from = w[opp as usize].len();
                        } else {
                            for &v in &level.set {
                                if sub.open(v) {
                                    self.attr.try_join(g, opp, v, &mut sub);
                                }
                            }
                        }
                        self.attr.attract(g, opp, &mut sub);
                        taken = self.attr.joined().len() - from;
                    }
                    if taken == 0 {
                        // P wins the level's subgame but what the opponent won below; the
                        // heads P owns take a move into P's region.
                        for &v in &level.set {
                            if g.owner(v) == pl && strategy[v as usize] == NONE {
                                strategy[v as usize] = *g
                                    .successors(v)
                                    .iter()
                                    .find(|&&t| {
                                        let rt = self.region[t as usize];
                                        rt >= r && rt != OPEN && won[t as usize] == pl
                                    })
                                    .expect("a head P owns has a move within P's region");
                            }
                        }
                        let mut set = std::mem::take(&mut level.set);
                        w[pl as usize].append(&mut set);
                        pool.push(set);
                        stack.pop();
                        continue;
                    }
                    let joined = &self.attr.joined()[from..];
                    w[opp as usize].extend_from_slice(joined);
                    // What P still holds is solved again, a level deeper.
                    let mut any = false;
                    for &v in level.set.iter().chain(w[pl as usize].iter()) {
                        if won[v as usize] == pl {
                            self.region[v as usize] = OPEN;
                            any = true;
                        }
                    }
                    if !any {
                        w[pl as usize].clear();
                        let mut set = std::mem::take(&mut level.set);
                        set.clear();
                        pool.push(set);
                        stack.pop();
                        continue;
                    }
                    // The level keeps B; the sets are emptied for the next level.
                    let mut old =
                        std::mem::replace(&mut level.set, std::mem::take(&mut w[opp as usize]));
                    old.clear();
                    pool.push(old);
                    w[pl as usize].clear();
                    level.phase = 2;
                    let cursor = level.cursor;
                    let set = pool.pop().unwrap_or_default();
                    stack.push(Level {
                        cursor,
                        r: next_r,
                        phase: 0,
                        pl: 0,
                        set,
                    });
                    next_r += 1;
                }
                _ => {
                    let opp = 1 - level.pl;
                    let mut set = std::mem::take(&mut level.set);
                    w[opp as usize].append(&mut set);
                    pool.push(set);
                    stack.pop();
                }
            }
        }
        for &v in order {
            self.region[v as usize] = OUT;
        }
    }
}

//! The quasi-polynomial recursive algorithm: Zielonka's recursion with precisions (Parys,
//! MFCS 2019; Lehtinen, Parys, Schewe, Wojtczak, LMCS 2022), as Oink's `zlkq` arranges it,
//! on an explicit stack.
//!
//! # Algorithm
//! `solve(G, pE, pO)` assigns every vertex of G to Even's set W0 or Odd's W1; a precision
//! bounds the size of the dominions of its player that the call is sure to find (the sets
//! are exact at the top, where both precisions are the game's size). With P the player of
//! G's top priority and O the opponent, each call:
//! 1. gives all of G to Even when Odd's precision is 0, to Odd when Even's is (nothing is
//!    sure any more);
//! 2. *left*: solves G with O's precision halved (this finds O's small dominions);
//! 3. stops if G has at most half O's precision vertices (the left call was exact);
//! 4. R = what P holds; H = P's attractor in R of its top priorities (of P's parity, down to
//!    the first of O's); *middle*: solves R \ H at full precision (H is P's for now);
//! 5. O attracts in R from what it won in the middle; if it took any of P's vertices,
//!    *right*: solves R less O's set with O's precision halved; else P keeps the rest.
//!
//! The halving bounds the calls by n^O(log d) for d priorities (and n vertices), against 2^n
//! for plain Zielonka; on easy games it is slower, as it solves each subgame more than once.
//!
//! # Representation
//! A subgame is a list of vertices sorted by priority, highest first: R, R \ H and R less
//! O's set are filtered from it in order, on one stack of lists (a call's lists are above its
//! caller's and go when it returns). Membership in R and H is a number per vertex that
//! changes from list to list, W0 and W1 two bits per vertex (a vertex O attracts holds both
//! until the call decides). The attractors are the graph engine's
//! ([`retrograde_solve::attract`]).

use crate::algo::Algo;
use crate::solution::NONE;
use retrograde_graph::Graph;
use retrograde_solve::attract::{Attractor, Subgame};

pub(crate) struct Qpz<'a> {
    g: &'a Graph,
    prio: &'a [u32],
    /// Bit 0: in W0, bit 1: in W1.
    w: Vec<u8>,
    /// `2 * stamp`: in the current R; `2 * stamp + 1`: in R and in H.
    mark: Vec<u32>,
    stamp: u32,
    attr: Attractor,
    iterations: u64,
}

impl<'a> Qpz<'a> {
    pub(crate) fn new(g: &'a Graph, prio: &'a [u32]) -> Self {
        let n = g.vertex_count();
        Qpz {
            g,
            prio,
            w: vec![0; n],
            mark: vec![0; n],
            stamp: 0,
            attr: Attractor::new(n),
            iterations: 0,
        }
    }

    /// A new number for marking a list as R.
    fn next_stamp(&mut self) -> u32 {
        if self.stamp >= u32::MAX / 2 - 1 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.stamp = 0;
        }
        self.stamp += 1;
        self.stamp
    }
}

/// One call.
struct Call {
    /// Its subgame, a list on the stack of lists.
    sg: (usize, usize),
    pe: u64,
    po: u64,
    phase: u8,
    pl: u8,
    /// Where its own lists start (the stack is cut back there when it returns).
    base: usize,
    /// R (from phase 1 on).
    r: (usize, usize),
}

impl Call {
    /// The precisions of the left and right calls: the opponent's halved.
    fn halved(&self) -> (u64, u64) {
        if self.pl == 0 {
            (self.pe, self.po / 2)
        } else {
            (self.pe / 2, self.po)
        }
    }
}

/// Step 4's attractor: H within R.
struct Heads<'s> {
    mark: &'s mut [u32],
    strategy: &'s mut [u32],
    stamp: u32,
}

impl Subgame for Heads<'_> {
    #[inline(always)]
    fn open(&self, v: u32) -> bool {
        self.mark[v as usize] == 2 * self.stamp
    }
    #[inline(always)]
    fn in_set(&self, v: u32) -> bool {
        self.mark[v as usize] == 2 * self.stamp + 1
    }
    #[inline(always)]
    fn counts(&self, v: u32) -> Option<bool> {
        // In R: open, or in H, which this run makes.
        Some(self.mark[v as usize] >> 1 == self.stamp)
    }
    #[inline(always)]
    fn join(&mut self, v: u32, via: u32) {
        self.mark[v as usize] = 2 * self.stamp + 1;
        self.strategy[v as usize] = via;
    }
}

/// Step 5's attractor: the opponent's set within R.
struct Takes<'s> {
    mark: &'s [u32],
    w: &'s mut [u8],
    strategy: &'s mut [u32],
    stamp: u32,
    /// The opponent's bit.
    bit: u8,
}

impl Subgame for Takes<'_> {
    #[inline(always)]
    fn open(&self, v: u32) -> bool {
        self.mark[v as usize] == 2 * self.stamp && self.w[v as usize] & self.bit == 0
    }
    #[inline(always)]
    fn in_set(&self, v: u32) -> bool {
        self.mark[v as usize] == 2 * self.stamp && self.w[v as usize] & self.bit != 0
    }
    #[inline(always)]
    fn join(&mut self, v: u32, via: u32) {
        self.w[v as usize] |= self.bit;
        self.strategy[v as usize] = via;
    }
}

impl Algo for Qpz<'_> {
    fn iterations(&self) -> u64 {
        self.iterations
    }

    fn solve(&mut self, order: &[u32], won: &mut [u8], strategy: &mut [u32]) {
        let (g, prio) = (self.g, self.prio);
        let n = order.len() as u64;
        for &v in order {
            self.w[v as usize] = 0;
            strategy[v as usize] = NONE;
        }
        let mut lists: Vec<u32> = order.to_vec();
        let mut calls = vec![Call {
            sg: (0, lists.len()),
            pe: n,
            po: n,
            phase: 0,
            pl: 0,
            base: lists.len(),
            r: (0, 0),
        }];
        while let Some(call) = calls.last_mut() {
            let (s0, s1) = call.sg;
            match call.phase {
                0 => {
                    self.iterations += 1;
                    if call.po == 0 || call.pe == 0 {
                        let bit = if call.po == 0 { 1 } else { 2 };
                        for &v in &lists[s0..s1] {
                            self.w[v as usize] = bit;
                            strategy[v as usize] = NONE;
                        }
                        calls.pop();
                        continue;
                    }
                    if s0 == s1 {
                        calls.pop();
                        continue;
                    }
                    call.pl = (prio[lists[s0] as usize] & 1) as u8;
                    call.phase = 1;
                    let (pe, po) = call.halved();
                    let base = lists.len();
                    calls.push(Call {
                        sg: (s0, s1),
                        pe,
                        po,
                        phase: 0,
                        pl: 0,
                        base,
                        r: (0, 0),
                    });
                }
                1 => {
                    let pl = call.pl;
                    let mine = 1u8 << pl;
                    let bound = if pl == 0 { call.po / 2 } else { call.pe / 2 };
                    if (s1 - s0) as u64 <= bound {
                        calls.pop();
                        continue;
                    }
                    // R: what P holds, in priority order.
                    let r0 = lists.len();
                    for k in s0..s1 {
                        let v = lists[k];
                        if self.w[v as usize] & mine != 0 {
                            lists.push(v);
                        }
                    }
                    let r1 = lists.len();
                    if r0 == r1 {
                        lists.truncate(call.base);
                        calls.pop();
                        continue;
                    }
                    call.r = (r0, r1);
                    let stamp = self.next_stamp();
                    for &v in &lists[r0..r1] {
                        self.mark[v as usize] = 2 * stamp;
                    }
                    // H: P's attractor in R of R's top priorities of P's parity.
                    self.attr.start();
                    let mut sub = Heads {
                        mark: &mut self.mark,
                        strategy: &mut *strategy,
                        stamp,
                    };
                    for &v in &lists[r0..r1] {
                        if (prio[v as usize] & 1) as u8 != pl {
                            break;
                        }
                        if sub.open(v) {
                            self.attr.add(v, &mut sub);
                        }
                    }
                    self.attr.attract(g, pl, &mut sub);
                    // R is P's in H and nobody's yet in R \ H, which the middle call solves.
                    for k in r0..r1 {
                        let v = lists[k] as usize;
                        if self.mark[v] == 2 * stamp + 1 {
                            self.w[v] = mine;
                        } else {
                            self.w[v] = 0;
                            strategy[v] = NONE;
                            lists.push(v as u32);
                        }
                    }
                    let h1 = lists.len();
                    call.phase = 2;
                    let (pe, po) = (call.pe, call.po);
                    calls.push(Call {
                        sg: (r1, h1),
                        pe,
                        po,
                        phase: 0,
                        pl: 0,
                        base: h1,
                        r: (0, 0),
                    });
                }
                2 => {
                    let pl = call.pl;
                    let (mine, theirs) = (1u8 << pl, 1u8 << (1 - pl));
                    let (r0, r1) = call.r;
                    let stamp = self.next_stamp();
                    for &v in &lists[r0..r1] {
                        self.mark[v as usize] = 2 * stamp;
                    }
                    // O attracts in R from what it won in the middle.
                    self.attr.start();
                    let mut seeds = 0;
                    for &v in &lists[r1..] {
                        if self.w[v as usize] & theirs != 0 {
                            self.attr.seed(v);
                            seeds += 1;
                        }
                    }
                    let mut sub = Takes {
                        mark: &self.mark,
                        w: &mut self.w,
                        strategy: &mut *strategy,
                        stamp,
                        bit: theirs,
                    };
                    self.attr.attract(g, 1 - pl, &mut sub);
                    let took = self.attr.joined().len() > seeds;
                    if took {
                        // P loses its hold on R; the right call solves R less O's set.
                        lists.truncate(r1);
                        for k in r0..r1 {
                            let v = lists[k];
                            self.w[v as usize] &= !mine;
                            if self.w[v as usize] & theirs == 0 {
                                strategy[v as usize] = NONE;
                                lists.push(v);
                            }
                        }
                        let end = lists.len();
                        call.phase = 3;
                        let (pe, po) = call.halved();
                        calls.push(Call {
                            sg: (r1, end),
                            pe,
                            po,
                            phase: 0,
                            pl: 0,
                            base: end,
                            r: (0, 0),
                        });
                    } else {
                        // P keeps R less O's set: its vertices without a move take one into
                        // P's part of R.
                        for &v in &lists[r0..r1] {
                            let vi = v as usize;
                            if self.w[vi] == mine && g.owner(v) == pl && strategy[vi] == NONE {
                                strategy[vi] = *g
                                    .successors(v)
                                    .iter()
                                    .find(|&&t| {
                                        self.mark[t as usize] == 2 * stamp
                                            && self.w[t as usize] == mine
                                    })
                                    .expect("a vertex P keeps has a move within P's part");
                            }
                        }
                        lists.truncate(call.base);
                        calls.pop();
                    }
                }
                _ => {
                    lists.truncate(call.base);
                    calls.pop();
                }
            }
        }
        for &v in order {
            let vi = v as usize;
            let winner = (self.w[vi] >> 1) & 1;
            debug_assert!(self.w[vi] == 1 || self.w[vi] == 2, "one winner per vertex");
            won[vi] = winner;
            if g.owner(v) != winner {
                strategy[vi] = NONE;
            }
            self.w[vi] = 0;
        }
    }
}

//! Priority promotion (Benerecetti, Dell'Erba, Mogavero, CAV 2016), the plain variant (PP).
//!
//! # Algorithm
//! Every vertex belongs to a *region*, named by a priority; at first each vertex is in the
//! region of its own priority. Going down from the top priority p:
//! 1. The region of p is set up again: the vertices of priority p that no higher region
//!    holds, and the attractor (for p's player P) of them among the vertices of lower
//!    regions (the *subgame* of p). A vertex of a higher region is out of the subgame: a
//!    move to it is no escape here.
//! 2. If the region is open (a head of P without a move into it, or a head of the opponent
//!    with a move to a lower region), go on to the next lower priority.
//! 3. If it is closed: when the opponent cannot leave it at all, it is a *dominion*: P wins
//!    it and its attractor in the whole game, which is removed; start again from the top.
//!    Else *promote* it to the lowest higher region q the opponent can escape to: its
//!    vertices join region q, which attracts again (among the vertices below q), and q's
//!    status is looked at again (step 2 or 3 with p = q); the regions below q are set up
//!    again as the descent continues.
//!
//! The attractors are the graph engine's ([`retrograde_solve::attract`]); a region's members
//! are listed per priority (a list may keep vertices a higher region has taken since; they
//! are skipped, and the list is made again when its region is set up). Each vertex of a region that P owns has a move into it (heads
//! get theirs when the region's status is checked). Exponential in the worst case; the
//! descent restarts after each dominion.

use crate::algo::Algo;
use crate::solution::NONE;
use retrograde_graph::Graph;
use retrograde_solve::attract::{Attractor, Subgame};

/// Solved (or not in the game being solved): in no region, and out of every subgame.
const OUT: u32 = u32::MAX;

pub(crate) struct PriorityPromotion<'a> {
    g: &'a Graph,
    prio: &'a [u32],
    region: Vec<u32>,
    /// The members of each region (vertices whose region is that priority).
    regions: Vec<Vec<u32>>,
    /// The first position of each priority in the order.
    first: Vec<usize>,
    attr: Attractor,
    iterations: u64,
}

impl<'a> PriorityPromotion<'a> {
    pub(crate) fn new(g: &'a Graph, prio: &'a [u32]) -> Self {
        let n = g.vertex_count();
        let levels = prio.iter().copied().max().map_or(0, |m| m as usize + 1);
        PriorityPromotion {
            g,
            prio,
            region: vec![OUT; n],
            regions: vec![Vec::new(); levels],
            first: vec![usize::MAX; levels],
            attr: Attractor::new(n),
            iterations: 0,
        }
    }
}

/// The subgame of region `p`: the vertices of lower regions may join it.
struct Region<'s> {
    region: &'s mut [u32],
    strategy: &'s mut [u32],
    members: &'s mut Vec<u32>,
    p: u32,
}

impl Subgame for Region<'_> {
    #[inline(always)]
    fn open(&self, v: u32) -> bool {
        self.region[v as usize] < self.p
    }
    #[inline(always)]
    fn in_set(&self, v: u32) -> bool {
        self.region[v as usize] == self.p
    }
    #[inline(always)]
    fn join(&mut self, v: u32, via: u32) {
        self.region[v as usize] = self.p;
        self.strategy[v as usize] = via;
        self.members.push(v);
    }
    #[inline(always)]
    fn prefetch(&self, v: u32) {
        retrograde_solve::prefetch(self.region, v as usize);
    }
}

/// A dominion's attractor in the whole game: every vertex not solved may join.
struct Dominion<'s> {
    region: &'s mut [u32],
    won: &'s mut [u8],
    strategy: &'s mut [u32],
    pl: u8,
}

impl Subgame for Dominion<'_> {
    #[inline(always)]
    fn open(&self, v: u32) -> bool {
        self.region[v as usize] != OUT
    }
    #[inline(always)]
    fn in_set(&self, v: u32) -> bool {
        self.region[v as usize] == OUT && self.won[v as usize] == self.pl
    }
    #[inline(always)]
    fn join(&mut self, v: u32, via: u32) {
        self.region[v as usize] = OUT;
        self.won[v as usize] = self.pl;
        self.strategy[v as usize] = via;
    }
}

/// What a closed or open region does next.
enum Status {
    Open,
    Dominion,
    Promote(u32),
}

impl PriorityPromotion<'_> {
    /// Attracts for region `p`'s player from the vertices queued in the current run.
    fn attract(&mut self, p: u32, strategy: &mut [u32]) {
        let mut members = std::mem::take(&mut self.regions[p as usize]);
        let mut sub = Region {
            region: &mut self.region,
            strategy,
            members: &mut members,
            p,
        };
        self.attr.attract(self.g, (p & 1) as u8, &mut sub);
        self.regions[p as usize] = members;
    }

    /// Sets region `p` up from the vertices of priority `p` from position `i` that no higher
    /// region holds, and attracts.
    fn setup(&mut self, order: &[u32], i: usize, p: u32, strategy: &mut [u32]) {
        self.reset(p, strategy);
        self.attr.start();
        for &v in order[i..]
            .iter()
            .take_while(|&&v| self.prio[v as usize] == p)
        {
            if self.region[v as usize] == p {
                strategy[v as usize] = NONE;
                self.regions[p as usize].push(v);
                self.attr.seed(v);
            }
        }
        self.attract(p, strategy);
    }

    /// Region `p` dissolves: its members go back to the regions of their own priorities.
    fn reset(&mut self, p: u32, strategy: &mut [u32]) {
        let members = std::mem::take(&mut self.regions[p as usize]);
        for &v in &members {
            if self.region[v as usize] == p {
                self.region[v as usize] = self.prio[v as usize];
                strategy[v as usize] = NONE;
            }
        }
        let mut members = members;
        members.clear();
        self.regions[p as usize] = members;
    }

    /// Whether region `p` (its heads from position `i`) is open, a dominion, or to be
    /// promoted, and where. Heads of the region's player get their move into it here.
    fn status(&self, order: &[u32], i: usize, p: u32, strategy: &mut [u32]) -> Status {
        let (g, pl) = (self.g, (p & 1) as u8);
        for &v in order[i..]
            .iter()
            .take_while(|&&v| self.prio[v as usize] == p)
        {
            if self.region[v as usize] != p {
                continue;
            }
            if g.owner(v) == pl {
                if strategy[v as usize] == NONE {
                    match g
                        .successors(v)
                        .iter()
                        .find(|&&w| self.region[w as usize] == p)
                    {
                        Some(&w) => strategy[v as usize] = w,
                        None => return Status::Open,
                    }
                }
            } else if g.successors(v).iter().any(|&w| self.region[w as usize] < p) {
                return Status::Open;
            }
        }
        let mut lowest = OUT;
        for &v in &self.regions[p as usize] {
            if self.region[v as usize] == p && g.owner(v) != pl {
                for &w in g.successors(v) {
                    let r = self.region[w as usize];
                    if r != OUT && r > p && r < lowest {
                        lowest = r;
                    }
                }
            }
        }
        if lowest == OUT {
            Status::Dominion
        } else {
            Status::Promote(lowest)
        }
    }

    /// Region `p` joins region `q` (higher), which attracts from its new members.
    fn promote(&mut self, p: u32, q: u32, strategy: &mut [u32]) {
        self.iterations += 1;
        let mut from = std::mem::take(&mut self.regions[p as usize]);
        self.attr.start();
        from.retain(|&v| self.region[v as usize] == p);
        for &v in &from {
            self.region[v as usize] = q;
            self.attr.seed(v);
        }
        self.regions[q as usize].extend_from_slice(&from);
        from.clear();
        self.regions[p as usize] = from;
        self.attract(q, strategy);
    }

    /// Region `p` is a dominion of its player: solved, with its attractor in the game.
    fn dominion(&mut self, p: u32, won: &mut [u8], strategy: &mut [u32]) {
        let pl = (p & 1) as u8;
        let members = std::mem::take(&mut self.regions[p as usize]);
        self.attr.start();
        for &v in &members {
            if self.region[v as usize] == p {
                self.region[v as usize] = OUT;
                won[v as usize] = pl;
                self.attr.seed(v);
            }
        }
        let mut sub = Dominion {
            region: &mut self.region,
            won,
            strategy,
            pl,
        };
        self.attr.attract(self.g, pl, &mut sub);
        let mut members = members;
        members.clear();
        self.regions[p as usize] = members;
    }
}

impl Algo for PriorityPromotion<'_> {
    fn iterations(&self) -> u64 {
        self.iterations
    }

    fn solve(&mut self, order: &[u32], won: &mut [u8], strategy: &mut [u32]) {
        let prio = self.prio;
        for (k, &v) in order.iter().enumerate() {
            self.region[v as usize] = prio[v as usize];
            strategy[v as usize] = NONE;
            if k == 0 || prio[order[k - 1] as usize] != prio[v as usize] {
                self.first[prio[v as usize] as usize] = k;
            }
        }
        let mut i = 0;
        while i < order.len() {
            let mut p = prio[order[i] as usize];
            // The vertices of priority p that no higher region holds (nor a dominion).
            while i < order.len()
                && prio[order[i] as usize] == p
                && self.region[order[i] as usize] != p
            {
                i += 1;
            }
            if i == order.len() || prio[order[i] as usize] != p {
                self.reset(p, strategy);
                continue;
            }
            self.setup(order, i, p, strategy);
            loop {
                match self.status(order, i, p, strategy) {
                    Status::Open => {
                        while i < order.len() && prio[order[i] as usize] == p {
                            i += 1;
                        }
                        break;
                    }
                    Status::Dominion => {
                        self.iterations += 1;
                        self.dominion(p, won, strategy);
                        i = 0;
                        break;
                    }
                    Status::Promote(q) => {
                        self.promote(p, q, strategy);
                        i = self.first[q as usize];
                        p = q;
                    }
                }
            }
        }
        for &v in order {
            debug_assert_eq!(self.region[v as usize], OUT, "every vertex is solved");
            self.regions[prio[v as usize] as usize].clear();
            self.first[prio[v as usize] as usize] = usize::MAX;
            self.region[v as usize] = OUT;
        }
    }
}

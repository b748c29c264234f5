//! Counting the positions reachable from the start (dense layout), with their values, over a
//! placement: one process, or each rank counting the slots it owns.
//!
//! Tiers are visited parents first. Each slot has one byte: bit `s` (0 or 1) = reached with
//! side `s` to move (0 is the side that moves first), bit `2 + s` = expanded with that side.
//! Sides are told apart only for games whose positions do not say whose turn it is
//! ([`TierGame::MOVER_VIEW`]); for the others everything is side 0.
//! Inside a tier, reached slots are expanded step by step (moves inside a tier can reach
//! anything in it); a move passes the side to move unless it keeps the turn. A slot is
//! expanded once for both sides when both are pending. Each expansion is tallied: the
//! class size (positions a canonical slot stands for), its value, its moves.
//!
//! With ranks, the start's owner marks it; each rank expands the reached slots it owns, one
//! step of the search, collecting marks for slots of other ranks (4 bytes a place, grouped by
//! tier and sides); the marks are exchanged after each step, until no rank has a mark or a
//! frontier left. At K = 2 to 4 a rank remembers the marks it made (2 bits a slot of the
//! whole tier, no more than its own byte per slot of its share), so that a mark is sent once,
//! not once per move that reaches it; with more ranks repeats are sent, and the owner sets
//! each mark once whatever the copies.

use crate::api::game::{canonical, keeps, DenseIndex, Symmetry};
use crate::engine::dense::{anything, append_each, prefetch, swap, u32s};
use crate::engine::{Dag, Event, SolveOptions};
use crate::error::Error;
use crate::stats::merge_stats;
use crate::stats::Stats;
use crate::store::cell::{Cell, Worth};
use rayon::prelude::*;
use retrograde_solve::exchange::Exchange;
use retrograde_solve::place::Placement;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

const CHUNK: usize = 1 << 11;
/// How many marks ahead of the one set the byte of one is prefetched.
const AHEAD: usize = 16;

/// The totals over the positions reachable from `start`; `cells(k)` gives this rank's cells
/// of tier `k`, `parts[k]` its placement.
pub(crate) fn count<G: DenseIndex, C: Cell, P: Placement>(
    game: &G,
    dag: &Dag<G::Tier>,
    parts: &[P],
    start: G::Position,
    cells: &mut dyn FnMut(usize) -> Result<Arc<Vec<C>>, Error>,
    ex: &dyn Exchange,
    opts: &SolveOptions,
) -> Result<Stats, Error> {
    let (me, kk) = (ex.rank(), ex.size());
    let n = dag.tiers.len();
    let total: u64 = parts.iter().map(|p| p.size()).sum();
    let alloc =
        |k: usize| -> Vec<AtomicU8> { (0..parts[k].len(me)).map(|_| AtomicU8::new(0)).collect() };
    let mut bits: Vec<Option<Vec<AtomicU8>>> = (0..n).map(|_| None).collect();
    let s = canonical(game, &start);
    let Some(ks) = dag.tiers.iter().position(|&t| t == game.tier(&s)) else {
        return Err(Error::Game(
            "the start's tier is not among the tiers".into(),
        ));
    };
    let si = game.rank(&s);
    if si >= parts[ks].size() {
        return Err(Error::Game(format!(
            "the start has rank {si}, past the size of its tier"
        )));
    }
    let (owner, l) = parts[ks].place(si);
    if owner == me {
        bits[ks].get_or_insert_with(|| alloc(ks))[l as usize].store(1, Relaxed);
    }
    // The marks this rank made, 2 bits a slot of the whole tier (by global slot), with K = 2
    // to 4 ranks (see the module docs): Quixo 4x4 at K = 2 sent 88 MB a rank without it, 10 MB
    // with, and a move to a slot already marked here needs no owner and no place.
    let filter = !P::ALONE && (2..=4).contains(&kk);
    let mut sent: Vec<Option<Vec<AtomicU8>>> = (0..n).map(|_| None).collect();
    let mut stats = Stats::default();
    let mut counted = 0u64;
    for &k in dag.order.iter().rev() {
        opts.emit(&Event::Count {
            done: counted,
            total,
        });
        counted += parts[k].size();
        let mine = match bits[k].take() {
            Some(b) => b,
            None if P::ALONE => continue,
            None => alloc(k),
        };
        let mut frontier = reached(&mine);
        // A tier no rank has reached stays unreached: marks inside a tier come from it.
        if !anything::<P>(ex, !frontier.is_empty(), opts)? {
            continue;
        }
        for &c in &dag.children[k] {
            if bits[c].is_none() {
                bits[c] = Some(alloc(c));
            }
        }
        if filter {
            for &c in std::iter::once(&k).chain(&dag.children[k]) {
                if sent[c].is_none() {
                    let quarter = parts[c].size().div_ceil(4);
                    sent[c] = Some((0..quarter).map(|_| AtomicU8::new(0)).collect());
                }
            }
        }
        let values = cells(k)?;
        // Targets: this tier (0) and its children (1..).
        let mut targets: Vec<Target<'_, G::Tier, P>> = vec![Target {
            tier: dag.tiers[k],
            part: parts[k],
            bits: &mine,
            sent: sent[k].as_deref(),
        }];
        for &c in &dag.children[k] {
            targets.push(Target {
                tier: dag.tiers[c],
                part: parts[c],
                bits: bits[c].as_deref().expect("allocated"),
                sent: sent[c].as_deref(),
            });
        }
        let tier = Counting {
            game,
            me,
            nb: 4 * targets.len(),
            kk,
            targets: &targets,
            values: &values,
        };
        while !frontier.is_empty() || !P::ALONE {
            let (next, away) = tier.step(std::mem::take(&mut frontier), &mut stats)?;
            frontier = next;
            let more = !frontier.is_empty();
            let packed: Vec<Vec<u8>> = away.chunks(tier.nb.max(1)).map(pack_marks).collect();
            let (got, more) = swap::<P>(ex, packed, more, opts)?;
            for g in got {
                tier.receive(&g, &mut frontier)?;
            }
            if !more {
                break;
            }
        }
        drop(targets);
        // Marks into tier `k` come from tier `k` (its parents were counted before it).
        sent[k] = None;
    }
    let mut merged = merge_stats(ex, vec![stats])?;
    Ok(merged.pop().expect("one"))
}

/// A tier whose slots a step may mark: this rank's bytes of it, and the filter of marks made.
struct Target<'a, T, P> {
    tier: T,
    part: P,
    bits: &'a [AtomicU8],
    sent: Option<&'a [AtomicU8]>,
}

/// The counting of one tier (target 0) into itself and its children.
struct Counting<'a, G: DenseIndex, C, P> {
    game: &'a G,
    me: usize,
    kk: usize,
    /// Buckets of marks per rank: 4 sides for each target.
    nb: usize,
    targets: &'a [Target<'a, G::Tier, P>],
    values: &'a [C],
}

/// A mark to set on this rank (`bits[at] |= mark`), or in the filter of marks sent.
struct Mark<'a> {
    bits: &'a [AtomicU8],
    at: usize,
    mark: u8,
    /// What a new mark means: 0, a slot of a child tier here (nothing more); 1, a slot of
    /// the tier being counted here (to expand next step); `2 + x`, a slot of target `x` new
    /// to the filter (marked here or sent to its owner).
    to: u32,
    /// The slot (global) of the mark.
    slot: u64,
}

/// Per-thread scratch space of a step.
struct Scratch<'a, P> {
    moves: Vec<P>,
    here: Vec<Mark<'a>>,
}

impl<P> Default for Scratch<'_, P> {
    fn default() -> Self {
        Scratch {
            moves: Vec::new(),
            here: Vec::new(),
        }
    }
}

impl<'a, G: DenseIndex, C: Cell, P: Placement> Counting<'a, G, C, P> {
    /// One step of the search from `frontier` (places of target 0): what it reached here
    /// next, and the marks for other ranks by `owner x nb + target x 4 + sides`. The
    /// frontier is freed before the chunks' lists are joined (a step's lists can be tens of
    /// megabytes).
    fn step(
        &self,
        frontier: Vec<u32>,
        stats: &mut Stats,
    ) -> Result<(Vec<u32>, Vec<Vec<u32>>), Error> {
        let buckets = if P::ALONE { 0 } else { self.kk * self.nb };
        let results: Vec<(Stats, Vec<u32>, Vec<Vec<u32>>)> = frontier
            .par_chunks(CHUNK)
            .map_init(Scratch::default, |s, chunk| {
                let mut st = Stats::default();
                let mut next = Vec::new();
                let mut away = vec![Vec::new(); buckets];
                for &l in chunk {
                    self.expand(l, s, &mut st, &mut next, &mut away)?;
                }
                Ok((st, next, away))
            })
            .collect::<Result<_, Error>>()?;
        drop(frontier);
        let mut next = Vec::new();
        let mut away = vec![Vec::new(); buckets];
        for (st, n, a) in results {
            stats.merge(&st);
            next.extend(n);
            append_each(&mut away, a);
        }
        Ok((next, away))
    }

    /// Expands place `l` of the tier being counted, if it has a side pending.
    #[inline]
    fn expand(
        &self,
        l: u32,
        s: &mut Scratch<'a, G::Position>,
        st: &mut Stats,
        next: &mut Vec<u32>,
        away: &mut [Vec<u32>],
    ) -> Result<(), Error> {
        let (game, me) = (self.game, self.me);
        let this = &self.targets[0];
        let b = &this.bits[l as usize];
        let word = b.load(Relaxed);
        let pending = word & 3 & !(word >> 2);
        if pending == 0 {
            return Ok(());
        }
        let before = b.fetch_or(pending << 2, Relaxed);
        let fresh = pending & !(before >> 2);
        if fresh == 0 {
            return Ok(());
        }
        let t = this.tier;
        let i = this.part.global(me, u64::from(l));
        let p = game.unrank(t, i).ok_or_else(|| {
            Error::Game(format!(
                "a move reaches slot {i} of tier {t:?}, which is a hole"
            ))
        })?;
        let v = self.values.get(l as usize).and_then(|c| c.decode());
        let v = v.ok_or_else(|| {
            Error::Game(format!(
                "a move reaches slot {i} of tier {t:?}, which has no value"
            ))
        })?;
        let w = <G::Symmetry as Symmetry<G>>::class_size(game, &p);
        let sides = u64::from(fresh.count_ones());
        st.positions += w * sides;
        st.classes += sides;
        if before >> 2 & 3 == 0 {
            st.states += w;
        }
        v.count(w * sides, st);
        // Remoteness 0 is where the game ends (a primitive value, or no move): nothing to
        // expand. Anything else is not primitive.
        if v.scored().remoteness == Some(0) {
            return Ok(());
        }
        s.moves.clear();
        game.moves(&p, &mut s.moves);
        st.moves += w * sides * s.moves.len() as u64;
        // After a move that passes the turn, the other side is to move (tracked only when
        // the position does not say it).
        let swapped = (fresh & 1) << 1 | fresh >> 1;
        // Locate every child first (prefetching its byte), then mark them: the misses
        // overlap.
        s.here.clear();
        for c in s.moves.iter() {
            let mark = if !G::MOVER_VIEW || keeps(game, &p, c) {
                fresh
            } else {
                swapped
            };
            let tc = game.tier(c);
            let Some(x) = self.targets.iter().position(|tg| tg.tier == tc) else {
                return Err(Error::Game(format!(
                    "a move from tier {t:?} reaches tier {tc:?}, not one of its child tiers"
                )));
            };
            let target = &self.targets[x];
            let j = game.rank(&canonical(game, c));
            if j >= target.part.size() {
                return Err(Error::Game(format!(
                    "rank {j} past the size of tier {tc:?}"
                )));
            }
            // With a filter, every mark goes to it first: most moves reach a slot this
            // rank has marked already, and then neither its owner nor its place is needed.
            let m = match target.sent {
                Some(f) => Mark {
                    bits: f,
                    at: (j >> 2) as usize,
                    mark: mark << (2 * (j & 3)),
                    to: 2 + x as u32,
                    slot: j,
                },
                None => {
                    let (owner, lj) = target.part.place(j);
                    if !P::ALONE && owner != me {
                        away[owner * self.nb + x * 4 + usize::from(mark)].push(lj as u32);
                        continue;
                    }
                    Mark {
                        bits: target.bits,
                        at: lj as usize,
                        mark,
                        to: u32::from(x == 0),
                        slot: j,
                    }
                }
            };
            prefetch(m.bits, m.at);
            s.here.push(m);
        }
        for m in s.here.iter() {
            let cell = &m.bits[m.at];
            if cell.load(Relaxed) & m.mark == m.mark
                || cell.fetch_or(m.mark, Relaxed) & m.mark == m.mark
            {
                continue;
            }
            match m.to {
                0 => {}
                1 => next.push(m.at as u32),
                to => {
                    // New to the filter: this rank's to mark, or another's.
                    let x = to as usize - 2;
                    let target = &self.targets[x];
                    let mark = m.mark >> (2 * (m.slot & 3));
                    let (owner, lj) = target.part.place(m.slot);
                    if owner != me {
                        away[owner * self.nb + x * 4 + usize::from(mark)].push(lj as u32);
                        continue;
                    }
                    let cell = &target.bits[lj as usize];
                    if cell.fetch_or(mark, Relaxed) & mark != mark && x == 0 {
                        next.push(lj as u32);
                    }
                }
            }
        }
        Ok(())
    }

    /// Sets the marks another rank sent (a [`pack_marks`] buffer); new marks of the tier
    /// being counted join the frontier.
    fn receive(&self, g: &[u8], frontier: &mut Vec<u32>) -> Result<(), Error> {
        let hint = |x: usize, lj: usize| {
            if let Some(tg) = self.targets.get(x) {
                prefetch(tg.bits, lj);
            }
        };
        let mut err = None;
        unpack_marks(g, hint, |x, mark, lj| {
            let Some(cell) = self.targets.get(x).and_then(|tg| tg.bits.get(lj)) else {
                err = Some(Error::Exchange(format!(
                    "a mark for place {lj} of target {x}, past this rank's share"
                )));
                return;
            };
            if cell.fetch_or(mark, Relaxed) & mark != mark && x == 0 {
                frontier.push(lj as u32);
            }
        })?;
        err.map_or(Ok(()), Err)
    }
}

/// The slots of a tier's bytes reached with some side to move: its first frontier.
pub(crate) fn reached(bits: &[AtomicU8]) -> Vec<u32> {
    bits.par_iter()
        .enumerate()
        .filter(|(_, b)| b.load(Relaxed) & 3 != 0)
        .map(|(i, _)| i as u32)
        .collect()
}

/// Marks for one rank, packed: per (target, sides) with any, a header
/// `(target << 40 | sides << 32 | count)` and `count` places of 4 bytes. `buckets[4 x
/// target + sides]` holds the places. Repeats are sent (cheaper than sorting them away:
/// the owner sets a mark once, whatever the number of copies).
fn pack_marks(buckets: &[Vec<u32>]) -> Vec<u8> {
    let n: usize = buckets.iter().map(|b| 8 + 4 * b.len()).sum();
    let mut out = Vec::with_capacity(n);
    for (h, b) in buckets.iter().enumerate() {
        if b.is_empty() {
            continue;
        }
        let (x, sides) = ((h / 4) as u64, (h % 4) as u64);
        out.extend_from_slice(&(x << 40 | sides << 32 | b.len() as u64).to_le_bytes());
        for &e in b {
            out.extend_from_slice(&e.to_le_bytes());
        }
    }
    out
}

/// Calls `f(target, sides, place)` for every mark of a [`pack_marks`] buffer.
/// `hint(target, place)` is called `AHEAD` marks before `f` (a prefetch).
fn unpack_marks(
    b: &[u8],
    hint: impl Fn(usize, usize),
    mut f: impl FnMut(usize, u8, usize),
) -> Result<(), Error> {
    let bad = || Error::Exchange("a truncated buffer of marks".into());
    let mut at = 0;
    while at < b.len() {
        let h = b.get(at..at + 8).ok_or_else(bad)?;
        let h = u64::from_le_bytes(h.try_into().expect("8 bytes"));
        at += 8;
        let n = (h & 0xffff_ffff) as usize;
        let body = b.get(at..at + 4 * n).ok_or_else(bad)?;
        at += 4 * n;
        let x = (h >> 40) as usize;
        let places: Vec<u32> = u32s(body).collect();
        for (i, &lj) in places.iter().enumerate() {
            if let Some(&ahead) = places.get(i + AHEAD) {
                hint(x, ahead as usize);
            }
            f(x, (h >> 32 & 0xff) as u8, lj as usize);
        }
    }
    Ok(())
}

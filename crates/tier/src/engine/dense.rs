//! Solving one tier of a dense-layout game, in parallel.
//!
//! # Algorithm
//! The tier's child tiers are solved; their values are looked up through canonical
//! positions and ranks ([`Below`]). One numbered slot of the tier's index is one position
//! (or a hole: a number that is no position, or a position that is not canonical under the
//! game's symmetries; holes are never solved and never read).
//!
//! 1. **Init**, in parallel over runs of slots. A primitive position, or one without moves,
//!    is decided at remoteness 0. Otherwise its moves are split: moves *inside* the tier are
//!    collected as (canonical child's slot, keeps-turn) pairs, **deduplicated**, and counted
//!    (the counter); moves to child tiers (*exits*) are looked up, and only the best exit
//!    value (seen through the move, by the mover's preference) is kept:
//!    - a win in `r` through an exit: the position is *seeded* to be won at level `r` unless
//!      something inside the tier wins sooner, and its counter gets one more (a move that is
//!      never counted down, so the position can never also be lost);
//!    - a tie or a draw through an exit: one more on the counter for good (it cannot lose);
//!      a tie in `r` is also seeded for the tie phase;
//!    - only losing exits, the slowest in `r`: one more on the counter, taken off at level
//!      `r - 1` (a *phantom* move decided then), so that the position is lost at level
//!      `max(r, 1 + its slowest move inside)`, exactly as if the exits were in the tier.
//!
//!    A position with no move inside the tier is decided at once by its best exit.
//!    Without un-moves, the init also records the tier's reverse edges (child slot -> parent
//!    slot and keeps-turn bit), laid out as CSR afterwards.
//! 2. **Wins and losses**, level by level, as in the graph engine's parallel solver: the
//!    frontier of level `r` is every position decided with remoteness `r` (plus the seeds of
//!    `r` still open, won now; plus the phantoms of `r` counted down). For every parent
//!    (un-moves, canonicalized, ranked and deduplicated; or the reverse edges) the child's
//!    value seen through the move either wins the parent (compare-exchange from undecided)
//!    or counts it down; the thread that takes the counter from 1 to 0 decides the loss.
//! 3. **Ties**: the same levels through the still undecided positions, from the tie
//!    terminals and the tie seeds.
//! 4. What is left undecided is a draw.
//!
//! # Why this is the graph engine's answer, bit for bit
//! On the game's explicit graph the FIFO solver decides every vertex at the level of its
//! first winning child or its last losing one. Here exits are vertices of already solved
//! tiers, whose levels are known: a winning exit of remoteness `r` acts at level `r` (the
//! seed), a losing one counts down at level `r - 1` (the phantom; with several losing exits,
//! only the slowest can be the last, so one phantom stands for all). Deduplication makes a
//! parent's counter and its children's un-moves count the same edges: with symmetries, the
//! counter counts distinct canonical children, and each canonical child, once decided,
//! counts down each distinct canonical parent once. Parallel edges and symmetric twins do not
//! change any value, so the values are those of the full graph. A position is never both won
//! and lost (a winning move is never counted down), so racing threads only race over *who*
//! writes a value, never over *which*; the level is fixed by the sets of positions of the
//! earlier levels. So the result does not depend on the number of threads.
//!
//! # Cells
//! One atomic cell per slot holds everything: a value once decided, else the counter (an
//! *open* code, see [`crate::engine::cell`]), so one compare-exchange from the value just read both
//! counts a position down and decides it, and the propagation touches one cache line per
//! parent. A frontier of at most one chunk, or any frontier on one thread, is processed with
//! plain loads and stores instead.
//!
//! Exits are located first (canonical child, rank) and prefetched, and read once the moves
//! inside the tier are counted, so that their cache misses overlap.
//!
//! # Memory
//! Per slot of the tier: one value cell (1 or 2 bytes); the level lists (4 bytes per entry:
//! in all, at most about one entry per position for the decided lists, plus seeds and
//! phantoms); without un-moves, 8 bytes per move inside the tier while the reverse edges are
//! built, 4 (plus offsets, 8 per slot) once they are.

use crate::api::game::{canonical, keeps, Layout, Parents, Symmetry, TierGame};
use crate::engine::cell::Cell;
use crate::engine::distinct::Distinct;
use crate::error::Error;
use rayon::prelude::*;
use retrograde_graph::Primitive;
use retrograde_solve::Value;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

/// Slots per init task.
const INIT_CHUNK: u64 = 1 << 12;
/// Frontier positions per task; smaller frontiers are processed inline.
const CHUNK: usize = 1 << 11;

/// The solved tiers a tier's moves reach: (tier, its cells by slot).
pub(crate) struct Below<'a, G: TierGame, C> {
    pub tiers: Vec<(G::Tier, &'a [C])>,
}

impl<G: TierGame, C: Cell> Below<'_, G, C> {
    /// The value of `c` (a position of a child tier) for the player to move there.
    #[inline]
    pub fn value(&self, game: &G, from: G::Tier, c: &G::Position) -> Result<Value, Error> {
        let (k, i) = self.locate(game, from, c)?;
        self.read(game, from, k, i)
    }

    /// Which child tier `c` is in and its slot there (of its canonical position).
    #[inline]
    pub fn locate(
        &self,
        game: &G,
        from: G::Tier,
        c: &G::Position,
    ) -> Result<(usize, usize), Error> {
        let tc = game.tier(c);
        let Some(k) = self.tiers.iter().position(|(t, _)| *t == tc) else {
            return Err(Error::Game(format!(
                "a move from tier {from:?} reaches tier {tc:?}, which is not one of its child tiers"
            )));
        };
        let i = <G::Layout as Layout<G>>::rank(game, &canonical(game, c)) as usize;
        if i >= self.tiers[k].1.len() {
            return Err(Error::Game(format!(
                "a move from tier {from:?} reaches {c:?}, rank {i}, past the size of tier {tc:?}"
            )));
        }
        Ok((k, i))
    }

    /// A hint to fetch a located cell.
    #[inline(always)]
    pub fn prefetch(&self, k: usize, i: usize) {
        prefetch(self.tiers[k].1, i);
    }

    /// The value at a located cell.
    #[inline]
    pub fn read(&self, _game: &G, from: G::Tier, k: usize, i: usize) -> Result<Value, Error> {
        let (tc, cells) = &self.tiers[k];
        cells[i].decode().ok_or_else(|| {
            Error::Game(format!(
                "a move from tier {from:?} reaches slot {i} of tier {tc:?}, which has no value"
            ))
        })
    }
}

/// A hint to bring `data[i]` into cache; no effect on results (and none off x86-64).
#[inline(always)]
pub(crate) fn prefetch<T>(data: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        if i < data.len() {
            // SAFETY: a prefetch is a hint that never dereferences or faults, and SSE is part
            // of every x86-64 target; the address is in bounds anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(data.as_ptr().wrapping_add(i).cast::<i8>()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, i);
}

/// Whether cell updates may race (several threads on one frontier).
#[derive(Copy, Clone)]
pub(crate) struct Racy(pub(crate) bool);

/// Decides an open cell as `v`; whether this call did.
#[inline]
pub(crate) fn decide<C: Cell>(cell: &C::Atomic, v: C, racy: Racy) -> bool {
    loop {
        let cur = C::load(cell);
        if cur.counter().is_none() {
            return false;
        }
        if !racy.0 {
            C::store(cell, v);
            return true;
        }
        if C::exchange(cell, cur, v) {
            return true;
        }
    }
}

/// Counts an open cell down, deciding it as `lost` when its counter reaches 0; whether this
/// call decided it.
#[inline]
pub(crate) fn count_down<C: Cell>(
    cell: &C::Atomic,
    lost: Option<C>,
    racy: Racy,
    t: &dyn std::fmt::Debug,
) -> Result<bool, Error> {
    loop {
        let cur = C::load(cell);
        let Some(n) = cur.counter() else {
            return Ok(false);
        };
        let new = match n {
            0 => {
                return Err(Error::Game(format!(
                    "un-moves give a position of tier {t:?} more moves than its moves do"
                )))
            }
            1 => need(lost, t)?,
            _ => C::open(n - 1).expect("smaller"),
        };
        if !racy.0 {
            C::store(cell, new);
            return Ok(n == 1);
        }
        if C::exchange(cell, cur, new) {
            return Ok(n == 1);
        }
    }
}

/// Per level, the slots of an event (`Vec` index = level).
#[derive(Default)]
pub(crate) struct Levels(Vec<Vec<u32>>);

impl Levels {
    pub(crate) fn push(&mut self, r: u32, i: u32) {
        let r = r as usize;
        if self.0.len() <= r {
            self.0.resize_with(r + 1, Vec::new);
        }
        self.0[r].push(i);
    }
    pub(crate) fn take(&mut self, r: u32) -> Vec<u32> {
        self.0
            .get_mut(r as usize)
            .map(std::mem::take)
            .unwrap_or_default()
    }
    pub(crate) fn len(&self) -> u32 {
        self.0.len() as u32
    }
    pub(crate) fn extend(&mut self, r: u32, v: Vec<u32>) {
        if v.is_empty() {
            return;
        }
        let ri = r as usize;
        if self.0.len() <= ri {
            self.0.resize_with(ri + 1, Vec::new);
        }
        if self.0[ri].is_empty() {
            self.0[ri] = v;
        } else {
            self.0[ri].extend(v);
        }
    }
}

/// What the init of one run of slots found (slots, or a rank's places in `dist.rs`).
#[derive(Default)]
pub(crate) struct InitOut {
    /// Wins and losses decided at init: (remoteness, slot).
    pub(crate) decided: Vec<(u32, u32)>,
    /// Ties decided at init.
    pub(crate) ties: Vec<(u32, u32)>,
    /// Winning exits.
    pub(crate) seeds: Vec<(u32, u32)>,
    /// Tying exits of positions still open.
    pub(crate) tie_seeds: Vec<(u32, u32)>,
    /// Losing exits of positions with moves inside: counted down at this level.
    pub(crate) phantoms: Vec<(u32, u32)>,
    /// Reverse edges (child slot, parent slot | keeps << 31), without un-moves.
    pub(crate) edges: Vec<(u32, u32)>,
    /// Some move stays in the tier.
    pub(crate) loopy: bool,
    /// Positions solved (canonical, not holes).
    pub(crate) solved: u64,
}

/// The level lists of a tier's init, gathered from the [`InitOut`]s of its runs.
#[derive(Default)]
pub(crate) struct Lists {
    pub(crate) decided: Levels,
    pub(crate) ties: Levels,
    pub(crate) seeds: Levels,
    pub(crate) tie_seeds: Levels,
    pub(crate) phantoms: Levels,
}

impl Lists {
    /// Files `o`'s events by level.
    pub(crate) fn add(&mut self, o: &InitOut) {
        for &(r, i) in &o.decided {
            self.decided.push(r, i);
        }
        for &(r, i) in &o.ties {
            self.ties.push(r, i);
        }
        for &(r, i) in &o.seeds {
            self.seeds.push(r, i);
        }
        for &(r, i) in &o.tie_seeds {
            self.tie_seeds.push(r, i);
        }
        for &(r, i) in &o.phantoms {
            self.phantoms.push(r, i);
        }
    }
}

/// Per-thread scratch space.
pub(crate) struct Scratch<P> {
    pub(crate) moves: Vec<P>,
    /// Distinct (slot << 1 | keeps-turn) of moves inside the tier or of parents.
    pub(crate) inside: Distinct<u64>,
    /// Moves inside the tier as (canonical child, keeps-turn), with un-moves: counting
    /// needs no rank.
    pub(crate) inside_pos: Distinct<(P, bool)>,
    /// Exits located: (child tier, slot, keeps-turn).
    pub(crate) exits: Vec<(usize, usize, bool)>,
    /// The distinct parents of `inside`, across ranks, this rank's first: (owner, place
    /// there, keeps-turn) (`dist.rs`).
    pub(crate) sorted: Vec<(usize, u32, bool)>,
}

impl<P: Copy + Eq + std::hash::Hash> Scratch<P> {
    pub(crate) fn new() -> Scratch<P> {
        Scratch {
            moves: Vec::with_capacity(64),
            inside: Distinct::new(),
            inside_pos: Distinct::new(),
            exits: Vec::with_capacity(64),
            sorted: Vec::with_capacity(64),
        }
    }
}

pub(crate) fn terminal(p: Primitive) -> Value {
    match p {
        Primitive::Win => Value::Win(0),
        Primitive::Loss => Value::Loss(0),
        Primitive::Tie => Value::Tie(0),
    }
}

pub(crate) fn enc<C: Cell>(v: Value, t: &dyn std::fmt::Debug) -> Result<C, Error> {
    C::encode(v).ok_or_else(|| Error::Remoteness {
        tier: format!("{t:?}"),
        max: C::MAX_REMOTENESS,
    })
}

/// The tier's cells, solved (holes 0, draws [`Cell::DRAW`]), and the number of positions
/// solved.
pub(crate) fn solve_tier<G: TierGame, C: Cell>(
    game: &G,
    t: G::Tier,
    below: &Below<'_, G, C>,
    cancel: Option<&AtomicBool>,
) -> Result<(Vec<C>, u64), Error> {
    let size = <G::Layout as Layout<G>>::tier_size(game, t);
    if size > u64::from(u32::MAX) {
        return Err(Error::Unsupported(format!(
            "tier {t:?} has {size} slots; the engine handles at most {} a tier",
            u32::MAX
        )));
    }
    let n = size as usize;
    let cells: Vec<C::Atomic> = (0..n)
        .into_par_iter()
        .map(|_| C::UNDECIDED.atomic())
        .collect();
    let unmoves = <G::Parents as Parents<G>>::UNMOVES;
    if !unmoves && size >= 1 << 31 {
        return Err(Error::Unsupported(format!(
            "tier {t:?} has {size} slots; without un-moves the engine handles at most 2^31 a tier"
        )));
    }

    // 1. Init.
    let chunks = size.div_ceil(INIT_CHUNK);
    let outs: Vec<InitOut> = (0..chunks)
        .into_par_iter()
        .map_init(Scratch::new, |s, c| {
            let lo = c * INIT_CHUNK;
            let hi = (lo + INIT_CHUNK).min(size);
            let mut out = InitOut::default();
            let mut err = Ok(());
            <G::Layout as Layout<G>>::for_each_in(game, t, lo..hi, |i, p| {
                if err.is_err() {
                    return;
                }
                if let Err(e) = init_one(game, t, below, i as u32, p, &cells, s, &mut out) {
                    err = Err(e);
                }
            });
            err.map(|_| out)
        })
        .collect::<Result<_, Error>>()?;

    let mut lists = Lists::default();
    let mut loopy = false;
    let mut solved = 0;
    let mut edge_count = 0usize;
    for o in &outs {
        loopy |= o.loopy;
        solved += o.solved;
        edge_count += o.edges.len();
    }
    // Reverse edges, CSR by child slot.
    let (rev_off, rev) = if !unmoves && loopy {
        let mut off = vec![0u64; n + 1];
        for o in &outs {
            for &(c, _) in &o.edges {
                off[c as usize + 1] += 1;
            }
        }
        for i in 0..n {
            off[i + 1] += off[i];
        }
        let mut fill = off.clone();
        let mut rev = vec![0u32; edge_count];
        for o in &outs {
            for &(c, p) in &o.edges {
                rev[fill[c as usize] as usize] = p;
                fill[c as usize] += 1;
            }
        }
        (off, rev)
    } else {
        (Vec::new(), Vec::new())
    };
    for o in &outs {
        lists.add(o);
    }
    drop(outs);
    let Lists {
        mut decided,
        mut ties,
        mut seeds,
        mut tie_seeds,
        mut phantoms,
    } = lists;

    if loopy {
        let parents = ParentsOf {
            game,
            t,
            size,
            rev_off: &rev_off,
            rev: &rev,
        };
        // 2. Wins and losses.
        let mut r = 0u32;
        while r < decided.len().max(seeds.len()).max(phantoms.len()) {
            if cancel.is_some_and(|c| c.load(Relaxed)) {
                return Err(Error::Interrupted);
            }
            let mut frontier = decided.take(r);
            let s = seeds.take(r);
            if !s.is_empty() {
                let won = enc::<C>(Value::Win(r), &t)?;
                frontier.extend(
                    s.into_iter()
                        .filter(|&i| decide::<C>(&cells[i as usize], won, Racy(false))),
                );
            }
            let lost_next = C::encode(Value::Loss(r + 1));
            let won_next = C::encode(Value::Win(r + 1));
            let mut next = Vec::new();
            for i in phantoms.take(r) {
                if count_down::<C>(&cells[i as usize], lost_next, Racy(false), &t)? {
                    next.push(i);
                }
            }
            if !frontier.is_empty() {
                let step = |chunk: &[u32],
                            s: &mut Scratch<G::Position>,
                            out: &mut Vec<u32>,
                            racy: Racy| {
                    propagate::<G, C>(
                        &parents, chunk, r, lost_next, won_next, &cells, s, out, racy,
                    )
                };
                if frontier.len() <= CHUNK || rayon::current_num_threads() == 1 {
                    step(&frontier, &mut Scratch::new(), &mut next, Racy(false))?;
                } else {
                    let lists: Vec<Vec<u32>> = frontier
                        .par_chunks(CHUNK)
                        .map_init(Scratch::new, |s, chunk| {
                            let mut out = Vec::new();
                            step(chunk, s, &mut out, Racy(true)).map(|_| out)
                        })
                        .collect::<Result<_, Error>>()?;
                    for l in lists {
                        next.extend(l);
                    }
                }
            }
            decided.extend(r + 1, next);
            r += 1;
        }
        // 3. Ties.
        let mut r = 0u32;
        while r < ties.len().max(tie_seeds.len()) {
            if cancel.is_some_and(|c| c.load(Relaxed)) {
                return Err(Error::Interrupted);
            }
            let mut frontier = ties.take(r);
            let s = tie_seeds.take(r);
            if !s.is_empty() {
                let tied = enc::<C>(Value::Tie(r), &t)?;
                frontier.extend(
                    s.into_iter()
                        .filter(|&i| decide::<C>(&cells[i as usize], tied, Racy(false))),
                );
            }
            if frontier.is_empty() {
                r += 1;
                continue;
            }
            let tied_next = C::encode(Value::Tie(r + 1));
            let step =
                |chunk: &[u32], s: &mut Scratch<G::Position>, out: &mut Vec<u32>, racy: Racy| {
                    spread_ties::<G, C>(&parents, chunk, tied_next, &cells, s, out, racy)
                };
            let mut next = Vec::new();
            if frontier.len() <= CHUNK || rayon::current_num_threads() == 1 {
                step(&frontier, &mut Scratch::new(), &mut next, Racy(false))?;
            } else {
                let lists: Vec<Vec<u32>> = frontier
                    .par_chunks(CHUNK)
                    .map_init(Scratch::new, |s, chunk| {
                        let mut out = Vec::new();
                        step(chunk, s, &mut out, Racy(true)).map(|_| out)
                    })
                    .collect::<Result<_, Error>>()?;
                for l in lists {
                    next.extend(l);
                }
            }
            ties.extend(r + 1, next);
            r += 1;
        }
    }
    // 4. Draws; holes back to 0.
    let out: Vec<C> = cells
        .into_par_iter()
        .map(|a| match C::into_inner(a) {
            c if c.counter().is_some() => C::DRAW,
            c if c == C::HOLE => C::UNDECIDED,
            c => c,
        })
        .collect();
    Ok((out, solved))
}

/// A cell that must exist: a remoteness that fits.
#[inline]
pub(crate) fn need<C: Cell>(c: Option<C>, t: &dyn std::fmt::Debug) -> Result<C, Error> {
    c.ok_or_else(|| Error::Remoteness {
        tier: format!("{t:?}"),
        max: C::MAX_REMOTENESS,
    })
}

/// Init of slot `i` (position `p`, or a hole).
#[allow(clippy::too_many_arguments)]
#[inline]
fn init_one<G: TierGame, C: Cell>(
    game: &G,
    t: G::Tier,
    below: &Below<'_, G, C>,
    i: u32,
    p: Option<G::Position>,
    cells: &[C::Atomic],
    s: &mut Scratch<G::Position>,
    out: &mut InitOut,
) -> Result<(), Error> {
    let cell = &cells[i as usize];
    let Some(p) = p else {
        C::store(cell, C::HOLE);
        return Ok(());
    };
    if !<G::Symmetry as Symmetry<G>>::is_canonical(game, &p) {
        C::store(cell, C::HOLE);
        return Ok(());
    }
    out.solved += 1;
    let fixed = match game.primitive(&p) {
        Some(v) => Some(terminal(v)),
        None => {
            s.moves.clear();
            game.moves(&p, &mut s.moves);
            s.moves.is_empty().then(|| terminal(game.no_move()))
        }
    };
    if let Some(v) = fixed {
        C::store(cell, enc::<C>(v, &t)?);
        match v {
            Value::Tie(_) => out.ties.push((0, i)),
            _ => out.decided.push((0, i)),
        }
        return Ok(());
    }
    let size = cells.len() as u64;
    let unmoves = <G::Parents as Parents<G>>::UNMOVES;
    s.inside.clear();
    s.inside_pos.clear();
    s.exits.clear();
    // Exits are located and prefetched first, read after the moves inside are counted.
    for c in &s.moves {
        let k = keeps(game, &p, c);
        if game.tier(c) == t {
            let cc = canonical(game, c);
            if unmoves {
                s.inside_pos.insert((cc, k));
                continue;
            }
            let j = <G::Layout as Layout<G>>::rank(game, &cc);
            if j >= size {
                return Err(Error::Game(format!(
                    "rank {j} of a position of tier {t:?}, whose size is {size}"
                )));
            }
            s.inside.insert(j << 1 | u64::from(k));
        } else {
            let (ct, j) = below.locate(game, t, c)?;
            below.prefetch(ct, j);
            s.exits.push((ct, j, k));
        }
    }
    let inside = if unmoves {
        s.inside_pos.len()
    } else {
        for &e in s.inside.keys() {
            out.edges
                .push(((e >> 1) as u32, i | ((e & 1) as u32) << 31));
        }
        s.inside.len()
    };
    if inside > 0 {
        out.loopy = true;
    }
    let mut best: Option<Value> = None;
    for &(ct, j, k) in &s.exits {
        let v = below.read(game, t, ct, j)?.through(k);
        if best.is_none_or(|b| v > b) {
            best = Some(v);
        }
    }
    settle::<C>(&t, cell, i, inside as u32, best, out)
}

/// Decides, seeds or opens slot `i` from its number of distinct moves inside the tier and
/// its best exit (seen through the move).
#[inline]
pub(crate) fn settle<C: Cell>(
    t: &dyn std::fmt::Debug,
    cell: &C::Atomic,
    i: u32,
    inside: u32,
    best: Option<Value>,
    out: &mut InitOut,
) -> Result<(), Error> {
    let mut count = inside;
    match best {
        _ if inside == 0 => {
            // Every move is an exit: the best one decides.
            let v = best.expect("a position with moves has an exit when none stays");
            C::store(cell, enc::<C>(v, t)?);
            match v {
                Value::Win(r) | Value::Loss(r) => out.decided.push((r, i)),
                Value::Tie(r) => out.ties.push((r, i)),
                Value::Draw => {}
            }
            return Ok(());
        }
        Some(Value::Win(r)) => {
            count += 1;
            out.seeds.push((r, i));
        }
        Some(Value::Tie(r)) => {
            count += 1;
            out.tie_seeds.push((r, i));
        }
        Some(Value::Draw) => count += 1,
        Some(Value::Loss(r)) => {
            count += 1;
            out.phantoms.push((r - 1, i));
        }
        None => {}
    }
    let open = C::open(count).ok_or_else(|| {
        Error::Unsupported(format!(
            "a position of tier {t:?} has {count} distinct moves; {}-byte value cells count at most {}",
            C::BYTES,
            C::MAX_COUNTER
        ))
    })?;
    C::store(cell, open);
    Ok(())
}

/// Where a tier's parents come from.
struct ParentsOf<'a, G: TierGame> {
    game: &'a G,
    t: G::Tier,
    size: u64,
    rev_off: &'a [u64],
    rev: &'a [u32],
}

impl<G: TierGame> ParentsOf<'_, G> {
    /// Calls `f(parent slot, keeps)` once for every distinct (parent, keeps) with a move to
    /// slot `i`; `hint[parent]` is prefetched as soon as the parent is known.
    #[inline]
    fn each<T>(
        &self,
        i: u32,
        s: &mut Scratch<G::Position>,
        hint: &[T],
        mut f: impl FnMut(u32, bool) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if !<G::Parents as Parents<G>>::UNMOVES {
            let (a, b) = (self.rev_off[i as usize], self.rev_off[i as usize + 1]);
            for &e in &self.rev[a as usize..b as usize] {
                f(e & !(1 << 31), e >> 31 == 1)?;
            }
            return Ok(());
        }
        let game = self.game;
        let p = <G::Layout as Layout<G>>::unrank(game, self.t, u64::from(i))
            .expect("a decided slot is a position");
        s.moves.clear();
        <G::Parents as Parents<G>>::unmoves(game, &p, &mut s.moves);
        s.inside.clear();
        for q in &s.moves {
            if game.tier(q) != self.t {
                return Err(Error::Game(format!(
                    "an un-move of {p:?} gives {q:?}, outside its tier {:?}",
                    self.t
                )));
            }
            let k = keeps(game, q, &p);
            let j = <G::Layout as Layout<G>>::rank(game, &canonical(game, q));
            if j >= self.size {
                return Err(Error::Game(format!(
                    "an un-move of {p:?} gives {q:?}, rank {j}, past the size {} of tier {:?}",
                    self.size, self.t
                )));
            }
            if s.inside.insert(j << 1 | u64::from(k)) {
                prefetch(hint, j as usize);
            }
        }
        for &e in s.inside.keys() {
            f((e >> 1) as u32, e & 1 == 1)?;
        }
        Ok(())
    }
}

/// Processes a chunk of a win/loss frontier of level `r`; appends what it decides (level
/// `r + 1`) to `out`.
#[allow(clippy::too_many_arguments)]
fn propagate<G: TierGame, C: Cell>(
    parents: &ParentsOf<'_, G>,
    chunk: &[u32],
    r: u32,
    lost_next: Option<C>,
    won_next: Option<C>,
    cells: &[C::Atomic],
    s: &mut Scratch<G::Position>,
    out: &mut Vec<u32>,
    racy: Racy,
) -> Result<(), Error> {
    for &c in chunk {
        let child = C::load(&cells[c as usize]);
        let lost = child.is_loss();
        debug_assert!(child.decode().is_some_and(|v| v.remoteness() == Some(r)));
        parents.each(c, s, cells, |q, k| {
            let cell = &cells[q as usize];
            // The child's value seen from the parent: a loss there is a win here, unless
            // the move keeps the turn.
            if lost != k {
                if decide::<C>(cell, need(won_next, &parents.t)?, racy) {
                    out.push(q);
                }
            } else if count_down::<C>(cell, lost_next, racy, &parents.t)? {
                out.push(q);
            }
            Ok(())
        })?;
    }
    Ok(())
}

/// Processes a chunk of a tie frontier: every undecided parent ties one ply later.
#[allow(clippy::too_many_arguments)]
fn spread_ties<G: TierGame, C: Cell>(
    parents: &ParentsOf<'_, G>,
    chunk: &[u32],
    tied_next: Option<C>,
    cells: &[C::Atomic],
    s: &mut Scratch<G::Position>,
    out: &mut Vec<u32>,
    racy: Racy,
) -> Result<(), Error> {
    for &c in chunk {
        parents.each(c, s, cells, |q, _| {
            let cell = &cells[q as usize];
            if C::load(cell).counter().is_some()
                && decide::<C>(cell, need(tied_next, &parents.t)?, racy)
            {
                out.push(q);
            }
            Ok(())
        })?;
    }
    Ok(())
}

//! The dense tier engine across ranks (MPI or any [`Exchange`]): every rank owns a share of
//! every tier, solves what it owns, and exchanges what crosses ranks in one batch per step.
//!
//! # Ownership
//! A tier's slots are cut into *units* of `unit` consecutive slots (a power of two from 1
//! to 4096, chosen from the tier's size and the number of ranks `K`), and the units into
//! blocks of `K`: each rank owns one unit of every block, the block's units rotated by a
//! hash of its number ([`Part`]). A rank keeps its slots in one array, one unit per block,
//! so its memory is about `1/K` of the tier, and the positions of a unit are listed with
//! the game's fast `for_each_in`. Blocks spread the dense index's regions (some richer in
//! canonical positions, or in moves, than others) evenly, and the rotation keeps a rank
//! from always getting the same part of a block (plain round robin gave one rank of two
//! 28% more of Quixo 4x4's canonical positions).
//!
//! # The algorithm, step by step (the same as `dense.rs`, whose notes explain it)
//! 1. **Init** of the slots a rank owns, in rounds of at most [`ROUND`] local slots (every
//!    rank runs the same number of rounds): moves inside the tier are counted and
//!    deduplicated (without un-moves, each reverse edge is sent to the owner of its child
//!    slot); exits owned by this rank are read at once, the others are *requested*: per
//!    owner, the places of the round's remote exits by child tier, in the order met (4
//!    bytes each, repeats included: cheaper than sorting them away), go out in one
//!    all-to-all (which also tells whether the tier has a move inside it on any rank), the
//!    cells come back in the same order in a second one. Then each position is decided,
//!    seeded, given a phantom or left open, exactly as one process does, from the same best
//!    exit. The per-position work (distinct moves inside, [`settle`]) is `dense.rs`'s own.
//! 2. **Wins and losses**, level by level: a rank processes its frontier of level `r`; an
//!    update (win, or count-down) of a parent it owns is applied at once, one of a parent
//!    another rank owns is appended to that rank's buffer (4 bytes: the parent's local slot
//!    and a win bit; a position's parents are first sorted, without a branch, into its
//!    rank's and the others', see [`Sides`]); the buffers go out in one all-to-all per level and are applied by their
//!    owners. Whatever is decided by either is in level `r + 1`'s frontier of its owner.
//!    The same all-to-all tells every rank whether any rank has work left (`all_to_all_max`).
//! 3. **Ties**, the same way (an update is the parent's local slot).
//! 4. What is open is a draw.
//!
//! # Why the answer is the one-process answer, bit for bit, for every `K`
//! The dense engine's argument is that a level's decisions are fixed by the sets of
//! positions of the earlier levels, never by who applies an update first: a position is
//! never both won and lost, a win at level `r + 1` is decided by any one winning child of
//! level `r`, a loss by the last count-down, and both, whoever applies them, give the value
//! `r + 1`. Here the updates of level `r` are all applied before level `r + 1` starts (the
//! all-to-all is the barrier between levels), every update one process would apply is
//! applied exactly once (each (child, parent, keeps) edge is generated once, by the owner of
//! the child), and every counter starts from the same count, since init reads the same exit
//! values and deduplicates the same moves. So each level's set of decided positions, and
//! their values, are the same as with one process; only who wrote them differs. Counts are
//! sums (and maxima) over positions, which do not depend on who adds them.
//!
//! # Limits
//! A rank holds fewer than 2^31 slots of a tier (places are `u32`, with a bit spare in
//! messages); the tier itself may be bigger than the one-process engine's `u32` slots (it
//! needs un-moves then: reverse edges name their parents by `u32` slot).
//!
//! # Memory per rank
//! Its share of the cells of the tier being solved and of the child tiers (`1/K`), the level
//! lists of its share, and per init round the exits waiting for remote values (8 bytes
//! each: the place asked for and who asked, in per-owner buckets, plus 12 bytes a waiting
//! position; the request message copies the places once more). Messages per level are at most 4 bytes per update
//! crossing ranks.

use crate::cell::{Cell, CellArray};
use crate::dense::{
    self, count_down, decide, enc, need, prefetch, settle, terminal, Lists, Racy, Scratch,
};
use crate::engine::{self, Dag, Event, SolveOptions};
use crate::error::Error;
use crate::game::{canonical, keeps, Layout, LayoutKind, Parents, Symmetry, TierGame};
use crate::solution::{TierData, TierSolution};
use crate::stats::Stats;
use crate::tierfile::{self, Kind, Reader};
use rayon::prelude::*;
use retrograde_solve::exchange::Exchange;
use retrograde_solve::Value;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

/// Local slots per init round. Each round ends with two exchanges, where the ranks wait for
/// the slowest: 2^17 against 2^16 took 0.08 s off Quixo 4x4 at K = 2 (4.85 s against 4.90 s,
/// five runs each, alternated), for about 5 MB a rank of waiting exits.
pub(crate) const ROUND: u64 = 1 << 17;
/// Local slots per init task (a multiple of every unit).
const TASK: u64 = 1 << 12;
/// Frontier positions per task.
const CHUNK: usize = 1 << 11;

/// How one tier's slots are dealt to the ranks: units of `unit` consecutive slots, in blocks
/// of `k` consecutive units; each rank owns one unit of every block, the block's units
/// rotated by a hash of the block's number (plain round robin, unit `u` to rank `u mod k`,
/// gave one rank of two 28% more of Quixo 4x4's canonical positions: the symmetry classes'
/// density follows the index's low unit bits). A rank's places are its units in order, one
/// per block, so place and slot convert by arithmetic alone.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Part {
    size: u64,
    unit: u64,
    /// `unit == 1 << shift`.
    shift: u32,
    k: u64,
    /// `ceil(2^64 / k)`: `n / k` is the high word of `n * magic` for `n < 2^32` (Lemire,
    /// Kaser and Kurz, "Faster remainder by direct computation", 2019). 0 when `k == 1`.
    magic: u64,
    /// `log2 k` when `k` is a power of two (shifts instead of multiplications), else 64.
    lk: u32,
}

/// The version of the dealing, stored in every share's header: a share written under
/// another dealing holds other slots, and is solved again rather than read.
pub(crate) const DEALING: u32 = 2;

impl Part {
    /// The dealing of a tier of `size` slots to `k` ranks.
    pub fn new(size: u64, k: usize) -> Part {
        let k = k.max(1) as u64;
        let unit = (size / (8 * k)).next_power_of_two().clamp(1, TASK);
        Part {
            size,
            unit,
            shift: unit.trailing_zeros(),
            k,
            magic: if k == 1 {
                0
            } else {
                (u64::MAX / k).wrapping_add(1)
            },
            lk: if k.is_power_of_two() {
                k.trailing_zeros()
            } else {
                64
            },
        }
    }

    /// The tier name a share's header holds: the tier's, then the dealing (see
    /// [`DEALING`]), cut to the header's 40 bytes (the file's name has the whole tier name).
    fn header_tier(&self, tier: &str) -> String {
        let tag = format!("~d{DEALING}u{}", self.shift);
        let mut cut = 40usize.saturating_sub(tag.len()).min(tier.len());
        while !tier.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}{tag}", &tier[..cut])
    }

    /// `(n / k, n % k)`, without a division for `n < 2^32`.
    #[inline]
    fn divmod(&self, n: u64) -> (u64, u64) {
        if self.lk < 64 {
            (n >> self.lk, n & (self.k - 1))
        } else if n >> 32 == 0 {
            let q = ((u128::from(self.magic) * u128::from(n)) >> 64) as u64;
            (q, n - q * self.k)
        } else {
            (n / self.k, n % self.k)
        }
    }

    /// The rotation of block `b`: a hash of `b` in `0..k`.
    #[inline]
    fn turn(&self, b: u64) -> u64 {
        let h = b.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        if self.lk < 64 {
            // The same value: (h * 2^lk) >> 32.
            h >> (32 - self.lk)
        } else {
            (h * self.k) >> 32
        }
    }

    /// The rank that owns slot `i`.
    #[inline]
    pub fn owner(&self, i: u64) -> usize {
        self.place(i).0
    }

    /// Slot `i`'s place in its owner's array.
    #[inline]
    pub fn local(&self, i: u64) -> u64 {
        self.place(i).1
    }

    /// Slot `i`'s owner and place there.
    #[inline]
    pub fn place(&self, i: u64) -> (usize, u64) {
        if self.k == 1 {
            return (0, i);
        }
        let (b, j) = self.divmod(i >> self.shift);
        let mut r = j + self.turn(b);
        if r >= self.k {
            r -= self.k;
        }
        (r as usize, b << self.shift | (i & (self.unit - 1)))
    }

    /// The slot at place `l` of rank `r`'s array.
    #[inline]
    pub fn global(&self, r: usize, l: u64) -> u64 {
        if self.k == 1 {
            return l;
        }
        let b = l >> self.shift;
        let (r, t) = (r as u64, self.turn(b));
        let j = if r >= t { r - t } else { r + self.k - t };
        ((b * self.k + j) << self.shift) | (l & (self.unit - 1))
    }

    /// How many slots rank `r` owns.
    pub fn len(&self, r: usize) -> u64 {
        let units = self.size.div_ceil(self.unit);
        if units == 0 {
            return 0;
        }
        let blocks = units.div_ceil(self.k);
        let last = blocks - 1;
        let (r, t) = (r as u64, self.turn(last));
        // Rank `r`'s unit in the last block, if the block reaches it.
        let j = if self.k == 1 {
            0
        } else if r >= t {
            r - t
        } else {
            r + self.k - t
        };
        let u = last * self.k + j;
        let tail = if u >= units {
            0
        } else if u == units - 1 && self.size % self.unit != 0 {
            self.size % self.unit
        } else {
            self.unit
        };
        last * self.unit + tail
    }

    /// The runs of consecutive slots of rank `r`'s places `lo..hi`: (first place, slots).
    fn runs(&self, r: usize, lo: u64, hi: u64, mut f: impl FnMut(u64, std::ops::Range<u64>)) {
        let mut l = lo;
        while l < hi {
            let end = ((l / self.unit + 1) * self.unit).min(hi);
            let g = self.global(r, l);
            f(l, g..g + (end - l));
            l = end;
        }
    }
}

fn bytes_of_u32(v: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 * v.len());
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

fn u32s(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

/// How many updates ahead of the one applied the cell of one is prefetched.
const AHEAD: usize = 16;

/// The `u32`s of `b`, each read `AHEAD` before it is yielded to prefetch `data[x & mask]`
/// (received updates land at random places: their cache misses overlap).
fn prefetched<'a, T>(b: &'a [u8], data: &'a [T], mask: u32) -> impl Iterator<Item = u32> + 'a {
    let n = b.len() / 4;
    let at =
        move |i: usize| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
    (0..n).map(move |i| {
        if i + AHEAD < n {
            prefetch(data, (at(i + AHEAD) & mask) as usize);
        }
        at(i)
    })
}

/// Appends a cell in `C::BYTES` little-endian bytes.
#[inline]
fn push_cell<C: Cell>(out: &mut Vec<u8>, c: C) {
    let x = c.to_u16().to_le_bytes();
    out.extend_from_slice(&x[..C::BYTES]);
}

/// The `i`th cell of a buffer of [`push_cell`]s (checked for length by the caller).
#[inline]
fn cell_at<C: Cell>(b: &[u8], i: usize) -> C {
    if C::BYTES == 1 {
        C::from_u16(u16::from(b[i]))
    } else {
        C::from_u16(u16::from_le_bytes([b[2 * i], b[2 * i + 1]]))
    }
}

/// The solved child tiers of a tier: (tier, this rank's cells, dealing).
struct Children<'a, G: TierGame, C> {
    tiers: Vec<(G::Tier, &'a [C], Part)>,
}

impl<G: TierGame, C: Cell> Children<'_, G, C> {
    /// (child tier, owner, place) of move `c` from tier `from`.
    fn locate(
        &self,
        game: &G,
        from: G::Tier,
        c: &G::Position,
    ) -> Result<(usize, usize, u64), Error> {
        let tc = game.tier(c);
        let Some(k) = self.tiers.iter().position(|(t, _, _)| *t == tc) else {
            return Err(Error::Game(format!(
                "a move from tier {from:?} reaches tier {tc:?}, which is not one of its child tiers"
            )));
        };
        let part = self.tiers[k].2;
        let i = <G::Layout as Layout<G>>::rank(game, &canonical(game, c));
        if i >= part.size {
            return Err(Error::Game(format!(
                "a move from tier {from:?} reaches {c:?}, rank {i}, past the size of tier {tc:?}"
            )));
        }
        let (owner, l) = part.place(i);
        Ok((k, owner, l))
    }

    fn read(&self, from: G::Tier, k: usize, l: u64, cell: C) -> Result<Value, Error> {
        cell.decode().ok_or_else(|| {
            Error::Game(format!(
                "a move from tier {from:?} reaches place {l} of a share of tier {:?}, which has no value",
                self.tiers[k].0
            ))
        })
    }
}

/// What the init of a task found: what one process's init finds (by place), and the
/// positions still waiting for remote exits.
#[derive(Default)]
struct InitOut {
    base: dense::InitOut,
    /// Positions waiting for remote exits: (place, moves inside, best exit so far).
    pending: Vec<(u32, u32, Option<Value>)>,
    /// Their remote exits by bucket `owner x children + child tier`: the places asked for,
    /// in the order met ...
    asks: Vec<Vec<u32>>,
    /// ... and for each, `index in pending << 1 | keeps`.
    askers: Vec<Vec<u32>>,
}

/// Init of global slot `i` at place `l` (position `p`, or a hole): as `dense.rs`'s, but
/// exits another rank owns are left for the round's exchange.
#[allow(clippy::too_many_arguments)]
#[inline]
fn init_one<G: TierGame, C: Cell>(
    game: &G,
    t: G::Tier,
    part: Part,
    me: usize,
    below: &Children<'_, G, C>,
    i: u64,
    l: u32,
    p: Option<G::Position>,
    cells: &[C::Atomic],
    s: &mut Scratch<G::Position>,
    out: &mut InitOut,
) -> Result<(), Error> {
    let cell = &cells[l as usize];
    let Some(p) = p else {
        C::store(cell, C::HOLE);
        return Ok(());
    };
    if !<G::Symmetry as Symmetry<G>>::is_canonical(game, &p) {
        C::store(cell, C::HOLE);
        return Ok(());
    }
    out.base.solved += 1;
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
            Value::Tie(_) => out.base.ties.push((0, l)),
            _ => out.base.decided.push((0, l)),
        }
        return Ok(());
    }
    let unmoves = <G::Parents as Parents<G>>::UNMOVES;
    s.inside.clear();
    s.inside_pos.clear();
    s.exits.clear();
    let pending = out.pending.len() as u32;
    let mut remote = false;
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
            if j >= part.size {
                return Err(Error::Game(format!(
                    "rank {j} of a position of tier {t:?}, whose size is {}",
                    part.size
                )));
            }
            s.inside.insert(j << 1 | u64::from(k));
        } else {
            let (ct, owner, lj) = below.locate(game, t, c)?;
            if owner == me {
                prefetch(below.tiers[ct].1, lj as usize);
                s.exits.push((ct, lj as usize, k));
            } else {
                remote = true;
                let b = owner * below.tiers.len() + ct;
                out.asks[b].push(lj as u32);
                out.askers[b].push(pending << 1 | u32::from(k));
            }
        }
    }
    let inside = if unmoves {
        s.inside_pos.len()
    } else {
        for &e in s.inside.keys() {
            out.base
                .edges
                .push(((e >> 1) as u32, i as u32 | ((e & 1) as u32) << 31));
        }
        s.inside.len()
    };
    if inside > 0 {
        out.base.loopy = true;
    }
    let mut best: Option<Value> = None;
    for &(ct, lj, k) in &s.exits {
        let v = below
            .read(t, ct, lj as u64, below.tiers[ct].1[lj])?
            .through(k);
        if best.is_none_or(|b| v > b) {
            best = Some(v);
        }
    }
    if remote {
        out.pending.push((l, inside as u32, best));
        return Ok(());
    }
    settle::<C>(&t, cell, l, inside as u32, best, &mut out.base)
}

/// Where a tier's parents come from (global slots).
struct ParentsOf<'a, G: TierGame> {
    game: &'a G,
    t: G::Tier,
    part: Part,
    me: usize,
    /// Reverse edges by place (without un-moves): offsets and parent slot | keeps << 31.
    rev_off: &'a [u64],
    rev: &'a [u32],
}

impl<G: TierGame> ParentsOf<'_, G> {
    /// Calls `f(owner, place there, keeps)` once per distinct (parent, keeps) of place `l`,
    /// this rank's parents first; `hint[place]` is prefetched for every parent as soon as
    /// it is placed (whoever owns it: a wasted hint is cheaper than a branch).
    #[inline]
    fn each<T>(
        &self,
        l: u32,
        s: &mut Scratch<G::Position>,
        hint: &[T],
        f: impl FnMut(usize, u32, bool) -> Result<(), Error>,
    ) -> Result<(), Error> {
        if !<G::Parents as Parents<G>>::UNMOVES {
            let (a, b) = (self.rev_off[l as usize], self.rev_off[l as usize + 1]);
            let mut by = Sides::new(&mut s.sorted, (b - a) as usize);
            for &e in &self.rev[a as usize..b as usize] {
                let (owner, lq) = self.part.place(u64::from(e & !(1 << 31)));
                by.put((owner, lq as u32, e >> 31 == 1), owner == self.me);
            }
            return by.each(f);
        }
        let game = self.game;
        let i = self.part.global(self.me, u64::from(l));
        let p = <G::Layout as Layout<G>>::unrank(game, self.t, i)
            .expect("a decided slot is a position");
        s.moves.clear();
        <G::Parents as Parents<G>>::unmoves(game, &p, &mut s.moves);
        s.inside.clear();
        let mut by = Sides::new(&mut s.sorted, s.moves.len());
        for q in &s.moves {
            if game.tier(q) != self.t {
                return Err(Error::Game(format!(
                    "an un-move of {p:?} gives {q:?}, outside its tier {:?}",
                    self.t
                )));
            }
            let k = keeps(game, q, &p);
            let j = <G::Layout as Layout<G>>::rank(game, &canonical(game, q));
            if j >= self.part.size {
                return Err(Error::Game(format!(
                    "an un-move of {p:?} gives {q:?}, rank {j}, past the size {} of tier {:?}",
                    self.part.size, self.t
                )));
            }
            if s.inside.insert(j << 1 | u64::from(k)) {
                let (owner, lj) = self.part.place(j);
                prefetch(hint, lj as usize);
                by.put((owner, lj as u32, k), owner == self.me);
            }
        }
        by.each(f)
    }
}

/// At most `n` items put in a buffer of `n + 1`, this rank's from the front (in order) and
/// the others' from the back (in reverse order), without a branch: which rank owns a parent
/// is a coin toss at K = 2, which a branch mispredicts half the time. [`Sides::each`] then
/// visits this rank's first, so that each run of calls takes one side of the caller's test
/// of the owner, predicted.
struct Sides<'a, T> {
    buf: &'a mut [T],
    lo: usize,
    hi: usize,
}

impl<'a, T: Copy + Default> Sides<'a, T> {
    #[inline]
    fn new(buf: &'a mut Vec<T>, n: usize) -> Self {
        buf.clear();
        buf.resize(n + 1, T::default());
        Sides { buf, lo: 0, hi: n }
    }

    #[inline]
    fn put(&mut self, e: T, mine: bool) {
        self.buf[self.lo] = e;
        self.buf[self.hi] = e;
        self.lo += usize::from(mine);
        self.hi -= usize::from(!mine);
    }
}

impl Sides<'_, (usize, u32, bool)> {
    #[inline]
    fn each(self, mut f: impl FnMut(usize, u32, bool) -> Result<(), Error>) -> Result<(), Error> {
        for &(owner, lq, k) in self.buf[..self.lo].iter().chain(&self.buf[self.hi + 1..]) {
            f(owner, lq, k)?;
        }
        Ok(())
    }
}

/// Exchanges per-destination buffers (of little-endian `u32`s, built as bytes: no copy to
/// convert them), returning what arrived (all sources) and the ranks' flag (see [`still`]):
/// whether some rank has `more` to do, or was cancelled.
fn swap(
    ex: &dyn Exchange,
    out: Vec<Vec<u8>>,
    more: bool,
    opts: &SolveOptions,
) -> (Vec<Vec<u8>>, u64) {
    ex.all_to_all_max(out, flag(more, opts))
}

/// This rank's flag: 1 when it has more to do, 2 or 3 when it was cancelled.
fn flag(more: bool, opts: &SolveOptions) -> u64 {
    u64::from(more) | u64::from(opts.cancelled().is_err()) << 1
}

/// Whether to go on, from the ranks' largest flag.
fn still(flag: u64) -> Result<bool, Error> {
    if flag >= 2 {
        return Err(Error::Interrupted);
    }
    Ok(flag == 1)
}

/// Whether any rank has anything (`n > 0`), unless one was cancelled.
fn anything(ex: &dyn Exchange, n: u64, opts: &SolveOptions) -> Result<bool, Error> {
    let mut m = [flag(n > 0, opts)];
    ex.max(&mut m);
    still(m[0])
}

/// Solves this rank's share of tier `t`: its cells by place (holes 0, draws
/// [`Cell::DRAW`]) and the positions it solved.
fn solve_tier<G: TierGame, C: Cell>(
    game: &G,
    t: G::Tier,
    part: Part,
    below: &Children<'_, G, C>,
    ex: &dyn Exchange,
    opts: &SolveOptions,
) -> Result<(Vec<C>, u64), Error> {
    let me = ex.rank();
    let kk = ex.size();
    let n = part.len(me);
    // Places are `u32` with a spare bit for messages; global slots are `u64` (a tier bigger
    // than one process's `u32` slots is fine when spread over enough ranks).
    if (0..kk).any(|r| part.len(r) >= 1 << 31) {
        return Err(Error::Unsupported(format!(
            "tier {t:?} has {} slots: over {kk} ranks, a rank would hold 2^31 or more; use at least {} ranks",
            part.size,
            part.size.div_ceil((1 << 31) - TASK)
        )));
    }
    let unmoves = <G::Parents as Parents<G>>::UNMOVES;
    if !unmoves && part.size >= 1 << 31 {
        return Err(Error::Unsupported(format!(
            "tier {t:?} has {} slots; without un-moves the engine handles at most 2^31 a tier",
            part.size
        )));
    }
    let cells: Vec<C::Atomic> = (0..n)
        .into_par_iter()
        .map(|_| C::UNDECIDED.atomic())
        .collect();
    let mut lists = Lists::default();
    let mut loopy = false;
    // Whether some rank's share has a move inside the tier (known before the remote exits:
    // told with the requests for them).
    let mut loopy_anywhere = false;
    let mut solved = 0u64;
    let mut edges_out: Vec<Vec<u32>> = vec![Vec::new(); kk];

    // 1. Init, in rounds every rank runs alike.
    let rounds = (0..kk)
        .map(|r| part.len(r).div_ceil(ROUND))
        .max()
        .unwrap_or(0);
    for round in 0..rounds {
        let lo = (round * ROUND).min(n);
        let hi = (lo + ROUND).min(n);
        let tasks = (hi - lo).div_ceil(TASK);
        let mut outs: Vec<InitOut> = (0..tasks)
            .into_par_iter()
            .map_init(Scratch::new, |s, task| {
                let a = lo + task * TASK;
                let b = (a + TASK).min(hi);
                let mut out = InitOut {
                    asks: vec![Vec::new(); kk * below.tiers.len()],
                    askers: vec![Vec::new(); kk * below.tiers.len()],
                    ..InitOut::default()
                };
                let mut err = Ok(());
                part.runs(me, a, b, |l0, g| {
                    let g0 = g.start;
                    <G::Layout as Layout<G>>::for_each_in(game, t, g, |i, p| {
                        if err.is_err() {
                            return;
                        }
                        let l = (l0 + (i - g0)) as u32;
                        if let Err(e) =
                            init_one::<G, C>(game, t, part, me, below, i, l, p, &cells, s, &mut out)
                        {
                            err = Err(e);
                        }
                    });
                });
                err.map(|_| out)
            })
            .collect::<Result<_, Error>>()?;
        loopy |= outs.iter().any(|o| o.base.loopy);
        // Remote exits: one request per owner, the places it owns by child tier, in the
        // order the positions met them (repeats and all: sorting them away cost more than
        // sending them); the answer, the cells in the same order. `at[task][b]`: where the
        // task's first exit of bucket `b = owner x children + child tier` is answered.
        let nct = below.tiers.len();
        // Bucket `b`'s first answer in its owner's reply, then each task's.
        let mut at: Vec<Vec<usize>> = Vec::with_capacity(outs.len());
        let mut next = vec![0usize; kk * nct];
        for d in 0..kk {
            let mut sum = 0;
            for ct in 0..nct {
                let b = d * nct + ct;
                next[b] = sum;
                sum += outs.iter().map(|o| o.asks[b].len()).sum::<usize>();
            }
        }
        for o in &outs {
            at.push(next.clone());
            for (x, a) in next.iter_mut().zip(&o.asks) {
                *x += a.len();
            }
        }
        let requests: Vec<Vec<u8>> = (0..kk)
            .map(|d| {
                let by_tier = |ct: usize| outs.iter().map(move |o| &o.asks[d * nct + ct]);
                let total: usize = (0..nct)
                    .map(|ct| by_tier(ct).map(Vec::len).sum::<usize>())
                    .sum();
                if total == 0 {
                    return Vec::new();
                }
                let mut m = Vec::with_capacity(4 * nct + 4 * total);
                for ct in 0..nct {
                    let len: usize = by_tier(ct).map(Vec::len).sum();
                    m.extend_from_slice(&(len as u32).to_le_bytes());
                    for a in by_tier(ct) {
                        for &lj in a {
                            m.extend_from_slice(&lj.to_le_bytes());
                        }
                    }
                }
                m
            })
            .collect();
        let (got, any_loopy) = ex.all_to_all_max(requests, u64::from(loopy));
        loopy_anywhere = any_loopy == 1;
        let bad = || Error::Unsupported(format!("a malformed request for exits of tier {t:?}"));
        let answers: Vec<Vec<u8>> = got
            .iter()
            .map(|req| -> Result<Vec<u8>, Error> {
                let mut ans = Vec::with_capacity(req.len() / 4 * C::BYTES);
                let mut rest = &req[..];
                for (_, cells, _) in &below.tiers {
                    if rest.is_empty() {
                        break;
                    }
                    let h = rest.get(..4).ok_or_else(bad)?;
                    let m = u32::from_le_bytes(h.try_into().expect("4 bytes")) as usize;
                    let body = rest.get(4..4 + 4 * m).ok_or_else(bad)?;
                    rest = &rest[4 + 4 * m..];
                    for lj in prefetched(body, cells, !0) {
                        let c = cells.get(lj as usize).copied().unwrap_or(C::UNDECIDED);
                        push_cell(&mut ans, c);
                    }
                }
                if !rest.is_empty() {
                    return Err(bad());
                }
                Ok(ans)
            })
            .collect::<Result<_, Error>>()?;
        let replies = ex.all_to_all(answers);
        for (d, reply) in replies.iter().enumerate() {
            let want: usize = outs
                .iter()
                .flat_map(|o| &o.asks[d * nct..(d + 1) * nct])
                .map(Vec::len)
                .sum();
            if reply.len() != C::BYTES * want {
                return Err(Error::Unsupported(format!(
                    "rank {d} answered {} bytes for {want} exits of tier {t:?}",
                    reply.len(),
                )));
            }
        }
        outs.par_iter_mut()
            .zip(at)
            .try_for_each(|(o, at)| -> Result<(), Error> {
                for (b, askers) in o.askers.iter().enumerate() {
                    let (owner, ct) = (b / nct, b % nct);
                    for (n, &x) in askers.iter().enumerate() {
                        let c = cell_at::<C>(&replies[owner], at[b] + n);
                        let lj = o.asks[b][n];
                        let v = below.read(t, ct, u64::from(lj), c)?.through(x & 1 == 1);
                        let best = &mut o.pending[(x >> 1) as usize].2;
                        if best.is_none_or(|b| v > b) {
                            *best = Some(v);
                        }
                    }
                }
                o.asks = Vec::new();
                o.askers = Vec::new();
                let pending = std::mem::take(&mut o.pending);
                for (l, inside, best) in pending {
                    settle::<C>(&t, &cells[l as usize], l, inside, best, &mut o.base)?;
                }
                Ok(())
            })?;
        for o in outs {
            let o = o.base;
            lists.add(&o);
            solved += o.solved;
            for (c, p) in o.edges {
                let (d, lc) = part.place(u64::from(c));
                edges_out[d].push(lc as u32);
                edges_out[d].push(p);
            }
        }
    }
    let loopy = loopy_anywhere;
    // Reverse edges at the owners of their child slots, CSR by place.
    let (rev_off, rev) = if !unmoves && loopy {
        let out = edges_out.iter().map(|v| bytes_of_u32(v)).collect();
        drop(edges_out);
        let (got, _) = swap(ex, out, false, opts);
        let mut off = vec![0u64; n as usize + 1];
        for g in &got {
            for e in g.chunks_exact(8) {
                let x = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
                *off.get_mut(x as usize + 1).ok_or_else(|| {
                    Error::Unsupported(format!("a reverse edge past a share of tier {t:?}"))
                })? += 1;
            }
        }
        for i in 0..n as usize {
            off[i + 1] += off[i];
        }
        let mut fill = off.clone();
        let mut rev = vec![0u32; off[n as usize] as usize];
        for g in &got {
            let v: Vec<u32> = u32s(g).collect();
            for e in v.chunks_exact(2) {
                rev[fill[e[0] as usize] as usize] = e[1];
                fill[e[0] as usize] += 1;
            }
        }
        (off, rev)
    } else {
        drop(edges_out);
        (Vec::new(), Vec::new())
    };

    if loopy {
        let Lists {
            mut decided,
            mut ties,
            mut seeds,
            mut tie_seeds,
            mut phantoms,
        } = lists;
        let parents = ParentsOf {
            game,
            t,
            part,
            me,
            rev_off: &rev_off,
            rev: &rev,
        };
        // 2. Wins and losses.
        // Each level ends with one exchange, which also tells whether any rank has work
        // left (a later level, or updates sent): then the next level runs everywhere. Level
        // 0 runs on every rank of a loopy tier (its exchange says whether there is more).
        let mut r = 0u32;
        let mut go = true;
        while go {
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
            let racy = frontier.len() > CHUNK && rayon::current_num_threads() > 1;
            let step = |chunk: &[u32],
                        s: &mut Scratch<G::Position>|
             -> Result<(Vec<u32>, Vec<Vec<u8>>), Error> {
                let mut out = Vec::new();
                let mut away: Vec<Vec<u8>> = vec![Vec::new(); kk];
                for &c in chunk {
                    let child = C::load(&cells[c as usize]);
                    let lost = child.is_loss();
                    parents.each(c, s, &cells, |owner, lq, k| {
                        let win = lost != k;
                        if owner != me {
                            away[owner]
                                .extend_from_slice(&(lq | u32::from(win) << 31).to_le_bytes());
                            return Ok(());
                        }
                        let cell = &cells[lq as usize];
                        if win {
                            if decide::<C>(cell, need(won_next, &t)?, Racy(racy)) {
                                out.push(lq);
                            }
                        } else if count_down::<C>(cell, lost_next, Racy(racy), &t)? {
                            out.push(lq);
                        }
                        Ok(())
                    })?;
                }
                Ok((out, away))
            };
            let results: Vec<(Vec<u32>, Vec<Vec<u8>>)> = if racy {
                frontier
                    .par_chunks(CHUNK)
                    .map_init(Scratch::new, |s, chunk| step(chunk, s))
                    .collect::<Result<_, Error>>()?
            } else {
                vec![step(&frontier, &mut Scratch::new())?]
            };
            let away = gather_away(results, &mut next, kk);
            let more = decided.len().max(seeds.len()).max(phantoms.len()) > r + 1
                || !next.is_empty()
                || away.iter().any(|a| !a.is_empty());
            let (got, flag) = swap(ex, away, more, opts);
            for g in got {
                for x in prefetched(&g, &cells, !(1 << 31)) {
                    let lq = x & !(1 << 31);
                    let cell = cells.get(lq as usize).ok_or_else(|| {
                        Error::Unsupported(format!(
                            "an update for place {lq} past a share of tier {t:?}"
                        ))
                    })?;
                    if x >> 31 == 1 {
                        if decide::<C>(cell, need(won_next, &t)?, Racy(false)) {
                            next.push(lq);
                        }
                    } else if count_down::<C>(cell, lost_next, Racy(false), &t)? {
                        next.push(lq);
                    }
                }
            }
            decided.extend(r + 1, next);
            go = still(flag)?;
            r += 1;
        }
        // 3. Ties.
        let mut r = 0u32;
        let mut go = true;
        while go {
            let mut frontier = ties.take(r);
            let s = tie_seeds.take(r);
            if !s.is_empty() {
                let tied = enc::<C>(Value::Tie(r), &t)?;
                frontier.extend(
                    s.into_iter()
                        .filter(|&i| decide::<C>(&cells[i as usize], tied, Racy(false))),
                );
            }
            let tied_next = C::encode(Value::Tie(r + 1));
            let racy = frontier.len() > CHUNK && rayon::current_num_threads() > 1;
            let step = |chunk: &[u32],
                        s: &mut Scratch<G::Position>|
             -> Result<(Vec<u32>, Vec<Vec<u8>>), Error> {
                let mut out = Vec::new();
                let mut away: Vec<Vec<u8>> = vec![Vec::new(); kk];
                for &c in chunk {
                    parents.each(c, s, &cells, |owner, lq, _| {
                        if owner != me {
                            away[owner].extend_from_slice(&lq.to_le_bytes());
                            return Ok(());
                        }
                        let cell = &cells[lq as usize];
                        if C::load(cell).counter().is_some()
                            && decide::<C>(cell, need(tied_next, &t)?, Racy(racy))
                        {
                            out.push(lq);
                        }
                        Ok(())
                    })?;
                }
                Ok((out, away))
            };
            let results: Vec<(Vec<u32>, Vec<Vec<u8>>)> = if racy {
                frontier
                    .par_chunks(CHUNK)
                    .map_init(Scratch::new, |s, chunk| step(chunk, s))
                    .collect::<Result<_, Error>>()?
            } else {
                vec![step(&frontier, &mut Scratch::new())?]
            };
            let mut next = Vec::new();
            let away = gather_away(results, &mut next, kk);
            let more = ties.len().max(tie_seeds.len()) > r + 1
                || !next.is_empty()
                || away.iter().any(|a| !a.is_empty());
            let (got, flag) = swap(ex, away, more, opts);
            for g in got {
                for lq in prefetched(&g, &cells, !0) {
                    let cell = cells.get(lq as usize).ok_or_else(|| {
                        Error::Unsupported(format!(
                            "an update for place {lq} past a share of tier {t:?}"
                        ))
                    })?;
                    if C::load(cell).counter().is_some()
                        && decide::<C>(cell, need(tied_next, &t)?, Racy(false))
                    {
                        next.push(lq);
                    }
                }
            }
            ties.extend(r + 1, next);
            go = still(flag)?;
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

/// The chunks' decisions appended to `next`; their updates for other ranks, by rank.
fn gather_away(
    results: Vec<(Vec<u32>, Vec<Vec<u8>>)>,
    next: &mut Vec<u32>,
    kk: usize,
) -> Vec<Vec<u8>> {
    let mut away: Vec<Vec<u8>> = vec![Vec::new(); kk];
    for (out, a) in results {
        if next.is_empty() {
            *next = out;
        } else {
            next.extend(out);
        }
        crate::count::append_each(&mut away, a);
    }
    away
}

/// The name of rank `r`'s share of a tier's values among `k`.
pub fn share_file(tier: &str, r: usize, k: usize) -> String {
    format!("{tier}.values.part-{r}-of-{k}")
}

/// Writes this rank's share of a tier.
fn store_share<C: CellArray>(
    st: &dyn crate::storage::Storage,
    game_name: &str,
    tier: &str,
    part: Part,
    file: &str,
    cells: &[C],
    codec: tierfile::Codec,
) -> Result<(), Error> {
    let one = engine::fits_one_byte(cells);
    let per = tierfile::BLOCK_ELEMS as usize;
    tierfile::write_values(
        st,
        file,
        &engine::header(
            game_name,
            &part.header_tier(tier),
            Kind::Values,
            if one { 1 } else { 2 },
        ),
        cells.len() as u64,
        tierfile::BLOCK_ELEMS,
        codec,
        &|b, out| {
            let mut n = 0;
            for &c in &cells[b * per..((b + 1) * per).min(cells.len())] {
                if c == C::UNDECIDED {
                    continue;
                }
                n += 1;
                engine::push_stored(out, c.decode().expect("a stored cell holds a value"), one);
            }
            n
        },
    )
}

/// Reads this rank's share of a tier back.
#[allow(clippy::too_many_arguments)]
fn load_share<G: TierGame, C: CellArray>(
    st: &dyn crate::storage::Storage,
    game: &G,
    t: G::Tier,
    tier: &str,
    file: &str,
    part: Part,
    me: usize,
) -> Result<Vec<C>, Error> {
    let r = Reader::open(
        st,
        file,
        &engine::header(&game.name(), &part.header_tier(tier), Kind::Values, 0),
    )?;
    let n = part.len(me);
    if r.count() != n {
        return Err(Error::damaged(
            r.name().to_string(),
            format!("covers {} places, this rank's share has {n}", r.count()),
        ));
    }
    let per = r.block_elems() as u64;
    if per % part.unit != 0 {
        return Err(Error::damaged(
            r.name().to_string(),
            "blocks that split units",
        ));
    }
    let mut out = vec![C::UNDECIDED; n as usize];
    out.par_chunks_mut(per.max(1) as usize)
        .enumerate()
        .try_for_each(|(b, dst)| -> Result<(), Error> {
            let raw = r.block(st, b)?;
            let stored = engine::decode_cells::<C>(&raw, r.elem(), r.name())?;
            let lo = b as u64 * per;
            let mut next = 0usize;
            let mut ok = true;
            part.runs(me, lo, lo + dst.len() as u64, |l0, g| {
                let g0 = g.start;
                engine::stored_slots(game, t, g, |i, here| {
                    if here {
                        match stored.get(next) {
                            Some(&c) => dst[(l0 + i - g0 - lo) as usize] = c,
                            None => ok = false,
                        }
                        next += 1;
                    }
                });
            });
            if !ok || next != stored.len() {
                return Err(Error::damaged(
                    r.name().to_string(),
                    format!(
                        "a block of {} values where the game has {next} positions",
                        stored.len()
                    ),
                ));
            }
            Ok(())
        })?;
    Ok(out)
}

/// What a distributed solve measured, summed over the ranks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Bytes sent between ranks.
    pub bytes: u64,
    /// Positions solved (canonical positions of every tier, each once; with sorted keys,
    /// every key of every tier).
    pub positions: u64,
}

/// Solves every tier of `game` below its root tiers across the ranks of `ex`: each rank
/// owns a share of every tier ([`Part`] for the dense layout, a key range for the sorted-keys
/// one: see `dist_sorted.rs`) and must call this with the same game and options (its own
/// storage, if any: shares are files named by [`share_file`], and [`keys_share_file`](crate::keys_share_file) for
/// sorted keys). Rank 0's answer
/// holds the totals and the start tier (enough for the start's value and the report), or
/// with `whole` every tier (memory of one process: for tests and small games); the other
/// ranks' answers hold the totals only. Resuming reuses a tier when every rank's share
/// of it checks out (with the same number of ranks).
///
/// # Errors
/// As [`crate::solve`]. An error on one rank alone leaves the others waiting: the caller
/// ends the job (MPI's abort).
pub fn solve_distributed<'g, G: TierGame>(
    game: &'g G,
    opts: &SolveOptions,
    ex: &dyn Exchange,
    whole: bool,
) -> Result<(TierSolution<'g, G>, Traffic), Error> {
    let opts = &crate::identity::begin_distributed(game, opts, ex)?;
    if <G::Layout as Layout<G>>::KIND != LayoutKind::Dense {
        return crate::dist_sorted::solve(game, opts, ex, whole);
    }
    let small = game
        .remoteness_bound()
        .is_some_and(|b| b <= u8::MAX_REMOTENESS);
    if small {
        solve_dense::<G, u8>(game, opts, ex, whole)
    } else {
        solve_dense::<G, u16>(game, opts, ex, whole)
    }
}

fn solve_dense<'g, G: TierGame, C: CellArray>(
    game: &'g G,
    opts: &SolveOptions,
    ex: &dyn Exchange,
    whole: bool,
) -> Result<(TierSolution<'g, G>, Traffic), Error> {
    let gname = game.name();
    let (me, kk) = (ex.rank(), ex.size());
    let dag = Dag::build(game)?;
    let n = dag.tiers.len();
    let sizes: Vec<u64> = dag
        .tiers
        .iter()
        .map(|&t| <G::Layout as Layout<G>>::tier_size(game, t))
        .collect();
    let parts: Vec<Part> = sizes.iter().map(|&s| Part::new(s, kk)).collect();
    opts.emit(&Event::Plan {
        tiers: n,
        slots: sizes.iter().sum(),
    });
    let cell = C::BYTES as u64;
    let storage = opts.storage.as_deref();
    let files: Vec<String> = dag.names.iter().map(|t| share_file(t, me, kk)).collect();
    let started = Instant::now();
    let mut resident: Vec<Option<Arc<Vec<C>>>> = vec![None; n];
    let mut done = vec![false; n];
    let mut parents_left: Vec<usize> = dag.parents.iter().map(Vec::len).collect();
    if let Some(st) = storage {
        if !opts.resume {
            st.remove(engine::META)
                .map_err(|e| Error::io(st.describe(engine::META), "remove", e))?;
        }
        for &k in &dag.order {
            let mine = if opts.resume && st.size(&files[k]).ok().flatten().is_some() {
                match load_share::<G, C>(
                    st,
                    game,
                    dag.tiers[k],
                    &dag.names[k],
                    &files[k],
                    parts[k],
                    me,
                ) {
                    Ok(_) => true,
                    Err(e) => {
                        opts.emit(&Event::Damaged { error: &e });
                        false
                    }
                }
            } else {
                false
            };
            done[k] = ex.all(mine);
            if !done[k] && st.size(&files[k]).ok().flatten().is_some() {
                st.remove(&files[k])
                    .map_err(|e| Error::io(st.describe(&files[k]), "remove", e))?;
            }
        }
    }
    let load = |k: usize| -> Result<Vec<C>, Error> {
        let st = storage.expect("an evicted tier was stored");
        load_share::<G, C>(
            st,
            game,
            dag.tiers[k],
            &dag.names[k],
            &files[k],
            parts[k],
            me,
        )
    };
    let mut finished = 0u64;
    let mut solved = 0u64;
    for &k in &dag.order {
        opts.cancelled()?;
        let name = &dag.names[k];
        opts.emit(&Event::Tier {
            tier: name,
            size: sizes[k],
            done: finished,
            reused: done[k],
        });
        if !done[k] {
            for &c in &dag.children[k] {
                if resident[c].is_none() {
                    resident[c] = Some(Arc::new(load(c)?));
                }
            }
            let held: u64 = resident
                .iter()
                .flatten()
                .map(|c| c.len() as u64 * cell)
                .sum();
            let work = parts[k].len(me).saturating_mul(cell + 1 + 4);
            opts.check_memory(
                || format!("tier {name} (rank {me})"),
                held.saturating_add(work),
            )?;
            let below = Children {
                tiers: dag.children[k]
                    .iter()
                    .map(|&c| {
                        (
                            dag.tiers[c],
                            &resident[c].as_ref().expect("loaded")[..],
                            parts[c],
                        )
                    })
                    .collect(),
            };
            let (cells, s) = solve_tier::<G, C>(game, dag.tiers[k], parts[k], &below, ex, opts)?;
            solved += s;
            drop(below);
            if let Some(st) = storage {
                store_share(st, &gname, name, parts[k], &files[k], &cells, opts.codec)?;
            }
            resident[k] = Some(Arc::new(cells));
            done[k] = true;
        }
        finished += sizes[k];
        for &c in &dag.children[k] {
            parents_left[c] -= 1;
            if parents_left[c] == 0 && storage.is_some() {
                resident[c] = None;
            }
        }
    }
    let solve_time = started.elapsed();

    // Totals.
    let started = Instant::now();
    let mut get = |k: usize| -> Result<Arc<Vec<C>>, Error> {
        match &resident[k] {
            Some(c) => Ok(c.clone()),
            None => Ok(Arc::new(load(k)?)),
        }
    };
    let has_start = game.start().is_some();
    let (mut stats, tier_stats) = match game.start() {
        Some(start) if opts.count => {
            let s = count::<G, C>(game, &dag, &parts, start, &mut get, ex, opts)?;
            (s, vec![None; n])
        }
        _ => {
            let mut per = Vec::with_capacity(n);
            for (k, (&t, &part)) in dag.tiers.iter().zip(&parts).enumerate() {
                per.push(tally::<G, C>(game, t, part, me, &get(k)?));
            }
            let per = merge_stats(ex, per);
            let mut s = Stats::default();
            for t in &per {
                s.merge(t);
            }
            let ts = if has_start {
                vec![None; n]
            } else {
                per.into_iter().map(Some).collect()
            };
            (s, ts)
        }
    };
    stats.explore = started.elapsed();
    stats.solve = solve_time;

    // The start's tier (or every tier), whole, at rank 0.
    let mut data: Vec<TierData> = (0..n)
        .map(|_| TierData::Cells(C::wrap(Arc::new(Vec::new()))))
        .collect();
    let wanted: Vec<usize> = if whole {
        (0..n).collect()
    } else {
        game.start()
            .and_then(|s| {
                let ts = game.tier(&canonical(game, &s));
                dag.tiers.iter().position(|&t| t == ts)
            })
            .into_iter()
            .collect()
    };
    {
        for ks in wanted {
            let mine = get(ks)?;
            let bytes: Vec<u8> = mine.iter().flat_map(|c| c.to_u16().to_le_bytes()).collect();
            if let Some(all) = ex.gather(&bytes) {
                let part = parts[ks];
                let mut whole = vec![C::UNDECIDED; sizes[ks] as usize];
                for (r, b) in all.iter().enumerate() {
                    if b.len() as u64 != 2 * part.len(r) {
                        return Err(Error::Unsupported(format!(
                            "rank {r} sent {} bytes of a share of tier {}",
                            b.len(),
                            dag.names[ks]
                        )));
                    }
                    for (l, c) in b.chunks_exact(2).enumerate() {
                        whole[part.global(r, l as u64) as usize] =
                            C::from_u16(u16::from_le_bytes([c[0], c[1]]));
                    }
                }
                data[ks] = TierData::Cells(C::wrap(Arc::new(whole)));
            }
        }
    }
    if let Some(st) = storage {
        assemble::<G, C>(game, &dag, &parts, &files, ex, st, opts)?;
    }
    let mut tr = [ex.bytes_sent(), solved];
    ex.sum(&mut tr);
    let traffic = Traffic {
        bytes: tr[0],
        positions: tr[1],
    };
    let solution = TierSolution::new(
        game,
        dag.tiers.clone(),
        data,
        None,
        stats,
        tier_stats,
        sizes.clone(),
        C::BYTES as u32,
    );
    if let (Some(st), 0) = (storage, me) {
        engine::write_finished(st, &solution, opts, "dense", &dag.names, &sizes)?;
    }
    Ok((solution, traffic))
}

/// Writes every tier's values file as one process writes it (`{tier}.values`, the same
/// bytes) at rank 0, from the ranks' shares, one batch of blocks at a time: for each batch
/// every rank sends the cells it owns of the batch's slots, in order, and rank 0 puts them
/// together (memory: a batch, and each rank one share at a time). With `database.json`,
/// written last by the caller, the directory is then a database like any other, that
/// `query`, `play` and `serve` open and that one process resumes from.
fn assemble<G: TierGame, C: CellArray>(
    game: &G,
    dag: &Dag<G::Tier>,
    parts: &[Part],
    files: &[String],
    ex: &dyn Exchange,
    st: &dyn crate::storage::Storage,
    opts: &SolveOptions,
) -> Result<(), Error> {
    let (me, kk) = (ex.rank(), ex.size());
    let gname = game.name();
    let per = u64::from(tierfile::BLOCK_ELEMS);
    let total: u64 = parts.iter().map(|p| p.size).sum();
    let mut done = 0u64;
    if me == 0 {
        // Until it is written again, the directory holds no finished database.
        st.remove(engine::META)
            .map_err(|e| Error::io(st.describe(engine::META), "remove", e))?;
    }
    for (k, name) in dag.names.iter().enumerate() {
        let part = parts[k];
        // The share, and at rank 0 a batch gathered, its cells and its raw blocks.
        let batch = (tierfile::BATCH as u64 * per).min(part.size);
        let at_root = if me == 0 {
            batch * (2 * C::BYTES as u64 + 2)
        } else {
            0
        };
        opts.check_memory(
            || format!("putting tier {name} together (rank {me})"),
            (part.len(me) * (C::BYTES as u64 + 2)).saturating_add(at_root),
        )?;
        let share = load_share::<G, C>(st, game, dag.tiers[k], name, &files[k], part, me)?;
        let one = ex.all(engine::fits_one_byte(&share));
        // Calls `f(owner, place, slots)` for the runs of slots `lo..hi` (whole units, but
        // for the tier's last), in order.
        let runs = |lo: u64, hi: u64, f: &mut dyn FnMut(usize, u64, u64)| {
            let mut i = lo;
            while i < hi {
                let end = (((i >> part.shift) + 1) << part.shift).min(hi);
                let (owner, l) = part.place(i);
                f(owner, l, end - i);
                i = end;
            }
        };
        let slots = |blocks: &std::ops::Range<usize>| {
            (
                blocks.start as u64 * per,
                (blocks.end as u64 * per).min(part.size),
            )
        };
        let mine = |blocks: &std::ops::Range<usize>| -> Vec<u8> {
            let (lo, hi) = slots(blocks);
            let mut out = Vec::new();
            runs(lo, hi, &mut |owner, l, n| {
                if owner == me {
                    for &c in &share[l as usize..(l + n) as usize] {
                        push_cell(&mut out, c);
                    }
                }
            });
            out
        };
        let mut step = |blocks: &std::ops::Range<usize>| {
            done += slots(blocks).1 - slots(blocks).0;
            opts.emit(&Event::Assemble { done, total });
        };
        if me != 0 {
            for blocks in tierfile::batches(part.size, tierfile::BLOCK_ELEMS) {
                ex.gather(&mine(&blocks));
                step(&blocks);
            }
            continue;
        }
        tierfile::write_batches(
            st,
            &engine::values_file(name),
            &engine::header(&gname, name, Kind::Values, if one { 1 } else { 2 }),
            part.size,
            tierfile::BLOCK_ELEMS,
            opts.codec,
            &mut |blocks| {
                let all = ex.gather(&mine(&blocks)).expect("rank 0 gathers");
                step(&blocks);
                let (lo, hi) = slots(&blocks);
                let mut cells = Vec::with_capacity((hi - lo) as usize);
                let mut at = vec![0usize; kk];
                let mut short = None;
                runs(lo, hi, &mut |owner, _, n| {
                    for _ in 0..n {
                        let i = at[owner];
                        if (i + 1) * C::BYTES > all[owner].len() {
                            short = Some(owner);
                            cells.push(C::UNDECIDED);
                            continue;
                        }
                        cells.push(cell_at::<C>(&all[owner], i));
                        at[owner] += 1;
                    }
                });
                if let Some(r) = short {
                    return Err(Error::Unsupported(format!(
                        "rank {r} sent too few cells of tier {name}"
                    )));
                }
                Ok(cells
                    .chunks(per as usize)
                    .map(|block| {
                        let mut raw = Vec::new();
                        let mut n = 0;
                        for &c in block {
                            if c == C::UNDECIDED {
                                continue;
                            }
                            n += 1;
                            engine::push_stored(
                                &mut raw,
                                c.decode().expect("a stored cell holds a value"),
                                one,
                            );
                        }
                        (raw, n)
                    })
                    .collect())
            },
        )?;
    }
    Ok(())
}

/// Every rank's per-tier totals, summed (at every rank).
pub(crate) fn merge_stats(ex: &dyn Exchange, mine: Vec<Stats>) -> Vec<Stats> {
    let bytes = serde_json::to_vec(&mine).expect("serializable");
    let mut merged = if let Some(all) = ex.gather(&bytes) {
        let mut acc = mine.clone();
        for s in &mut acc {
            *s = Stats::default();
        }
        for b in all {
            let v: Vec<Stats> = serde_json::from_slice(&b).expect("sent by a rank");
            for (a, s) in acc.iter_mut().zip(&v) {
                a.merge(s);
            }
        }
        serde_json::to_vec(&acc).expect("serializable")
    } else {
        Vec::new()
    };
    ex.broadcast(&mut merged);
    serde_json::from_slice(&merged).expect("sent by rank 0")
}

/// Totals over the positions of this rank's share of a tier.
fn tally<G: TierGame, C: Cell>(game: &G, t: G::Tier, part: Part, me: usize, cells: &[C]) -> Stats {
    const PART: usize = 1 << 14;
    cells
        .par_chunks(PART)
        .enumerate()
        .map(|(c, chunk)| {
            let mut s = Stats::default();
            let mut moves = Vec::new();
            for (j, cell) in chunk.iter().enumerate() {
                let Some(v) = cell.decode() else { continue };
                let i = part.global(me, (c * PART + j) as u64);
                let Some(p) = <G::Layout as Layout<G>>::unrank(game, t, i) else {
                    continue;
                };
                let w = <G::Symmetry as Symmetry<G>>::class_size(game, &p);
                s.positions += w;
                s.states += w;
                s.classes += 1;
                s.count_many(v, w);
                if game.primitive(&p).is_none() {
                    moves.clear();
                    game.moves(&p, &mut moves);
                    s.moves += w * moves.len() as u64;
                }
            }
            s
        })
        .reduce(Stats::default, |mut a, b| {
            a.merge(&b);
            a
        })
}

/// The positions reachable from the start, as `count.rs` counts them, across ranks: each
/// rank expands the reached slots it owns, one step of the search, collecting marks for
/// slots of other ranks (4 bytes a place, grouped by tier and sides, without repeats at K =
/// 2 to 4); the marks are exchanged after each step, until no rank has a mark or a frontier
/// left.
fn count<G: TierGame, C: Cell>(
    game: &G,
    dag: &Dag<G::Tier>,
    parts: &[Part],
    start: G::Position,
    cells: &mut dyn FnMut(usize) -> Result<Arc<Vec<C>>, Error>,
    ex: &dyn Exchange,
    opts: &SolveOptions,
) -> Result<Stats, Error> {
    let (me, kk) = (ex.rank(), ex.size());
    let n = dag.tiers.len();
    let index: std::collections::HashMap<G::Tier, usize> =
        dag.tiers.iter().enumerate().map(|(k, &t)| (t, k)).collect();
    let total: u64 = parts.iter().map(|p| p.size).sum();
    let mut bits: Vec<Option<Vec<AtomicU8>>> = (0..n).map(|_| None).collect();
    let alloc =
        |k: usize| -> Vec<AtomicU8> { (0..parts[k].len(me)).map(|_| AtomicU8::new(0)).collect() };
    let s = canonical(game, &start);
    let Some(&ks) = index.get(&game.tier(&s)) else {
        return Err(Error::Game(
            "the start's tier is not among the tiers".into(),
        ));
    };
    let si = <G::Layout as Layout<G>>::rank(game, &s);
    if parts[ks].owner(si) == me {
        let b = bits[ks].get_or_insert_with(|| alloc(ks));
        b[parts[ks].local(si) as usize].store(1, Relaxed);
    }
    let mut stats = Stats::default();
    let mut counted = 0u64;
    // The marks this rank made, 2 bits a slot of the whole tier (by global slot): a mark is
    // sent once, not once per move that reaches it (Quixo 4x4 at K = 2: 88 MB a rank down
    // to 10 MB), and a move to a slot already marked here costs no owner, no place and no
    // second byte (most moves: the count's time at K = 2 fell by 13%). Kept only while it
    // is no bigger than the rank's own bytes of the tier (`size / 4 <= size / K`), so that
    // memory per rank stays about `1/K`; with more ranks repeats are sent, and the owner
    // sets each mark once whatever the copies.
    let filter = (2..=4).contains(&kk);
    let mut sent: Vec<Option<Vec<AtomicU8>>> = (0..n).map(|_| None).collect();
    for &k in dag.order.iter().rev() {
        opts.emit(&Event::Count {
            done: counted,
            total,
        });
        counted += parts[k].size;
        let mine = bits[k].take().unwrap_or_else(|| alloc(k));
        for &c in &dag.children[k] {
            if bits[c].is_none() {
                bits[c] = Some(alloc(c));
            }
        }
        let mut frontier = crate::count::reached(&mine);
        // A tier no rank has reached stays unreached: marks inside a tier come from it.
        if !anything(ex, frontier.len() as u64, opts)? {
            continue;
        }
        let values = cells(k)?;
        if filter {
            for &c in std::iter::once(&k).chain(&dag.children[k]) {
                if sent[c].is_none() {
                    sent[c] = Some(
                        (0..parts[c].size.div_ceil(4))
                            .map(|_| AtomicU8::new(0))
                            .collect(),
                    );
                }
            }
        }
        let t = dag.tiers[k];
        // Targets: this tier (0) and its children (1..).
        let mut targets: Vec<(G::Tier, usize)> = vec![(t, k)];
        targets.extend(dag.children[k].iter().map(|&c| (dag.tiers[c], c)));
        let nb = 4 * targets.len();
        let mut go = true;
        while go {
            // Marks for other ranks, by (target, sides): `nb` buckets per rank.
            let mut away: Vec<Vec<u32>> = vec![Vec::new(); kk * nb];
            // One step of the search, then an exchange. (Expanding here until nothing reached
            // here is left, before exchanging, saved few exchanges and made the ranks take
            // turns: 2.7x the count's wall time at K = 2 on Quixo 4x4.)
            {
                let sent_ref = &sent;
                // This rank's bytes of each target.
                let mine_of: Vec<&[AtomicU8]> = std::iter::once(&mine[..])
                    .chain(
                        targets[1..]
                            .iter()
                            .map(|&(_, kc)| &bits[kc].as_ref().expect("allocated")[..]),
                    )
                    .collect();
                let mine_of = &mine_of;
                let results: Vec<(Stats, Vec<u32>, Vec<Vec<u32>>)> = frontier
                .par_chunks(CHUNK)
                .map_init(
                    || (Vec::new(), Vec::new()),
                    |(moves, here): &mut (Vec<G::Position>, Vec<Mark<'_>>), chunk| {
                    let mut st = Stats::default();
                    let mut next = Vec::new();
                    let mut away: Vec<Vec<u32>> = vec![Vec::new(); kk * nb];
                    for &l in chunk {
                        let b = &mine[l as usize];
                        let word = b.load(Relaxed);
                        let pending = word & 3 & !(word >> 2);
                        if pending == 0 {
                            continue;
                        }
                        let before = b.fetch_or(pending << 2, Relaxed);
                        let fresh = pending & !(before >> 2);
                        if fresh == 0 {
                            continue;
                        }
                        let i = parts[k].global(me, u64::from(l));
                        let p = <G::Layout as Layout<G>>::unrank(game, t, i).ok_or_else(|| {
                            Error::Game(format!("a move reaches slot {i} of tier {t:?}, which is a hole"))
                        })?;
                        let v = values
                            .get(l as usize)
                            .and_then(|c| c.decode())
                            .ok_or_else(|| {
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
                        st.count_many(v, w * sides);
                        // Remoteness 0 is where the game ends (a primitive value, or no
                        // move): nothing to expand. Anything else is not primitive.
                        if v.remoteness() == Some(0) {
                            continue;
                        }
                        moves.clear();
                        game.moves(&p, moves);
                        st.moves += w * sides * moves.len() as u64;
                        let swapped = (fresh & 1) << 1 | fresh >> 1;
                        // Locate every child first (prefetching its byte), then mark them.
                        here.clear();
                        for c in moves.iter() {
                            let mark = if !G::MOVER_VIEW || keeps(game, &p, c) {
                                fresh
                            } else {
                                swapped
                            };
                            let tc = game.tier(c);
                            let Some(x) = targets.iter().position(|(tt, _)| *tt == tc) else {
                                return Err(Error::Game(format!(
                                    "a move from tier {t:?} reaches tier {tc:?}, not one of its child tiers"
                                )));
                            };
                            let kc = targets[x].1;
                            let j = <G::Layout as Layout<G>>::rank(game, &canonical(game, c));
                            if j >= parts[kc].size {
                                return Err(Error::Game(format!("rank {j} past the size of tier {tc:?}")));
                            }
                            // With a filter, every mark goes to it first: most moves reach
                            // a slot this rank has marked already, and then neither its owner
                            // nor its place is needed.
                            let m = if let Some(f) = sent_ref[kc].as_deref() {
                                Mark { bits: f, at: (j >> 2) as usize, mark: mark << (2 * (j & 3)), to: 2 + x as u32, slot: j }
                            } else {
                                let (owner, lj) = parts[kc].place(j);
                                if owner != me {
                                    away[owner * nb + x * 4 + usize::from(mark)].push(lj as u32);
                                    continue;
                                }
                                Mark { bits: mine_of[x], at: lj as usize, mark, to: u32::from(x == 0), slot: j }
                            };
                            crate::dense::prefetch(m.bits, m.at);
                            here.push(m);
                        }
                        for m in here.iter() {
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
                                    let kc = targets[x].1;
                                    let mark = m.mark >> (2 * (m.slot & 3));
                                    let (owner, lj) = parts[kc].place(m.slot);
                                    if owner != me {
                                        away[owner * nb + x * 4 + usize::from(mark)].push(lj as u32);
                                        continue;
                                    }
                                    let cell = &mine_of[x][lj as usize];
                                    if cell.fetch_or(mark, Relaxed) & mark != mark && x == 0 {
                                        next.push(lj as u32);
                                    }
                                }
                            }
                        }
                    }
                    Ok((st, next, away))
                })
                .collect::<Result<_, Error>>()?;
                frontier = Vec::new();
                for (st, next, a) in results {
                    stats.merge(&st);
                    frontier.extend(next);
                    crate::count::append_each(&mut away, a);
                }
            }
            let more = !frontier.is_empty() || away.iter().any(|a| !a.is_empty());
            let packed: Vec<Vec<u8>> = away.chunks(nb).map(pack_marks).collect();
            drop(away);
            let away = packed;
            let (got, f) = ex.all_to_all_max(away, flag(more, opts));
            go = still(f)?;
            for g in got {
                let mut err = None;
                let hint = |x: usize, lj: usize| {
                    if x == 0 {
                        prefetch(&mine, lj);
                    } else if let Some(b) = targets.get(x).and_then(|&(_, kc)| bits[kc].as_ref()) {
                        prefetch(b, lj);
                    }
                };
                unpack_marks(&g, hint, |x, mark, lj| {
                    let Some(&(_, kc)) = targets.get(x) else {
                        err = Some(Error::Unsupported("a mark for an unknown tier".into()));
                        return;
                    };
                    let cell = if x == 0 {
                        mine.get(lj)
                    } else {
                        bits[kc].as_ref().and_then(|b| b.get(lj))
                    };
                    let Some(cell) = cell else {
                        err = Some(Error::Unsupported("a mark past a share of a tier".into()));
                        return;
                    };
                    if cell.fetch_or(mark, Relaxed) & mark != mark && x == 0 {
                        frontier.push(lj as u32);
                    }
                })?;
                if let Some(e) = err {
                    return Err(e);
                }
            }
        }
        // Marks into tier `k` come from tier `k` (its parents were counted before it).
        sent[k] = None;
    }
    let mut merged = merge_stats(ex, vec![stats]);
    Ok(merged.pop().expect("one"))
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
    let bad = || Error::Unsupported("a truncated buffer of marks".into());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_deal_every_slot_once() {
        for size in [0u64, 1, 15, 16, 17, 100, 1000, 4097, 70_000] {
            for k in 1..=5 {
                let p = Part::new(size, k);
                let mut seen = vec![false; size as usize];
                for r in 0..k {
                    for l in 0..p.len(r) {
                        let i = p.global(r, l);
                        assert!(i < size, "size {size} k {k} r {r} l {l}");
                        assert!(!seen[i as usize]);
                        seen[i as usize] = true;
                        assert_eq!((p.owner(i), p.local(i)), (r, l));
                    }
                }
                assert!(seen.iter().all(|&s| s), "size {size} k {k}");
            }
        }
    }

    #[test]
    fn divmod_is_division() {
        for k in 2..=9u64 {
            let p = Part::new(1 << 20, k as usize);
            let mut x = 0x2545_f491_4f6c_dd1du64;
            for n in (0..2000u64).chain([u32::MAX as u64 - 1, u32::MAX as u64, 1 << 32, u64::MAX]) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                for m in [n, x >> 32, x] {
                    assert_eq!(p.divmod(m), (m / k, m % k), "{m} / {k}");
                }
            }
        }
    }

    #[test]
    fn dealing_balances_every_rank() {
        // Each rank owns one unit of every block: lengths differ by at most one unit.
        for size in [1u64 << 20, 3_000_017, 43_046_721] {
            for k in 2..=7 {
                let p = Part::new(size, k);
                let lens: Vec<u64> = (0..k).map(|r| p.len(r)).collect();
                assert_eq!(lens.iter().sum::<u64>(), size);
                let (lo, hi) = (lens.iter().min().unwrap(), lens.iter().max().unwrap());
                assert!(hi - lo <= p.unit, "size {size} k {k}: {lens:?}");
                // Even units do not all go to even ranks (the rotation varies by block).
                let evens = (0..64)
                    .filter(|&b| p.owner(b * k as u64 * p.unit) == 0)
                    .count();
                assert!(evens > 0 && evens < 64, "size {size} k {k}");
            }
        }
    }

    #[test]
    fn share_headers_name_the_dealing_within_40_bytes() {
        let p = Part::new(1 << 20, 3);
        assert_eq!(
            p.header_tier("x3o2"),
            format!("x3o2~d{DEALING}u{}", p.shift)
        );
        let long = "é".repeat(30);
        let h = p.header_tier(&long);
        assert!(
            h.len() <= 40 && h.ends_with(&format!("~d{DEALING}u{}", p.shift)),
            "{h}"
        );
    }

    #[test]
    fn a_share_of_another_dealing_is_not_read() {
        let st = crate::storage::MemStorage::new();
        let part = Part::new(10_000, 2);
        let cells = vec![<u8 as Cell>::encode(Value::Win(1)).unwrap(); part.len(0) as usize];
        let file = share_file("t", 0, 2);
        store_share(&st, "g", "t", part, &file, &cells, tierfile::Codec::Raw).unwrap();
        let ours = engine::header("g", &part.header_tier("t"), Kind::Values, 0);
        assert!(Reader::open(&st, &file, &ours).is_ok());
        // What the first dealing (round robin) wrote: the plain tier name.
        let before = engine::header("g", "t", Kind::Values, 0);
        assert!(Reader::open(&st, &file, &before).is_err());
    }
}

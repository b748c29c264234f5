//! One dense tier solved in a byte a slot: the class cells' solve.
//!
//! The value cells' solve (`dense.rs`) keeps a position's value in its cell, remoteness and
//! all (2 bytes a slot for chess, 4 with scores). Here a slot's byte holds its class once
//! decided (won, lost, tied: [`ClassCell`]) and its counter while open; the remoteness (and
//! with scores the score) is what the level the position was decided at says, so the
//! levels log each level's frontier (already sorted by place) in a [`LevelLog`], packed
//! ([`Packed`]: about a byte a position), and the lists waiting for their level (seeds,
//! phantoms, positions decided at init) are packed too. The init and the levels are the
//! value cells' own code ([`solve_slots`]): they see [`Narrow`] slots and a [`Classes`]
//! rule, whose won, lost and tied ignore the level.
//!
//! When the tier is finished its value cells are made a span of places at a time
//! ([`Finished::span`]): a hole is a hole, an open position a draw, and a won, lost or
//! tied one takes the value the rule of its level gives, read off the level's list. So the
//! values file is written a batch of blocks at a time ([`Finished::store`], the very
//! bytes of the value cells' file) without the whole tier's value cells ever being held,
//! and the totals are counted in the same pass; where the driver keeps the tier in memory
//! it makes them whole ([`Finished::cells`]).
//!
//! A counter past the byte's 249 (a position with that many distinct moves inside its
//! tier) goes to a side table, found by binary search: the cell holds
//! [`ClassCell::ESCAPE`].
//!
//! Why: the level log is written once and read once, in place order, where the value
//! cells' remoteness was rewritten in every cell; a tier's memory while it is solved is its
//! byte cells, the packed lists and the log (the plan's bound: `engine/mod.rs`,
//! `Work::classes`, 10 bytes a slot).
//!
//! Measured (2 threads, a loaded machine, release build; whole-process figures, class
//! cells against value cells): Quixo 4x4 1.04x the CPU time (median of 3 pairs), peak 129
//! against 125 MiB; one pair each: Kalah 4x3 0.97x, 181 against 187 MiB; KQvKR 1.07x, 36
//! against 33 MiB; the chess ending KRNvKN 0.97x, peak 977 against 767 MiB without a
//! storage (the tier's value cells made whole beside its byte cells and log), and with
//! one (`--db`) 1.06x, peak 574 against 769 MiB. So the engine's choice
//! (`Working::Auto`) is value cells: class cells lower the peak only with a storage, at
//! some 5% more time, and the plan (an upper bound) does not count them lower.

use crate::api::game::DenseIndex;
use crate::engine::dense::{
    check_size, need, prefetch, solve_slots, Below, Phase, Racy, Record, Rule, Slots, Staged,
};
use crate::engine::log::{Packed, SPAN, SPAN_BITS};
use crate::engine::SolveOptions;
use crate::error::Error;
use crate::store::cell::{Cell, ClassCell, Worth};
use crate::store::storage::Storage;
use crate::store::tierfile::{self, Codec, Header};
use rayon::prelude::*;
use retrograde_solve::exchange::Exchange;
use retrograde_solve::place::Placement;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering::Relaxed};

/// A byte a slot ([`ClassCell`]), and the counters past the byte.
pub(crate) struct Narrow<V> {
    cells: Vec<AtomicU8>,
    /// The places whose counters are past the byte, sorted ...
    over_at: Vec<u32>,
    /// ... and their counters.
    over: Vec<AtomicU32>,
    _v: std::marker::PhantomData<V>,
}

impl<V> Narrow<V> {
    /// `n` holes.
    pub(crate) fn new(n: u64) -> Self {
        Narrow {
            cells: (0..n).into_par_iter().map(|_| AtomicU8::new(0)).collect(),
            over_at: Vec::new(),
            over: Vec::new(),
            _v: std::marker::PhantomData,
        }
    }

    /// The counter of escaped place `l`.
    #[inline]
    fn over(&self, l: usize, t: &dyn std::fmt::Debug) -> Result<&AtomicU32, Error> {
        match self.over_at.binary_search(&(l as u32)) {
            Ok(k) => Ok(&self.over[k]),
            Err(_) => Err(Error::Game(format!(
                "place {l} of tier {t:?} is open past the byte but has no counter (an engine fault)"
            ))),
        }
    }

    #[inline]
    fn load(&self, l: usize) -> ClassCell {
        ClassCell(self.cells[l].load(Relaxed))
    }

    /// Sets open place `l` (whose cell was `cur`) to `new`; whether this call did (racy:
    /// a compare-exchange).
    #[inline]
    fn swap(&self, l: usize, cur: ClassCell, new: ClassCell, racy: Racy) -> bool {
        if !racy.0 {
            self.cells[l].store(new.0, Relaxed);
            return true;
        }
        self.cells[l]
            .compare_exchange(cur.0, new.0, Relaxed, Relaxed)
            .is_ok()
    }

    /// Counts escaped place `l` down in its side table, deciding it as `lost` when the
    /// counter reaches 0.
    #[cold]
    fn count_down_escaped(
        &self,
        l: usize,
        lost: Option<ClassCell>,
        racy: Racy,
        t: &dyn std::fmt::Debug,
    ) -> Result<bool, Error> {
        let counter = self.over(l, t)?;
        let last = counter
            .fetch_update(Relaxed, Relaxed, |n| n.checked_sub(1))
            .map_err(|_| {
                Error::Game(format!(
                    "un-moves give a position of tier {t:?} more moves than its moves do"
                ))
            })?
            == 1;
        if !last {
            return Ok(false);
        }
        let lost = need(lost, Classes::MAX_REMOTENESS, t)?;
        loop {
            let cur = self.load(l);
            if cur != ClassCell::ESCAPE {
                return Ok(false);
            }
            if self.swap(l, cur, lost, racy) {
                return Ok(true);
            }
        }
    }
}

impl<V: Worth> Slots for Narrow<V> {
    type C = ClassCell;
    type V = V;
    type Rule = Classes;
    #[inline]
    fn rule(_: Phase<V::Stage>) -> Classes {
        Classes
    }
    fn escaped(&mut self, mut escaped: Vec<(u32, u32)>) -> Result<(), Error> {
        escaped.sort_unstable();
        self.over_at = escaped.iter().map(|e| e.0).collect();
        self.over = escaped.iter().map(|e| AtomicU32::new(e.1)).collect();
        Ok(())
    }
    #[inline]
    fn len(&self) -> usize {
        self.cells.len()
    }
    #[inline]
    fn get(&self, l: usize) -> ClassCell {
        self.load(l)
    }
    #[inline]
    fn is_open(&self, l: usize) -> bool {
        self.load(l).is_open()
    }
    #[inline]
    fn decide(&self, l: usize, v: ClassCell, racy: Racy) -> bool {
        loop {
            let cur = self.load(l);
            if !cur.is_open() {
                return false;
            }
            if self.swap(l, cur, v, racy) {
                return true;
            }
        }
    }
    #[inline]
    fn count_down(
        &self,
        l: usize,
        lost: Option<ClassCell>,
        max: u32,
        racy: Racy,
        t: &dyn std::fmt::Debug,
    ) -> Result<bool, Error> {
        loop {
            let cur = self.load(l);
            let Some(n) = cur.counter() else {
                return match cur == ClassCell::ESCAPE {
                    true => self.count_down_escaped(l, lost, racy, t),
                    false => Ok(false),
                };
            };
            let new = match n {
                0 => {
                    return Err(Error::Game(format!(
                        "un-moves give a position of tier {t:?} more moves than its moves do"
                    )))
                }
                1 => need(lost, max, t)?,
                _ => ClassCell::open(n - 1).expect("smaller"),
            };
            if self.swap(l, cur, new, racy) {
                return Ok(n == 1);
            }
        }
    }
    #[inline]
    fn prefetch(&self, l: usize) {
        prefetch(&self.cells, l)
    }
    #[inline]
    fn hole(&self, l: usize) {
        self.cells[l].store(ClassCell::HOLE.0, Relaxed)
    }
    #[inline]
    fn value(&self, l: usize, v: V, _: &dyn std::fmt::Debug) -> Result<(), Error> {
        // Its remoteness is checked when its level is logged.
        self.cells[l].store(ClassCell::of(v).0, Relaxed);
        Ok(())
    }
    #[inline]
    fn open(&self, l: usize, counter: u32, _: &dyn std::fmt::Debug) -> Result<bool, Error> {
        let (cell, escaped) = match ClassCell::open(counter) {
            Some(c) => (c, false),
            None => (ClassCell::ESCAPE, true),
        };
        self.cells[l].store(cell.0, Relaxed);
        Ok(escaped)
    }
}

/// The levels' rule in class cells: won, lost or tied, whatever the level (the log keeps
/// the level).
pub(crate) struct Classes;

impl Rule<ClassCell> for Classes {
    const MAX_REMOTENESS: u32 = u32::MAX;
    #[inline]
    fn won(&self, _: u32) -> Option<ClassCell> {
        Some(ClassCell::WIN)
    }
    #[inline]
    fn lost(&self, _: u32) -> Option<ClassCell> {
        Some(ClassCell::LOSS)
    }
    #[inline]
    fn tied(&self, _: u32) -> Option<ClassCell> {
        Some(ClassCell::TIE)
    }
    #[inline]
    fn is_loss(&self, c: ClassCell) -> bool {
        c == ClassCell::LOSS
    }
}

/// One level's positions: their places, and the value cells a won, a lost and a tied one
/// takes there (`None` for what the level's phase never decides).
struct Stream<C> {
    at: [Option<C>; 3],
    list: Packed,
}

/// The positions of every level of a tier, as the levels decided them: what the class
/// cells leave out of a value.
pub(crate) struct LevelLog<C> {
    /// The tier, for messages.
    tier: String,
    streams: Vec<Stream<C>>,
}

impl<C> LevelLog<C> {
    pub(crate) fn new(tier: String) -> Self {
        LevelLog {
            tier,
            streams: Vec::new(),
        }
    }
}

impl<C: Staged> Record<<C::V as Worth>::Stage> for LevelLog<C> {
    const PACKED: bool = true;

    fn level(
        &mut self,
        phase: Phase<<C::V as Worth>::Stage>,
        r: u32,
        frontier: &[u32],
    ) -> Result<(), Error> {
        if frontier.is_empty() {
            return Ok(());
        }
        let at = match phase {
            Phase::Decisive { stage, never } => {
                let rule = C::rule(stage, never);
                [rule.won(r), rule.lost(r), None]
            }
            Phase::Ties => [None, None, C::ties().tied(r)],
        };
        if at.iter().all(Option::is_none) {
            // The remoteness does not fit the value cells.
            return Err(Error::Remoteness {
                tier: self.tier.clone(),
                max: <C::Rule as Rule<C>>::MAX_REMOTENESS,
            });
        }
        self.streams.push(Stream {
            at,
            list: Packed::from_sorted(frontier),
        });
        Ok(())
    }
}

/// A tier solved in class cells: its byte cells and its level log, from which its value
/// cells are made.
pub(crate) struct Finished<C> {
    cells: Vec<AtomicU8>,
    log: Vec<Stream<C>>,
    tier: String,
}

impl<C: Cell> Finished<C> {
    /// The bytes of a stored cell of the tier: one when every value fits one byte, as
    /// [`stored_width`](crate::store::cells::stored_width) finds it in the value cells
    /// (every value of a level has the level's remoteness).
    pub(crate) fn width(&self) -> u32 {
        match C::BYTES {
            2 => (self.log.iter())
                .filter(|s| !s.list.is_empty())
                .flat_map(|s| s.at.iter().flatten().map(|c| c.stored_width()))
                .max()
                .unwrap_or(1),
            b => b as u32,
        }
    }

    /// The value cells of span `span` (places `span * SPAN ..`, as many as `out` holds).
    pub(crate) fn span(&self, span: u32, out: &mut [C]) -> Result<(), Error> {
        let lo = (span as u64 * SPAN) as usize;
        let class = |l: usize| ClassCell(self.cells[l].load(Relaxed));
        // Won, lost and tied positions here, each to be found in one level's list.
        let mut decided = 0usize;
        for (k, o) in out.iter_mut().enumerate() {
            match class(lo + k).unlogged() {
                Some(c) => *o = c,
                None => decided += 1,
            }
        }
        let (mut found, mut stray) = (0usize, None);
        for s in &self.log {
            s.list.each_in_span(span, |l| {
                let l = l as usize;
                match class(l).which().and_then(|k| s.at[k]) {
                    Some(c) => {
                        out[l - lo] = c;
                        found += 1;
                    }
                    None => stray = Some(l),
                }
            });
        }
        if let Some(l) = stray {
            return Err(Error::Game(format!(
                "place {l} of tier {} is logged at a level that did not decide it (an engine fault)",
                self.tier
            )));
        }
        if found != decided {
            return Err(Error::Game(format!(
                "{} positions of tier {} near place {lo} were decided without a level (an engine fault)",
                decided.abs_diff(found),
                self.tier
            )));
        }
        Ok(())
    }

    /// Every place's value cell, as the value cells' solve gives them (holes 0, draws
    /// [`Cell::DRAW`]).
    pub(crate) fn cells(&self) -> Result<Vec<C>, Error> {
        let mut out = vec![C::UNDECIDED; self.cells.len()];
        out.par_chunks_mut(SPAN as usize)
            .enumerate()
            .try_for_each(|(s, chunk)| self.span(s as u32, chunk))?;
        Ok(out)
    }

    /// Writes the values file `file` as [`store_cells`](crate::store::cells::store_cells)
    /// writes [`Finished::cells`] (the same bytes), a batch of blocks at a time; `each(first,
    /// cells)` sees the value cells of each batch, from place `first` (for the totals).
    pub(crate) fn store(
        &self,
        st: &dyn Storage,
        file: &str,
        header: &Header,
        codec: Codec,
        each: &mut dyn FnMut(u64, &[C]),
    ) -> Result<(), Error> {
        let width = self.width();
        let header = Header {
            elem: width,
            ..header.clone()
        };
        let per = tierfile::VALUE_BLOCK_ELEMS as usize;
        debug_assert_eq!(SPAN as usize % per, 0, "spans of whole blocks");
        let n = self.cells.len();
        tierfile::write_batches(
            st,
            file,
            &header,
            n as u64,
            tierfile::VALUE_BLOCK_ELEMS,
            codec,
            &mut |blocks| {
                let lo = blocks.start * per;
                let hi = (blocks.end * per).min(n);
                let mut cells = vec![C::UNDECIDED; hi - lo];
                let first = (lo as u64 >> SPAN_BITS) as u32;
                cells
                    .par_chunks_mut(SPAN as usize)
                    .enumerate()
                    .try_for_each(|(s, chunk)| self.span(first + s as u32, chunk))?;
                each(lo as u64, &cells);
                Ok(cells
                    .par_chunks(per)
                    .map(|block| {
                        let mut raw = Vec::with_capacity(block.len() * width as usize);
                        for &c in block {
                            c.push_stored(&mut raw, width);
                        }
                        (raw, block.len() as u64)
                    })
                    .collect())
            },
        )
    }
}

/// The class cells' solve of this rank's places of tier `t`: what
/// [`dense::solve_tier`](crate::engine::dense::solve_tier) gives, with the tier's value cells
/// still to be made from the [`Finished`] tier.
pub(crate) fn solve_tier<G: DenseIndex, C: Staged, P: Placement>(
    game: &G,
    t: G::Tier,
    part: P,
    below: &Below<'_, G, C, P>,
    ex: &dyn Exchange,
    opts: &SolveOptions,
) -> Result<(Finished<C>, u64, Option<u64>), Error> {
    let n = part.len(ex.rank());
    check_size(&t, &part, n)?;
    let mut cells = Narrow::<C::V>::new(n);
    let mut log = LevelLog::<C>::new(format!("{t:?}"));
    let (solved, moves) = solve_slots(game, t, part, below, &mut cells, &mut log, ex, opts)?;
    let done = Finished {
        cells: cells.cells,
        log: log.streams,
        tier: log.tier,
    };
    Ok((done, solved, moves))
}

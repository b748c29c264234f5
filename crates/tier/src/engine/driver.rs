//! The dense layout's driver, one for a process and for ranks: which tier to solve when,
//! what to keep in memory, what to write and reuse, the totals, and the answer.
//!
//! A [`Dealing`] says who owns which slots of a tier: [`Whole`] (one process owns them all,
//! its files are the database's) or [`Blocks`] (each rank owns a share, written as its own
//! file, and at the end the shares are put together into the one-process database at rank
//! 0). Everything else is written once.

use crate::api::game::{canonical, DenseIndex, Symmetry};
use crate::engine::classes::{self, Finished};
use crate::engine::dense::{self, Below, Staged, TASK};
use crate::engine::dense::{cell_at, push_cell};
use crate::engine::solution::{TierData, TierSolution, TierTotals};
use crate::engine::{
    count, write_finished, Dag, Engine, Event, SolveOptions, Traffic, Work, Working,
};
use crate::error::Error;
use crate::stats::merge_stats;
use crate::stats::Stats;
use crate::store::cell::{Cell, CellArray, Worth};
use crate::store::cells::{check_cells, load_cells, store_cells, stored_width};
use crate::store::meta::{header, read_meta, values_file, META};
use crate::store::meta::{read_tier_stats, read_tier_totals, remove_tier_stats, write_tier_stats};
use crate::store::storage::Storage;
use crate::store::tierfile::{self, Header, Kind, Reader};
use rayon::prelude::*;
use retrograde_solve::exchange::{Exchange, Solo};
use retrograde_solve::place::{Blocks, Placement, Whole};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A placement of a tier's slots, with the file a rank keeps its share in.
pub(crate) trait Dealing: Placement {
    /// The dealing of a tier of `size` slots to `ranks` ranks.
    fn deal(size: u64, ranks: usize) -> Self;
    /// The file holding rank `me`'s cells of `tier`.
    fn file(tier: &str, me: usize, ranks: usize) -> String;
    /// The tier's name in the header of such a file (at most 40 bytes).
    fn header_tier(&self, tier: &str) -> String;
}

impl Dealing for Whole {
    fn deal(size: u64, _: usize) -> Whole {
        Whole::new(size)
    }
    fn file(tier: &str, _: usize, _: usize) -> String {
        values_file(tier)
    }
    fn header_tier(&self, tier: &str) -> String {
        tier.to_string()
    }
}

/// The version of the dealing, stored in every share's header: a share written under
/// another dealing holds other slots, and is solved again rather than read.
pub(crate) const DEALING: u32 = 2;

impl Dealing for Blocks {
    fn deal(size: u64, ranks: usize) -> Blocks {
        Blocks::new(size, ranks, TASK)
    }
    fn file(tier: &str, me: usize, ranks: usize) -> String {
        share_file(tier, me, ranks)
    }
    /// The tier's name, then the dealing (see [`DEALING`]), cut to the header's 40 bytes
    /// (the file's name has the whole tier name).
    fn header_tier(&self, tier: &str) -> String {
        let tag = format!("~d{DEALING}u{}", self.unit_shift());
        let mut cut = 40usize.saturating_sub(tag.len()).min(tier.len());
        while !tier.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}{tag}", &tier[..cut])
    }
}

/// The name of rank `r`'s share of a tier's values among `k`.
pub fn share_file(tier: &str, r: usize, k: usize) -> String {
    format!("{tier}.values.part-{r}-of-{k}")
}

/// Solves every tier of a dense-layout game below its roots, on this rank's share of each
/// (all of it with [`Whole`]). One process's answer holds everything, in memory or in its
/// files; so does rank 0's with a storage, from the files it puts together. Without one,
/// rank 0's holds the totals and the start's tier (a game without a start: its root tiers
/// when values are kept), or with `whole` every tier; the other ranks' hold the totals.
pub(crate) fn solve_dense<'g, G: DenseIndex, C: Staged, P: Dealing>(
    game: &'g G,
    opts: &SolveOptions,
    ex: &dyn Exchange,
    whole: bool,
) -> Result<(TierSolution<'g, G>, Traffic), Error> {
    if let Some(st) = &opts.storage {
        // With ranks the database is finished only once the shares are put together, and
        // rank 0 alone knows: a finished one is solved again from the shares.
        let reuse = opts.resume && P::ALONE;
        if let Some(done) = super::prepare_storage(game, st, opts, reuse)? {
            if !opts.compact {
                return Ok((done, Traffic::default()));
            }
            // Finished before: made compact now, and opened again.
            compact_tiers(game, &**st, &done.tiers, opts)?;
            let again = super::open(game, st.clone())?.ok_or_else(|| Error::Missing {
                file: st.describe(META),
            })?;
            return Ok((again, Traffic::default()));
        }
    }
    let run = Run::<G, C, P>::new(game, opts, ex)?;
    let mut tier_stats: Vec<Option<Stats>> = vec![None; run.n()];
    let done = run.reusable(&mut tier_stats)?;
    if done.contains(&true) {
        let reused = || (0..run.n()).filter(|&k| done[k]);
        opts.emit(&Event::Reused {
            tiers: reused().count(),
            slots: reused().map(|k| run.sizes[k]).sum(),
        });
    }
    let started = Instant::now();
    let (resident, solved) = run.solve_tiers(done, &mut tier_stats)?;
    let solve_time = started.elapsed();
    let started = Instant::now();
    let mut get = |k: usize| -> Result<Arc<Vec<C>>, Error> {
        match &resident[k] {
            Some(c) => Ok(c.clone()),
            None => Ok(Arc::new(run.load(k)?)),
        }
    };
    let (mut stats, tier_stats) = run.totals(tier_stats, &mut get)?;
    stats.explore = started.elapsed();
    stats.solve = solve_time;
    // Ranks with a storage put every tier's file together at rank 0, which then answers
    // from those files as one process does (the other ranks hold the totals only).
    let assembled = match (run.storage(), P::ALONE) {
        (Some(st), false) => {
            let names = &run.dag.names;
            write_assembled::<C, P>(
                &run.gname,
                names,
                &run.parts,
                &|k| run.load(k),
                ex,
                st,
                opts,
            )?;
            true
        }
        _ => false,
    };
    let data = if assembled {
        run.assembled_data()?
    } else {
        run.answer_data(&resident, whole, &mut get)?
    };
    let mut tr = [ex.bytes_sent(), solved];
    ex.sum(&mut tr);
    let traffic = Traffic {
        bytes: tr[0],
        positions: tr[1],
    };
    let Run {
        dag, sizes, files, ..
    } = run;
    let mut solution = TierSolution::new(
        game,
        dag.tiers.clone(),
        data,
        if P::ALONE || (assembled && ex.rank() == 0) {
            opts.storage.clone()
        } else {
            None
        },
        stats,
        TierTotals::Known(tier_stats),
        sizes.clone(),
        C::BYTES as u32,
    );
    if let Some(st) = opts.storage.as_deref() {
        if ex.rank() == 0 {
            write_finished(st, &solution, opts, "dense", &dag.names, &sizes)?;
        }
        // Finished: the description holds every tier's totals.
        for f in &files {
            remove_tier_stats(st, f)?;
        }
        if opts.compact && ex.rank() == 0 {
            compact_tiers(game, st, &dag.tiers, opts)?;
            // Rank 0 (or one process) reads its answers from the files just rewritten.
            for (k, d) in solution.data.iter_mut().enumerate() {
                if let TierData::File(_) = d {
                    let name = &dag.names[k];
                    *d = TierData::File(Reader::open(
                        st,
                        &values_file(name),
                        &header(&game.name(), name, Kind::Values, 0),
                    )?);
                }
            }
        }
    }
    Ok((solution, traffic))
}

/// Makes the values file of every tier of `tiers` that the game splits into two sides
/// compact ([`tierfile::compact_values`]), one after the other (each is written anew and
/// renamed, so an interruption leaves every file whole).
fn compact_tiers<G: DenseIndex>(
    game: &G,
    st: &dyn Storage,
    tiers: &[G::Tier],
    opts: &SolveOptions,
) -> Result<(), Error> {
    let gname = game.name();
    let split: Vec<(G::Tier, u64, String)> = tiers
        .iter()
        .filter_map(|&t| Some((t, game.sides(t)?, values_file(&game.tier_name(t)))))
        .collect();
    let bytes = |f: &str| st.size(f).ok().flatten().unwrap_or(0);
    let total = split.iter().map(|(_, _, f)| bytes(f)).sum();
    let mut done = 0;
    opts.emit(&Event::Compact { done, total });
    for (t, at, file) in &split {
        done += bytes(file);
        let expect = header(&gname, &game.tier_name(*t), Kind::Values, 0);
        tierfile::compact_values(st, file, &expect, *at)?;
        opts.emit(&Event::Compact { done, total });
    }
    Ok(())
}

/// A dense solve in progress: the game's tiers, their dealing to the ranks, and this rank's
/// files.
struct Run<'g, 'a, G: DenseIndex, C, P> {
    game: &'g G,
    opts: &'a SolveOptions,
    ex: &'a dyn Exchange,
    gname: String,
    dag: Dag<G::Tier>,
    /// Slots of each tier.
    sizes: Vec<u64>,
    parts: Vec<P>,
    /// This rank's file of each tier.
    files: Vec<String>,
    _cells: std::marker::PhantomData<C>,
}

impl<'g, 'a, G: DenseIndex, C: Staged, P: Dealing> Run<'g, 'a, G, C, P> {
    /// The plan: tiers, their dealing, and the memory at the peak (checked).
    fn new(game: &'g G, opts: &'a SolveOptions, ex: &'a dyn Exchange) -> Result<Self, Error> {
        let (me, kk) = (ex.rank(), ex.size());
        let dag = Dag::build(game)?;
        let sizes: Vec<u64> = dag.tiers.iter().map(|&t| game.tier_size(t)).collect();
        let parts: Vec<P> = sizes.iter().map(|&s| P::deal(s, kk)).collect();
        opts.emit(&Event::Plan {
            tiers: dag.tiers.len(),
            slots: sizes.iter().sum(),
        });
        let shares: Vec<u64> = parts.iter().map(|p| p.len(me)).collect();
        let stored = opts.storage.is_some();
        let mut work = Work::of(game, C::BYTES as u64);
        if opts.working == Working::Classes {
            work = work.classes();
        }
        super::plan_memory(&dag, &shares, work, stored, opts)?;
        let files = dag.names.iter().map(|t| P::file(t, me, kk)).collect();
        Ok(Run {
            game,
            opts,
            ex,
            gname: game.name(),
            dag,
            sizes,
            parts,
            files,
            _cells: std::marker::PhantomData,
        })
    }

    fn n(&self) -> usize {
        self.dag.tiers.len()
    }

    fn storage(&self) -> Option<&'a dyn Storage> {
        self.opts.storage.as_deref()
    }

    /// This rank's cells of tier `k`, from its file; of a compact file, the values it leaves
    /// out derived from their moves ([`Run::derive`]).
    fn load(&self, k: usize) -> Result<Vec<C>, Error> {
        let (mut cells, left_out) = self.load_kept(k)?;
        if !left_out.is_empty() {
            self.derive(k, &mut cells, left_out)?;
        }
        Ok(cells)
    }

    /// This rank's cells of tier `k` as its file keeps them (every block read is checked),
    /// and the numbers a compact file leaves out.
    fn load_kept(&self, k: usize) -> Result<(Vec<C>, std::ops::Range<u64>), Error> {
        let (st, header, n) = self.kept(k);
        load_cells::<C>(st, &self.files[k], &header, n)
    }

    /// Checks the file of tier `k` as [`Run::load_kept`] would read it (header, index,
    /// lengths and every block's checksum), without decoding it.
    fn check_kept(&self, k: usize) -> Result<(), Error> {
        let (st, header, n) = self.kept(k);
        check_cells(st, &self.files[k], &header, n)
    }

    /// The storage, the expected header and this rank's number of places of tier `k`'s
    /// file.
    fn kept(&self, k: usize) -> (&'a dyn Storage, Header, u64) {
        let st = self.storage().expect("a kept tier was stored");
        let tier = self.parts[k].header_tier(&self.dag.names[k]);
        let header = header(&self.gname, &tier, Kind::Values, 0);
        (st, header, self.parts[k].len(self.ex.rank()))
    }

    /// Fills the numbers of tier `k` that its compact file leaves out: each position's value
    /// from its moves (one ply), read through the database's files, as a lookup reads it.
    /// Only a finished database is made compact, and its description stays while a damaged
    /// table of it is solved again, so the files can be read as a database.
    fn derive(
        &self,
        k: usize,
        cells: &mut [C],
        numbers: std::ops::Range<u64>,
    ) -> Result<(), Error> {
        let name = &self.dag.names[k];
        let Some(storage) = self.opts.storage.clone().filter(|_| P::ALONE) else {
            return Err(Error::Unsupported(format!(
                "tier {name}'s values file is compact: solve with one process to derive what it leaves out"
            )));
        };
        let sol = super::open_lazy(self.game, storage)?.ok_or_else(|| {
            Error::Unsupported(format!(
                "tier {name}'s values file is compact, and the database has no description to read its moves' values from"
            ))
        })?;
        let (game, t) = (self.game, self.dag.tiers[k]);
        const PART: usize = 1 << 12;
        let start = numbers.start;
        cells[numbers.start as usize..numbers.end as usize]
            .par_chunks_mut(PART)
            .enumerate()
            .try_for_each(|(c, dst)| -> Result<(), Error> {
                let base = start + (c * PART) as u64;
                let mut res = Ok(());
                game.for_each_in(t, base..base + dst.len() as u64, |i, p| {
                    let canonical =
                        |p: &G::Position| <G::Symmetry as Symmetry<G>>::is_canonical(game, p);
                    let (Some(p), true) = (p.filter(canonical), res.is_ok()) else {
                        return;
                    };
                    res = sol
                        .scored(&p)
                        .and_then(|v| {
                            v.and_then(<C::V as Worth>::from_scored).ok_or_else(|| {
                                Error::Game(format!("{p:?} has no value in the database"))
                            })
                        })
                        .and_then(|v| dense::enc::<C>(v, &t))
                        .map(|c| dst[(i - base) as usize] = c);
                });
                res
            })
    }

    /// This rank's totals of tier `k` (`moves`: its moves, when the solve counted them).
    fn tally(&self, k: usize, cells: &[C], moves: Option<u64>) -> Stats {
        let mut st = self.tally_from(k, 0, cells, moves.is_some());
        if let Some(m) = moves {
            st.moves = m;
        }
        st
    }

    /// This rank's totals of the places of tier `k` from `first` on (`cells`), without
    /// their moves when the solve counted them (`counted`).
    fn tally_from(&self, k: usize, first: u64, cells: &[C], counted: bool) -> Stats {
        let (t, part) = (self.dag.tiers[k], &self.parts[k]);
        tally(self.game, t, part, self.ex.rank(), first, cells, counted)
    }

    /// With resume, the tiers whose files check out on every rank (damaged ones are removed,
    /// to be solved again, by every rank when one rank's share is damaged); their totals
    /// for games without a start.
    fn reusable(&self, tier_stats: &mut [Option<Stats>]) -> Result<Vec<bool>, Error> {
        let mut done = vec![false; self.n()];
        let (Some(st), true) = (self.storage(), self.opts.resume) else {
            return Ok(done);
        };
        let has_start = self.game.start().is_some();
        // A finished database's totals by tier (one being repaired keeps its description).
        let described = match read_meta(st) {
            Ok(Some(m)) if m.game == self.gname && P::ALONE => {
                // Unreadable totals are counted again.
                let totals = read_tier_totals(st, &m).unwrap_or_default();
                m.tiers
                    .into_iter()
                    .map(|(name, _)| name)
                    .zip(totals)
                    .collect()
            }
            _ => std::collections::HashMap::new(),
        };
        for &k in &self.dag.order {
            let file = &self.files[k];
            let present = st.size(file).ok().flatten().is_some();
            // Games without a start keep each tier's totals: the ones written when it was
            // solved or in the description, else counted again from its cells (and written,
            // for the next time). Otherwise the file is only checked, not decoded: a
            // resume of the 5-piece chess set took 200 s to decode its 9 GB.
            let known = (present && !has_start)
                .then(|| {
                    read_tier_stats(st, file)
                        .or_else(|| described.get(&self.dag.names[k]).cloned().flatten())
                })
                .flatten();
            let mine = present && {
                let checked = if has_start || known.is_some() {
                    self.check_kept(k).map(|()| None)
                } else {
                    self.load_kept(k).map(Some)
                };
                match checked {
                    Ok(None) => {
                        if known.is_some() {
                            tier_stats[k] = known;
                        }
                        true
                    }
                    Ok(Some((mut cells, left_out))) => {
                        if !left_out.is_empty() {
                            self.derive(k, &mut cells, left_out)?;
                        }
                        let counted = self.tally(k, &cells, None);
                        write_tier_stats(st, file, &counted)?;
                        tier_stats[k] = Some(counted);
                        true
                    }
                    Err(e) => {
                        self.opts.emit(&Event::Damaged { error: &e });
                        false
                    }
                }
            };
            done[k] = self.ex.all(mine);
            if !done[k] && present {
                st.remove(file)
                    .map_err(|e| Error::io(st.describe(file), "remove", e))?;
                remove_tier_stats(st, file)?;
            }
        }
        Ok(done)
    }

    /// Solves the tiers not `done`, children first, keeping in memory only the tiers
    /// parents still need (with a storage; all of them without), and only the tiers'
    /// children when the memory limit requires it ([`Run::evict`]); writes each solved tier.
    /// Small tiers are solved several at a time ([`Run::batch`]). Returns the tiers still in
    /// memory and the positions this rank solved.
    #[allow(clippy::type_complexity)]
    fn solve_tiers(
        &self,
        mut done: Vec<bool>,
        tier_stats: &mut [Option<Stats>],
    ) -> Result<(Vec<Option<Arc<Vec<C>>>>, u64), Error> {
        let (opts, me) = (self.opts, self.ex.rank());
        let storage = self.storage();
        let dag = &self.dag;
        let cell = C::BYTES as u64;
        let mut resident: Vec<Option<Arc<Vec<C>>>> = vec![None; self.n()];
        let mut parents_left: Vec<usize> = dag.parents.iter().map(Vec::len).collect();
        let (mut finished, mut solved) = (0u64, 0u64);
        let mut started = vec![false; self.n()];
        let mut first = 0;
        loop {
            while first < dag.order.len() && started[dag.order[first]] {
                first += 1;
            }
            if first == dag.order.len() {
                break;
            }
            opts.cancelled()?;
            let batch = self.batch(&dag.order[first..], &started, &done, &resident);
            for &k in &batch {
                started[k] = true;
                opts.emit(&Event::Tier {
                    tier: &dag.names[k],
                    size: self.sizes[k],
                    done: finished,
                    reused: done[k],
                });
            }
            let todo: Vec<usize> = batch.iter().copied().filter(|&k| !done[k]).collect();
            let work: u64 = todo.iter().map(|&k| self.work(k)).sum();
            let kids = self.children_of(&todo);
            if let (Some(_), Some(limit), false) = (storage, opts.memory_limit, todo.is_empty()) {
                let room = limit.saturating_sub(work).saturating_sub(uncounted(limit));
                self.evict(&kids, &mut resident, room);
                // What the tiers just dropped and the last batch's work left in the heap.
                if let Some(give_back) = opts.give_back {
                    give_back();
                }
            }
            for &c in &kids {
                if resident[c].is_none() {
                    resident[c] = Some(Arc::new(self.load(c)?));
                }
            }
            if !todo.is_empty() {
                let held: u64 = resident.iter().flatten().map(|c| c.len() as u64).sum();
                let names = todo.iter().map(|&k| dag.names[k].as_str());
                let what = || match (P::ALONE, todo.len()) {
                    (true, 1) => format!("tier {}", dag.names[todo[0]]),
                    (true, _) => format!("tiers {}", names.collect::<Vec<_>>().join(", ")),
                    (false, _) => format!("tier {} (rank {me})", dag.names[todo[0]]),
                };
                opts.check_memory(what, (held * cell).saturating_add(work))?;
            }
            let results = self.solve_batch(&todo, &resident);
            let mut failed = None;
            for (&k, result) in todo.iter().zip(results) {
                // A tier solved beside one that failed is kept all the same.
                let (fresh, s, moves, took) = match result {
                    Ok(r) => r,
                    Err(e) => {
                        failed.get_or_insert(e);
                        continue;
                    }
                };
                solved += s;
                let (cells, totals) = self.keep(k, fresh, moves)?;
                if let Some(mut totals) = totals {
                    // The tier's time, once (the ranks' totals are summed).
                    if me == 0 {
                        totals.solve = took;
                    }
                    if let Some(st) = storage {
                        write_tier_stats(st, &self.files[k], &totals)?;
                    }
                    tier_stats[k] = Some(totals);
                }
                resident[k] = cells.map(Arc::new);
                done[k] = true;
                opts.emit(&Event::Solved {
                    tier: &dag.names[k],
                    size: self.sizes[k],
                    seconds: took.as_secs_f64(),
                });
            }
            if let Some(e) = failed {
                return Err(e);
            }
            for &k in &batch {
                finished += self.sizes[k];
                for &c in &dag.children[k] {
                    parents_left[c] -= 1;
                    if parents_left[c] == 0 && storage.is_some() {
                        resident[c] = None;
                    }
                }
            }
        }
        Ok((resident, solved))
    }

    /// Writes tier `k`, just solved, to its file (with a storage) and counts its totals (a
    /// game without a start; `moves`: its moves, counted by the solve); returns its value
    /// cells when they stay in memory: always without a storage, and with one when they
    /// were value cells. Class cells go to the file a batch of blocks at a time, counted in
    /// the same pass, without the whole tier's value cells being made; a parent that needs
    /// them reads them back ([`Run::load`]).
    #[allow(clippy::type_complexity)]
    fn keep(
        &self,
        k: usize,
        fresh: Fresh<C>,
        moves: Option<u64>,
    ) -> Result<(Option<Vec<C>>, Option<Stats>), Error> {
        let startless = self.game.start().is_none();
        let tier = self.parts[k].header_tier(&self.dag.names[k]);
        let header = header(&self.gname, &tier, Kind::Values, 0);
        let (file, codec) = (&self.files[k], self.opts.codec);
        let cells = match (fresh, self.storage()) {
            (Fresh::Cells(cells), st) => {
                if let Some(st) = st {
                    store_cells(st, file, &header, &cells, codec)?;
                }
                cells
            }
            (Fresh::Classes(done), None) => done.cells()?,
            (Fresh::Classes(done), Some(st)) => {
                let mut totals = startless.then(Stats::default);
                done.store(st, file, &header, codec, &mut |first, cells| {
                    if let Some(t) = &mut totals {
                        t.merge(&self.tally_from(k, first, cells, moves.is_some()));
                    }
                })?;
                if let (Some(t), Some(m)) = (&mut totals, moves) {
                    t.moves = m;
                }
                return Ok((None, totals));
            }
        };
        let totals = startless.then(|| self.tally(k, &cells, moves));
        Ok((Some(cells), totals))
    }

    /// Whether tiers are solved in class cells ([`Working`]).
    fn classes(&self) -> bool {
        self.opts.working == Working::Classes
    }

    /// The bytes this rank's share of tier `k` takes while it is solved.
    fn work(&self, k: usize) -> u64 {
        let work = Work::of(self.game, C::BYTES as u64);
        let work = if self.classes() { work.classes() } else { work };
        work.bytes(self.parts[k].len(self.ex.rank()))
    }

    /// The children of `tiers`, each once.
    fn children_of(&self, tiers: &[usize]) -> Vec<usize> {
        let mut kids: Vec<usize> = tiers
            .iter()
            .flat_map(|&k| self.dag.children[k].iter().copied())
            .collect();
        kids.sort_unstable();
        kids.dedup();
        kids
    }

    /// The tiers to start now: the first of `order` (every tier before it has started, and
    /// every batch is finished before the next starts, so its children are solved); with
    /// one process and more than one thread, beside it up to one tier per further thread
    /// among the next [`LOOK_AHEAD`] whose children are all solved, each at most
    /// [`TOGETHER`] bytes of work, all of them within the memory limit. A tier's levels
    /// end with a few steps and a sort that one thread runs: another tier's work fills the
    /// other threads meanwhile (every 3- and 4-piece chess ending: a thread idle a tenth of
    /// the time, one tier at a time).
    fn batch(
        &self,
        order: &[usize],
        started: &[bool],
        done: &[bool],
        resident: &[Option<Arc<Vec<C>>>],
    ) -> Vec<usize> {
        let head = order[0];
        let mut batch = vec![head];
        let threads = rayon::current_num_threads();
        let alone = P::ALONE && self.opts.engine != Engine::Sequential && threads > 1;
        if !alone || done[head] || self.work(head) > TOGETHER {
            return batch;
        }
        let cell = C::BYTES as u64;
        let fits = |batch: &[usize]| -> bool {
            let Some(limit) = self.opts.memory_limit else {
                return true;
            };
            let work: u64 = batch.iter().map(|&k| self.work(k)).sum();
            let bytes = |c: usize| self.parts[c].len(self.ex.rank()).saturating_mul(cell);
            // With a storage, the children beside the work; without, every tier so far.
            let held: u64 = match self.storage() {
                Some(_) => self.children_of(batch).into_iter().map(bytes).sum(),
                None => (0..resident.len())
                    .filter(|&c| resident[c].is_some())
                    .map(bytes)
                    .sum(),
            };
            held.saturating_add(work) <= limit.saturating_sub(uncounted(limit))
        };
        for &k in order.iter().skip(1).take(LOOK_AHEAD) {
            if batch.len() == threads {
                break;
            }
            let ready = self.dag.children[k].iter().all(|&c| done[c]);
            if started[k] || done[k] || !ready || self.work(k) > TOGETHER {
                continue;
            }
            batch.push(k);
            if !fits(&batch) {
                batch.pop();
                break;
            }
        }
        batch
    }

    /// Solves `tiers` (their children in memory), each with its own time: one on this
    /// rank's exchange, several side by side on the pool (one process).
    #[allow(clippy::type_complexity)]
    fn solve_batch(
        &self,
        tiers: &[usize],
        resident: &[Option<Arc<Vec<C>>>],
    ) -> Vec<Result<(Fresh<C>, u64, Option<u64>, Duration), Error>> {
        // Not `self`: its exchange is not shared between threads.
        let (game, opts, tiers_of, parts) = (self.game, self.opts, &self.dag.tiers, &self.parts);
        let classes = self.classes();
        let timed = |k: usize, below: &Below<'_, G, C, P>, ex: &dyn Exchange| {
            let started = Instant::now();
            let t = tiers_of[k];
            let r = match opts.engine {
                Engine::Sequential if P::ALONE => {
                    C::sequential::<G, P>(game, t, below).map(|(c, s)| (Fresh::Cells(c), s, None))
                }
                _ if classes => classes::solve_tier::<G, C, P>(game, t, parts[k], below, ex, opts)
                    .map(|(f, s, m)| (Fresh::Classes(f), s, m)),
                _ => dense::solve_tier::<G, C, P>(game, t, parts[k], below, ex, opts)
                    .map(|(c, s, m)| (Fresh::Cells(c), s, m)),
            };
            r.map(|(c, s, m)| (c, s, m, started.elapsed()))
        };
        if let [k] = tiers {
            return vec![timed(*k, &self.below(*k, resident), self.ex)];
        }
        let belows: Vec<_> = tiers
            .iter()
            .map(|&k| (k, self.below(k, resident)))
            .collect();
        // Only with one process (`Run::batch`): its exchange is `Solo`.
        belows
            .par_iter()
            .map(|(k, below)| timed(*k, below, &Solo))
            .collect()
    }

    /// Drops from memory the tiers that none of `kids` is, the largest first, until `kids`
    /// fit in `room` bytes beside those kept: they are in their files, and a parent that
    /// needs one later reads it again ([`Run::load`]). So a set whose finished tiers would
    /// not all fit (every chess ending of 5 pieces) runs within the memory limit.
    fn evict(&self, kids: &[usize], resident: &mut [Option<Arc<Vec<C>>>], room: u64) {
        let cell = C::BYTES as u64;
        let me = self.ex.rank();
        let bytes = |c: usize| self.parts[c].len(me).saturating_mul(cell);
        let mut need: u64 = kids.iter().map(|&c| bytes(c)).sum();
        let mut idle: Vec<usize> = Vec::new();
        for (c, r) in resident.iter().enumerate() {
            if r.is_some() && !kids.contains(&c) {
                need = need.saturating_add(bytes(c));
                idle.push(c);
            }
        }
        idle.sort_by_key(|&c| std::cmp::Reverse(bytes(c)));
        for c in idle {
            if need <= room {
                break;
            }
            need -= bytes(c);
            resident[c] = None;
        }
    }

    /// Tier `k`'s children, in memory.
    fn below<'r>(&self, k: usize, resident: &'r [Option<Arc<Vec<C>>>]) -> Below<'r, G, C, P> {
        let dag = &self.dag;
        Below {
            tiers: dag.children[k]
                .iter()
                .map(|&c| {
                    let cells = &resident[c].as_ref().expect("loaded")[..];
                    (dag.tiers[c], cells, self.parts[c])
                })
                .collect(),
        }
    }

    /// The totals: of the positions reachable from the start, or of every position solved
    /// (then also per tier, for games without a start).
    fn totals(
        &self,
        tier_stats: Vec<Option<Stats>>,
        get: &mut dyn FnMut(usize) -> Result<Arc<Vec<C>>, Error>,
    ) -> Result<(Stats, Vec<Option<Stats>>), Error> {
        let n = self.n();
        if let (Some(start), true) = (self.game.start(), self.opts.count) {
            let (dag, parts) = (&self.dag, &self.parts);
            let s = count::count::<G, C, P>(self.game, dag, parts, start, get, self.ex, self.opts)?;
            return Ok((s, vec![None; n]));
        }
        let mut per = Vec::with_capacity(n);
        for (k, ts) in tier_stats.into_iter().enumerate() {
            per.push(match ts {
                Some(s) => s,
                None => self.tally(k, &get(k)?, None),
            });
        }
        let per = merge_stats(self.ex, per)?;
        let mut s = Stats::default();
        for t in &per {
            s.merge(t);
        }
        let ts = match self.game.start() {
            Some(_) => vec![None; n],
            None => per.into_iter().map(Some).collect(),
        };
        Ok((s, ts))
    }

    /// Where the answer finds each tier: one process's cells in memory or its files; with
    /// ranks and no storage, the start's tier, or with [`SolveOptions::keep_values`] a
    /// startless game's root tiers (with `whole`, every tier), gathered at rank 0.
    fn answer_data(
        &self,
        resident: &[Option<Arc<Vec<C>>>],
        whole: bool,
        get: &mut dyn FnMut(usize) -> Result<Arc<Vec<C>>, Error>,
    ) -> Result<Vec<TierData>, Error> {
        let (game, dag) = (self.game, &self.dag);
        if P::ALONE {
            if self.storage().is_some() {
                return self.assembled_data();
            }
            return (0..self.n())
                .map(|k| match &resident[k] {
                    Some(c) => Ok(TierData::Cells(C::wrap(c.clone()))),
                    None => get(k).map(|c| TierData::Cells(C::wrap(c))),
                })
                .collect();
        }
        // Rank 0 answers for the start's tier, or a game without a start (a chess ending)
        // for its root tiers when values are kept.
        let wanted: Vec<usize> = match (whole, game.start()) {
            (true, _) => dag.tiers.clone(),
            (false, Some(s)) => vec![game.tier(&canonical(game, &s))],
            (false, None) if self.opts.keep_values => game.root_tiers(),
            (false, None) => Vec::new(),
        }
        .into_iter()
        .filter_map(|ts| dag.tiers.iter().position(|&t| t == ts))
        .collect();
        gather_tiers::<C, P>(dag, &self.parts, &self.sizes, &wanted, get, self.ex)
    }

    /// The answer's tiers when every tier's values file is in the storage (one process's,
    /// or put together at rank 0 from the ranks' shares): read from those files at rank 0,
    /// and not kept by the other ranks.
    fn assembled_data(&self) -> Result<Vec<TierData>, Error> {
        let st = self.storage().filter(|_| self.ex.rank() == 0);
        (self.dag.names.iter())
            .map(|name| match st {
                Some(st) => Ok(TierData::File(Reader::open(
                    st,
                    &values_file(name),
                    &header(&self.gname, name, Kind::Values, 0),
                )?)),
                None => Ok(TierData::Dropped),
            })
            .collect()
    }
}

/// Writes every tier's values file as one process writes it (`{tier}.values`, the same
/// bytes) at rank 0, from the ranks' shares (`load(k)`: this rank's share of tier `k`), one
/// batch of blocks at a time: for each batch every rank sends the cells it owns of the
/// batch's slots, in order, and rank 0 puts them together (memory: a batch, and each rank
/// one share at a time). With `database.json`, written last by the caller, the directory is
/// then a database like any other, that `query`, `play` and `serve` open and that one
/// process resumes from.
fn write_assembled<C: CellArray, P: Placement>(
    gname: &str,
    names: &[String],
    parts: &[P],
    load: &dyn Fn(usize) -> Result<Vec<C>, Error>,
    ex: &dyn Exchange,
    st: &dyn Storage,
    opts: &SolveOptions,
) -> Result<(), Error> {
    let me = ex.rank();
    let per = u64::from(tierfile::VALUE_BLOCK_ELEMS);
    let total: u64 = parts.iter().map(|p| p.size()).sum();
    let mut done = 0u64;
    if me == 0 {
        // Until it is written again, the directory holds no finished database.
        st.remove(META)
            .map_err(|e| Error::io(st.describe(META), "remove", e))?;
    }
    for (k, name) in names.iter().enumerate() {
        let part = parts[k];
        // The share, and at rank 0 a batch gathered, its cells and its raw blocks.
        let batch = (tierfile::BATCH as u64 * per).min(part.size());
        let at_root = if me == 0 {
            batch * (2 * C::BYTES as u64 + 2)
        } else {
            0
        };
        opts.check_memory(
            || format!("putting tier {name} together (rank {me})"),
            (part.len(me) * (C::BYTES as u64 + 2)).saturating_add(at_root),
        )?;
        let share = load(k)?;
        let mut w = [u64::from(stored_width(&share))];
        ex.max(&mut w);
        let width = w[0] as u32;
        let slots = |blocks: &std::ops::Range<usize>| {
            let lo = blocks.start as u64 * per;
            (lo, (blocks.end as u64 * per).min(part.size()))
        };
        // This rank's cells of a batch's slots, in order.
        let mine = |blocks: &std::ops::Range<usize>| -> Vec<u8> {
            let (lo, hi) = slots(blocks);
            let mut out = Vec::new();
            part.owners(lo, hi, |owner, l, n| {
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
            for blocks in tierfile::batches(part.size(), tierfile::VALUE_BLOCK_ELEMS) {
                ex.gather(&mine(&blocks));
                step(&blocks);
            }
            continue;
        }
        tierfile::write_batches(
            st,
            &values_file(name),
            &header(gname, name, Kind::Values, width),
            part.size(),
            tierfile::VALUE_BLOCK_ELEMS,
            opts.codec,
            &mut |blocks| {
                let all = ex.gather(&mine(&blocks)).expect("rank 0 gathers");
                step(&blocks);
                let (lo, hi) = slots(&blocks);
                let cells = merge_batch::<C, P>(&part, lo, hi, &all, name)?;
                Ok(cells
                    .chunks(per as usize)
                    .map(|block| {
                        let mut raw = Vec::new();
                        for &c in block {
                            c.push_stored(&mut raw, width);
                        }
                        (raw, block.len() as u64)
                    })
                    .collect())
            },
        )?;
    }
    Ok(())
}

/// Slots `lo..hi` of a tier from the ranks' cells of them (`all[r]`, in order).
fn merge_batch<C: Cell, P: Placement>(
    part: &P,
    lo: u64,
    hi: u64,
    all: &[Vec<u8>],
    name: &str,
) -> Result<Vec<C>, Error> {
    let mut cells = Vec::with_capacity((hi - lo) as usize);
    let mut at = vec![0usize; all.len()];
    let mut short = None;
    part.owners(lo, hi, |owner, _, n| {
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
        return Err(Error::Exchange(format!(
            "rank {r} sent too few cells of tier {name}"
        )));
    }
    Ok(cells)
}

/// The tiers `wanted`, whole, at rank 0 (empty elsewhere, and empty for the tiers not
/// wanted): every rank sends its share.
fn gather_tiers<C: CellArray, P: Placement>(
    dag: &Dag<impl Copy>,
    parts: &[P],
    sizes: &[u64],
    wanted: &[usize],
    get: &mut dyn FnMut(usize) -> Result<Arc<Vec<C>>, Error>,
    ex: &dyn Exchange,
) -> Result<Vec<TierData>, Error> {
    let mut data: Vec<TierData> = (0..dag.tiers.len())
        .map(|_| TierData::Cells(C::wrap(Arc::new(Vec::new()))))
        .collect();
    for &ks in wanted {
        let mine = get(ks)?;
        let mut bytes = Vec::with_capacity(mine.len() * C::BYTES);
        for &c in mine.iter() {
            push_cell(&mut bytes, c);
        }
        let Some(all) = ex.gather(&bytes) else {
            continue;
        };
        let part = parts[ks];
        let mut whole = vec![C::UNDECIDED; sizes[ks] as usize];
        for (r, b) in all.iter().enumerate() {
            if b.len() as u64 != C::BYTES as u64 * part.len(r) {
                return Err(Error::Exchange(format!(
                    "rank {r} sent {} bytes of a share of tier {}",
                    b.len(),
                    dag.names[ks]
                )));
            }
            for l in 0..part.len(r) {
                whole[part.global(r, l) as usize] = cell_at::<C>(b, l as usize);
            }
        }
        data[ks] = TierData::Cells(C::wrap(Arc::new(whole)));
    }
    Ok(data)
}

/// Totals over the positions of this rank's share of a tier (weighted by class size), at
/// its places from `first` on (`cells`). The moves are left out when the solve `counted`
/// them (its init generates every position's moves anyway), else generated here.
pub(crate) fn tally<G: DenseIndex, C: Cell, P: Placement>(
    game: &G,
    t: G::Tier,
    part: &P,
    me: usize,
    first: u64,
    cells: &[C],
    counted: bool,
) -> Stats {
    const PART: usize = 1 << 14;
    cells
        .par_chunks(PART)
        .enumerate()
        .map(|(c, chunk)| {
            let mut s = Stats::default();
            let mut moves = Vec::new();
            for (j, cell) in chunk.iter().enumerate() {
                let Some(v) = cell.decode() else { continue };
                let i = part.global(me, first + (c * PART + j) as u64);
                // Cells the solve just made hold values at positions only.
                let p = match counted {
                    true => game.unrank_solved(t, i),
                    false => game.unrank(t, i),
                };
                let Some(p) = p else {
                    continue;
                };
                let w = <G::Symmetry as Symmetry<G>>::class_size(game, &p);
                s.positions += w;
                s.states += w;
                s.classes += 1;
                v.count(w, &mut s);
                if !counted && game.primitive(&p).is_none() {
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

/// A tier just solved: its value cells, or its class cells and level log.
pub(crate) enum Fresh<C> {
    /// Value cells.
    Cells(Vec<C>),
    /// Class cells, their values to be made.
    Classes(Finished<C>),
}

/// A tier of at most this many bytes of work may be solved beside others
/// ([`Run::batch`]): so the peak grows by at most this much a further thread.
const TOGETHER: u64 = 256 << 20;

/// How far down the order [`Run::batch`] looks for tiers to solve beside the first.
const LOOK_AHEAD: usize = 16;

/// The part of a memory limit the driver leaves to what its plan does not count: the
/// program's own pages and its threads' stacks (about 20 MiB), a small tier's lists beyond
/// its estimate (a few MiB), and what the allocator keeps of the memory freed (given back
/// after each eviction, [`SolveOptions::give_back`], but kept again within a batch). 16
/// MiB and a 16th of the limit, at most 1 GiB. Measured with the allocator's count of live
/// bytes beside the resident set: the live bytes passed the plan by at most 3 MiB, the
/// resident set passed the live bytes by 19 MiB (every 3- and 4-piece chess ending under
/// `--memory 150M`) and 66 MiB (KRPvKP and the endings it reaches, `--memory 3G`); the
/// whole 5-piece set under `--memory 8G` peaked 290 MiB over what the plan let it hold, so
/// with a 32nd (256 MiB) left it ended 35 MB over the limit.
fn uncounted(limit: u64) -> u64 {
    (16u64 << 20)
        .saturating_add(limit / 16)
        .min(1 << 30)
        .min(limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::storage::MemStorage;
    use crate::store::tierfile::Codec;
    use retrograde_solve::Value;

    #[test]
    fn share_headers_name_the_dealing_within_40_bytes() {
        let p = Blocks::deal(1 << 20, 3);
        assert_eq!(
            p.header_tier("x3o2"),
            format!("x3o2~d{DEALING}u{}", p.unit_shift())
        );
        let long = "é".repeat(30);
        let h = p.header_tier(&long);
        assert!(
            h.len() <= 40 && h.ends_with(&format!("~d{DEALING}u{}", p.unit_shift())),
            "{h}"
        );
    }

    #[test]
    fn a_share_of_another_dealing_is_not_read() {
        let st = MemStorage::new();
        let part = Blocks::deal(10_000, 2);
        let cells = vec![<u8 as Cell>::encode(Value::Win(1)).unwrap(); part.len(0) as usize];
        let file = share_file("t", 0, 2);
        let ours = header("g", &part.header_tier("t"), Kind::Values, 0);
        store_cells(&st, &file, &ours, &cells, Codec::Raw).unwrap();
        assert!(Reader::open(&st, &file, &ours).is_ok());
        // What the first dealing (round robin) wrote: the plain tier name.
        let before = header("g", "t", Kind::Values, 0);
        assert!(Reader::open(&st, &file, &before).is_err());
    }

    #[test]
    fn the_eviction_leaves_16_mib_and_a_16th_of_the_limit_at_most_1_gib() {
        assert_eq!(uncounted(160 << 20), 26 << 20);
        assert_eq!(uncounted(8 << 30), (16 << 20) + (512 << 20));
        assert_eq!(uncounted(64 << 30), 1 << 30);
        assert_eq!(uncounted(u64::MAX), 1 << 30);
        assert_eq!(uncounted(10 << 20), 10 << 20);
        assert_eq!(uncounted(0), 0);
    }
}

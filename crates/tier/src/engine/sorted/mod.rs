//! The sorted-keys layout (Connect-4's), for one process and for ranks alike: tiers found
//! from the start by merging, solved by merge-joins, over a placement of each tier's keys.
//!
//! # Algorithm
//! Each tier is a sorted array of the keys of its reachable positions (`u32` when every
//! tier's keys fit in 32 bits, else `u64`). The game's moves are numbered by slot, and the
//! child through one slot is strictly increasing in the key over a tier
//! ([`OrderedMoves`](crate::OrderedMoves)), so:
//!
//! 1. **Discover**, parents first (`discover.rs`): a tier is the merge of one sorted stream
//!    of children per (parent tier, slot), duplicates dropped: no sort, no hash; in parallel
//!    over ranges of child keys, cut at quantiles of a sample of children.
//! 2. **Solve**, children first (`tier.rs`): a tier's values come from its one child tier
//!    by one merge-join per slot (a cursor walks the sorted child tier: no search), in
//!    parallel over runs of parents.
//! 3. **Totals**: every key is a position reachable from the start, so a tier's totals are
//!    counted as it is solved (or, reused, read back), and summed.
//!
//! Every move must leave its tier, and every tier has at most one child tier. Positions are
//! not reduced by symmetry while solving (the merges need whole tiers: the mirror images of
//! a sorted stream are not sorted); a game's symmetry counts classes, and decides what a
//! database keeps.
//!
//! # Placement
//! One process owns every key of a tier ([`WholeRange`]); across ranks each owns a key
//! range of every tier ([`KeyRanges`], chosen when the tier is found), so one huge tier
//! spreads over all of them. The code is the same: with one process every test of ownership
//! is a constant, and the exchanges (a round's children sent to their owners; a round's
//! lookups of children another rank owns, and their values) compile away (`place.rs`).
//!
//! # Why the answer is the one-process answer, bit for bit, for every number of ranks
//! A tier's keys are the same set for every placement (the union of the children of the
//! parent tier's keys, each range merged from every rank's streams), and the shares are
//! disjoint ranges in order, so their concatenation is the one-process tier. A position's
//! value is a function of its children's values only (the best of them through the move, or
//! its primitive value), which every rank reads exactly as one process does, whoever owns
//! them; the maximum does not depend on the order the children come in. Totals are sums and
//! maxima over positions.
//!
//! # Files
//! With a storage, discovery writes each tier's keys, and a solved tier is kept where its
//! placement keeps it; the database holds the canonical keys and values of every tier,
//! written by one process as each tier is solved and put together from the ranks' shares at
//! the end (`store.rs`). Resuming reuses a tier's keys when every rank's share reads back
//! (and the shares are in order across ranks), and its values when every rank's share of
//! them does; anything else is solved again, by every rank. One process removes its work
//! files once the database is complete; ranks keep theirs for a later resume with the same
//! number of ranks. Without `keep_values` the files serve the solve only and are removed at
//! the end.
//!
//! # Memory (per rank: its share of each)
//! Discovering a tier holds its parent tiers' keys, 1 or 2 bytes of slot flags per parent,
//! the new keys about once, and a round's children (about `ROUND_KEYS` a rank). Solving a
//! tier holds its keys and values and its child tier's, a bit per key, and per run of
//! parents a few bytes each (ranks: for a round of `ROUND_PARENTS`, and the requests: a key
//! and a value per move to another rank). With a storage, a tier's keys and values are
//! dropped once no tier needs them.

mod discover;
mod keys;
mod place;
mod store;
mod tier;

pub(crate) use keys::Keys;
pub use place::keys_share_file;
pub(crate) use place::{KeyRanges, WholeRange};

use crate::api::game::{OrderedMoves, Symmetry};
use crate::engine::small_rounds;
use crate::engine::solution::{TierData, TierSolution, TierTotals};
use crate::engine::{prepare_storage, write_finished, Dag, Event, SolveOptions, Traffic};
use crate::error::Error;
use crate::stats::merge_stats;
use crate::stats::Stats;
use crate::store::cell::{Cell, CellArray};
use crate::store::meta::{header, keys_file, values_file};
use crate::store::storage::Storage;
use crate::store::tierfile::{Kind, Reader};
use discover::discover;
use keys::{decode_keys, load_keys, put_keys, store_keys, Key};
use place::{everywhere, garbled, halt, KeyPlacement};
use rayon::prelude::*;
use retrograde_graph::Primitive;
use retrograde_solve::exchange::Exchange;
use retrograde_solve::Value;
use std::sync::Arc;
use std::time::Instant;
use tier::{solve_tier, Below};

/// Children a rank receives per discovery round, about.
fn round_keys<P: KeyPlacement>() -> u64 {
    match (small_rounds(), P::ALONE) {
        (true, _) => 40,
        (false, true) => discover::ALONE_ROUND_KEYS,
        (false, false) => discover::ROUND_KEYS,
    }
}

/// Parents a rank solves per round (ranks only), a multiple of [`chunk`].
fn round_parents() -> usize {
    match small_rounds() {
        true => 128,
        false => tier::ROUND_PARENTS,
    }
}

/// Parents per task, a multiple of 64.
fn chunk() -> usize {
    match small_rounds() {
        true => 64,
        false => 1 << 14,
    }
}

/// The slots with a legal move, as bits; none at a primitive position.
#[inline]
fn slots_of<G: OrderedMoves>(game: &G, p: &G::Position) -> u16 {
    if game.primitive(p).is_some() {
        return 0;
    }
    game.slot_flags(p)
}

fn terminal(p: Primitive) -> Value {
    match p {
        Primitive::Win => Value::Win(0),
        Primitive::Loss => Value::Loss(0),
        Primitive::Tie => Value::Tie(0),
    }
}

type Solved<'g, G> = Result<(TierSolution<'g, G>, Traffic), Error>;

/// Solves every tier of a sorted-keys game below its start on this rank's share of each
/// (all of it with [`WholeRange`]); see the [module docs](self) and
/// [`crate::solve_distributed`].
pub(crate) fn solve_sorted<'g, G: OrderedMoves, P: KeyPlacement>(
    game: &'g G,
    opts: &SolveOptions,
    ex: &dyn Exchange,
    whole: bool,
) -> Solved<'g, G> {
    if let Some(st) = &opts.storage {
        // With ranks the database is finished only once the shares are put together, and
        // rank 0 alone knows: a finished one is put together again from the shares.
        let reuse = opts.resume && P::ALONE;
        if let Some(done) = prepare_storage(game, st, opts, reuse)? {
            return Ok((done, Traffic::default()));
        }
    }
    let dag = Dag::build(game)?;
    let wide = dag.tiers.iter().any(|&t| game.key_bits(t) > 32);
    let d = &dag;
    match (wide, super::small(game)) {
        (false, true) => Sorted::<G, u32, u8, P>::new(game, opts, ex, d, whole)?.run(),
        (false, false) => Sorted::<G, u32, u16, P>::new(game, opts, ex, d, whole)?.run(),
        (true, true) => Sorted::<G, u64, u8, P>::new(game, opts, ex, d, whole)?.run(),
        (true, false) => Sorted::<G, u64, u16, P>::new(game, opts, ex, d, whole)?.run(),
    }
}

/// What the layout needs of a game's tiers (a start, at most 16 slots, at most one child
/// tier per tier, the start's tier the only root): the start and its tier's number.
fn shape<G: OrderedMoves>(game: &G, dag: &Dag<G::Tier>) -> Result<(G::Position, usize), Error> {
    let Some(start) = game.start() else {
        return Err(Error::Unsupported(
            "the sorted-keys layout needs a start position".into(),
        ));
    };
    if game.slots() > 16 {
        return Err(Error::Unsupported(
            "the sorted-keys layout handles at most 16 move slots".into(),
        ));
    }
    if let Some(k) = (0..dag.tiers.len()).find(|&k| dag.children[k].len() > 1) {
        return Err(Error::Unsupported(format!(
            "tier {} has {} child tiers; the sorted-keys layout allows one",
            dag.names[k],
            dag.children[k].len()
        )));
    }
    let root = game.tier(&start);
    let ks = dag.tiers.iter().position(|&t| t == root);
    match ks {
        Some(ks) if dag.roots == [ks] => Ok((start, ks)),
        _ => Err(Error::Unsupported(
            "the sorted-keys layout solves the tiers below the start's tier only".into(),
        )),
    }
}

/// A solve in progress: this rank's share of the tiers in hand, and where the others are.
struct Sorted<'g, 'a, G: OrderedMoves, K, C, P> {
    game: &'g G,
    opts: &'a SolveOptions,
    ex: &'a dyn Exchange,
    dag: &'a Dag<G::Tier>,
    gname: String,
    storage: Option<&'a dyn Storage>,
    start: G::Position,
    /// The start's tier.
    ks: usize,
    /// This rank's keys of each tier while needed, and who owns the others.
    keys: Vec<Option<Arc<Vec<K>>>>,
    owners: Vec<Option<P>>,
    /// This rank's values of each solved tier while needed.
    vals: Vec<Option<Arc<Vec<C>>>>,
    /// The keys of each tier, over every rank.
    sizes: Vec<u64>,
    key_files: Vec<String>,
    /// Solved tiers are kept in files, and read back when needed again.
    stored: bool,
    /// The tiers the answer holds (every one with `whole`, else the start's).
    wanted: Vec<bool>,
}

impl<'g, 'a, G: OrderedMoves, K: Key, C: CellArray<V = Value>, P: KeyPlacement>
    Sorted<'g, 'a, G, K, C, P>
{
    fn new(
        game: &'g G,
        opts: &'a SolveOptions,
        ex: &'a dyn Exchange,
        dag: &'a Dag<G::Tier>,
        whole: bool,
    ) -> Result<Self, Error> {
        let (start, ks) = shape(game, dag)?;
        let n = dag.tiers.len();
        let (me, kk) = (ex.rank(), ex.size());
        Ok(Sorted {
            game,
            opts,
            ex,
            dag,
            gname: game.name(),
            storage: opts.storage.as_deref(),
            start,
            ks,
            keys: vec![None; n],
            owners: (0..n).map(|_| None).collect(),
            vals: vec![None; n],
            sizes: vec![0; n],
            key_files: dag.names.iter().map(|t| P::keys_file(t, me, kk)).collect(),
            stored: opts.storage.is_some() && opts.keep_values,
            wanted: (0..n).map(|k| whole || k == ks).collect(),
        })
    }

    fn run(mut self) -> Solved<'g, G> {
        self.opts.emit(&Event::Plan {
            tiers: self.dag.tiers.len(),
            slots: 0,
        });
        let started = Instant::now();
        self.discover_all()?;
        let explore = started.elapsed();
        let started = Instant::now();
        let (per_tier, solved) = self.solve_all()?;
        let per_tier = merge_stats(self.ex, per_tier)?;
        let mut stats = Stats::default();
        for s in &per_tier {
            stats.merge(s);
        }
        stats.explore = explore;
        stats.solve = started.elapsed();
        let data = self.answer()?;
        if let (Some(st), true, false) = (self.storage, self.stored, P::ALONE) {
            let (game, dag, ex) = (self.game, self.dag, self.ex);
            store::assemble::<G, C, K, P>(game, dag, &self.key_files, ex, st, self.opts)?;
        }
        let mut tr = [self.ex.bytes_sent(), solved];
        if !P::ALONE {
            self.ex.sum(&mut tr);
        }
        // A tier holds its canonical positions (the entries of its database files).
        let classes: Vec<u64> = per_tier.iter().map(|s| s.classes).collect();
        let n = self.dag.tiers.len();
        let solution = TierSolution::new(
            self.game,
            self.dag.tiers.clone(),
            data,
            if P::ALONE {
                self.opts.storage.clone()
            } else {
                None
            },
            stats,
            TierTotals::Known(vec![None; n]),
            classes.clone(),
            C::BYTES as u32,
        );
        if let (Some(st), true, 0) = (self.storage, self.stored, self.ex.rank()) {
            write_finished(
                st,
                &solution,
                self.opts,
                "sorted",
                &self.dag.names,
                &classes,
            )?;
        }
        self.clean()?;
        let traffic = Traffic {
            bytes: tr[0],
            positions: tr[1],
        };
        Ok((solution, traffic))
    }

    /// What a memory check names: the tier, and across ranks the rank.
    fn what(&self, s: String) -> String {
        match P::ALONE {
            true => s,
            false => format!("{s} (rank {})", self.ex.rank()),
        }
    }

    /// This rank's keys of tier `k`, read back when not in memory.
    fn keys_of(&self, k: usize) -> Result<Arc<Vec<K>>, Error> {
        if let Some(v) = &self.keys[k] {
            return Ok(v.clone());
        }
        let st = self.storage.expect("an evicted tier was stored");
        let keys = load_keys::<K>(st, &self.gname, &self.dag.names[k], &self.key_files[k])?;
        Ok(Arc::new(keys))
    }

    /// This rank's values of solved tier `k`, read back when not in memory.
    fn vals_of(&self, k: usize, keys: &[K]) -> Result<Arc<Vec<C>>, Error> {
        if let Some(v) = &self.vals[k] {
            return Ok(v.clone());
        }
        let st = self.storage.expect("an evicted tier was stored");
        let (t, name) = (self.dag.tiers[k], &self.dag.names[k]);
        let vals = store::reread::<G, C, K, P>(st, self.game, t, name, keys, self.ex)?;
        Ok(Arc::new(vals))
    }

    /// Finds every tier, parents first.
    fn discover_all(&mut self) -> Result<(), Error> {
        let dag = self.dag;
        let mut children_left: Vec<usize> = dag.children.iter().map(Vec::len).collect();
        let mut found = 0u64;
        for &k in dag.order.iter().rev() {
            halt::<P>(self.ex, self.opts)?;
            let name = &dag.names[k];
            self.opts.emit(&Event::Discover {
                tier: name,
                positions: found,
            });
            let (mine, own) = match self.found_before(k) {
                Some(r) => r,
                None => {
                    let mine = self.find(k)?;
                    if let Some(st) = self.storage {
                        store_keys(st, &self.gname, name, &self.key_files[k], &mine)?;
                    }
                    let own = P::agree(self.ex, &mine).map_err(|m| {
                        Error::Game(format!(
                            "tier {name} came out of order across ranks ({m}): the moves of some slot are not increasing in the key"
                        ))
                    })?;
                    (mine, own)
                }
            };
            let mut total = [mine.len() as u64];
            if !P::ALONE {
                self.ex.sum(&mut total);
            }
            self.sizes[k] = total[0];
            found += total[0];
            self.keys[k] = Some(Arc::new(mine));
            self.owners[k] = Some(own);
            // A parent's keys are no longer needed once all its children are found.
            let stored = self.storage.is_some();
            for &p in &dag.parents[k] {
                children_left[p] -= 1;
                if children_left[p] == 0 && stored {
                    self.keys[p] = None;
                }
            }
            if dag.children[k].is_empty() && stored {
                self.keys[k] = None;
            }
        }
        Ok(())
    }

    /// Tier `k`'s keys found by an earlier run, when every rank's share reads back (and the
    /// shares are in order across ranks).
    fn found_before(&self, k: usize) -> Option<(Vec<K>, P)> {
        let (st, file) = (self.storage?, &self.key_files[k]);
        if !self.opts.resume {
            return None;
        }
        let mine = match st.size(file).ok().flatten() {
            Some(_) => match load_keys::<K>(st, &self.gname, &self.dag.names[k], file) {
                Ok(v) => Some(v),
                Err(e) => {
                    self.opts.emit(&Event::Damaged { error: &e });
                    None
                }
            },
            None => None,
        };
        if !everywhere::<P>(self.ex, mine.is_some()) {
            return None;
        }
        let mine = mine.expect("every rank has its share");
        match P::agree(self.ex, &mine) {
            Ok(own) => Some((mine, own)),
            Err(m) => {
                let e = Error::damaged(st.describe(file), m);
                self.opts.emit(&Event::Damaged { error: &e });
                None
            }
        }
    }

    /// This rank's keys of tier `k`: the start alone for the start's tier (at rank 0), else
    /// the merge of the children of its parent tiers.
    fn find(&self, k: usize) -> Result<Vec<K>, Error> {
        let (game, dag, opts) = (self.game, self.dag, self.opts);
        if k == self.ks {
            let key = game.key(&self.start);
            let bits = game.key_bits(dag.tiers[k]);
            if bits < 64 && key >> bits != 0 {
                return Err(Error::Game(format!(
                    "the key {key} of the start is past the {bits} key bits of its tier"
                )));
            }
            let here = self.ex.rank() == 0;
            return Ok(here.then(|| K::from_u64(key)).into_iter().collect());
        }
        let mut parents: Vec<(G::Tier, Arc<Vec<K>>)> = Vec::new();
        let mut held = 0u64;
        for &p in &dag.parents[k] {
            let pk = self.keys_of(p)?;
            held += pk.len() as u64 * (u64::from(K::BYTES) + 2);
            parents.push((dag.tiers[p], pk));
        }
        let what = || self.what(format!("finding tier {}", dag.names[k]));
        let budget = opts.memory_limit.map(|l| l.saturating_sub(held));
        if budget == Some(0) {
            opts.check_memory(what, held)?;
        }
        let (t, ex) = (dag.tiers[k], self.ex);
        let merged = match game.slots() <= 8 {
            true => discover::<G, K, u8, P>(game, t, &parents, budget, ex, opts),
            false => discover::<G, K, u16, P>(game, t, &parents, budget, ex, opts),
        };
        merged.map_err(|e| match e {
            Error::Memory { needed, .. } => Error::Memory {
                what: what(),
                needed: needed.saturating_add(held),
                limit: opts.memory_limit.unwrap_or(0),
            },
            e => e,
        })
    }

    /// Solves every tier, children first: the per-tier totals (this rank's), and the keys
    /// solved here (not reused).
    fn solve_all(&mut self) -> Result<(Vec<Stats>, u64), Error> {
        let (dag, opts, game) = (self.dag, self.opts, self.game);
        let n = dag.tiers.len();
        let mut parents_left: Vec<usize> = dag.parents.iter().map(Vec::len).collect();
        let mut per_tier = vec![Stats::default(); n];
        let (mut done, mut solved) = (0u64, 0u64);
        for &k in &dag.order {
            halt::<P>(self.ex, opts)?;
            let (name, t) = (&dag.names[k], dag.tiers[k]);
            let keys = self.keys_of(k)?;
            self.keys[k] = Some(keys.clone());
            let child = dag.children[k].first().copied();
            if let Some(c) = child {
                let ck = self.keys_of(c)?;
                self.vals[c] = Some(self.vals_of(c, &ck)?);
                self.keys[c] = Some(ck);
            }
            let cell = u64::from(K::BYTES) + C::BYTES as u64;
            let below_len = child.map_or(0, |c| self.keys[c].as_ref().map_or(0, |v| v.len()));
            let held = (keys.len() + below_len) as u64 * cell;
            opts.check_memory(|| self.what(format!("tier {name}")), held)?;
            let reuse = self.solved_before(k, &keys);
            opts.emit(&Event::Tier {
                tier: name,
                size: self.sizes[k],
                done,
                reused: reuse.is_some(),
            });
            done += self.sizes[k];
            let (mine, stats) = match reuse {
                Some(v) => {
                    let s = tally::<G, C, K>(game, t, &keys, &v);
                    (v, s)
                }
                None => {
                    let below = child.map(|c| Below {
                        tier: dag.tiers[c],
                        keys: &self.keys[c].as_ref().expect("loaded")[..],
                        vals: &self.vals[c].as_ref().expect("loaded")[..],
                        owners: self.owners[c].as_ref().expect("found"),
                    });
                    let (v, s, bits) =
                        solve_tier::<G, C, K, P>(game, t, &keys, below.as_ref(), self.ex, opts)?;
                    solved += keys.len() as u64;
                    if let (Some(st), true) = (self.storage, self.stored) {
                        // One process writes the database's files at once; a rank its
                        // values, put together with the others' at the end.
                        let share = store::Share {
                            name,
                            keys: &keys,
                            vals: &v,
                            bits: &bits,
                        };
                        match P::ALONE {
                            true => store::write_canonical(st, game, &share, opts.codec, self.ex),
                            false => store::store_share(st, game, name, &v, opts.codec, self.ex),
                        }?;
                    }
                    (v, s)
                }
            };
            per_tier[k] = stats;
            self.vals[k] = Some(Arc::new(mine));
            if let Some(c) = child {
                parents_left[c] -= 1;
                // Kept to the end when the answer holds it and it cannot be read back.
                if parents_left[c] == 0 && (self.stored || !self.wanted[c]) {
                    self.keys[c] = None;
                    self.vals[c] = None;
                }
            }
        }
        Ok((per_tier, solved))
    }

    /// Tier `k`'s values solved by an earlier run, when every rank's share of them reads
    /// back.
    fn solved_before(&self, k: usize, keys: &[K]) -> Option<Vec<C>> {
        let st = self.storage?;
        if !self.opts.resume {
            return None;
        }
        let (me, kk) = (self.ex.rank(), self.ex.size());
        let name = &self.dag.names[k];
        let files = store::kept_files::<P>(name, me, kk);
        let there = files.iter().all(|f| st.size(f).ok().flatten().is_some());
        let mine = match there {
            true => {
                let t = self.dag.tiers[k];
                match store::reread::<G, C, K, P>(st, self.game, t, name, keys, self.ex) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        self.opts.emit(&Event::Damaged { error: &e });
                        None
                    }
                }
            }
            false => None,
        };
        match everywhere::<P>(self.ex, mine.is_some()) {
            true => mine,
            false => None,
        }
    }

    /// Every tier as the answer holds it: the database's files (one process, with one), or
    /// the wanted tiers at rank 0 (whole; the others dropped).
    fn answer(&self) -> Result<Vec<TierData>, Error> {
        let (dag, gname) = (self.dag, &self.gname);
        let n = dag.tiers.len();
        if let (Some(st), true, true) = (self.storage, self.stored, P::ALONE) {
            return (0..n)
                .map(|k| {
                    let name = &dag.names[k];
                    Ok(TierData::SortedFiles {
                        keys: Reader::open(
                            st,
                            &keys_file(name),
                            &header(gname, name, Kind::Keys, K::BYTES),
                        )?,
                        vals: Reader::open(
                            st,
                            &values_file(name),
                            &header(gname, name, Kind::Values, 0),
                        )?,
                    })
                })
                .collect();
        }
        let mut data = Vec::with_capacity(n);
        for k in 0..n {
            data.push(match self.wanted[k] {
                true => {
                    let keys = self.keys_of(k)?;
                    let vals = self.vals_of(k, &keys)?;
                    self.gather(keys, vals)?
                }
                false => TierData::Dropped,
            });
        }
        Ok(data)
    }

    /// A tier, whole, from every rank's share, at rank 0 (elsewhere nothing: a lookup finds
    /// nothing rather than an error).
    fn gather(&self, keys: Arc<Vec<K>>, vals: Arc<Vec<C>>) -> Result<TierData, Error> {
        if P::ALONE {
            return Ok(TierData::Sorted {
                keys: K::wrap(keys),
                vals: C::wrap(vals),
            });
        }
        let mut bytes = Vec::with_capacity(8 + keys.len() * (K::BYTES as usize + 2));
        bytes.extend_from_slice(&(keys.len() as u64).to_le_bytes());
        put_keys(&mut bytes, &keys);
        for c in vals.iter() {
            bytes.extend_from_slice(&(c.to_bits() as u16).to_le_bytes());
        }
        let (mut ak, mut av): (Vec<K>, Vec<C>) = (Vec::new(), Vec::new());
        for b in self.ex.gather(&bytes).unwrap_or_default() {
            let m = b
                .get(..8)
                .and_then(|h| usize::try_from(u64::from_le_bytes(h.try_into().ok()?)).ok())
                .ok_or_else(|| garbled("share of a tier"))?;
            let kb = m.saturating_mul(K::BYTES as usize);
            if b.len() != 8usize.saturating_add(kb).saturating_add(2 * m) {
                return Err(garbled("share of a tier"));
            }
            ak.extend(decode_keys::<K>(&b[8..8 + kb]));
            av.extend(
                b[8 + kb..]
                    .chunks_exact(2)
                    .map(|c| C::from_bits(u32::from(u16::from_le_bytes([c[0], c[1]])))),
            );
        }
        if ak.windows(2).any(|w| w[0] >= w[1]) {
            return Err(garbled("share of a tier (keys out of order)"));
        }
        Ok(TierData::Sorted {
            keys: K::wrap(Arc::new(ak)),
            vals: C::wrap(Arc::new(av)),
        })
    }

    /// The files at the end: one process removes its work files (the database, written,
    /// is what it resumes from); ranks keep theirs for a resume with as many ranks; files
    /// that served the solve only are removed.
    fn clean(&self) -> Result<(), Error> {
        let Some(st) = self.storage else {
            return Ok(());
        };
        if self.stored && !P::ALONE {
            return Ok(());
        }
        let (me, kk) = (self.ex.rank(), self.ex.size());
        for (k, name) in self.dag.names.iter().enumerate() {
            store::remove(st, &self.key_files[k])?;
            if !self.stored && !P::ALONE {
                for f in store::kept_files::<P>(name, me, kk) {
                    store::remove(st, &f)?;
                }
            }
        }
        Ok(())
    }
}

/// The totals of this rank's share of a tier reused from a file.
fn tally<G: OrderedMoves, C: Cell<V = Value>, K: Key>(
    game: &G,
    t: G::Tier,
    keys: &[K],
    vals: &[C],
) -> Stats {
    keys.par_chunks(1 << 14)
        .zip(vals.par_chunks(1 << 14))
        .map(|(ks, vs)| {
            let mut s = Stats::default();
            for (&k, &v) in ks.iter().zip(vs) {
                let p = game.key_position(t, k.to_u64());
                s.positions += 1;
                s.states += 1;
                s.moves += u64::from(slots_of(game, &p).count_ones());
                if <G::Symmetry as Symmetry<G>>::is_canonical(game, &p) {
                    s.classes += 1;
                }
                if let Some(v) = v.decode() {
                    s.count(v);
                }
            }
            s
        })
        .reduce(Stats::default, |mut a, b| {
            a.merge(&b);
            a
        })
}

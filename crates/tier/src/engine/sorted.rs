//! The sorted-keys layout: tiers found from the start by merging, solved by merge-joins.
//!
//! # Algorithm
//! Each tier is a sorted array of the keys of its reachable positions (`u32` when every
//! tier's keys fit in 32 bits, else `u64`). The game's moves are numbered by slot, and the
//! child through one slot is strictly increasing in the key over a tier
//! ([`OrderedMoves`](crate::OrderedMoves)), so:
//!
//! 1. **Discover**, parents first: the children of a sorted tier through one slot come out
//!    sorted, so a tier is the merge of one sorted stream per (parent tier, slot), with
//!    duplicates dropped: no sort, no hash. In parallel: the child key space is cut at
//!    bounds (children of parents at quantiles), each range is found in every stream by a
//!    binary search over the parents that have the slot (a byte of slot flags per parent
//!    skips the others), and the ranges are merged independently and concatenated.
//! 2. **Solve**, children first: a tier's values come from its one child tier by one
//!    merge-join per slot (a parent's child through a slot is found by advancing a cursor in
//!    the sorted child tier: no search), in parallel over runs of parents.
//!
//! Every move must leave its tier, and every tier has at most one child tier. Positions are
//! not reduced by symmetry while solving (the merges need whole tiers: the mirror images of
//! a sorted stream are not sorted); a game's symmetry counts classes, and decides what a
//! database keeps.
//!
//! # Files
//! With a storage, discovery writes each tier's keys to a work file (`NAME.work.keys`,
//! delta-coded), which solving reads back. A solved tier is written as the database keeps
//! it: the keys and values of its canonical positions only (`NAME.keys`, delta-coded, and
//! `NAME.values`), since a lookup goes through the canonical position anyway. Resuming
//! rebuilds a solved tier's values for every position from those (each position's value is
//! its canonical one's). The work files are removed once the database is complete.
//!
//! # Memory
//! Discovering a tier holds its parent tiers' keys, 1 or 2 bytes of slot flags per parent,
//! and the new keys about once: the tier is reserved at the most its moves can give (pages
//! never written are never the process's), and its ranges are merged a few at a time, each
//! run appended and freed before the next few. Solving a tier holds its keys and values and
//! its child tier's.

use crate::api::game::{keeps, OrderedMoves, Symmetry};
use crate::engine::cell::{Cell, CellArray};
use crate::engine::{Dag, Event, SolveOptions};
use crate::error::Error;
use crate::solution::{TierData, TierSolution};
use crate::stats::Stats;
use crate::store::cells::{fits_one_byte, load_cells, push_stored};
use crate::store::meta::{header, keys_file, read_meta, values_file};
use crate::store::storage::Storage;
use crate::store::tierfile::{self, Codec, Kind, Reader};
use rayon::prelude::*;
use retrograde_graph::Primitive;
use retrograde_solve::place::Whole;
use retrograde_solve::Value;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

/// A key word: `u32` or `u64`.
pub(crate) trait Key:
    Copy + Ord + Send + Sync + std::fmt::Debug + bytemuck::Pod + 'static
{
    const BYTES: u32;
    fn from_u64(k: u64) -> Self;
    fn to_u64(self) -> u64;
    fn wrap(v: Arc<Vec<Self>>) -> Keys;
}

impl Key for u32 {
    const BYTES: u32 = 4;
    #[inline]
    fn from_u64(k: u64) -> u32 {
        k as u32
    }
    #[inline]
    fn to_u64(self) -> u64 {
        u64::from(self)
    }
    fn wrap(v: Arc<Vec<u32>>) -> Keys {
        Keys::U32(v)
    }
}

impl Key for u64 {
    const BYTES: u32 = 8;
    #[inline]
    fn from_u64(k: u64) -> u64 {
        k
    }
    #[inline]
    fn to_u64(self) -> u64 {
        self
    }
    fn wrap(v: Arc<Vec<u64>>) -> Keys {
        Keys::U64(v)
    }
}

/// A tier's sorted keys in memory.
#[derive(Clone, Debug)]
pub(crate) enum Keys {
    U32(Arc<Vec<u32>>),
    U64(Arc<Vec<u64>>),
}

impl Keys {
    /// Where `key` is, if there.
    pub fn find(&self, key: u64) -> Option<usize> {
        match self {
            Keys::U32(v) => v.binary_search(&u32::try_from(key).ok()?).ok(),
            Keys::U64(v) => v.binary_search(&key).ok(),
        }
    }
}

/// Tiers smaller than this are merged by one thread.
const PARALLEL_MIN: usize = if cfg!(test) { 64 } else { 1 << 15 };
const SOLVE_CHUNK: usize = 1 << 14;

pub(crate) fn solve<'g, G: OrderedMoves, C: CellArray>(
    game: &'g G,
    opts: &SolveOptions,
) -> Result<TierSolution<'g, G>, Error> {
    let dag = Dag::build(game)?;
    let wide = dag.tiers.iter().any(|&t| game.key_bits(t) > 32);
    if wide {
        solve_keys::<G, C, u64>(game, opts, dag)
    } else {
        solve_keys::<G, C, u32>(game, opts, dag)
    }
}

/// The slots with a legal move, as bits; none at a primitive position.
#[inline]
pub(crate) fn slots_of<G: OrderedMoves>(game: &G, p: &G::Position) -> u16 {
    if game.primitive(p).is_some() {
        return 0;
    }
    slot_flags(game, p)
}

/// The slots with a legal move from a position that is not primitive.
#[inline]
pub(crate) fn slot_flags<G: OrderedMoves>(game: &G, p: &G::Position) -> u16 {
    game.slot_flags(p)
}

/// The work file of a tier's keys, all of them (the database keeps canonical ones only).
fn work_keys_file(tier: &str) -> String {
    format!("{tier}.work.keys")
}

pub(crate) fn load_keys<K: Key>(
    storage: &dyn Storage,
    game: &str,
    tier: &str,
    file: &str,
) -> Result<Vec<K>, Error> {
    let r = Reader::open(storage, file, &header(game, tier, Kind::Keys, K::BYTES))?;
    let keys = r.read_elems::<K>(storage)?;
    if keys.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::damaged(r.name().to_string(), "keys out of order"));
    }
    Ok(keys)
}

/// The codecs of a database's keys and values files for `codec`. Sorted tiers are big
/// (Connect-4 6x5: 1.4e9 canonical positions): zstd's level 3 writes them about three times
/// faster than level 9, in about 30% more bytes.
pub(crate) fn db_codecs(codec: Codec) -> (Codec, Codec) {
    match codec {
        Codec::Raw => (Codec::Raw, Codec::Raw),
        Codec::Zstd(l) | Codec::DeltaZstd(l) => (Codec::DeltaZstd(l.min(3)), Codec::Zstd(l.min(3))),
    }
}

/// Writes a solved tier as the database keeps it: the keys of its canonical positions
/// (delta-coded) and their values, streamed a block at a time; `bits` has a bit per key,
/// set for the canonical ones (the solve found them).
#[allow(clippy::too_many_arguments)]
fn store_canonical<G: OrderedMoves, C: CellArray, K: Key>(
    st: &dyn Storage,
    game: &G,
    name: &str,
    keys: &[K],
    vals: &[C],
    bits: &[u64],
    codec: Codec,
) -> Result<(), Error> {
    let gname = game.name();
    // How many canonical keys in each run of `RUN` keys.
    const RUN: usize = 1 << 16;
    debug_assert_eq!(bits.len(), keys.len().div_ceil(64));
    let mut before: Vec<u64> = bits
        .chunks(RUN / 64)
        .map(|w| w.iter().map(|x| u64::from(x.count_ones())).sum())
        .collect();
    let mut total = 0u64;
    for b in &mut before {
        let n = *b;
        *b = total;
        total += n;
    }
    let per = tierfile::BLOCK_ELEMS as u64;
    // Calls `f` with the index (into `keys`) of canonical keys number `lo..hi`.
    let each = |lo: u64, hi: u64, f: &mut dyn FnMut(usize)| {
        // The last run that starts at or before canonical key `lo`.
        let run = before.partition_point(|&b| b <= lo) - 1;
        let mut seen = before[run];
        let mut i = run * RUN;
        while seen < hi && i < keys.len() {
            if bits[i / 64] >> (i % 64) & 1 == 1 {
                if seen >= lo {
                    f(i);
                }
                seen += 1;
            }
            i += 1;
        }
    };
    let (key_codec, val_codec) = db_codecs(codec);
    tierfile::write_values(
        st,
        &keys_file(name),
        &header(&gname, name, Kind::Keys, K::BYTES),
        total,
        tierfile::BLOCK_ELEMS,
        key_codec,
        &|b, out| {
            let lo = b as u64 * per;
            let hi = (lo + per).min(total);
            each(lo, hi, &mut |i| {
                out.extend_from_slice(&keys[i].to_u64().to_le_bytes()[..K::BYTES as usize]);
            });
            hi - lo
        },
    )?;
    let one = fits_one_byte(vals);
    tierfile::write_values(
        st,
        &values_file(name),
        &header(&gname, name, Kind::Values, if one { 1 } else { 2 }),
        total,
        tierfile::BLOCK_ELEMS,
        val_codec,
        &|b, out| {
            let lo = b as u64 * per;
            let hi = (lo + per).min(total);
            each(lo, hi, &mut |i| {
                let v = vals[i].decode().expect("a solved tier's cells hold values");
                push_stored(out, v, one);
            });
            hi - lo
        },
    )
}

/// The values of every position of a solved tier (its sorted keys `keys`), from the
/// database's files of its canonical positions.
fn restore_vals<G: OrderedMoves, C: CellArray, K: Key>(
    st: &dyn Storage,
    game: &G,
    t: G::Tier,
    name: &str,
    keys: &[K],
) -> Result<Vec<C>, Error> {
    let gname = game.name();
    let canon = load_keys::<K>(st, &gname, name, &keys_file(name))?;
    let cvals = load_cells::<G, C, Whole>(
        st,
        game,
        t,
        &values_file(name),
        &header(&gname, name, Kind::Values, 0),
        Whole::new(canon.len() as u64),
        0,
    )?;
    let missing = AtomicBool::new(false);
    let out: Vec<C> = keys
        .par_iter()
        .map(|k| {
            let p = game.key_position(t, k.to_u64());
            let c = crate::api::game::canonical(game, &p);
            let ck = K::from_u64(game.key(&c));
            match canon.binary_search(&ck) {
                Ok(j) => cvals[j],
                Err(_) => {
                    missing.store(true, Relaxed);
                    C::UNDECIDED
                }
            }
        })
        .collect();
    if missing.load(Relaxed) {
        return Err(Error::damaged(
            st.describe(&keys_file(name)),
            "a canonical position of the tier is missing",
        ));
    }
    Ok(out)
}

/// What the sorted-keys layout needs of a game's tiers (a start, at most 16 slots, at most
/// one child tier per tier, the start's tier the only root): the start and its tier's number.
pub(crate) fn shape<G: OrderedMoves>(
    game: &G,
    dag: &Dag<G::Tier>,
) -> Result<(G::Position, usize), Error> {
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
    let ks = dag
        .tiers
        .iter()
        .position(|&t| t == root)
        .expect("the start's tier");
    if dag.roots != [ks] {
        return Err(Error::Unsupported(
            "the sorted-keys layout solves the tiers below the start's tier only".into(),
        ));
    }
    Ok((start, ks))
}

fn solve_keys<'g, G: OrderedMoves, C: CellArray, K: Key>(
    game: &'g G,
    opts: &SolveOptions,
    dag: Dag<G::Tier>,
) -> Result<TierSolution<'g, G>, Error> {
    let gname = game.name();
    let (start, ks) = shape(game, &dag)?;
    let storage = opts.storage.as_deref();
    if let Some(st) = &opts.storage {
        if let Some(done) = crate::engine::prepare_storage(game, st, opts.resume, opts.resume)? {
            return Ok(done);
        }
    }
    let n = dag.tiers.len();
    opts.emit(&Event::Plan { tiers: n, slots: 0 });
    let ksize = u64::from(K::BYTES);
    let cell = C::BYTES as u64;
    let resumable = |file: &str| -> bool {
        opts.resume && storage.is_some_and(|st| st.size(file).ok().flatten().is_some())
    };

    // 1. Discover, parents first.
    let started = Instant::now();
    let mut keys: Vec<Option<Arc<Vec<K>>>> = vec![None; n];
    let mut sizes = vec![0u64; n];
    let mut children_left: Vec<usize> = dag.children.iter().map(Vec::len).collect();
    let mut found = 0u64;
    for &k in dag.order.iter().rev() {
        opts.cancelled()?;
        let name = &dag.names[k];
        opts.emit(&Event::Discover {
            tier: name,
            positions: found,
        });
        let loaded = match storage {
            Some(st) if resumable(&work_keys_file(name)) => {
                match load_keys::<K>(st, &gname, name, &work_keys_file(name)) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        opts.emit(&Event::Damaged { error: &e });
                        None
                    }
                }
            }
            _ => None,
        };
        let reused = loaded.is_some();
        let mine: Vec<K> = match loaded {
            Some(v) => v,
            None => discover_tier(game, &dag, k, ks, start, &keys, storage, &gname, opts)?,
        };
        if let (Some(st), false) = (storage, reused) {
            tierfile::write(
                st,
                &work_keys_file(name),
                &header(&gname, name, Kind::Keys, K::BYTES),
                &tierfile::le_bytes(&mine),
                Codec::DeltaZstd(1),
                tierfile::BLOCK_ELEMS,
            )?;
        }
        sizes[k] = mine.len() as u64;
        found += sizes[k];
        keys[k] = Some(Arc::new(mine));
        // A parent's keys are no longer needed once all its children are found.
        for &p in &dag.parents[k] {
            children_left[p] -= 1;
            if children_left[p] == 0 && storage.is_some() {
                keys[p] = None;
            }
        }
        if dag.children[k].is_empty() && storage.is_some() {
            keys[k] = None;
        }
    }
    let explore = started.elapsed();

    // 2. Solve, children first.
    let started = Instant::now();
    let mut vals: Vec<Option<Arc<Vec<C>>>> = vec![None; n];
    let mut parents_left: Vec<usize> = dag.parents.iter().map(Vec::len).collect();
    let mut stats = Stats::default();
    let mut solved = 0u64;
    let mut classes = vec![0u64; n];
    for &k in &dag.order {
        opts.cancelled()?;
        let name = &dag.names[k];
        if keys[k].is_none() {
            let st = storage.expect("stored");
            keys[k] = Some(Arc::new(load_keys::<K>(
                st,
                &gname,
                name,
                &work_keys_file(name),
            )?));
        }
        let child = dag.children[k].first().copied();
        if let Some(c) = child {
            if keys[c].is_none() {
                let st = storage.expect("stored");
                let cname = &dag.names[c];
                keys[c] = Some(Arc::new(load_keys::<K>(
                    st,
                    &gname,
                    cname,
                    &work_keys_file(cname),
                )?));
            }
            if vals[c].is_none() {
                let st = storage.expect("stored");
                let ck = keys[c].as_ref().expect("loaded");
                vals[c] = Some(Arc::new(restore_vals::<G, C, K>(
                    st,
                    game,
                    dag.tiers[c],
                    &dag.names[c],
                    ck,
                )?));
            }
        }
        let held = (sizes[k] + child.map_or(0, |c| sizes[c])) * (ksize + cell);
        opts.check_memory(|| format!("tier {name}"), held)?;
        let my_keys = keys[k].clone().expect("loaded");
        let reuse = match storage {
            Some(st) if resumable(&values_file(name)) && resumable(&keys_file(name)) => {
                match restore_vals::<G, C, K>(st, game, dag.tiers[k], name, &my_keys) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        opts.emit(&Event::Damaged { error: &e });
                        None
                    }
                }
            }
            _ => None,
        };
        let reused = reuse.is_some();
        opts.emit(&Event::Tier {
            tier: name,
            size: sizes[k],
            done: solved,
            reused,
        });
        solved += sizes[k];
        let (mine, tier_stats, canon) = match reuse {
            Some(v) => {
                let st = tally::<G, C, K>(game, dag.tiers[k], &my_keys, &v);
                (v, st, Vec::new())
            }
            None => {
                let below = child.map(|c| {
                    (
                        dag.tiers[c],
                        &keys[c].as_ref().expect("loaded")[..],
                        &vals[c].as_ref().expect("loaded")[..],
                    )
                });
                solve_tier::<G, C, K>(game, dag.tiers[k], &my_keys, below, opts)?
            }
        };
        if let (Some(st), false, true) = (storage, reused, opts.keep_values) {
            store_canonical::<G, C, K>(st, game, name, &my_keys, &mine, &canon, opts.codec)?;
        }
        classes[k] = tier_stats.classes;
        stats.merge(&tier_stats);
        vals[k] = Some(Arc::new(mine));
        if let Some(c) = child {
            parents_left[c] -= 1;
            if parents_left[c] == 0 && (storage.is_some() || !opts.keep_values) {
                keys[c] = None;
                vals[c] = None;
            }
        }
    }
    stats.explore = explore;
    stats.solve = started.elapsed();

    if !opts.keep_values {
        // The start's tier (solved last, one position) answers the start's value.
        let data: Vec<TierData> = (0..n)
            .map(|k| match (&keys[k], &vals[k]) {
                (Some(kk), Some(vs)) if k == ks => TierData::Sorted {
                    keys: K::wrap(kk.clone()),
                    vals: C::wrap(vs.clone()),
                },
                _ => TierData::Dropped,
            })
            .collect();
        if let Some(st) = storage {
            remove_work_files(st, &dag)?;
        }
        return Ok(TierSolution::new(
            game,
            dag.tiers.clone(),
            data,
            opts.storage.clone(),
            stats,
            vec![None; n],
            classes,
            C::BYTES as u32,
        ));
    }
    let data: Vec<TierData> = (0..n)
        .map(|k| -> Result<TierData, Error> {
            Ok(match storage {
                None => TierData::Sorted {
                    keys: K::wrap(keys[k].clone().expect("in memory")),
                    vals: C::wrap(vals[k].clone().expect("in memory")),
                },
                Some(st) => TierData::SortedFiles {
                    keys: Reader::open(
                        st,
                        &keys_file(&dag.names[k]),
                        &header(&gname, &dag.names[k], Kind::Keys, K::BYTES),
                    )?,
                    vals: Reader::open(
                        st,
                        &values_file(&dag.names[k]),
                        &header(&gname, &dag.names[k], Kind::Values, 0),
                    )?,
                },
            })
        })
        .collect::<Result<_, _>>()?;
    // With a database, a tier holds the keys of its canonical positions only.
    let held: Vec<u64> = data
        .iter()
        .zip(&sizes)
        .map(|(d, &n)| match d {
            TierData::SortedFiles { keys, .. } => keys.count(),
            _ => n,
        })
        .collect();
    let n_tiers = dag.tiers.len();
    let solution = TierSolution::new(
        game,
        dag.tiers.clone(),
        data,
        opts.storage.clone(),
        stats,
        vec![None; n_tiers],
        held.clone(),
        C::BYTES as u32,
    );
    if let Some(st) = storage {
        crate::engine::write_finished(st, &solution, opts, "sorted", &dag.names, &held)?;
        debug_assert!(read_meta(st).is_ok());
        // The database is complete: the work files have served.
        remove_work_files(st, &dag)?;
    }
    Ok(solution)
}

/// Removes the discovery's work files.
fn remove_work_files<T>(st: &dyn Storage, dag: &Dag<T>) -> Result<(), Error> {
    for name in &dag.names {
        let f = work_keys_file(name);
        st.remove(&f)
            .map_err(|e| Error::io(st.describe(&f), "remove", e))?;
    }
    Ok(())
}

/// The keys of tier `k`: the start alone for the start's tier, else the merge of the
/// children of its parent tiers.
#[allow(clippy::too_many_arguments)]
fn discover_tier<G: OrderedMoves, K: Key>(
    game: &G,
    dag: &Dag<G::Tier>,
    k: usize,
    ks: usize,
    start: G::Position,
    keys: &[Option<Arc<Vec<K>>>],
    storage: Option<&dyn Storage>,
    gname: &str,
    opts: &SolveOptions,
) -> Result<Vec<K>, Error> {
    if k == ks {
        return Ok(vec![K::from_u64(game.key(&start))]);
    }
    let mut parents: Vec<(G::Tier, Arc<Vec<K>>)> = Vec::new();
    let mut held = 0u64;
    for &p in &dag.parents[k] {
        let pk = match &keys[p] {
            Some(v) => v.clone(),
            None => {
                let st = storage.expect("stored");
                let pname = &dag.names[p];
                Arc::new(load_keys::<K>(st, gname, pname, &work_keys_file(pname))?)
            }
        };
        held += pk.len() as u64 * (u64::from(K::BYTES) + 2);
        parents.push((dag.tiers[p], pk));
    }
    let budget = opts.memory_limit.map(|l| l.saturating_sub(held));
    if budget == Some(0) {
        return Err(Error::Memory {
            what: format!("finding tier {}", dag.names[k]),
            needed: held,
            limit: opts.memory_limit.unwrap_or(0),
        });
    }
    let t = dag.tiers[k];
    let merged = if game.slots() <= 8 {
        merge_with_flags::<G, K, u8>(game, t, &parents, budget, opts)
    } else {
        merge_with_flags::<G, K, u16>(game, t, &parents, budget, opts)
    };
    merged.map_err(|e| match e {
        Error::Memory { needed, .. } => Error::Memory {
            what: format!("finding tier {}", dag.names[k]),
            needed: needed.saturating_add(held),
            limit: opts.memory_limit.unwrap_or(0),
        },
        e => e,
    })
}

/// Slot flags of one parent: a byte when there are at most 8 slots.
trait Flags: Copy + Default + Send + Sync {
    fn from_u16(f: u16) -> Self;
    fn has(self, s: usize) -> bool;
    fn first(self) -> usize;
    fn any(self) -> bool;
}

impl Flags for u8 {
    #[inline]
    fn from_u16(f: u16) -> u8 {
        f as u8
    }
    #[inline]
    fn has(self, s: usize) -> bool {
        self >> s & 1 == 1
    }
    fn first(self) -> usize {
        self.trailing_zeros() as usize
    }
    fn any(self) -> bool {
        self != 0
    }
}

impl Flags for u16 {
    #[inline]
    fn from_u16(f: u16) -> u16 {
        f
    }
    #[inline]
    fn has(self, s: usize) -> bool {
        self >> s & 1 == 1
    }
    fn first(self) -> usize {
        self.trailing_zeros() as usize
    }
    fn any(self) -> bool {
        self != 0
    }
}

/// The stream whose head is least among the live ones, and that head; `None` when none
/// is live. A dead stream's head must be `u64::MAX`: the scan is then a branch-free
/// minimum (which stream is least is unpredictable), and a live head of `u64::MAX` itself
/// is told apart by `live`.
#[inline]
pub(crate) fn least_live(head: &[u64], live: &[bool]) -> Option<(usize, u64)> {
    let (mut at, mut k) = (0, *head.first()?);
    for (x, &h) in head.iter().enumerate().skip(1) {
        let less = h < k;
        k = if less { h } else { k };
        at = if less { x } else { at };
    }
    if live[at] {
        Some((at, k))
    } else {
        live.iter().position(|&l| l).map(|x| (x, head[x]))
    }
}

/// The slot flags of every parent, then the merge.
fn merge_with_flags<G: OrderedMoves, K: Key, F: Flags>(
    game: &G,
    t: G::Tier,
    parents: &[(G::Tier, Arc<Vec<K>>)],
    budget: Option<u64>,
    opts: &SolveOptions,
) -> Result<Vec<K>, Error> {
    let streams: Vec<(G::Tier, &[K], Vec<F>)> = parents
        .iter()
        .map(|(pt, pk)| {
            let mut flags = vec![F::default(); pk.len()];
            flags
                .par_chunks_mut(1 << 14)
                .zip(pk.par_chunks(1 << 14))
                .for_each(|(f, c)| {
                    for (f, &key) in f.iter_mut().zip(c) {
                        let p = game.key_position(*pt, key.to_u64());
                        *f = F::from_u16(slots_of(game, &p));
                    }
                });
            (*pt, &pk[..], flags)
        })
        .collect();
    merge_children::<G, K, F>(game, t, &streams, budget, opts)
}

/// Merges the children (in tier `t`) of sorted parent tiers, without duplicates.
fn merge_children<G: OrderedMoves, K: Key, F: Flags>(
    game: &G,
    t: G::Tier,
    parents: &[(G::Tier, &[K], Vec<F>)],
    budget: Option<u64>,
    opts: &SolveOptions,
) -> Result<Vec<K>, Error> {
    let nslots = game.slots();
    let child = |pt: G::Tier, key: K, s: usize| -> Result<u64, Error> {
        let p = game.key_position(pt, key.to_u64());
        let c = game
            .slot_child(&p, s)
            .ok_or_else(|| Error::Game(format!("slot {s} of {p:?} has no move though flagged")))?;
        if game.tier(&c) != t {
            return Err(Error::Game(format!(
                "slot {s} of {p:?} leads out of tier {t:?}, the one child tier"
            )));
        }
        Ok(game.key(&c))
    };
    // Streams: (parent tier index, slot).
    let streams: Vec<(usize, usize)> = (0..parents.len())
        .flat_map(|pi| (0..nslots).map(move |s| (pi, s)))
        .collect();
    let biggest = parents.iter().map(|p| p.1.len()).max().unwrap_or(0);
    let sequential = opts.engine == crate::Engine::Sequential;
    let parts = if biggest < PARALLEL_MIN || sequential {
        1
    } else {
        rayon::current_num_threads() * 16
    };
    // Bounds in child key space: the first child of parents at quantiles of the biggest
    // parent tier.
    let mut bounds: Vec<u64> = Vec::new();
    if parts > 1 {
        let (bi, big) = parents
            .iter()
            .enumerate()
            .max_by_key(|(_, p)| p.1.len())
            .expect("a parent tier");
        for r in 1..parts {
            let i = r * big.1.len() / parts;
            let f = big.2[i];
            if f.any() {
                bounds.push(child(parents[bi].0, big.1[i], f.first())?);
            }
        }
        bounds.sort_unstable();
        bounds.dedup();
    }
    // The first parent (of a stream) whose child is >= b: a binary search over the parents
    // that have the slot. Invariant: those in [0, lo) have children < b, those in [hi, len)
    // children >= b. A probe looks for the parent with the slot nearest to the middle, both
    // ways; what it scans past has no slot and is dropped with it.
    let find = |pi: usize, s: usize, b: u64| -> Result<usize, Error> {
        let (pt, pk, flags) = &parents[pi];
        let (mut lo, mut hi) = (0usize, pk.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let mut d = 0;
            let probe = loop {
                if mid + d < hi && flags[mid + d].has(s) {
                    // (mid - d, mid + d) has no parent with the slot.
                    break Some((mid + d, (mid + 1).saturating_sub(d).max(lo)));
                }
                if d > 0 && d <= mid - lo && flags[mid - d].has(s) {
                    // (mid - d, mid + d] has none.
                    break Some((mid - d, mid - d));
                }
                if mid + d >= hi && (d >= mid - lo) {
                    break None;
                }
                d += 1;
            };
            match probe {
                // No parent with the slot in [lo, hi): the boundary is anywhere in it.
                None => return Ok(lo),
                Some((j, clear_from)) => {
                    if child(*pt, pk[j], s)? < b {
                        lo = if j >= mid {
                            j + 1
                        } else {
                            (mid + d + 1).min(hi)
                        };
                    } else {
                        hi = if j >= mid { clear_from.min(j) } else { j };
                    }
                }
            }
        }
        Ok(lo)
    };
    // Each range's streams: where they start and end in it, and how many children they
    // give at most (the parents with the slot).
    let ranges = bounds.len() + 1;
    type Span = (Vec<usize>, Vec<usize>, usize);
    let spans: Vec<Span> = (0..ranges)
        .into_par_iter()
        .map(|r| -> Result<Span, Error> {
            let lo = (r > 0).then(|| bounds[r - 1]);
            let hi = bounds.get(r).copied();
            let mut idx = Vec::with_capacity(streams.len());
            let mut end = Vec::with_capacity(streams.len());
            let mut most = 0;
            for &(pi, s) in &streams {
                let i = match lo {
                    Some(b) => find(pi, s, b)?,
                    None => 0,
                };
                let e = match hi {
                    Some(b) => find(pi, s, b)?,
                    None => parents[pi].1.len(),
                };
                most += parents[pi].2[i..e].iter().filter(|f| f.has(s)).count();
                idx.push(i);
                end.push(e);
            }
            Ok((idx, end, most))
        })
        .collect::<Result<_, _>>()?;
    // The tier is reserved at its most (pages never written are never the process's), and
    // the ranges are merged a few at a time, in order, each run appended and freed before
    // the next few: the tier is held about once. (Merging every range into a vector of its
    // own, then copying them into one, held it twice when the runs' blocks stayed in the
    // allocator; merging into parts of one buffer left the parts' pages behind.)
    let cap: usize = spans.iter().map(|s| s.2).sum();
    let mut out: Vec<K> = Vec::new();
    out.try_reserve_exact(cap).map_err(|_| Error::Memory {
        what: String::new(),
        needed: cap as u64 * u64::from(K::BYTES),
        limit: 0,
    })?;
    let used = AtomicU64::new(0);
    let over = AtomicBool::new(false);
    let merge = |(mut idx, end, most): Span| -> Result<Vec<K>, Error> {
        let mut head = vec![u64::MAX; streams.len()];
        let mut live = vec![false; streams.len()];
        let advance = |x: usize,
                       idx: &mut [usize],
                       head: &mut [u64],
                       live: &mut [bool]|
         -> Result<(), Error> {
            let (pi, s) = streams[x];
            let (pt, pk, flags) = &parents[pi];
            // The next parent with the slot (a scan of its flags, without bounds checks).
            let (i, e) = (idx[x], end[x]);
            match flags[i..e].iter().position(|f| f.has(s)) {
                Some(d) => {
                    head[x] = child(*pt, pk[i + d], s)?;
                    live[x] = true;
                    idx[x] = i + d + 1;
                }
                None => {
                    head[x] = u64::MAX;
                    live[x] = false;
                    idx[x] = e;
                }
            }
            Ok(())
        };
        for x in 0..streams.len() {
            advance(x, &mut idx, &mut head, &mut live)?;
        }
        // A stream gives at most one child per parent with the slot.
        let mut run: Vec<K> = Vec::with_capacity(most);
        while let Some((at, k)) = least_live(&head, &live) {
            if run.last().map(|l| l.to_u64()) != Some(k) {
                debug_assert!(run.last().is_none_or(|l| l.to_u64() < k), "unsorted stream");
                run.push(K::from_u64(k));
                if run.len() % (1 << 20) == 0 {
                    let bytes = (1u64 << 20) * u64::from(K::BYTES);
                    let total = used.fetch_add(bytes, Relaxed) + bytes;
                    if budget.is_some_and(|b| total > b) {
                        over.store(true, Relaxed);
                    }
                    if over.load(Relaxed) {
                        return Ok(Vec::new());
                    }
                }
            }
            advance(at, &mut idx, &mut head, &mut live)?;
        }
        Ok(run)
    };
    let few = 4 * rayon::current_num_threads().max(1);
    let mut spans = spans.into_iter().peekable();
    while spans.peek().is_some() {
        let batch: Vec<Span> = spans.by_ref().take(few).collect();
        let runs: Vec<Vec<K>> = batch.into_par_iter().map(merge).collect::<Result<_, _>>()?;
        if over.load(Relaxed) {
            return Err(Error::Memory {
                what: String::new(),
                needed: used.load(Relaxed),
                limit: 0,
            });
        }
        for run in runs {
            if let (Some(a), Some(b)) = (out.last(), run.first()) {
                if a >= b {
                    return Err(Error::Game(format!(
                        "the moves of some slot are not increasing in the key (tier {t:?})"
                    )));
                }
            }
            out.extend_from_slice(&run);
        }
    }
    out.shrink_to_fit();
    Ok(out)
}

/// The values of a tier from its child tier's keys and values, the tier's totals (every
/// key is a reachable position), and a bit per key set for the canonical ones.
fn solve_tier<G: OrderedMoves, C: Cell, K: Key>(
    game: &G,
    t: G::Tier,
    keys: &[K],
    below: Option<(G::Tier, &[K], &[C])>,
    opts: &SolveOptions,
) -> Result<(Vec<C>, Stats, Vec<u64>), Error> {
    let nslots = game.slots();
    let encode = |v: Value| {
        C::encode(v).ok_or_else(|| Error::Remoteness {
            tier: format!("{t:?}"),
            max: C::MAX_REMOTENESS,
        })
    };
    // A multiple of 64, so that each part's canonical bits fill whole words.
    let chunk = if opts.engine == crate::Engine::Sequential {
        keys.len().max(1).next_multiple_of(64)
    } else {
        SOLVE_CHUNK
    };
    // The cells and bits are written in place: collecting each part's and concatenating
    // them held the tier's values twice (a third of a gigabyte at Connect-4 6x5's biggest).
    let mut cells = vec![C::default(); keys.len()];
    let mut bits = vec![0u64; keys.len().div_ceil(64)];
    let stats = keys
        .par_chunks(chunk)
        .zip(cells.par_chunks_mut(chunk))
        .zip(bits.par_chunks_mut(chunk / 64))
        .map(|((part, out), canon)| -> Result<Stats, Error> {
            let pos: Vec<G::Position> = part
                .iter()
                .map(|k| game.key_position(t, k.to_u64()))
                .collect();
            let prims: Vec<Option<Primitive>> = pos.iter().map(|p| game.primitive(p)).collect();
            let flags: Vec<u16> = pos
                .iter()
                .zip(&prims)
                .map(|(p, prim)| if prim.is_some() { 0 } else { slot_flags(game, p) })
                .collect();
            // The best child value of each position, by rank, plus one (0: none yet).
            let mut best: Vec<u64> = vec![0; part.len()];
            if let Some((ct, ckeys, cvals)) = below {
                for s in 0..nslots {
                    let bit = 1u16 << s;
                    let Some(first) = flags.iter().position(|f| f & bit != 0) else {
                        continue;
                    };
                    let child = |i: usize| -> Result<(u64, G::Position), Error> {
                        let c = game.slot_child(&pos[i], s)
                            .expect("flagged");
                        if game.tier(&c) != ct {
                            return Err(Error::Game(format!(
                                "slot {s} of {:?} leads out of tier {ct:?}",
                                pos[i]
                            )));
                        }
                        Ok((game.key(&c), c))
                    };
                    let (k0, _) = child(first)?;
                    let mut j = ckeys.partition_point(|&k| k.to_u64() < k0);
                    for i in first..part.len() {
                        if flags[i] & bit == 0 {
                            continue;
                        }
                        let (ck, c) = child(i)?;
                        while j < ckeys.len() && ckeys[j].to_u64() < ck {
                            j += 1;
                        }
                        if j == ckeys.len() || ckeys[j].to_u64() != ck {
                            return Err(Error::Game(format!(
                                "the child {c:?} of {:?} is missing from its tier (slots not increasing in the key?)",
                                pos[i]
                            )));
                        }
                        let v = cvals[j].decode().ok_or_else(|| {
                            Error::Game(format!("the child {c:?} has no value"))
                        })?;
                        let v = v.through(keeps(game, &pos[i], &c));
                        best[i] = best[i].max(v.rank() + 1);
                    }
                }
            } else if flags.iter().any(|&f| f != 0) {
                return Err(Error::Game(format!(
                    "a position of tier {t:?} has moves, but the tier has no child tier"
                )));
            }
            let mut st = Stats::default();
            for (i, p) in pos.iter().enumerate() {
                let v = match (prims[i], best[i]) {
                    (Some(prim), _) => terminal(prim),
                    (None, 0) => terminal(game.no_move()),
                    (None, b) => Value::from_rank(b - 1),
                };
                out[i] = encode(v)?;
                st.count(v);
                st.moves += u64::from(flags[i].count_ones());
                if <G::Symmetry as Symmetry<G>>::is_canonical(game, p) {
                    st.classes += 1;
                    canon[i / 64] |= 1 << (i % 64);
                }
            }
            st.positions = part.len() as u64;
            st.states = st.positions;
            Ok(st)
        })
        .try_reduce(Stats::default, |mut a, b| {
            a.merge(&b);
            Ok(a)
        })?;
    Ok((cells, stats, bits))
}

pub(crate) fn terminal(p: Primitive) -> Value {
    match p {
        Primitive::Win => Value::Win(0),
        Primitive::Loss => Value::Loss(0),
        Primitive::Tie => Value::Tie(0),
    }
}

/// The totals of a tier reused from a file.
pub(crate) fn tally<G: OrderedMoves, C: Cell, K: Key>(
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

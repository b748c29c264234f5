//! The sorted-keys tier engine (`sorted.rs`) across ranks (MPI or any [`Exchange`]):
//! Connect-4, and any game with ordered moves, solved by `K` ranks that each own a share of
//! every tier, so that one huge tier spreads over all of them.
//!
//! # Ownership
//! A tier's keys are cut by *key range*: rank `d` owns the keys in `[start_d, start_{d+1})`
//! and keeps them sorted (its *places*), so a rank holds about `1/K` of every tier. The cuts
//! are chosen when the tier is found, from a sample of the children of every rank's
//! parents (the child key space at quantiles), so the shares come out about equal whatever
//! the game's key distribution. Afterwards the owner of a key is read off the first key of
//! every rank's share ([`Owners`], one small all-reduce per tier), so a run that resumes from
//! files finds the same owners without knowing the cuts.
//!
//! # The algorithm, step by step (the one-process engine's, `sorted.rs`, whose notes explain
//! it)
//! 1. **Discover**, parents first. Every rank flags the slots (moves) of the parents it owns
//!    and counts them; the total fixes the number of *rounds* `R` (about [`ROUND_KEYS`]
//!    children a rank per round) and, with `Q` (the largest number of threads of a rank),
//!    `K R Q` child key ranges, cut at quantiles of a sample of children that rank 0
//!    gathers, sorts and broadcasts. Rank `d` owns the ranges `d R Q .. (d + 1) R Q`; in round
//!    `j` it receives the `Q` ranges `(d R + j) Q ..`, so what it receives is sorted across
//!    rounds. In a round, every rank merges, for every destination and each of its `Q`
//!    ranges, its sorted streams (one per parent tier and slot, as one process does) without
//!    duplicates, found in each stream by a binary search over the parents having the slot;
//!    one all-to-all delivers them (**`K::BYTES` a key**: 4 for Connect-4 up to 5x5 and 6x4,
//!    8 above); the owner merges its `K` sorted lists per range, again without duplicates,
//!    and appends. No sort and no hash, as in one process.
//! 2. **Solve**, children first, in rounds of at most [`ROUND_PARENTS`] parents a rank (all
//!    ranks run the same number). A parent's child through a slot is looked up in the child
//!    tier: when this rank owns it, by a cursor that gallops forward in its share (the
//!    children of a slot come out sorted); otherwise the child's key joins the request list
//!    for its owner. One all-to-all sends the requests (**`K::BYTES` a key**), the owners
//!    answer each list in order (a galloping cursor again, restarted by a binary search where
//!    the list starts a new slot's run), one all-to-all brings the values back (**1 byte**
//!    each, 2 with remoteness above 63), and each parent takes its best child value, as in
//!    one process. Requests are not deduplicated: two parents of one child on one rank ask
//!    twice (it keeps the lists in the order the answers are read in, and costs at most one
//!    key and one value per move).
//! 3. **Totals**: every key is a position reachable from the start, so each rank counts its
//!    share of every tier as it solves it, and the per-tier totals are summed at the end.
//!    Rank 0 gathers the start's tier (one key), or with `whole` every tier, and reports.
//!
//! # Why the answer is the one-process answer, bit for bit, for every `K`
//! A tier's keys are the same set for every `K` (the union of the children of the parent
//! tier's keys, each range merged from every rank's streams), and the shares are disjoint
//! ranges in order, so their concatenation is the one-process tier. A position's value is a
//! function of its children's values only (the best of them through the move, or its
//! primitive value), which every rank reads exactly as one process does, whoever owns them;
//! the maximum does not depend on the order the children come in. Totals are sums and maxima
//! over positions.
//!
//! # Memory per rank
//! Its share of the keys (and, while solving, the values) of the tier in hand and of its child
//! tier, about `1/K` of one process's; with a storage, a tier's share of keys is written when
//! found and dropped when no longer needed, as in one process. Per discovery round the
//! streams' slot flags (2 bytes a parent) and at most about [`ROUND_KEYS`] keys sent and as
//! many received; per solve round, for [`ROUND_PARENTS`] parents, a few bytes each and the
//! requests (a key and 4 bytes per move to another rank). Messages are bounded by those.
//!
//! # Files
//! With a storage, rank `r` of `K` writes each tier's share of keys as
//! `TIER.keys.part-r-of-K` (delta-coded) when it is found and, when values are kept (`--db`),
//! its values as `TIER.values.part-r-of-K`: a value per key of the share, in order.
//! Resuming with the same `K` reuses a tier's keys when every rank's share reads back and the
//! shares are in order across ranks, and its values when every rank's share covers its keys;
//! anything else is solved again, by every rank. Without `keep_values` the files serve the
//! solve only and are removed at the end.

use crate::api::game::{keeps, OrderedMoves, Symmetry};
use crate::engine::cell::{Cell, CellArray};
use crate::engine::driver::{merge_stats, share_file};
use crate::engine::sorted::{load_keys, shape, slot_flags, slots_of, terminal, Key};
use crate::engine::Traffic;
use crate::engine::{Dag, Event, SolveOptions};
use crate::error::Error;
use crate::solution::{TierData, TierSolution};
use crate::stats::Stats;
use crate::store::cells::{decode_cells, fits_one_byte, push_stored};
use crate::store::meta::{header, keys_file, values_file, META};
use crate::store::storage::Storage;
use crate::store::tierfile::{self, Codec, Kind, Reader};
use rayon::prelude::*;
use retrograde_graph::Primitive;
use retrograde_solve::exchange::Exchange;
use retrograde_solve::Value;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

/// Children a rank receives per discovery round, about.
pub(crate) const ROUND_KEYS: u64 = 1 << 20;
/// Parents a rank solves per round, at most.
pub(crate) const ROUND_PARENTS: usize = 1 << 20;
/// Parents per task within a round.
const CHUNK: usize = 1 << 14;

static SMALL_ROUNDS: AtomicBool = AtomicBool::new(false);

/// Makes the rounds tiny (a few dozen keys), so that tests on small games run many of them.
#[doc(hidden)]
pub fn small_rounds_for_tests(on: bool) {
    SMALL_ROUNDS.store(on, Relaxed);
}

fn round_keys() -> u64 {
    if SMALL_ROUNDS.load(Relaxed) {
        40
    } else {
        ROUND_KEYS
    }
}

fn round_parents() -> usize {
    if SMALL_ROUNDS.load(Relaxed) {
        37
    } else {
        ROUND_PARENTS
    }
}

fn chunk() -> usize {
    if SMALL_ROUNDS.load(Relaxed) {
        8
    } else {
        CHUNK
    }
}

/// The name of rank `r`'s share of a tier's keys among `k`.
pub fn keys_share_file(tier: &str, r: usize, k: usize) -> String {
    format!("{tier}.keys.part-{r}-of-{k}")
}

/// Which rank owns a key of one tier: rank `d` owns `[starts[d], starts[d + 1])`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Owners {
    /// `starts[0]` is `Some(0)`; `None` is past every key (the ranks from there on own none).
    starts: Vec<Option<u64>>,
}

impl Owners {
    /// The owners from every rank's (length, first key, last key); an error when the shares
    /// are not disjoint ranges in rank order.
    fn from_shares(shares: &[(u64, u64, u64)]) -> Result<Owners, String> {
        let mut starts = vec![None; shares.len()];
        let mut next = None;
        for (d, &(len, first, _)) in shares.iter().enumerate().rev() {
            if len > 0 {
                next = Some(first);
            }
            starts[d] = next;
        }
        if let Some(s) = starts.first_mut() {
            *s = Some(0);
        }
        let mut last: Option<(usize, u64)> = None;
        for (d, &(len, first, end)) in shares.iter().enumerate() {
            if len == 0 {
                continue;
            }
            if first > end {
                return Err(format!("rank {d}'s share ends before it starts"));
            }
            if let Some((p, l)) = last {
                if l >= first {
                    return Err(format!("the shares of ranks {p} and {d} overlap"));
                }
            }
            last = Some((d, end));
        }
        Ok(Owners { starts })
    }

    /// The rank that owns `key`.
    #[inline]
    fn of(&self, key: u64) -> usize {
        self.starts
            .partition_point(|s| s.is_some_and(|s| s <= key))
            .saturating_sub(1)
    }
}

/// Every rank's (length, first key, last key) of its share, at every rank.
fn shares<K: Key>(ex: &dyn Exchange, keys: &[K]) -> Vec<(u64, u64, u64)> {
    let (me, kk) = (ex.rank(), ex.size());
    let mut v = vec![0u64; 3 * kk];
    if let (Some(f), Some(l)) = (keys.first(), keys.last()) {
        v[3 * me..3 * me + 3].copy_from_slice(&[keys.len() as u64, f.to_u64(), l.to_u64()]);
    }
    ex.sum(&mut v);
    v.chunks_exact(3).map(|c| (c[0], c[1], c[2])).collect()
}

/// The first index `>= from` of a key `>= x` in sorted `keys` (`keys.len()` when none), by
/// steps that double from `from`: `O(log d)` for a distance `d`.
#[inline]
fn gallop<K: Key>(keys: &[K], from: usize, x: u64) -> usize {
    let n = keys.len();
    if from >= n || keys[from].to_u64() >= x {
        return from.min(n);
    }
    // keys[lo] < x throughout.
    let mut lo = from;
    let mut step = 1;
    loop {
        let probe = lo + step;
        if probe >= n {
            return lo + 1 + keys[lo + 1..].partition_point(|k| k.to_u64() < x);
        }
        if keys[probe].to_u64() >= x {
            return lo + 1 + keys[lo + 1..probe].partition_point(|k| k.to_u64() < x);
        }
        lo = probe;
        step *= 2;
    }
}

fn put_keys<K: Key>(out: &mut Vec<u8>, keys: &[K]) {
    out.extend_from_slice(&tierfile::le_bytes(keys));
}

fn get_keys<K: Key>(b: &[u8]) -> impl Iterator<Item = K> + '_ {
    let w = K::BYTES as usize;
    b.chunks_exact(w).map(move |c| {
        let mut x = [0u8; 8];
        x[..w].copy_from_slice(c);
        K::from_u64(u64::from_le_bytes(x))
    })
}

/// Keys from their little-endian bytes.
fn decode_keys<K: Key>(b: &[u8]) -> Vec<K> {
    if cfg!(target_endian = "little") {
        let mut v = vec![K::from_u64(0); b.len() / K::BYTES as usize];
        bytemuck::cast_slice_mut::<K, u8>(&mut v).copy_from_slice(b);
        v
    } else {
        get_keys(b).collect()
    }
}

fn u64s(b: &[u8]) -> impl Iterator<Item = u64> + '_ {
    b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
}

/// A message from another rank that does not have the agreed shape: a bug, or ranks that
/// run different programs.
fn garbled(what: &str) -> Error {
    Error::Unsupported(format!(
        "a rank sent a malformed {what} (are all ranks running the same program and game?)"
    ))
}

/// Whether some rank was cancelled (every rank calls it at the same points).
fn cancelled(ex: &dyn Exchange, opts: &SolveOptions) -> Result<(), Error> {
    if ex.any(opts.cancelled().is_err()) {
        return Err(Error::Interrupted);
    }
    Ok(())
}

/// Solves every tier of a sorted-keys game below its start across the ranks of `ex`; see
/// the [module docs](self) and [`crate::solve_distributed`].
pub(crate) fn solve<'g, G: OrderedMoves>(
    game: &'g G,
    opts: &SolveOptions,
    ex: &dyn Exchange,
    whole: bool,
) -> Result<(TierSolution<'g, G>, Traffic), Error> {
    let dag = Dag::build(game)?;
    let wide = dag.tiers.iter().any(|&t| game.key_bits(t) > 32);
    let small = game
        .remoteness_bound()
        .is_some_and(|b| b <= u8::MAX_REMOTENESS);
    match (wide, small) {
        (false, true) => solve_keys::<G, u8, u32>(game, opts, ex, whole, dag),
        (false, false) => solve_keys::<G, u16, u32>(game, opts, ex, whole, dag),
        (true, true) => solve_keys::<G, u8, u64>(game, opts, ex, whole, dag),
        (true, false) => solve_keys::<G, u16, u64>(game, opts, ex, whole, dag),
    }
}

/// Reads this rank's share of a tier's values back: one per key of its share.
fn load_vals<C: CellArray>(
    st: &dyn Storage,
    gname: &str,
    tier: &str,
    file: &str,
    expect: u64,
) -> Result<Vec<C>, Error> {
    let r = Reader::open(st, file, &header(gname, tier, Kind::Values, 0))?;
    if r.count() != expect || r.stored() != expect {
        return Err(Error::damaged(
            r.name().to_string(),
            format!(
                "holds {} values, this rank's share of the tier has {expect} keys",
                r.stored()
            ),
        ));
    }
    let mut raw = Vec::new();
    r.read_all(st, &mut raw)?;
    decode_cells::<C>(&raw, r.elem(), r.name())
}

/// Writes this rank's share of a tier's values: one per key of its share.
fn store_vals<C: CellArray>(
    st: &dyn Storage,
    gname: &str,
    tier: &str,
    file: &str,
    cells: &[C],
    codec: Codec,
) -> Result<(), Error> {
    let one = fits_one_byte(cells);
    let per = tierfile::BLOCK_ELEMS as usize;
    // Sorted tiers are big: zstd's level 3 at most, as one process writes them.
    let codec = match codec {
        Codec::Raw => Codec::Raw,
        Codec::Zstd(l) | Codec::DeltaZstd(l) => Codec::Zstd(l.min(3)),
    };
    tierfile::write_values(
        st,
        file,
        &header(gname, tier, Kind::Values, if one { 1 } else { 2 }),
        cells.len() as u64,
        tierfile::BLOCK_ELEMS,
        codec,
        &|b, out| {
            let part = &cells[b * per..((b + 1) * per).min(cells.len())];
            for &c in part {
                let v = c.decode().expect("a solved tier's cells hold values");
                push_stored(out, v, one);
            }
            part.len() as u64
        },
    )
}

fn remove(st: &dyn Storage, file: &str) -> Result<(), Error> {
    st.remove(file)
        .map_err(|e| Error::io(st.describe(file), "remove", e))
}

fn solve_keys<'g, G: OrderedMoves, C: CellArray, K: Key>(
    game: &'g G,
    opts: &SolveOptions,
    ex: &dyn Exchange,
    whole: bool,
    dag: Dag<G::Tier>,
) -> Result<(TierSolution<'g, G>, Traffic), Error> {
    let gname = game.name();
    let (me, kk) = (ex.rank(), ex.size());
    let (start, ks) = shape(game, &dag)?;
    let n = dag.tiers.len();
    let storage = opts.storage.as_deref();
    if let Some(st) = storage {
        if !opts.resume {
            remove(st, META)?;
        }
    }
    opts.emit(&Event::Plan { tiers: n, slots: 0 });
    let key_files: Vec<String> = dag
        .names
        .iter()
        .map(|t| keys_share_file(t, me, kk))
        .collect();
    let val_files: Vec<String> = dag.names.iter().map(|t| share_file(t, me, kk)).collect();
    let on_disk = |file: &str| storage.is_some_and(|st| st.size(file).ok().flatten().is_some());
    let ksize = u64::from(K::BYTES);
    let cell = C::BYTES as u64;

    // 1. Discover, parents first.
    let started = Instant::now();
    let mut keys: Vec<Option<Arc<Vec<K>>>> = vec![None; n];
    let mut owners: Vec<Option<Owners>> = vec![None; n];
    let mut sizes = vec![0u64; n];
    let mut children_left: Vec<usize> = dag.children.iter().map(Vec::len).collect();
    let mut found = 0u64;
    let load = |k: usize| -> Result<Arc<Vec<K>>, Error> {
        let st = storage.expect("an evicted tier was stored");
        Ok(Arc::new(load_keys::<K>(
            st,
            &gname,
            &dag.names[k],
            &key_files[k],
        )?))
    };
    for &k in dag.order.iter().rev() {
        cancelled(ex, opts)?;
        let name = &dag.names[k];
        opts.emit(&Event::Discover {
            tier: name,
            positions: found,
        });
        let mut reused: Option<(Vec<K>, Owners)> = None;
        if opts.resume {
            let mine = match storage {
                Some(st) if on_disk(&key_files[k]) => {
                    match load_keys::<K>(st, &gname, name, &key_files[k]) {
                        Ok(v) => Some(v),
                        Err(e) => {
                            opts.emit(&Event::Damaged { error: &e });
                            None
                        }
                    }
                }
                _ => None,
            };
            if ex.all(mine.is_some()) {
                let mine = mine.expect("every rank has its share");
                match Owners::from_shares(&shares(ex, &mine)) {
                    Ok(o) => reused = Some((mine, o)),
                    Err(m) => {
                        let e = Error::damaged(key_files[k].clone(), m);
                        opts.emit(&Event::Damaged { error: &e });
                    }
                }
            }
        }
        let (mine, own) = match reused {
            Some(r) => r,
            None => {
                let mine: Vec<K> = if k == ks {
                    if me == 0 {
                        vec![K::from_u64(game.key(&start))]
                    } else {
                        Vec::new()
                    }
                } else {
                    let mut parents = Vec::new();
                    let mut held = 0u64;
                    for &p in &dag.parents[k] {
                        let pk = match &keys[p] {
                            Some(v) => v.clone(),
                            None => load(p)?,
                        };
                        held += pk.len() as u64 * (ksize + 2);
                        parents.push((dag.tiers[p], pk));
                    }
                    opts.check_memory(|| format!("finding tier {name} (rank {me})"), held)?;
                    discover::<G, K>(game, dag.tiers[k], &parents, ex, opts)?
                };
                if let Some(st) = storage {
                    tierfile::write(
                        st,
                        &key_files[k],
                        &header(&gname, name, Kind::Keys, K::BYTES),
                        &tierfile::le_bytes(&mine),
                        Codec::DeltaZstd(1),
                        tierfile::BLOCK_ELEMS,
                    )?;
                }
                let own = Owners::from_shares(&shares(ex, &mine)).map_err(|m| {
                    Error::Game(format!(
                        "tier {name} came out of order across ranks ({m}): the moves of some slot are not increasing in the key"
                    ))
                })?;
                (mine, own)
            }
        };
        let mut total = [mine.len() as u64];
        ex.sum(&mut total);
        sizes[k] = total[0];
        found += sizes[k];
        keys[k] = Some(Arc::new(mine));
        owners[k] = Some(own);
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
    let mut per_tier = vec![Stats::default(); n];
    let mut done = 0u64;
    let mut solved = 0u64;
    let stored_vals = storage.is_some() && opts.keep_values;
    for &k in &dag.order {
        cancelled(ex, opts)?;
        let name = &dag.names[k];
        if keys[k].is_none() {
            keys[k] = Some(load(k)?);
        }
        let child = dag.children[k].first().copied();
        if let Some(c) = child {
            if keys[c].is_none() {
                keys[c] = Some(load(c)?);
            }
            if vals[c].is_none() {
                let st = storage.expect("an evicted tier was stored");
                let len = keys[c].as_ref().expect("loaded").len() as u64;
                vals[c] = Some(Arc::new(load_vals::<C>(
                    st,
                    &gname,
                    &dag.names[c],
                    &val_files[c],
                    len,
                )?));
            }
        }
        let my_keys = keys[k].clone().expect("loaded");
        let held = (my_keys.len() as u64
            + child.map_or(0, |c| keys[c].as_ref().map_or(0, |v| v.len() as u64)))
            * (ksize + cell);
        opts.check_memory(|| format!("tier {name} (rank {me})"), held)?;
        let mut reuse = None;
        if opts.resume {
            if let Some(st) = storage.filter(|_| stored_vals && on_disk(&val_files[k])) {
                match load_vals::<C>(st, &gname, name, &val_files[k], my_keys.len() as u64) {
                    Ok(v) => reuse = Some(v),
                    Err(e) => opts.emit(&Event::Damaged { error: &e }),
                }
            }
            if !ex.all(reuse.is_some()) {
                reuse = None;
            }
        }
        opts.emit(&Event::Tier {
            tier: name,
            size: sizes[k],
            done,
            reused: reuse.is_some(),
        });
        done += sizes[k];
        let (mine, st) = match reuse {
            Some(v) => {
                let s = crate::engine::sorted::tally::<G, C, K>(game, dag.tiers[k], &my_keys, &v);
                (v, s)
            }
            None => {
                let below = child.map(|c| Below {
                    tier: dag.tiers[c],
                    keys: &keys[c].as_ref().expect("loaded")[..],
                    vals: &vals[c].as_ref().expect("loaded")[..],
                    owners: owners[c].as_ref().expect("found"),
                });
                let (v, s) =
                    solve_tier::<G, C, K>(game, dag.tiers[k], &my_keys, below.as_ref(), ex, opts)?;
                solved += my_keys.len() as u64;
                if let (Some(st), true) = (storage, stored_vals) {
                    store_vals(st, &gname, name, &val_files[k], &v, opts.codec)?;
                }
                (v, s)
            }
        };
        per_tier[k] = st;
        vals[k] = Some(Arc::new(mine));
        if let Some(c) = child {
            parents_left[c] -= 1;
            // Kept for the end when every tier goes to rank 0 and cannot be read back.
            if parents_left[c] == 0 && (stored_vals || !whole) {
                keys[c] = None;
                vals[c] = None;
            }
        }
    }
    let solve_time = started.elapsed();

    // 3. Totals, and the tiers rank 0 needs, whole.
    let per_tier = merge_stats(ex, per_tier)?;
    let mut stats = Stats::default();
    for s in &per_tier {
        stats.merge(s);
    }
    stats.explore = explore;
    stats.solve = solve_time;
    let classes: Vec<u64> = per_tier.iter().map(|s| s.classes).collect();
    let mut data: Vec<TierData> = (0..n).map(|_| TierData::Dropped).collect();
    let wanted: Vec<usize> = if whole { (0..n).collect() } else { vec![ks] };
    for k in wanted {
        let kv = match &keys[k] {
            Some(v) => v.clone(),
            None => load(k)?,
        };
        let vv = match &vals[k] {
            Some(v) => v.clone(),
            None => {
                let st = storage.expect("an evicted tier was stored");
                Arc::new(load_vals::<C>(
                    st,
                    &gname,
                    &dag.names[k],
                    &val_files[k],
                    kv.len() as u64,
                )?)
            }
        };
        let mut bytes = Vec::with_capacity(8 + kv.len() * (K::BYTES as usize + 2));
        bytes.extend_from_slice(&(kv.len() as u64).to_le_bytes());
        put_keys(&mut bytes, &kv);
        for c in vv.iter() {
            bytes.extend_from_slice(&c.to_u16().to_le_bytes());
        }
        if let Some(all) = ex.gather(&bytes) {
            let mut ak: Vec<K> = Vec::new();
            let mut av: Vec<C> = Vec::new();
            for b in &all {
                let m = b
                    .get(..8)
                    .map(|h| u64::from_le_bytes(h.try_into().expect("8 bytes")) as usize)
                    .ok_or_else(|| garbled("share of a tier"))?;
                let kb = m * K::BYTES as usize;
                if b.len() != 8 + kb + 2 * m {
                    return Err(garbled("share of a tier"));
                }
                ak.extend(get_keys::<K>(&b[8..8 + kb]));
                av.extend(
                    b[8 + kb..]
                        .chunks_exact(2)
                        .map(|c| C::from_u16(u16::from_le_bytes([c[0], c[1]]))),
                );
            }
            if ak.windows(2).any(|w| w[0] >= w[1]) {
                return Err(garbled("share of a tier (keys out of order)"));
            }
            data[k] = TierData::Sorted {
                keys: K::wrap(Arc::new(ak)),
                vals: C::wrap(Arc::new(av)),
            };
        } else {
            // Not here: a lookup finds nothing (rather than an error).
            data[k] = TierData::Sorted {
                keys: K::wrap(Arc::new(Vec::new())),
                vals: C::wrap(Arc::new(Vec::new())),
            };
        }
    }
    if let (Some(st), false) = (storage, opts.keep_values) {
        // The files served the solve only.
        for f in key_files.iter().chain(&val_files) {
            remove(st, f)?;
        }
    }
    let held = match storage {
        Some(st) if opts.keep_values => Some(assemble::<G, C, K>(
            game, &dag, &key_files, &val_files, ex, st, opts,
        )?),
        _ => None,
    };
    let mut tr = [ex.bytes_sent(), solved];
    ex.sum(&mut tr);
    let solution = TierSolution::new(
        game,
        dag.tiers.clone(),
        data,
        None,
        stats,
        vec![None; n],
        classes,
        C::BYTES as u32,
    );
    if let (Some(st), Some(held), 0) = (storage, &held, me) {
        crate::engine::write_finished(st, &solution, opts, "sorted", &dag.names, held)?;
    }
    Ok((
        solution,
        Traffic {
            bytes: tr[0],
            positions: tr[1],
        },
    ))
}

/// Writes the database one process writes (`NAME.keys` and `NAME.values` of every tier: the
/// keys of its canonical positions and their values) at rank 0, from the ranks' shares: the
/// shares are key ranges in rank order, so each file is the ranks' canonical parts one after
/// another, written a batch of blocks at a time ([`tierfile::write_spread`]; memory: a rank's
/// share of one tier, and at rank 0 a batch). Returns the number of canonical keys of every
/// tier. With `database.json`, written last by the caller, the directory is a database like
/// any other, that `query`, `play` and `serve` open and that one process resumes from.
#[allow(clippy::too_many_arguments)]
fn assemble<G: OrderedMoves, C: CellArray, K: Key>(
    game: &G,
    dag: &Dag<G::Tier>,
    key_files: &[String],
    val_files: &[String],
    ex: &dyn Exchange,
    st: &dyn Storage,
    opts: &SolveOptions,
) -> Result<Vec<u64>, Error> {
    let gname = game.name();
    let me = ex.rank();
    if me == 0 {
        // Until it is written again, the directory holds no finished database.
        remove(st, META)?;
    }
    let (key_codec, val_codec) = crate::engine::sorted::db_codecs(opts.codec);
    let mut held = Vec::with_capacity(dag.names.len());
    let total = dag.names.len() as u64;
    for (k, name) in dag.names.iter().enumerate() {
        let keys = load_keys::<K>(st, &gname, name, &key_files[k])?;
        opts.check_memory(
            || format!("putting tier {name} together (rank {me})"),
            (keys.len() as u64).saturating_mul(2 * (u64::from(K::BYTES) + C::BYTES as u64)),
        )?;
        let vals = load_vals::<C>(st, &gname, name, &val_files[k], keys.len() as u64)?;
        // Whether every value of the tier fits a byte: one process decides it over all its
        // keys, canonical or not.
        let one = ex.all(fits_one_byte(&vals));
        let t = dag.tiers[k];
        let mut ck = Vec::new();
        let mut cv = Vec::new();
        for (key, c) in keys.iter().zip(&vals) {
            let p = game.key_position(t, key.to_u64());
            if <G::Symmetry as Symmetry<G>>::is_canonical(game, &p) {
                ck.extend_from_slice(&key.to_u64().to_le_bytes()[..K::BYTES as usize]);
                let v = c.decode().ok_or_else(|| {
                    Error::damaged(val_files[k].clone(), "a key of the share has no value")
                })?;
                push_stored(&mut cv, v, one);
            }
        }
        drop((keys, vals));
        let mut n = [(ck.len() / K::BYTES as usize) as u64];
        ex.sum(&mut n);
        held.push(n[0]);
        tierfile::write_spread(
            st,
            &keys_file(name),
            &header(&gname, name, Kind::Keys, K::BYTES),
            &ck,
            key_codec,
            ex,
        )?;
        tierfile::write_spread(
            st,
            &values_file(name),
            &header(&gname, name, Kind::Values, if one { 1 } else { 2 }),
            &cv,
            val_codec,
            ex,
        )?;
        opts.emit(&Event::Assemble {
            done: k as u64 + 1,
            total,
        });
    }
    Ok(held)
}

/// This rank's share of the keys of tier `t`: the children of every rank's shares of its
/// parent tiers (`parents`, this rank's) in its key ranges, sorted, without repeats.
fn discover<G: OrderedMoves, K: Key>(
    game: &G,
    t: G::Tier,
    parents: &[(G::Tier, Arc<Vec<K>>)],
    ex: &dyn Exchange,
    opts: &SolveOptions,
) -> Result<Vec<K>, Error> {
    let (me, kk) = (ex.rank(), ex.size());
    let nslots = game.slots();
    // The slots of every parent.
    let flags: Vec<Vec<u16>> = parents
        .iter()
        .map(|(pt, pk)| {
            let mut f = vec![0u16; pk.len()];
            f.par_chunks_mut(CHUNK)
                .zip(pk.par_chunks(CHUNK))
                .for_each(|(f, c)| {
                    for (f, &key) in f.iter_mut().zip(c) {
                        let p = game.key_position(*pt, key.to_u64());
                        *f = slots_of(game, &p);
                    }
                });
            f
        })
        .collect();
    let edges: u64 = flags
        .iter()
        .map(|f| f.par_iter().map(|x| u64::from(x.count_ones())).sum::<u64>())
        .sum();
    let mut total = [edges];
    ex.sum(&mut total);
    // The rounds and ranges per rank and round, agreed (the largest any rank asks for).
    let mut agreed = [
        total[0].div_ceil(kk as u64 * round_keys()).max(1),
        rayon::current_num_threads().max(1) as u64,
    ];
    ex.max(&mut agreed);
    let rounds = agreed[0] as usize;
    let q = agreed[1] as usize;
    let ranges = kk * rounds * q;

    let child = |pi: usize, i: usize, s: usize| -> Result<u64, Error> {
        let (pt, pk) = &parents[pi];
        let p = game.key_position(*pt, pk[i].to_u64());
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

    // The cuts: quantiles of a sample of children, from rank 0: about 16 children a range,
    // from at most 2^16 parents a rank, and at most about 2^22 children at rank 0 in all.
    let per = (16 * rounds * q)
        .clamp(256, 1 << 16)
        .min(((1usize << 22) / (kk * nslots.max(1))).max(16));
    let mut sample: Vec<u8> = Vec::new();
    for (pi, (_, pk)) in parents.iter().enumerate() {
        let m = pk.len().min(per);
        for j in 0..m {
            let i = j * pk.len() / m;
            let f = flags[pi][i];
            for s in (0..nslots).filter(|&s| f >> s & 1 == 1) {
                sample.extend_from_slice(&child(pi, i, s)?.to_le_bytes());
            }
        }
    }
    let mut cuts = match ex.gather(&sample) {
        Some(all) => {
            let mut all: Vec<u64> = all.iter().flat_map(|b| u64s(b)).collect();
            all.sort_unstable();
            let mut out = Vec::with_capacity(8 * (ranges - 1));
            for r in 1..ranges {
                let c = if all.is_empty() {
                    u64::MAX
                } else {
                    all[r * all.len() / ranges]
                };
                out.extend_from_slice(&c.to_le_bytes());
            }
            out
        }
        None => Vec::new(),
    };
    ex.broadcast(&mut cuts);
    let cuts: Vec<u64> = u64s(&cuts).collect();
    if cuts.len() != ranges - 1 {
        return Err(garbled("list of cuts"));
    }
    // Range r is [lo(r), hi(r)); the last is unbounded.
    let lo = |r: usize| if r == 0 { 0 } else { cuts[r - 1] };
    let hi = |r: usize| cuts.get(r).copied();

    // The first parent of tier `pi` with slot `s` whose child is `>= b` (or the end), by a
    // binary search over the parents having the slot. Invariant: those in [0, lo) have
    // children < b, those in [hi, len) children >= b.
    let find = |pi: usize, s: usize, b: u64| -> Result<usize, Error> {
        let f = &flags[pi];
        let (mut lo, mut hi) = (0usize, f.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match f[mid..hi].iter().position(|x| x >> s & 1 == 1) {
                None => hi = mid,
                Some(o) => {
                    if child(pi, mid + o, s)? < b {
                        lo = mid + o + 1;
                    } else {
                        hi = mid;
                    }
                }
            }
        }
        Ok(lo)
    };
    let streams: Vec<(usize, usize)> = (0..parents.len())
        .flat_map(|pi| (0..nslots).map(move |s| (pi, s)))
        .collect();
    // This rank's children in range r, sorted, without repeats.
    let merge_range = |r: usize| -> Result<Vec<K>, Error> {
        let (b0, b1) = (lo(r), hi(r));
        let mut idx = Vec::with_capacity(streams.len());
        let mut end = Vec::with_capacity(streams.len());
        for &(pi, s) in &streams {
            idx.push(if r == 0 { 0 } else { find(pi, s, b0)? });
            end.push(match b1 {
                Some(b) => find(pi, s, b)?,
                None => flags[pi].len(),
            });
        }
        let mut head = vec![0u64; streams.len()];
        let mut live = vec![false; streams.len()];
        let advance = |x: usize,
                       idx: &mut [usize],
                       head: &mut [u64],
                       live: &mut [bool]|
         -> Result<(), Error> {
            let (pi, s) = streams[x];
            let (i, e) = (idx[x], end[x]);
            match flags[pi][i..e.max(i)].iter().position(|f| f >> s & 1 == 1) {
                Some(d) => {
                    head[x] = child(pi, i + d, s)?;
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
        let mut out: Vec<K> = Vec::new();
        while let Some((at, k)) = crate::engine::sorted::least_live(&head, &live) {
            if k < b0 || b1.is_some_and(|b| k >= b) {
                return Err(Error::Game(format!(
                    "the moves of some slot are not increasing in the key (tier {t:?})"
                )));
            }
            if out.last().map(|l| l.to_u64()) != Some(k) {
                out.push(K::from_u64(k));
            }
            advance(at, &mut idx, &mut head, &mut live)?;
        }
        Ok(out)
    };

    let mut out: Vec<K> = Vec::new();
    for j in 0..rounds {
        // For every destination d, its Q ranges of this round.
        let mut pieces: Vec<Vec<K>> = (0..kk * q)
            .into_par_iter()
            .map(|x| merge_range(((x / q) * rounds + j) * q + x % q))
            .collect::<Result<_, _>>()?;
        // This rank's own ranges stay here; the others go out, each with its Q lengths.
        let mut lists: Vec<Vec<Vec<K>>> = pieces[me * q..(me + 1) * q]
            .iter_mut()
            .map(|p| vec![std::mem::take(p)])
            .collect();
        let send: Vec<Vec<u8>> = pieces
            .chunks(q)
            .enumerate()
            .map(|(d, ps)| {
                if d == me {
                    return Vec::new();
                }
                let keys: usize = ps.iter().map(Vec::len).sum();
                let mut b = Vec::with_capacity(8 * q + keys * K::BYTES as usize);
                for p in ps {
                    b.extend_from_slice(&(p.len() as u64).to_le_bytes());
                }
                for p in ps {
                    put_keys(&mut b, p);
                }
                b
            })
            .collect();
        drop(pieces);
        // The exchange carries whether some rank was cancelled (one collective a round).
        let (got, stop) = ex.all_to_all_max(send, u64::from(opts.cancelled().is_err()));
        if stop != 0 {
            return Err(Error::Interrupted);
        }
        // Per range of this round, the sorted lists of every rank.
        for (from, b) in got.iter().enumerate() {
            if from == me {
                continue;
            }
            if b.len() < 8 * q {
                return Err(garbled("list of keys"));
            }
            let mut at = 8 * q;
            for (x, len) in u64s(&b[..8 * q]).enumerate() {
                let bytes = usize::try_from(len)
                    .ok()
                    .and_then(|l| l.checked_mul(K::BYTES as usize))
                    .filter(|&l| at + l <= b.len())
                    .ok_or_else(|| garbled("list of keys"))?;
                lists[x].push(decode_keys(&b[at..at + bytes]));
                at += bytes;
            }
            if at != b.len() {
                return Err(garbled("list of keys"));
            }
        }
        drop(got);
        let merged: Vec<Vec<K>> = lists
            .into_par_iter()
            .map(|ls| {
                ls.into_iter()
                    .filter(|l| !l.is_empty())
                    .reduce(|a, b| union(&a, &b))
                    .unwrap_or_default()
            })
            .collect();
        for m in merged {
            if let (Some(a), Some(b)) = (out.last(), m.first()) {
                if a >= b {
                    return Err(Error::Game(format!(
                        "the moves of some slot are not increasing in the key (tier {t:?})"
                    )));
                }
            }
            out.extend_from_slice(&m);
        }
    }
    Ok(out)
}

/// The union of two sorted lists without repeats, sorted, without repeats.
fn union<K: Key>(a: &[K], b: &[K]) -> Vec<K> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The solved child tier of a tier: its tier, this rank's share (keys and values), and who
/// owns the rest.
struct Below<'a, G: OrderedMoves, K, C> {
    tier: G::Tier,
    keys: &'a [K],
    vals: &'a [C],
    owners: &'a Owners,
}

/// One task's parents in a solve round, between its requests and the answers.
struct Task {
    prims: Vec<Option<Primitive>>,
    moves: Vec<u8>,
    canon: Vec<bool>,
    /// The best child value of each parent so far, by [`Value::rank`] plus one (0: none).
    best: Vec<u64>,
    /// Per rank, the keys asked of it, and for each the parent (`i << 1 | keeps turn`).
    asked: Vec<Vec<u8>>,
    waiting: Vec<Vec<u32>>,
}

/// This rank's share of tier `t` solved (its values, in key order) and its totals.
fn solve_tier<G: OrderedMoves, C: Cell, K: Key>(
    game: &G,
    t: G::Tier,
    keys: &[K],
    below: Option<&Below<'_, G, K, C>>,
    ex: &dyn Exchange,
    opts: &SolveOptions,
) -> Result<(Vec<C>, Stats), Error> {
    let (me, kk) = (ex.rank(), ex.size());
    let nslots = game.slots();
    let encode = |v: Value| {
        C::encode(v).ok_or_else(|| Error::Remoteness {
            tier: format!("{t:?}"),
            max: C::MAX_REMOTENESS,
        })
    };
    let round = round_parents();
    let mut rounds = [keys.len().div_ceil(round) as u64];
    // Exchanges only when some child is on another rank (the same at every rank).
    let talk = below.is_some() && kk > 1;
    if talk {
        ex.max(&mut rounds);
    }
    let mut cells = vec![C::default(); keys.len()];
    let mut stats = Stats::default();
    let chunk = chunk();
    for r in 0..rounds[0] as usize {
        let lo = (r * round).min(keys.len());
        let hi = (lo + round).min(keys.len());
        let part = &keys[lo..hi];
        // Requests, and the children this rank owns.
        let mut tasks: Vec<Task> = part
            .par_chunks(chunk)
            .map(|pk| first_pass::<G, C, K>(game, t, pk, below, me, kk, nslots))
            .collect::<Result<_, _>>()?;
        if talk {
            let b = below.expect("talk");
            let send: Vec<Vec<u8>> = (0..kk)
                .map(|d| {
                    let len = tasks.iter().map(|x| x.asked[d].len()).sum();
                    let mut v = Vec::with_capacity(len);
                    for x in &mut tasks {
                        v.append(&mut x.asked[d]);
                    }
                    v
                })
                .collect();
            // The requests carry whether some rank was cancelled.
            let (got, stop) = ex.all_to_all_max(send, u64::from(opts.cancelled().is_err()));
            if stop != 0 {
                return Err(Error::Interrupted);
            }
            let answers: Vec<Vec<u8>> = got
                .par_iter()
                .map(|req| answer::<C, K>(b.keys, b.vals, req))
                .collect::<Result<_, _>>()?;
            drop(got);
            let back = ex.all_to_all(answers);
            // Each task's answers start where the earlier tasks' end.
            let mut at = vec![0usize; kk];
            let mut starts = Vec::with_capacity(tasks.len());
            for x in &tasks {
                starts.push(at.clone());
                for (d, w) in x.waiting.iter().enumerate() {
                    at[d] += w.len() * C::BYTES;
                }
            }
            for (d, b) in back.iter().enumerate() {
                if b.len() != at[d] {
                    return Err(garbled("list of values"));
                }
            }
            tasks
                .par_iter_mut()
                .zip(starts)
                .try_for_each(|(x, st)| -> Result<(), Error> {
                    for (d, w) in x.waiting.iter().enumerate() {
                        let cells = &back[d][st[d]..st[d] + w.len() * C::BYTES];
                        for (&pi, c) in w.iter().zip(cells.chunks_exact(C::BYTES)) {
                            let c = if C::BYTES == 1 {
                                C::from_u16(u16::from(c[0]))
                            } else {
                                C::from_u16(u16::from_le_bytes([c[0], c[1]]))
                            };
                            let v = c
                                .decode()
                                .ok_or_else(|| {
                                    Error::Game(format!("a child of tier {t:?} has no value"))
                                })?
                                .through(pi & 1 == 1);
                            let i = (pi >> 1) as usize;
                            x.best[i] = x.best[i].max(v.rank() + 1);
                        }
                    }
                    Ok(())
                })?;
        }
        let s = tasks
            .par_iter()
            .zip(cells[lo..hi].par_chunks_mut(chunk))
            .map(|(x, out)| -> Result<Stats, Error> {
                let mut st = Stats::default();
                for (i, cell) in out.iter_mut().enumerate() {
                    let v = match (x.prims[i], x.best[i]) {
                        (Some(prim), _) => terminal(prim),
                        (None, 0) => terminal(game.no_move()),
                        (None, b) => Value::from_rank(b - 1),
                    };
                    *cell = encode(v)?;
                    st.count(v);
                    st.moves += u64::from(x.moves[i]);
                    if x.canon[i] {
                        st.classes += 1;
                    }
                }
                st.positions = out.len() as u64;
                st.states = st.positions;
                Ok(st)
            })
            .try_reduce(Stats::default, |mut a, b| {
                a.merge(&b);
                Ok(a)
            })?;
        stats.merge(&s);
    }
    Ok((cells, stats))
}

/// A task's parents: their primitive values, moves, canonical bits, the best value of the
/// children this rank owns, and the requests for the others.
fn first_pass<G: OrderedMoves, C: Cell, K: Key>(
    game: &G,
    t: G::Tier,
    pk: &[K],
    below: Option<&Below<'_, G, K, C>>,
    me: usize,
    kk: usize,
    nslots: usize,
) -> Result<Task, Error> {
    let pos: Vec<G::Position> = pk
        .iter()
        .map(|k| game.key_position(t, k.to_u64()))
        .collect();
    let prims: Vec<Option<Primitive>> = pos.iter().map(|p| game.primitive(p)).collect();
    let flags: Vec<u16> = pos
        .iter()
        .zip(&prims)
        .map(|(p, prim)| {
            if prim.is_some() {
                0
            } else {
                slot_flags(game, p)
            }
        })
        .collect();
    let canon = pos
        .iter()
        .map(|p| <G::Symmetry as Symmetry<G>>::is_canonical(game, p))
        .collect();
    let mut best: Vec<u64> = vec![0; pk.len()];
    let mut asked = vec![Vec::new(); kk];
    let mut waiting = vec![Vec::new(); kk];
    match below {
        Some(b) => {
            for s in 0..nslots {
                let bit = 1u16 << s;
                // The cursor in this rank's share of the child tier (children come sorted).
                let mut j = 0usize;
                for i in 0..pk.len() {
                    if flags[i] & bit == 0 {
                        continue;
                    }
                    let c = game.slot_child(&pos[i], s).expect("flagged");
                    if game.tier(&c) != b.tier {
                        return Err(Error::Game(format!(
                            "slot {s} of {:?} leads out of tier {:?}",
                            pos[i], b.tier
                        )));
                    }
                    let ck = game.key(&c);
                    let kp = keeps(game, &pos[i], &c);
                    let d = b.owners.of(ck);
                    if d == me {
                        j = gallop(b.keys, j, ck);
                        if j == b.keys.len() || b.keys[j].to_u64() != ck {
                            return Err(Error::Game(format!(
                                "the child {c:?} of {:?} is missing from its tier (slots not increasing in the key?)",
                                pos[i]
                            )));
                        }
                        let v = b.vals[j]
                            .decode()
                            .ok_or_else(|| Error::Game(format!("the child {c:?} has no value")))?
                            .through(kp);
                        best[i] = best[i].max(v.rank() + 1);
                    } else {
                        asked[d].extend_from_slice(&ck.to_le_bytes()[..K::BYTES as usize]);
                        waiting[d].push((i as u32) << 1 | u32::from(kp));
                    }
                }
            }
        }
        None => {
            if flags.iter().any(|&f| f != 0) {
                return Err(Error::Game(format!(
                    "a position of tier {t:?} has moves, but the tier has no child tier"
                )));
            }
        }
    }
    Ok(Task {
        prims,
        moves: flags.iter().map(|f| f.count_ones() as u8).collect(),
        canon,
        best,
        asked,
        waiting,
    })
}

/// The values (`C::BYTES` each) of the keys another rank asked for, in its order: runs of
/// increasing keys, each found by a galloping cursor in this rank's share.
fn answer<C: Cell, K: Key>(keys: &[K], vals: &[C], req: &[u8]) -> Result<Vec<u8>, Error> {
    let w = K::BYTES as usize;
    if req.len() % w != 0 {
        return Err(garbled("list of keys"));
    }
    let per = CHUNK * w;
    let parts: Vec<Vec<u8>> = req
        .par_chunks(per)
        .map(|part| -> Result<Vec<u8>, Error> {
            let mut out = Vec::with_capacity(part.len() / w * C::BYTES);
            let mut j = 0usize;
            let mut prev = 0u64;
            for (n, k) in get_keys::<K>(part).enumerate() {
                let k = k.to_u64();
                j = if n == 0 || k < prev {
                    keys.partition_point(|x| x.to_u64() < k)
                } else {
                    gallop(keys, j, k)
                };
                prev = k;
                if j == keys.len() || keys[j].to_u64() != k {
                    return Err(Error::Game(format!(
                        "a rank asked for the value of key {k}, which is not in its share of the child tier"
                    )));
                }
                let c = vals[j].to_u16().to_le_bytes();
                out.extend_from_slice(&c[..C::BYTES]);
            }
            Ok(out)
        })
        .collect::<Result<_, _>>()?;
    Ok(parts.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gallop_finds_the_first_key_not_below() {
        let keys: Vec<u32> = (0..100).map(|i| 3 * i).collect();
        for from in [0, 1, 5, 50, 99, 100] {
            for x in 0..310u64 {
                let want = from.max(keys.partition_point(|&k| u64::from(k) < x));
                let want = if from >= keys.len() { keys.len() } else { want };
                assert_eq!(gallop(&keys, from, x), want, "from {from}, x {x}");
            }
        }
    }

    #[test]
    fn owners_from_shares() {
        // Ranks 1 and 3 own nothing.
        let o = Owners::from_shares(&[(2, 5, 9), (0, 0, 0), (3, 10, 20), (0, 0, 0)]).unwrap();
        assert_eq!(o.of(0), 0);
        assert_eq!(o.of(9), 0);
        assert_eq!(o.of(10), 2);
        assert_eq!(o.of(u64::MAX), 2);
        let all_empty = Owners::from_shares(&[(0, 0, 0), (0, 0, 0)]).unwrap();
        assert_eq!(all_empty.of(7), 0);
        assert!(Owners::from_shares(&[(2, 5, 10), (3, 10, 20)]).is_err());
        assert!(Owners::from_shares(&[(2, 5, 4)]).is_err());
    }

    #[test]
    fn union_drops_repeats() {
        assert_eq!(
            union::<u32>(&[1, 3, 5], &[2, 3, 6, 7]),
            vec![1, 2, 3, 5, 6, 7]
        );
        assert_eq!(union::<u32>(&[], &[4]), vec![4]);
    }
}

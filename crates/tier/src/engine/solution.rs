//! Solved games: the [`Solved`] trait every solver's answer implements, and
//! [`TierSolution`], the tier engine's.

use crate::api::game::{canonical, keeps, Layout, Scoring, TierGame};
use crate::error::Error;
use crate::stats::Stats;
use crate::store::cell::{AnyCells, Cell, ScoreCell, Worth};
use crate::store::cells::stored_cell;
use crate::store::meta::{read_tier_totals, Meta};
use crate::store::storage::Storage;
use crate::store::tierfile::Reader;
use retrograde_solve::{Scored, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// A solved game, whatever solved it and wherever its values are kept: the value of any
/// position, its moves ranked, and the totals.
///
/// Lookups can fail when the values live in files (a damaged or missing file): they return
/// an error then, never a wrong value and never a panic.
pub trait Solved {
    /// A position of the game.
    type Position;

    /// The start position, if the game has one.
    fn start(&self) -> Option<Self::Position>;

    /// The value of `p` for the player to move, or `None` when `p` is not a position this
    /// solution holds.
    ///
    /// # Errors
    /// A value that cannot be read (see [`Error`]).
    fn value(&self, p: &Self::Position) -> Result<Option<Value>, Error>;

    /// Every legal move from `p` with what it is worth to the player who makes it, best
    /// first (equal values in the game's move order). Empty when the game is over at `p`.
    ///
    /// # Errors
    /// A value that cannot be read.
    fn ranked_moves(&self, p: &Self::Position) -> Result<Vec<(Self::Position, Value)>, Error>;

    /// The totals.
    fn stats(&self) -> &Stats;

    /// The value of the start position, if the game has one.
    ///
    /// # Errors
    /// A value that cannot be read.
    fn start_value(&self) -> Result<Option<Value>, Error> {
        match self.start() {
            Some(p) => self.value(&p),
            None => Ok(None),
        }
    }
}

/// Sorts moves by value for the mover, best first; equal values keep their order.
pub fn rank_moves<P>(moves: &mut [(P, Value)]) {
    moves.sort_by_key(|m| std::cmp::Reverse(m.1));
}

/// Where one tier's values are.
#[derive(Debug)]
pub(crate) enum TierData {
    /// Cells by slot, in memory.
    Cells(AnyCells),
    /// Cells by slot, in a tier file.
    File(Reader),
    /// Sorted keys and their values, in memory.
    Sorted {
        keys: crate::engine::sorted::Keys,
        vals: AnyCells,
    },
    /// Sorted keys and their values, in tier files.
    SortedFiles { keys: Reader, vals: Reader },
    /// Not kept ([`SolveOptions::keep_values`](crate::SolveOptions::keep_values) off).
    Dropped,
    /// In files not opened yet ([`open_lazy`](crate::open_lazy)): opened, and their header
    /// and index checked, when a position of the tier is first looked up.
    Lazy(Box<LazyTier>),
}

/// A tier whose files are opened when first needed.
#[derive(Debug)]
pub(crate) struct LazyTier {
    /// The game's name, as the files' headers carry it.
    pub(crate) game_name: String,
    /// Numbers in the tier, as the database says.
    pub(crate) size: u64,
    /// Its files (the values', and with sorted keys the keys'), for their sizes.
    pub(crate) files: Vec<String>,
    pub(crate) opened: std::sync::OnceLock<TierData>,
}

/// (tier, block).
type BlockKey = (usize, usize);

/// Bytes of decoded blocks a solution keeps, per kind (keys, values).
const CACHE_BYTES: usize = 256 << 20;

/// Bytes of decoded blocks kept for the moves of positions being derived (below).
const DERIVING_CACHE_BYTES: usize = 64 << 20;

thread_local! {
    /// Set while a value a compact file leaves out is derived: the blocks its moves read (a
    /// few dozen, of other tables) go to a cache of their own, so that they do not push
    /// the blocks of the positions asked out of the main one.
    static DERIVING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Values derived for the numbers a compact file leaves out, kept at most (about 40 MB).
const DERIVED_KEPT: usize = 1 << 20;

/// The values derived for the numbers compact files leave out, by (tier, number): each is
/// a pass over the position's moves, whose blocks (a few dozen, of other tables) a block
/// cache does not keep for long, so that a position asked again costs a look-up. Emptied
/// when full ([`DERIVED_KEPT`]).
#[derive(Debug, Default)]
struct DerivedMemo(Mutex<HashMap<(usize, u64), Scored>>);

impl DerivedMemo {
    fn get(&self, key: (usize, u64)) -> Option<Scored> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .copied()
    }

    fn put(&self, key: (usize, u64), v: Scored) {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if m.len() >= DERIVED_KEPT {
            m.clear();
        }
        m.insert(key, v);
    }
}

/// Decoded blocks, kept up to [`CACHE_BYTES`] and dropped least recently used first, so
/// that a position and its moves read a block once, and a long-lived solution (`serve`)
/// answers from memory once its blocks have been read.
#[derive(Debug)]
struct BlockCache<T> {
    inner: Mutex<CacheInner<T>>,
    budget: usize,
}

#[derive(Debug)]
struct CacheInner<T> {
    blocks: HashMap<BlockKey, (Arc<Vec<T>>, u64)>,
    bytes: usize,
    clock: u64,
}

impl<T> Default for BlockCache<T> {
    fn default() -> Self {
        BlockCache::with_budget(CACHE_BYTES)
    }
}

impl<T> BlockCache<T> {
    fn with_budget(budget: usize) -> Self {
        BlockCache {
            inner: Mutex::new(CacheInner {
                blocks: HashMap::new(),
                bytes: 0,
                clock: 0,
            }),
            budget,
        }
    }
}

impl<T> BlockCache<T> {
    fn get(
        &self,
        key: BlockKey,
        read: impl FnOnce() -> Result<Vec<T>, Error>,
    ) -> Result<Arc<Vec<T>>, Error> {
        {
            let mut c = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            c.clock += 1;
            let now = c.clock;
            if let Some((data, used)) = c.blocks.get_mut(&key) {
                *used = now;
                return Ok(data.clone());
            }
        }
        let data = Arc::new(read()?);
        let size = data.len() * std::mem::size_of::<T>();
        let mut c = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if c.bytes + size > self.budget && !c.blocks.is_empty() {
            // Over budget: the least recently used eighth goes at once (at least enough
            // for this block), so that finding them, a pass over the blocks, is paid once
            // per many blocks read.
            let mut by_age: Vec<(u64, BlockKey, usize)> = c
                .blocks
                .iter()
                .map(|(k, (d, used))| (*used, *k, d.len() * std::mem::size_of::<T>()))
                .collect();
            by_age.sort_unstable();
            let (mut freed, target) = (0, (self.budget / 8).max(size));
            for (_, k, bytes) in by_age {
                if freed >= target && c.bytes + size <= self.budget {
                    break;
                }
                c.blocks.remove(&k);
                c.bytes -= bytes;
                freed += bytes;
            }
        }
        let now = c.clock;
        if let Some((old, _)) = c.blocks.insert(key, (data.clone(), now)) {
            c.bytes -= old.len() * std::mem::size_of::<T>();
        }
        c.bytes += size;
        Ok(data)
    }
}

/// The totals of each tier (games without a start), in the order of the solution's tiers.
pub(crate) enum TierTotals {
    /// Counted by the solve.
    Known(Vec<Option<Stats>>),
    /// In an opened database ([`read_tier_totals`]: its totals file, or with version 2 its
    /// description), read when first asked (a probe never asks): `at[k]` is tier `k`'s
    /// place in the description's order.
    Stored {
        meta: Box<Meta>,
        at: Vec<usize>,
        read: OnceLock<Vec<Option<Stats>>>,
    },
}

/// A game solved by the tier engine: every tier's values, in memory or in files.
pub struct TierSolution<'g, G: TierGame> {
    pub(crate) game: &'g G,
    pub(crate) index: HashMap<G::Tier, usize>,
    pub(crate) tiers: Vec<G::Tier>,
    pub(crate) data: Vec<TierData>,
    pub(crate) storage: Option<Arc<dyn Storage>>,
    pub(crate) stats: Stats,
    pub(crate) tier_stats: TierTotals,
    pub(crate) sizes: Vec<u64>,
    pub(crate) cell_bytes: u32,
    keys_cache: BlockCache<u64>,
    derived: DerivedMemo,
    /// The blocks read while deriving ([`DERIVING`]).
    deriving_cache: BlockCache<u8>,
    /// Stored cells, as the values file holds them (one, two or four bytes a number).
    values_cache: BlockCache<u8>,
    /// Set when the tiers came from a database's description ([`open_lazy`] through
    /// [`TierGame::tier_named`]) rather than from a walk of the game's tiers.
    ///
    /// [`open_lazy`]: crate::open_lazy
    pub(crate) listed: Option<Listed<G::Tier>>,
}

/// The tiers of a solution taken from its description, checked when a lookup meets a tier
/// the description does not list: the game's own tiers are walked then (once), so that a
/// tier of the game the description leaves out is an error naming it, not an answer of no
/// position.
pub(crate) struct Listed<T> {
    /// The description, for the error.
    pub(crate) file: String,
    /// The game's tiers, walked when first needed (the walk's error as text).
    pub(crate) walked: OnceLock<Result<rustc_hash::FxHashSet<T>, String>>,
}

impl<G: TierGame> std::fmt::Debug for TierSolution<'_, G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TierSolution")
            .field("tiers", &self.tiers)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl<'g, G: TierGame> TierSolution<'g, G> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        game: &'g G,
        tiers: Vec<G::Tier>,
        data: Vec<TierData>,
        storage: Option<Arc<dyn Storage>>,
        stats: Stats,
        tier_stats: TierTotals,
        sizes: Vec<u64>,
        cell_bytes: u32,
    ) -> Self {
        let index = tiers.iter().enumerate().map(|(i, &t)| (t, i)).collect();
        TierSolution {
            game,
            index,
            tiers,
            data,
            storage,
            stats,
            tier_stats,
            sizes,
            cell_bytes,
            keys_cache: BlockCache::default(),
            derived: DerivedMemo::default(),
            deriving_cache: BlockCache::with_budget(DERIVING_CACHE_BYTES),
            values_cache: BlockCache::default(),
            listed: None,
        }
    }

    /// `Ok` when tier `t`, which this solution does not hold, is no tier of the game
    /// either; an error when the solution's tiers came from a description that leaves out
    /// this tier of the game ([`Listed`]).
    fn unlisted(&self, t: G::Tier) -> Result<(), Error> {
        let Some(l) = &self.listed else {
            return Ok(());
        };
        let walked = l.walked.get_or_init(|| {
            crate::api::dag::Dag::build(self.game)
                .map(|d| d.tiers.into_iter().collect())
                .map_err(|e| e.to_string())
        });
        match walked {
            Ok(tiers) if tiers.contains(&t) => Err(Error::damaged(
                l.file.clone(),
                format!(
                    "tier {} of the game is not in the database",
                    self.game.tier_name(t)
                ),
            )),
            Ok(_) => Ok(()),
            Err(e) => Err(Error::Game(e.clone())),
        }
    }

    /// The game.
    pub fn game(&self) -> &'g G {
        self.game
    }

    /// The tiers, children before parents.
    pub fn tiers(&self) -> &[G::Tier] {
        &self.tiers
    }

    /// What each tier holds, in the order of [`TierSolution::tiers`]: the entries its
    /// database file keeps, that is the slots of its dense index (holes included), or with
    /// sorted keys its canonical positions (its keys up to the game's symmetry). The same
    /// whether or not the solve wrote a database, and for one process or ranks alike (the
    /// JSON report's `tier_sizes`).
    pub fn tier_sizes(&self) -> &[u64] {
        &self.sizes
    }

    /// Totals over every position solved in tier `t` (games without a start only; `None`
    /// for others, and for a tier not of the game).
    ///
    /// # Errors
    /// An opened database whose totals file is missing or damaged (read at the first call).
    pub fn tier_stats(&self, t: G::Tier) -> Result<Option<&Stats>, Error> {
        let Some(&k) = self.index.get(&t) else {
            self.unlisted(t)?;
            return Ok(None);
        };
        Ok(self.all_tier_stats()?.get(k).and_then(Option::as_ref))
    }

    /// Every tier's totals, in the order of [`TierSolution::tiers`].
    pub(crate) fn all_tier_stats(&self) -> Result<&[Option<Stats>], Error> {
        match &self.tier_stats {
            TierTotals::Known(v) => Ok(v),
            TierTotals::Stored { meta, at, read } => {
                if let Some(v) = read.get() {
                    return Ok(v);
                }
                let st = self.storage.as_deref().ok_or_else(|| {
                    Error::Unsupported("the totals of a database without its storage".into())
                })?;
                let listed = read_tier_totals(st, meta)?;
                let v = at
                    .iter()
                    .map(|&p| listed.get(p).cloned().flatten())
                    .collect();
                Ok(read.get_or_init(|| v))
            }
        }
    }

    /// Bytes of tier `t`'s files in the storage (`None` when it is kept in memory, or
    /// the storage cannot tell).
    pub fn stored_bytes(&self, t: G::Tier) -> Option<u64> {
        let st = self.storage.as_deref()?;
        let size = |f: &str| st.size(f).ok().flatten();
        match self.data.get(*self.index.get(&t)?)? {
            TierData::File(r) => size(r.file()),
            TierData::SortedFiles { keys, vals } => Some(size(keys.file())? + size(vals.file())?),
            TierData::Lazy(l) => l.files.iter().map(|f| size(f)).sum(),
            _ => None,
        }
    }

    /// Bytes per value cell (1 or 2; 4 with scores).
    pub fn cell_bytes(&self) -> u32 {
        self.cell_bytes
    }

    fn storage(&self) -> Result<&dyn Storage, Error> {
        self.storage
            .as_deref()
            .ok_or_else(|| Error::Unsupported("a tier in a file without a storage".into()))
    }

    /// The value at number `i` of tier number `k`, from its values file: its block is read
    /// and checked once, then kept for a while as stored (a byte or two a number), and the
    /// one cell read from it.
    fn file_value(&self, k: usize, r: &Reader, i: u64) -> Result<Option<Scored>, Error> {
        if i >= r.count() {
            return Ok(None);
        }
        let per = u64::from(r.block_elems());
        let b = (i / per) as usize;
        let cache = match DERIVING.with(std::cell::Cell::get) {
            true => &self.deriving_cache,
            false => &self.values_cache,
        };
        let raw = cache.get((k, b), || r.block(self.storage()?, b))?;
        let e = r.elem() as usize;
        let at = (i % per) as usize * e;
        let cell = raw.get(at..at + e).ok_or_else(|| {
            Error::damaged(r.name().to_string(), format!("block {b} is cut short"))
        })?;
        decode_stored(cell, r.name())
    }

    /// Tier number `k`'s files, opened (their header and index checked) when first needed.
    fn opened<'s>(&'s self, k: usize, l: &'s LazyTier) -> Result<&'s TierData, Error> {
        if let Some(d) = l.opened.get() {
            return Ok(d);
        }
        // Two threads may open it at once: one result is kept, both are the same.
        let d = super::open_tier(
            self.game,
            self.tiers[k],
            self.storage()?,
            &l.game_name,
            l.size,
            true,
        )?;
        Ok(l.opened.get_or_init(|| d))
    }

    /// The values tier `t` keeps, in number order, a block at a time: `f(first, values)`,
    /// `first` the number of `values[0]`, holes `None`. A pass over a whole database (a
    /// report by side to move, a census) reads each block of a file once, past the cache
    /// that probes keep. The blocks a compact file leaves out are not visited (their
    /// values follow from their moves: [`TierSolution::scored`] derives them one position
    /// at a time): returns how many numbers were left out that way (0 but for a compact
    /// file).
    ///
    /// # Errors
    /// A tier this solution does not hold, not kept, or kept as sorted keys (whose numbers
    /// are no positions'); a file that cannot be read or is damaged.
    pub fn for_each_stored(
        &self,
        t: G::Tier,
        mut f: impl FnMut(u64, &[Option<Scored>]),
    ) -> Result<u64, Error> {
        let k = *self
            .index
            .get(&t)
            .ok_or_else(|| Error::Unsupported(format!("tier {t:?} is not one of this solution")))?;
        let mut data = &self.data[k];
        if let TierData::Lazy(l) = data {
            data = self.opened(k, l)?;
        }
        const CHUNK: u64 = 1 << 16;
        let mut values = Vec::with_capacity(CHUNK as usize);
        match data {
            TierData::Cells(c) => {
                let n = c.len() as u64;
                for first in (0..n).step_by(CHUNK as usize) {
                    values.clear();
                    values.extend((first..n.min(first + CHUNK)).map(|i| c.value(i)));
                    f(first, &values);
                }
                Ok(0)
            }
            TierData::File(r) => {
                let per = u64::from(r.block_elems());
                let e = r.elem() as usize;
                for b in (0..r.blocks()).filter(|b| !r.derived().contains(b)) {
                    let raw = r.block(self.storage()?, b)?;
                    values.clear();
                    for cell in raw.chunks_exact(e) {
                        values.push(decode_stored(cell, r.name())?);
                    }
                    f(b as u64 * per, &values);
                }
                let left = r.derived().map(|b| (r.count() - b as u64 * per).min(per));
                Ok(left.sum())
            }
            TierData::Sorted { .. } | TierData::SortedFiles { .. } => Err(Error::Unsupported(
                format!("tier {t:?} keeps sorted keys: its values are by key, not by number"),
            )),
            TierData::Dropped | TierData::Lazy(_) => Err(Error::Unsupported(format!(
                "tier {t:?} was solved for the totals only and not kept"
            ))),
        }
    }

    /// The value of a canonical position of tier number `k`.
    fn lookup(&self, k: usize, p: &G::Position) -> Result<Option<Scored>, Error> {
        self.lookup_in(k, &self.data[k], p)
    }

    /// The value of a canonical position of tier number `k`, whose values `data` holds.
    fn lookup_in(
        &self,
        k: usize,
        data: &TierData,
        p: &G::Position,
    ) -> Result<Option<Scored>, Error> {
        let t = self.tiers[k];
        match data {
            TierData::Cells(c) => {
                let i = <G::Layout as Layout<G>>::number(self.game, p);
                Ok(c.value(i))
            }
            TierData::File(r) => {
                let i = <G::Layout as Layout<G>>::number(self.game, p);
                if r.is_derived(i) {
                    if let Some(v) = self.derived.get((k, i)) {
                        return Ok(Some(v));
                    }
                    let v = self.derived(k, r, p)?;
                    self.derived.put((k, i), v);
                    return Ok(Some(v));
                }
                self.file_value(k, r, i)
            }
            TierData::Sorted { keys, vals } => {
                let key = <G::Layout as Layout<G>>::number(self.game, p);
                Ok(keys.find(key).and_then(|i| vals.value(i as u64)))
            }
            TierData::SortedFiles { keys, vals } => {
                let key = <G::Layout as Layout<G>>::number(self.game, p);
                let Some(i) = self.find_key_in_file(k, keys, key)? else {
                    return Ok(None);
                };
                self.file_value(k, vals, i)
            }
            TierData::Dropped => Err(Error::Unsupported(format!(
                "tier {t:?} was solved for the totals only and not kept; solve with a database to look positions up"
            ))),
            // Opened, it is one of the others.
            TierData::Lazy(l) => self.lookup_in(k, self.opened(k, l)?, p),
        }
    }

    /// The value of canonical position `p` of tier number `k`, whose number its compact
    /// values file `r` leaves out: the best of its moves' values (one ply). Its moves inside
    /// the tier are on the side the file keeps (the game's promise, checked: else an
    /// error, and never a lookup that comes back here); moves to other tiers may be derived
    /// in turn, down the tiers' order, which ends.
    fn derived(&self, k: usize, r: &Reader, p: &G::Position) -> Result<Scored, Error> {
        let g = self.game;
        let t = self.tiers[k];
        let prim = g.primitive(p);
        let mut children = Vec::new();
        if prim.is_none() {
            g.moves(p, &mut children);
        }
        if children.is_empty() {
            return Ok(<Scored as Worth>::over(g, p, prim));
        }
        for c in children.iter().filter(|c| g.tier(c) == t) {
            let i = <G::Layout as Layout<G>>::number(g, &canonical(g, c));
            if r.is_derived(i) {
                return Err(Error::Game(format!(
                    "{} is compact, but the move from {p:?} to {c:?} stays on the side it leaves out (the game's sides of tier {t:?} are not the sides of its moves)",
                    r.name()
                )));
            }
        }
        let was = DERIVING.with(|d| d.replace(true));
        let moves = self.scored_moves(p);
        DERIVING.with(|d| d.set(was));
        let best = moves?.into_iter().next();
        best.map(|(_, v)| v).ok_or_else(|| {
            Error::Game(format!(
                "{p:?} has moves, then none (the game's moves changed)"
            ))
        })
    }

    /// The position of `key` in a keys file, if there.
    fn find_key_in_file(&self, k: usize, r: &Reader, key: u64) -> Result<Option<u64>, Error> {
        let Some(b) = r.block_of(key) else {
            return Ok(None);
        };
        let keys = self.keys_cache.get((k, b), || {
            let raw = r.block(self.storage()?, b)?;
            Ok(if r.elem() == 4 {
                raw.chunks_exact(4)
                    .map(|c| u64::from(u32::from_le_bytes(c.try_into().expect("4"))))
                    .collect()
            } else {
                raw.chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().expect("8")))
                    .collect()
            })
        })?;
        let found = keys.binary_search(&key).ok();
        Ok(found.map(|j| b as u64 * u64::from(r.block_elems()) + j as u64))
    }

    /// The value of any position (through its canonical one), `None` when it is not a
    /// position of a tier this solution holds. For a game with scores, the outcome and
    /// remoteness of [`TierSolution::scored`] (a game that never ends after points were
    /// collected, which has no such value, is an error: ask for the score).
    ///
    /// # Errors
    /// A tier file that cannot be read or is damaged.
    pub fn value(&self, p: &G::Position) -> Result<Option<Value>, Error> {
        self.scored(p)?.map(|v| as_value(p, v)).transpose()
    }

    /// The value of any position with its score (`+1`, `-1` or `0` for a game without
    /// scores), `None` when it is not a position of a tier this solution holds.
    ///
    /// # Errors
    /// A tier file that cannot be read or is damaged.
    pub fn scored(&self, p: &G::Position) -> Result<Option<Scored>, Error> {
        let t = self.game.tier(p);
        let Some(&k) = self.index.get(&t) else {
            self.unlisted(t)?;
            return Ok(None);
        };
        // A number past a tier's values is no position of it (`None` from the lookup).
        self.lookup(k, &canonical(self.game, p))
    }

    /// Every legal move from `p` with its value for the mover, best first.
    ///
    /// # Errors
    /// A value that cannot be read, or a move to a position this solution does not hold
    /// (a missing tier).
    pub fn ranked_moves(&self, p: &G::Position) -> Result<Vec<(G::Position, Value)>, Error> {
        self.scored_moves(p)?
            .into_iter()
            .map(|(c, v)| Ok((c, as_value(p, v)?)))
            .collect()
    }

    /// Every legal move from `p` with its value for the mover, with its score (the move's
    /// reward plus what follows, from the mover's side), best first (equal values in the
    /// game's move order). Empty when the game is over at `p`.
    ///
    /// # Errors
    /// As [`TierSolution::ranked_moves`].
    pub fn scored_moves(&self, p: &G::Position) -> Result<Vec<(G::Position, Scored)>, Error> {
        let g = self.game;
        if g.primitive(p).is_some() {
            return Ok(Vec::new());
        }
        let mut children = Vec::new();
        g.moves(p, &mut children);
        let t = g.tier(p);
        let mut out = Vec::with_capacity(children.len());
        for c in children {
            let v = self.scored(&c)?.ok_or_else(|| {
                Error::Game(format!(
                    "the move from {p:?} to {c:?} reaches a position the solution does not hold"
                ))
            })?;
            let reward = match g.tier(&c) == t {
                true => 0,
                false => <G::Score as Scoring<G>>::reward(g, p, &c),
            };
            out.push((c, v.through_with(keeps(g, p, &c), reward)));
        }
        out.sort_by_key(|m| std::cmp::Reverse(m.1));
        Ok(out)
    }
}

/// A value with scores as a win, loss, tie or draw (exact for a game without scores).
fn as_value(p: &dyn std::fmt::Debug, v: Scored) -> Result<Value, Error> {
    v.value().ok_or_else(|| {
        Error::Unsupported(format!(
            "{p:?} is worth {v}: a game with scores, ask for its score"
        ))
    })
}

impl<G: TierGame> Solved for TierSolution<'_, G> {
    type Position = G::Position;

    fn start(&self) -> Option<G::Position> {
        self.game.start()
    }

    fn value(&self, p: &G::Position) -> Result<Option<Value>, Error> {
        TierSolution::value(self, p)
    }

    fn ranked_moves(&self, p: &G::Position) -> Result<Vec<(G::Position, Value)>, Error> {
        TierSolution::ranked_moves(self, p)
    }

    fn stats(&self) -> &Stats {
        &self.stats
    }
}

/// One stored cell of a values file (two bytes or one, four with scores), decoded.
fn decode_stored(cell: &[u8], file: &str) -> Result<Option<Scored>, Error> {
    Ok(match cell.len() {
        4 => stored_cell::<ScoreCell>(cell, file)?.decode(),
        _ => stored_cell::<u16>(cell, file)?.decode().map(Scored::from),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_cache_keeps_the_recently_used_within_its_budget() {
        let cache = BlockCache::<u64> {
            budget: 3 * 8 * 100,
            ..BlockCache::default()
        };
        let reads = std::cell::Cell::new(0);
        let get = |b: usize| {
            cache
                .get((0, b), || {
                    reads.set(reads.get() + 1);
                    Ok(vec![b as u64; 100])
                })
                .unwrap()
        };
        for b in 0..3 {
            assert_eq!(get(b)[0], b as u64);
        }
        assert_eq!(reads.get(), 3);
        get(0); // 0 is now the most recent: 1 goes first.
        get(3);
        assert_eq!(reads.get(), 4);
        get(0);
        get(2);
        assert_eq!(reads.get(), 4, "0 and 2 were kept");
        get(1);
        assert_eq!(reads.get(), 5, "1 was dropped");
        assert!(cache.inner.lock().unwrap().bytes <= 3 * 800);
        // A read that fails is not kept.
        assert!(cache
            .get((1, 0), || Err(Error::Unsupported("x".into())))
            .is_err());
        assert_eq!(get(2)[0], 2);
    }
}

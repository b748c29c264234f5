//! The driver: which tier to solve when, what to keep in memory, what to write, what to
//! reuse, and the totals.

use crate::cell::{AnyCells, Cell, CellArray};
use crate::count;
use crate::dense::{self, Below};
use crate::error::{human_bytes, Error};
use crate::game::{Layout, LayoutKind, Symmetry, TierGame};
use crate::identity::{Identified, Identity};
use crate::seq;
use crate::solution::{TierData, TierSolution};
use crate::sorted;
use crate::stats::Stats;
use crate::storage::Storage;
use crate::tierfile::{self, Codec, Header, Kind, Reader};
use rayon::prelude::*;
use retrograde_solve::Value;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

/// Which solver runs the tiers.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    /// The parallel one (on every thread of the current rayon pool; on one thread it runs
    /// without atomic read-modify-writes).
    #[default]
    Auto,
    /// The sequential reference (dense layout only; much more memory: for tests).
    Sequential,
}

/// What a solve reports as it goes, to draw progress or print warnings.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Event<'a> {
    /// The plan: tiers to solve and their slots (or keys) in all, when known.
    Plan {
        /// Tiers.
        tiers: usize,
        /// Slots in all (dense layout), 0 when unknown.
        slots: u64,
    },
    /// Finding the positions of a tier (sorted layout).
    Discover {
        /// The tier's name.
        tier: &'a str,
        /// Positions found so far in all.
        positions: u64,
    },
    /// A tier starts (or is reused from the storage).
    Tier {
        /// The tier's name.
        tier: &'a str,
        /// Its slots or keys.
        size: u64,
        /// Slots or keys of the tiers done before it.
        done: u64,
        /// Whether its finished file is reused.
        reused: bool,
    },
    /// Counting the positions reachable from the start.
    Count {
        /// Slots of the tiers counted so far.
        done: u64,
        /// Slots in all.
        total: u64,
    },
    /// Putting the ranks' shares together into the one-process database (a distributed
    /// solve with a storage, at its end).
    Assemble {
        /// Put together so far: slots (dense layout) or tiers (sorted keys).
        done: u64,
        /// In all, in the same unit.
        total: u64,
    },
    /// A damaged file met while resuming: it is solved again.
    Damaged {
        /// The error.
        error: &'a Error,
    },
}

/// A progress callback.
pub type ProgressFn = Arc<dyn Fn(&Event<'_>) + Send + Sync>;

/// How to solve. New options will come (so the struct is `#[non_exhaustive]`): start from
/// [`SolveOptions::default`] and set the fields you need.
///
/// ```
/// let mut opts = retrograde_tier::SolveOptions::default();
/// opts.memory_limit = Some(1 << 30);
/// opts.resume = true;
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct SolveOptions {
    /// Refuse (with [`Error::Memory`]) to use more than this many bytes.
    pub memory_limit: Option<u64>,
    /// Where to keep solved tiers: with a storage, tiers are written as they are solved,
    /// only the tiers in use stay in memory, and the solution reads from the files; without
    /// one, everything stays in memory.
    pub storage: Option<Arc<dyn Storage>>,
    /// Reuse the finished tiers found in the storage (damaged ones are solved again).
    pub resume: bool,
    /// Called as the solve goes.
    pub progress: Option<ProgressFn>,
    /// Which solver.
    pub engine: Engine,
    /// Count the positions reachable from the start (the totals); without, the totals are
    /// over every position solved.
    pub count: bool,
    /// Set to stop the solve with [`Error::Interrupted`] (checked between levels and tiers).
    pub cancel: Option<Arc<AtomicBool>>,
    /// How value files are compressed (the sorted layout, whose tiers are big, uses at
    /// most zstd's level 3, and delta-codes its keys).
    pub codec: Codec,
    /// Recorded in the database: what the caller needs to rebuild the game from it.
    pub params: serde_json::Value,
    /// Whether the solution keeps every value, to answer lookups (the default). Without,
    /// it keeps the totals and the start's value only, and the sorted layout writes no
    /// database: its files serve the solve alone (a summary of Connect-4 6x5 needs no
    /// half-gigabyte database). The dense layout keeps its values either way: its count
    /// of the reachable positions reads every tier again.
    pub keep_values: bool,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            memory_limit: None,
            storage: None,
            resume: false,
            progress: None,
            engine: Engine::Auto,
            count: true,
            cancel: None,
            codec: Codec::Zstd(9),
            params: serde_json::Value::Null,
            keep_values: true,
        }
    }
}

impl std::fmt::Debug for SolveOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SolveOptions")
            .field("memory_limit", &self.memory_limit)
            .field("storage", &self.storage)
            .field("resume", &self.resume)
            .field("engine", &self.engine)
            .field("count", &self.count)
            .field("keep_values", &self.keep_values)
            .finish_non_exhaustive()
    }
}

impl SolveOptions {
    pub(crate) fn emit(&self, e: &Event<'_>) {
        if let Some(f) = &self.progress {
            f(e)
        }
    }

    pub(crate) fn cancelled(&self) -> Result<(), Error> {
        match &self.cancel {
            Some(c) if c.load(std::sync::atomic::Ordering::Relaxed) => Err(Error::Interrupted),
            _ => Ok(()),
        }
    }

    pub(crate) fn check_memory(
        &self,
        what: impl FnOnce() -> String,
        needed: u64,
    ) -> Result<(), Error> {
        match self.memory_limit {
            Some(limit) if needed > limit => Err(Error::Memory {
                what: what(),
                needed,
                limit,
            }),
            _ => Ok(()),
        }
    }
}

/// The DAG of tiers below the roots.
pub(crate) struct Dag<T> {
    pub tiers: Vec<T>,
    pub names: Vec<String>,
    pub children: Vec<Vec<usize>>,
    pub parents: Vec<Vec<usize>>,
    /// Children before parents.
    pub order: Vec<usize>,
    pub roots: Vec<usize>,
}

impl<T: Copy + Eq + std::hash::Hash + std::fmt::Debug> Dag<T> {
    pub fn build<G: TierGame<Tier = T>>(game: &G) -> Result<Dag<T>, Error> {
        let mut index: HashMap<T, usize> = HashMap::new();
        let mut tiers = Vec::new();
        let mut children: Vec<Vec<usize>> = Vec::new();
        let mut todo = VecDeque::new();
        let roots_t = game.root_tiers();
        let mut roots = Vec::new();
        for t in roots_t {
            if let std::collections::hash_map::Entry::Vacant(e) = index.entry(t) {
                e.insert(tiers.len());
                roots.push(tiers.len());
                tiers.push(t);
                children.push(Vec::new());
                todo.push_back(t);
            }
        }
        let mut buf = Vec::new();
        while let Some(t) = todo.pop_front() {
            buf.clear();
            game.child_tiers(t, &mut buf);
            let k = index[&t];
            for &c in &buf {
                if c == t {
                    continue;
                }
                let ci = *index.entry(c).or_insert_with(|| {
                    tiers.push(c);
                    children.push(Vec::new());
                    todo.push_back(c);
                    tiers.len() - 1
                });
                if !children[k].contains(&ci) {
                    children[k].push(ci);
                }
            }
        }
        let n = tiers.len();
        let mut parents = vec![Vec::new(); n];
        for (k, cs) in children.iter().enumerate() {
            for &c in cs {
                parents[c].push(k);
            }
        }
        // Kahn: a tier is ready when its children are done.
        let mut left: Vec<usize> = children.iter().map(Vec::len).collect();
        let mut ready: VecDeque<usize> = (0..n).filter(|&k| left[k] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(k) = ready.pop_front() {
            order.push(k);
            for &p in &parents[k] {
                left[p] -= 1;
                if left[p] == 0 {
                    ready.push_back(p);
                }
            }
        }
        if order.len() != n {
            let stuck = (0..n).find(|&k| left[k] > 0).expect("a tier left");
            return Err(Error::Game(format!(
                "the tiers form a cycle through tier {:?}",
                tiers[stuck]
            )));
        }
        let names: Vec<String> = tiers.iter().map(|&t| game.tier_name(t)).collect();
        for (i, name) in names.iter().enumerate() {
            if name.is_empty()
                || name.len() > 40
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            {
                return Err(Error::Game(format!(
                    "tier {:?} is named {name:?}: a tier name is 1 to 40 letters, digits, '-' or '_'",
                    tiers[i]
                )));
            }
        }
        let mut seen = HashMap::new();
        for (i, name) in names.iter().enumerate() {
            if let Some(j) = seen.insert(name.clone(), i) {
                return Err(Error::Game(format!(
                    "tiers {:?} and {:?} have the same name {name:?}",
                    tiers[j], tiers[i]
                )));
            }
        }
        Ok(Dag {
            tiers,
            names,
            children,
            parents,
            order,
            roots,
        })
    }
}

/// The database's description of itself, `database.json`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Meta {
    /// Always `retrograde tier database`.
    pub format: String,
    /// Format version ([`META_VERSION`]).
    pub version: u32,
    /// The database's identity, in hex: every one of its files carries it
    /// ([`crate::identity`]). Empty in databases of version 1, which had none.
    #[serde(default)]
    pub id: String,
    /// The game's [`TierGame::name`].
    pub game: String,
    /// What the caller recorded to rebuild the game ([`SolveOptions::params`]).
    pub params: serde_json::Value,
    /// `dense` or `sorted`.
    pub layout: String,
    /// Bytes per value cell.
    pub cell_bytes: u32,
    /// The tiers, children first: (name, size).
    pub tiers: Vec<(String, u64)>,
    /// The start's value, as `Display` writes it.
    pub start: Option<String>,
    /// The totals.
    pub stats: Stats,
    /// Per tier totals (games without a start), in the order of `tiers`.
    pub tier_stats: Vec<Option<Stats>>,
    /// CRC-32 of this object written with an empty checksum, in hex.
    pub checksum: String,
}

/// The name of the database's description file.
pub const META: &str = "database.json";
pub(crate) const FORMAT: &str = "retrograde tier database";
/// The version of `database.json` written and read (2: with the database's identity).
pub const META_VERSION: u32 = 2;

impl Meta {
    fn sealed(mut self) -> Meta {
        self.checksum = String::new();
        let text = serde_json::to_vec(&self).expect("serializable");
        self.checksum = format!("{:08x}", crc32fast::hash(&text));
        self
    }
}

/// Reads a database's description, checking its checksum; `Ok(None)` when there is none.
///
/// # Errors
/// A description that cannot be read, is not one, or whose checksum does not hold.
pub fn read_meta(storage: &dyn Storage) -> Result<Option<Meta>, Error> {
    let name = storage.describe(META);
    let Some(len) = storage
        .size(META)
        .map_err(|e| Error::io(name.clone(), "read", e))?
    else {
        return Ok(None);
    };
    if len > 64 << 20 {
        return Err(Error::damaged(name, "too big for a database description"));
    }
    let mut buf = vec![0u8; len as usize];
    storage
        .read_at(META, 0, &mut buf)
        .map_err(|e| Error::io(name.clone(), "read", e))?;
    let meta: Meta = serde_json::from_slice(&buf)
        .map_err(|e| Error::damaged(name.clone(), format!("not a database description: {e}")))?;
    if meta.format != FORMAT {
        return Err(Error::damaged(
            name,
            format!("format {:?}, expected {FORMAT:?}", meta.format),
        ));
    }
    if meta.version != META_VERSION {
        return Err(Error::damaged(
            name,
            format!(
                "version {} of the format, this build reads version {META_VERSION} (solve again to rewrite the database)",
                meta.version
            ),
        ));
    }
    let stored = meta.checksum.clone();
    if meta.clone().sealed().checksum != stored {
        return Err(Error::damaged(name, "checksum mismatch"));
    }
    if meta.identity().is_none() {
        return Err(Error::damaged(name, "no valid database identity"));
    }
    Ok(Some(meta))
}

impl Meta {
    /// The database's identity (`None` when `id` is not one).
    pub fn identity(&self) -> Option<Identity> {
        Identity::from_hex(&self.id).filter(|&id| id != Identity::NONE)
    }
}

pub(crate) fn write_meta(storage: &dyn Storage, meta: Meta) -> Result<(), Error> {
    let name = storage.describe(META);
    let bytes = serde_json::to_vec_pretty(&meta.sealed()).expect("serializable");
    let io = |e| Error::io(name.clone(), "write", e);
    let mut w = storage.create(META).map_err(io)?;
    std::io::Write::write_all(&mut w, &bytes).map_err(io)?;
    w.commit().map_err(io)
}

pub(crate) fn values_file(name: &str) -> String {
    format!("{name}.values")
}

pub(crate) fn keys_file(name: &str) -> String {
    format!("{name}.keys")
}

pub(crate) fn header(game_name: &str, tier: &str, kind: Kind, elem: u32) -> Header {
    Header {
        game: game_name.to_string(),
        tier: tier.to_string(),
        kind,
        elem,
    }
}

/// Solves every tier of `game` below its root tiers.
///
/// # Errors
/// See [`Error`]: a memory limit too small, a storage that fails, a remoteness too big for a
/// value cell, a game that breaks the API, or a cancelled solve.
///
/// # Example
/// See the [crate docs](crate).
pub fn solve<'g, G: TierGame>(
    game: &'g G,
    opts: &SolveOptions,
) -> Result<TierSolution<'g, G>, Error> {
    if game.name().len() > 40 {
        return Err(Error::Game(format!(
            "the game's name {:?} is longer than 40 bytes",
            game.name()
        )));
    }
    let opts = &crate::identity::begin(game, opts)?;
    let small = game
        .remoteness_bound()
        .is_some_and(|b| b <= u8::MAX_REMOTENESS);
    match (<G::Layout as Layout<G>>::KIND, small) {
        (LayoutKind::Dense, true) => solve_dense::<G, u8>(game, opts),
        (LayoutKind::Dense, false) => solve_dense::<G, u16>(game, opts),
        (LayoutKind::SortedKeys, true) => sorted::solve::<G, u8>(game, opts),
        (LayoutKind::SortedKeys, false) => sorted::solve::<G, u16>(game, opts),
    }
}

/// Opens the finished database in `storage` without solving; `Ok(None)` when the storage
/// holds no finished database.
///
/// # Errors
/// A database of another game, a damaged description, or missing or damaged tier files.
pub fn open<'g, G: TierGame>(
    game: &'g G,
    storage: Arc<dyn Storage>,
) -> Result<Option<TierSolution<'g, G>>, Error> {
    let Some(meta) = read_meta(&*storage)? else {
        return Ok(None);
    };
    let name = storage.describe(META);
    if meta.game != game.name() {
        return Err(Error::Foreign {
            file: name,
            holds: meta.game,
            wanted: game.name(),
        });
    }
    // Every file must be of this database.
    let storage = Identified::wrap(storage, meta.identity().expect("read_meta checked it"));
    let dag = Dag::build(game)?;
    let listed: Vec<&str> = meta.tiers.iter().map(|(n, _)| n.as_str()).collect();
    let mut data = Vec::with_capacity(dag.tiers.len());
    let mut sizes = Vec::with_capacity(dag.tiers.len());
    let mut tier_stats = Vec::with_capacity(dag.tiers.len());
    let cell_bytes = meta.cell_bytes;
    if cell_bytes != 1 && cell_bytes != 2 {
        return Err(Error::damaged(name, format!("{cell_bytes}-byte cells")));
    }
    for (k, tname) in dag.names.iter().enumerate() {
        let Some(pos) = listed.iter().position(|l| l == tname) else {
            return Err(Error::damaged(
                name,
                format!("tier {tname} of the game is not in the database"),
            ));
        };
        let size = meta.tiers[pos].1;
        sizes.push(size);
        tier_stats.push(meta.tier_stats.get(pos).cloned().flatten());
        let vals = Reader::open(
            &*storage,
            &values_file(tname),
            &header(&meta.game, tname, Kind::Values, 0),
        )?;
        if vals.count() != size {
            return Err(Error::damaged(
                vals.name().to_string(),
                format!("holds {} values, the database says {size}", vals.count()),
            ));
        }
        match <G::Layout as Layout<G>>::KIND {
            LayoutKind::Dense => {
                if size != <G::Layout as Layout<G>>::tier_size(game, dag.tiers[k]) {
                    return Err(Error::damaged(
                        vals.name().to_string(),
                        format!("tier {tname} has {size} slots in the database, the game has another number"),
                    ));
                }
                data.push(TierData::File(vals))
            }
            LayoutKind::SortedKeys => {
                let bits = <G::Layout as Layout<G>>::key_bits(game, dag.tiers[k]);
                let keys = Reader::open(
                    &*storage,
                    &keys_file(tname),
                    &header(
                        &meta.game,
                        tname,
                        Kind::Keys,
                        if bits <= 32 { 4 } else { 8 },
                    ),
                )?;
                if keys.count() != size {
                    return Err(Error::damaged(
                        keys.name().to_string(),
                        format!("holds {} keys, the database says {size}", keys.count()),
                    ));
                }
                data.push(TierData::SortedFiles { keys, vals })
            }
        }
    }
    let stats = meta.stats.clone();
    Ok(Some(TierSolution::new(
        game,
        dag.tiers,
        data,
        Some(storage),
        stats,
        tier_stats,
        sizes,
        cell_bytes,
    )))
}

/// Which numbers of a tier hold a stored value: every one with sorted keys; with a dense
/// index, the positions that are canonical. Calls `f(number, stored)` for `range` in order.
pub(crate) fn stored_slots<G: TierGame>(
    game: &G,
    t: G::Tier,
    range: std::ops::Range<u64>,
    mut f: impl FnMut(u64, bool),
) {
    if <G::Layout as Layout<G>>::KIND == LayoutKind::SortedKeys {
        range.for_each(|i| f(i, true));
        return;
    }
    <G::Layout as Layout<G>>::for_each_in(game, t, range, |i, p| {
        f(
            i,
            p.is_some_and(|p| <G::Symmetry as Symmetry<G>>::is_canonical(game, &p)),
        )
    });
}

/// Decodes stored cells of a file (`elem` bytes each) into cells of width `C`.
pub(crate) fn decode_cells<C: Cell>(raw: &[u8], elem: u32, name: &str) -> Result<Vec<C>, Error> {
    let bad = || Error::damaged(name.to_string(), "a stored value is not a value");
    let to = |v: Option<Value>| -> Result<C, Error> {
        match v {
            Some(v) => C::encode(v).ok_or_else(|| Error::Remoteness {
                tier: name.to_string(),
                max: C::MAX_REMOTENESS,
            }),
            None => Err(bad()),
        }
    };
    if elem == 1 {
        raw.iter().map(|&c| to(c.decode())).collect()
    } else {
        raw.chunks_exact(2)
            .map(|c| to(u16::from_le_bytes([c[0], c[1]]).decode()))
            .collect()
    }
}

/// Fills `dst`, the cells of numbers `lo..` of tier `t`, from a block's stored cells.
pub(crate) fn expand_block<G: TierGame, C: Cell>(
    game: &G,
    t: G::Tier,
    lo: u64,
    stored: &[C],
    dst: &mut [C],
    name: &str,
) -> Result<(), Error> {
    let mut next = 0usize;
    let mut ok = true;
    stored_slots(game, t, lo..lo + dst.len() as u64, |i, here| {
        if here {
            match stored.get(next) {
                Some(&c) => dst[(i - lo) as usize] = c,
                None => ok = false,
            }
            next += 1;
        }
    });
    if !ok || next != stored.len() {
        return Err(Error::damaged(
            name.to_string(),
            format!(
                "a block of {} values where the game has {next} positions",
                stored.len()
            ),
        ));
    }
    Ok(())
}

/// Reads a whole values file into cells, one per number of the tier (0 for holes).
pub(crate) fn load_cells<G: TierGame, C: CellArray>(
    storage: &dyn Storage,
    game: &G,
    t: G::Tier,
    tier: &str,
    expect: u64,
) -> Result<Vec<C>, Error> {
    let gname = game.name();
    let r = Reader::open(
        storage,
        &values_file(tier),
        &header(&gname, tier, Kind::Values, 0),
    )?;
    if r.count() != expect {
        return Err(Error::damaged(
            r.name().to_string(),
            format!("covers {} numbers, the tier has {expect}", r.count()),
        ));
    }
    let per = r.block_elems() as usize;
    let mut out = vec![C::UNDECIDED; expect as usize];
    out.par_chunks_mut(per.max(1))
        .enumerate()
        .try_for_each(|(b, dst)| -> Result<(), Error> {
            let raw = r.block(storage, b)?;
            let stored = decode_cells::<C>(&raw, r.elem(), r.name())?;
            expand_block(game, t, (b * per) as u64, &stored, dst, r.name())
        })?;
    Ok(out)
}

/// Whether every value among `cells` fits a one-byte stored cell.
pub(crate) fn fits_one_byte<C: CellArray>(cells: &[C]) -> bool {
    C::BYTES == 1
        || cells
            .par_iter()
            .all(|c| c.decode().is_none_or(|v| u8::encode(v).is_some()))
}

/// Appends `v` as a stored cell: one byte when `one` (see [`fits_one_byte`]), else two.
pub(crate) fn push_stored(out: &mut Vec<u8>, v: Value, one: bool) {
    if one {
        out.push(u8::encode(v).expect("checked: fits"));
    } else {
        out.extend_from_slice(&u16::encode(v).expect("a cell's value").to_le_bytes());
    }
}

/// Writes a tier's cells: only those holding a value, one byte each when all fit.
pub(crate) fn store_cells<C: CellArray>(
    storage: &dyn Storage,
    game_name: &str,
    tier: &str,
    cells: &[C],
    codec: Codec,
) -> Result<(), Error> {
    let one = fits_one_byte(cells);
    let elem = if one { 1 } else { 2 };
    let per = tierfile::BLOCK_ELEMS as usize;
    tierfile::write_values(
        storage,
        &values_file(tier),
        &header(game_name, tier, Kind::Values, elem),
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
                push_stored(out, c.decode().expect("a stored cell holds a value"), one);
            }
            n
        },
    )
}

/// The dense driver.
fn solve_dense<'g, G: TierGame, C: CellArray>(
    game: &'g G,
    opts: &SolveOptions,
) -> Result<TierSolution<'g, G>, Error> {
    let gname = game.name();
    if let Some(st) = &opts.storage {
        if let Some(done) = prepare_storage(game, st, opts.resume)? {
            return Ok(done);
        }
    }
    let dag = Dag::build(game)?;
    let n = dag.tiers.len();
    let sizes: Vec<u64> = dag
        .tiers
        .iter()
        .map(|&t| <G::Layout as Layout<G>>::tier_size(game, t))
        .collect();
    let total: u64 = sizes.iter().sum();
    opts.emit(&Event::Plan {
        tiers: n,
        slots: total,
    });
    let cell = C::BYTES as u64;
    // Working memory of a tier beside its children: cells, counters, level lists.
    let work = |k: usize| sizes[k].saturating_mul(cell + 1 + 4);
    plan_memory(&dag, &sizes, cell, opts.storage.is_some(), &work, opts)?;

    let storage = opts.storage.as_deref();
    let started = Instant::now();
    let mut resident: Vec<Option<Arc<Vec<C>>>> = vec![None; n];
    let mut done = vec![false; n];
    let mut parents_left: Vec<usize> = dag.parents.iter().map(Vec::len).collect();
    let mut tier_stats: Vec<Option<Stats>> = vec![None; n];
    let has_start = game.start().is_some();
    if let (Some(st), true) = (storage, opts.resume) {
        // Check what is there, children first; damaged files are solved again.
        for &k in &dag.order {
            let file = values_file(&dag.names[k]);
            if st.size(&file).ok().flatten().is_none() {
                continue;
            }
            match load_cells::<G, C>(st, game, dag.tiers[k], &dag.names[k], sizes[k]) {
                Ok(cells) => {
                    done[k] = true;
                    if !has_start {
                        tier_stats[k] = Some(tally::<G, C>(game, dag.tiers[k], &cells));
                    }
                }
                Err(e) => {
                    opts.emit(&Event::Damaged { error: &e });
                    st.remove(&file)
                        .map_err(|e| Error::io(st.describe(&file), "remove", e))?;
                }
            }
        }
    }
    let mut finished = 0u64;
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
                    let st = storage.expect("an evicted tier was stored");
                    resident[c] = Some(Arc::new(load_cells::<G, C>(
                        st,
                        game,
                        dag.tiers[c],
                        &dag.names[c],
                        sizes[c],
                    )?));
                }
            }
            let held: u64 = resident
                .iter()
                .flatten()
                .map(|c| c.len() as u64 * cell)
                .sum();
            opts.check_memory(|| format!("tier {name}"), held.saturating_add(work(k)))?;
            let below = Below {
                tiers: dag.children[k]
                    .iter()
                    .map(|&c| (dag.tiers[c], &resident[c].as_ref().expect("loaded")[..]))
                    .collect(),
            };
            let (cells, _solved) = match opts.engine {
                Engine::Sequential => seq::solve_tier::<G, C>(game, dag.tiers[k], &below)?,
                Engine::Auto => {
                    dense::solve_tier::<G, C>(game, dag.tiers[k], &below, opts.cancel.as_deref())?
                }
            };
            drop(below);
            if let Some(st) = storage {
                store_cells(st, &gname, name, &cells, opts.codec)?;
            }
            if !has_start {
                tier_stats[k] = Some(tally::<G, C>(game, dag.tiers[k], &cells));
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
    let mut stats = match game.start() {
        Some(start) if opts.count => {
            let mut get = |k: usize| -> Result<Arc<Vec<C>>, Error> {
                match &resident[k] {
                    Some(c) => Ok(c.clone()),
                    None => Ok(Arc::new(load_cells::<G, C>(
                        storage.expect("an evicted tier was stored"),
                        game,
                        dag.tiers[k],
                        &dag.names[k],
                        sizes[k],
                    )?)),
                }
            };
            count::count::<G, C>(game, &dag, start, &mut get, opts)?
        }
        _ => {
            let mut s = Stats::default();
            for k in 0..n {
                let ts = match &tier_stats[k] {
                    Some(t) => t.clone(),
                    None => {
                        let cells = match &resident[k] {
                            Some(c) => c.clone(),
                            None => Arc::new(load_cells::<G, C>(
                                storage.expect("stored"),
                                game,
                                dag.tiers[k],
                                &dag.names[k],
                                sizes[k],
                            )?),
                        };
                        tally::<G, C>(game, dag.tiers[k], &cells)
                    }
                };
                s.merge(&ts);
            }
            s
        }
    };
    stats.explore = started.elapsed();
    stats.solve = solve_time;

    let data: Vec<TierData> = (0..n)
        .map(|k| -> Result<TierData, Error> {
            Ok(match (&resident[k], storage) {
                (Some(c), None) => TierData::Cells(C::wrap(c.clone())),
                (_, Some(st)) => TierData::File(Reader::open(
                    st,
                    &values_file(&dag.names[k]),
                    &header(&gname, &dag.names[k], Kind::Values, 0),
                )?),
                (None, None) => unreachable!("without a storage every tier stays in memory"),
            })
        })
        .collect::<Result<_, _>>()?;
    let solution = TierSolution::new(
        game,
        dag.tiers.clone(),
        data,
        opts.storage.clone(),
        stats,
        tier_stats,
        sizes.clone(),
        C::BYTES as u32,
    );
    if let Some(st) = storage {
        write_finished(st, &solution, opts, "dense", &dag.names, &sizes)?;
    }
    Ok(solution)
}

/// Writes `database.json` for a finished solve (the last file: without it the database is
/// not finished): the solution's start value, totals and tiers (`names` with their `sizes`).
pub(crate) fn write_finished<G: TierGame>(
    st: &dyn Storage,
    solution: &TierSolution<'_, G>,
    opts: &SolveOptions,
    layout: &str,
    names: &[String],
    sizes: &[u64],
) -> Result<(), Error> {
    let start = solution.value_of_start()?;
    write_meta(
        st,
        Meta {
            format: FORMAT.into(),
            version: META_VERSION,
            id: st.identity().to_hex(),
            game: solution.game.name(),
            params: opts.params.clone(),
            layout: layout.into(),
            cell_bytes: solution.cell_bytes,
            tiers: names.iter().cloned().zip(sizes.iter().copied()).collect(),
            start: start.map(|v| v.to_string()),
            stats: solution.stats.clone(),
            tier_stats: solution.tier_stats.clone(),
            checksum: String::new(),
        },
    )
}

/// Before a solve with a storage: refuses a database of another game; with resume, returns
/// the finished database if there is one; without, forgets the old description (the solve
/// starts over).
pub(crate) fn prepare_storage<'g, G: TierGame>(
    game: &'g G,
    st: &Arc<dyn Storage>,
    resume: bool,
) -> Result<Option<TierSolution<'g, G>>, Error> {
    if let Ok(Some(meta)) = read_meta(&**st) {
        if meta.game != game.name() {
            return Err(Error::Foreign {
                file: st.describe(META),
                holds: meta.game,
                wanted: game.name(),
            });
        }
    }
    if resume {
        return open_if_finished(game, st);
    }
    st.remove(META)
        .map_err(|e| Error::io(st.describe(META), "remove", e))?;
    Ok(None)
}

/// The finished database in `storage`, when there is one for this game and every file
/// checks out entirely; `None` otherwise (then the solve goes on and reuses what it can).
pub(crate) fn open_if_finished<'g, G: TierGame>(
    game: &'g G,
    st: &Arc<dyn Storage>,
) -> Result<Option<TierSolution<'g, G>>, Error> {
    let meta = match read_meta(&**st) {
        Ok(Some(m)) if m.game == game.name() => m,
        _ => return Ok(None),
    };
    let _ = meta;
    let Ok(Some(sol)) = open(game, st.clone()) else {
        return Ok(None);
    };
    // Every block of every file must check out.
    for (k, d) in sol.data.iter().enumerate() {
        let readers: Vec<&Reader> = match d {
            TierData::File(r) => vec![r],
            TierData::SortedFiles { keys, vals } => vec![keys, vals],
            _ => vec![],
        };
        for r in readers {
            let ok = (0..r.blocks())
                .into_par_iter()
                .all(|b| r.block(&**st, b).is_ok());
            if !ok {
                let _ = k;
                return Ok(None);
            }
        }
    }
    Ok(Some(sol))
}

/// Checks the whole plan against the memory limit before anything runs.
fn plan_memory(
    dag: &Dag<impl Copy>,
    sizes: &[u64],
    cell: u64,
    stored: bool,
    work: &dyn Fn(usize) -> u64,
    opts: &SolveOptions,
) -> Result<(), Error> {
    let Some(limit) = opts.memory_limit else {
        return Ok(());
    };
    let mut held = 0u64;
    let mut peak = (0u64, 0usize);
    let mut left: Vec<usize> = dag.parents.iter().map(Vec::len).collect();
    for &k in &dag.order {
        let now = held.saturating_add(work(k));
        if now > peak.0 {
            peak = (now, k);
        }
        held = held.saturating_add(sizes[k].saturating_mul(cell));
        if stored {
            for &c in &dag.children[k] {
                left[c] -= 1;
                if left[c] == 0 {
                    held -= sizes[c] * cell;
                }
            }
        }
    }
    if peak.0 > limit {
        return Err(Error::Memory {
            what: format!(
                "the solve (at its peak, tier {}; {} of values in all)",
                dag.names[peak.1],
                human_bytes(sizes.iter().sum::<u64>() * cell)
            ),
            needed: peak.0,
            limit,
        });
    }
    Ok(())
}

/// Totals over every position solved in a tier (weighted by class size).
pub(crate) fn tally<G: TierGame, C: Cell>(game: &G, t: G::Tier, cells: &[C]) -> Stats {
    const PART: usize = 1 << 14;
    cells
        .par_chunks(PART)
        .enumerate()
        .map(|(c, part)| {
            let mut s = Stats::default();
            let mut moves = Vec::new();
            for (j, cell) in part.iter().enumerate() {
                let Some(v) = cell.decode() else { continue };
                let i = (c * PART + j) as u64;
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

impl<G: TierGame> TierSolution<'_, G> {
    pub(crate) fn value_of_start(&self) -> Result<Option<Value>, Error> {
        match self.game.start() {
            Some(p) => self.value(&p),
            None => Ok(None),
        }
    }
}

/// The bytes of memory cells of every tier would take (to compare with a limit).
pub fn values_bytes<G: TierGame>(game: &G) -> Result<u64, Error> {
    let dag = Dag::build(game)?;
    if <G::Layout as Layout<G>>::KIND != LayoutKind::Dense {
        return Ok(0);
    }
    let small = game
        .remoteness_bound()
        .is_some_and(|b| b <= u8::MAX_REMOTENESS);
    let cell = if small { 1 } else { 2 };
    Ok(dag
        .tiers
        .iter()
        .map(|&t| <G::Layout as Layout<G>>::tier_size(game, t).saturating_mul(cell))
        .sum())
}

#[allow(dead_code)]
fn _unused(_: AnyCells) {}

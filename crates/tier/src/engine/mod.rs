//! The driver: which tier to solve when, what to keep in memory, what to write, what to
//! reuse, and the totals.

pub(crate) use crate::api::dag::Dag;

pub(crate) mod classes;
pub(crate) mod count;
pub(crate) mod dense;
pub(crate) mod distinct;
pub(crate) mod driver;
pub(crate) mod log;
pub(crate) mod scored;
pub(crate) mod seq;
pub(crate) mod solution;
pub(crate) mod sorted;

use crate::api::game::{
    score_range_fits, visit, DenseIndex, Layout, LayoutVisitor, OrderedMoves, Parents, Scoring,
    TierGame,
};
pub use crate::engine::driver::share_file;
use crate::engine::driver::solve_dense;
use crate::engine::solution::{LazyTier, Listed, TierData, TierSolution, TierTotals};
use crate::engine::sorted::{solve_sorted, KeyRanges, WholeRange};
use crate::error::{human_bytes, Error};
use crate::store::cell::{Cell, ScoreCell};
use crate::store::identity::{for_solve, Facts, Identified, Identity};
use crate::store::meta::{
    header, keys_file, read_meta, values_file, write_meta, write_tier_totals, Meta, FORMAT, META,
    META_VERSION,
};
use crate::store::storage::Storage;
use crate::store::tierfile::{Codec, Kind, Reader};
use rayon::prelude::*;
use retrograde_solve::exchange::{Exchange, Solo};
use retrograde_solve::place::{Blocks, Whole};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;

static SMALL_ROUNDS: AtomicBool = AtomicBool::new(false);

/// Makes the rounds tiny (a few dozen keys of the sorted layout, three places of a dense
/// init), so that tests on small games run many of them.
#[doc(hidden)]
pub fn small_rounds_for_tests(on: bool) {
    SMALL_ROUNDS.store(on, Relaxed);
}

/// Whether [`small_rounds_for_tests`] is on.
pub(crate) fn small_rounds() -> bool {
    SMALL_ROUNDS.load(Relaxed)
}

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

/// How the positions of a dense tier are held while the tier is solved. The values are the
/// same, bit for bit, and so are the files.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Working {
    /// The engine chooses: value cells (class cells lower the peak only with a storage, at
    /// some 5% more time, as measured in `engine/classes.rs`).
    #[default]
    Auto,
    /// A value cell a slot (1, 2 or 4 bytes): the value once decided, the counter while
    /// open.
    Values,
    /// A byte a slot: the class once decided (won, lost, tied), the counter while open;
    /// each level's positions are logged, packed, and the values made from the log when the
    /// tier is finished (written to its file a batch at a time when there is a storage).
    Classes,
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
    /// A tier is solved (dense layout), after its [`Event::Tier`]: small tiers are solved
    /// several at a time, so another tier may start before this one ends.
    Solved {
        /// The tier's name.
        tier: &'a str,
        /// Its slots.
        size: u64,
        /// Its own time, in seconds (tiers solved together overlap).
        seconds: f64,
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
    /// Making a finished database compact ([`SolveOptions::compact`]): a table's values
    /// file rewritten with one side to move.
    Compact {
        /// Bytes of the values files read so far.
        done: u64,
        /// Bytes of the values files in all.
        total: u64,
    },
    /// A damaged file met while resuming: it is solved again.
    Damaged {
        /// The error.
        error: &'a Error,
    },
    /// Finished tiers taken up from the storage instead of being solved again (with
    /// [`SolveOptions::resume`]): every tier when the database was finished (and nothing
    /// is solved), else those of an interrupted solve (dense layout: before the first
    /// [`Event::Tier`]).
    Reused {
        /// How many tiers.
        tiers: usize,
        /// Their slots (or keys) in all.
        slots: u64,
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
    /// How a dense tier's positions are held while it is solved (the parallel solver's).
    pub working: Working,
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
    /// Make the database compact once it is finished: of every dense tier that the game
    /// splits into two sides ([`DenseIndex::sides`](crate::DenseIndex::sides)), the values
    /// file keeps the side whose blocks take fewer bytes, and a lookup of the other side
    /// answers from its moves (one ply). A compact database answers every lookup, and a
    /// damaged table of it is solved again as in any database (resume): the values its
    /// children leave out are derived from their moves as they are loaded.
    pub compact: bool,
    /// Called before each batch of tiers when there are a storage and a `memory_limit`,
    /// after the driver has dropped from memory what the batch does not need to stay within
    /// the limit, and before it reads the batch's children and allocates its work: where the
    /// allocator keeps freed memory (glibc's heap), the caller can give its pages back to
    /// the system here, so that the resident set follows the memory in use (the binary
    /// and the Python extension pass `retrograde_mem::give_back`).
    pub give_back: Option<fn()>,
}

impl Default for SolveOptions {
    fn default() -> Self {
        SolveOptions {
            memory_limit: None,
            storage: None,
            resume: false,
            progress: None,
            engine: Engine::Auto,
            working: Working::Auto,
            count: true,
            cancel: None,
            codec: Codec::Cells,
            params: serde_json::Value::Null,
            keep_values: true,
            compact: false,
            give_back: None,
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
            .field("working", &self.working)
            .field("count", &self.count)
            .field("keep_values", &self.keep_values)
            .field("compact", &self.compact)
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

/// Solves every tier of `game` below its root tiers: [`solve_distributed`] on one rank
/// ([`Solo`]), keeping every tier when [`SolveOptions::keep_values`] is on (in memory, or in
/// the database's files), and with sorted keys only the start's tier (for its value) when
/// it is off.
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
    // Every tier is kept (in memory, or in the database's files) when values are.
    solve_distributed(game, opts, &Solo, opts.keep_values).map(|(s, _)| s)
}

/// The solve, by layout and cell width, over the placement the number of ranks calls for.
struct Solve<'g, 'a, G> {
    game: &'g G,
    opts: &'a SolveOptions,
    ex: &'a dyn Exchange,
    whole: bool,
}

type Solved<'g, G> = Result<(TierSolution<'g, G>, Traffic), Error>;

impl<'g, G: TierGame> LayoutVisitor<G> for Solve<'g, '_, G> {
    type Out = Solved<'g, G>;
    fn dense(self) -> Self::Out
    where
        G: DenseIndex,
    {
        let Solve {
            game,
            opts,
            ex,
            whole,
            ..
        } = self;
        if <G::Score as Scoring<G>>::SCORED {
            score_range_fits(<G::Score as Scoring<G>>::score_range(game))?;
            return match ex.size() == 1 {
                true => solve_dense::<G, ScoreCell, Whole>(game, opts, ex, whole),
                false => solve_dense::<G, ScoreCell, Blocks>(game, opts, ex, whole),
            };
        }
        match (small(game), ex.size() == 1) {
            (true, true) => solve_dense::<G, u8, Whole>(game, opts, ex, whole),
            (false, true) => solve_dense::<G, u16, Whole>(game, opts, ex, whole),
            (true, false) => solve_dense::<G, u8, Blocks>(game, opts, ex, whole),
            (false, false) => solve_dense::<G, u16, Blocks>(game, opts, ex, whole),
        }
    }
    fn sorted(self) -> Self::Out
    where
        G: OrderedMoves,
    {
        let s = self;
        match s.ex.size() == 1 {
            true => solve_sorted::<G, WholeRange>(s.game, s.opts, s.ex, s.whole),
            false => solve_sorted::<G, KeyRanges>(s.game, s.opts, s.ex, s.whole),
        }
    }
}

/// `opts` with its storage, if any, [`Identified`] as the database this solve of `game`
/// writes (see [`for_solve`]): rank 0 finds the identity in its storage (a new one, or with
/// resume the interrupted solve's) and every rank takes it. A collective (one process:
/// `Solo`).
fn identify<G: TierGame>(
    game: &G,
    opts: &SolveOptions,
    ex: &dyn Exchange,
) -> Result<SolveOptions, Error> {
    let mut opts = opts.clone();
    let Some(st) = opts.storage.clone() else {
        return Ok(opts);
    };
    let mut mine = Err(Error::Unsupported(
        "rank 0 could not start the database (see its message)".into(),
    ));
    // Rank 0's verdict: a byte (1: an identity follows), then the identity.
    let mut bytes = vec![0u8; 17];
    if ex.rank() == 0 {
        mine = for_solve(&*st, &game.name(), opts.resume, opts.keep_values);
        if let Ok(id) = &mine {
            bytes[0] = 1;
            bytes[1..].copy_from_slice(&id.0);
        }
    }
    ex.broadcast(&mut bytes);
    if bytes.len() != 17 || bytes[0] != 1 {
        return Err(match mine {
            Err(e) => e,
            Ok(_) => Error::Unsupported("the ranks do not agree on the database".into()),
        });
    }
    let id = Identity(bytes[1..].try_into().expect("16 bytes"));
    opts.storage = Some(Identified::wrap(st, id, facts(game, &opts)));
    Ok(opts)
}

/// What a solve of `game` with `opts` writes into its files' headers, as `database.json`
/// will record it ([`write_finished`]): the layout, the bytes of a value cell, the
/// parameters.
fn facts<G: TierGame>(game: &G, opts: &SolveOptions) -> Facts {
    let layout = <G::Layout as Layout<G>>::NAME;
    Facts::new(layout, cell_bytes(game), &opts.params)
}

/// The bytes of a value cell of a solve of `game`: 4 with scores, else 1 when its values
/// fit one byte, else 2.
fn cell_bytes<G: TierGame>(game: &G) -> u32 {
    match (<G::Score as Scoring<G>>::SCORED, small(game)) {
        (true, _) => 4,
        (false, true) => 1,
        (false, false) => 2,
    }
}

/// Refuses a game whose name does not fit a file's header.
fn check_name<G: TierGame>(game: &G) -> Result<(), Error> {
    if game.name().len() > 40 {
        return Err(Error::Game(format!(
            "the game's name {:?} is longer than 40 bytes",
            game.name()
        )));
    }
    Ok(())
}

/// Whether the game's values fit one-byte cells.
fn small<G: TierGame>(game: &G) -> bool {
    game.remoteness_bound()
        .is_some_and(|b| b <= u8::MAX_REMOTENESS)
}

/// What a distributed solve measured, summed over the ranks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Bytes sent between ranks.
    pub bytes: u64,
    /// Positions solved, not reused from files (canonical positions of every tier, each
    /// once; with sorted keys, every key of every tier).
    pub positions: u64,
}

/// Solves every tier of `game` below its root tiers across the ranks of `ex`, each owning a
/// share of every tier (a dealing of the dense index's slots; a key range of the sorted
/// keys), exchanging what crosses ranks: the very code [`solve`] runs, which is this with
/// one rank ([`Solo`]). Every rank must call it with the same game and options (its own
/// storage, if any: shares are files named by [`share_file`], and
/// [`keys_share_file`](crate::keys_share_file) for sorted keys). Rank 0's answer holds the
/// totals and, for the dense layout with a storage, every tier, read from the files it puts
/// together as one process reads its own; otherwise the start tier (enough for the start's
/// value and the report; a game without a start: its root tiers, when values are kept), or
/// with `whole` every tier (memory of one process: for tests and small games). The other
/// ranks' answers hold the totals only. One process (one rank) with a database answers
/// from its files. Resuming reuses a tier when every rank's share of it checks out (with the same
/// number of ranks).
///
/// # Errors
/// As [`solve`], and [`Error::Exchange`] for a malformed message from another rank. An error
/// on one rank alone leaves the others waiting: the caller ends the job (MPI's abort).
pub fn solve_distributed<'g, G: TierGame>(
    game: &'g G,
    opts: &SolveOptions,
    ex: &dyn Exchange,
    whole: bool,
) -> Result<(TierSolution<'g, G>, Traffic), Error> {
    check_name(game)?;
    let opts = &identify(game, opts, ex)?;
    visit::<G, _>(Solve {
        game,
        opts,
        ex,
        whole,
    })
}

/// Opens the finished database in `storage` without solving, every tier file's header and
/// index read and checked here, and its totals by tier ([`TOTALS`](crate::TOTALS));
/// `Ok(None)` when the storage holds no finished database.
///
/// # Errors
/// A database of another game, a damaged description, or missing or damaged tier files or
/// totals.
pub fn open<'g, G: TierGame>(
    game: &'g G,
    storage: Arc<dyn Storage>,
) -> Result<Option<TierSolution<'g, G>>, Error> {
    open_with(game, storage, false)
}

/// As [`open`], but a tier's files are opened when a position of the tier is first looked
/// up, and a values file's index is read an entry at a time, with the blocks read
/// ([`Reader::open_lazy`]): for a database of many tiers probed at a few positions (a chess
/// tablebase of 912 tables, whose indexes take 90 MB, and a probe reads a few blocks of a
/// few). A missing or damaged file is then an error of that lookup, and its totals by
/// tier are read when first asked for ([`TierSolution::tier_stats`]).
///
/// # Errors
/// A database of another game, or a damaged description.
pub fn open_lazy<'g, G: TierGame>(
    game: &'g G,
    storage: Arc<dyn Storage>,
) -> Result<Option<TierSolution<'g, G>>, Error> {
    open_with(game, storage, true)
}

/// Every tier `meta` lists, as the game names it back ([`TierGame::tier_named`]), with its
/// place in the list; `None` when the game cannot, or names a tier otherwise or twice (then
/// the game's DAG says which tier is missing).
fn described_tiers<G: TierGame>(game: &G, meta: &Meta) -> Option<Vec<(G::Tier, usize)>> {
    let mut seen = rustc_hash::FxHashSet::default();
    (meta.tiers.iter().enumerate())
        .map(|(pos, (tname, _))| {
            let t = game.tier_named(tname)?;
            (seen.insert(t) && game.tier_name(t) == *tname).then_some((t, pos))
        })
        .collect()
}

fn open_with<'g, G: TierGame>(
    game: &'g G,
    storage: Arc<dyn Storage>,
    lazy: bool,
) -> Result<Option<TierSolution<'g, G>>, Error> {
    let Some(meta) = read_meta(&*storage)? else {
        return Ok(None);
    };
    let name = storage.describe(META);
    if meta.game != game.name() {
        // Not damage (solving again would not repair it): another game's database.
        return Err(Error::Foreign {
            file: name,
            holds: meta.game,
            wanted: game.name(),
        });
    }
    // Every file must be of this database.
    let id = meta
        .identity()
        .ok_or_else(|| Error::damaged(name.clone(), "no valid database identity"))?;
    let storage = Identified::wrap(storage, id, Facts::of(&meta));
    let cell_bytes = meta.cell_bytes;
    let scored = <G::Score as Scoring<G>>::SCORED;
    if !matches!((cell_bytes, scored), (1 | 2, false) | (4, true)) {
        let of = if scored { "with" } else { "without" };
        return Err(Error::damaged(
            name,
            format!("{cell_bytes}-byte cells, for a game {of} scores"),
        ));
    }
    // Each tier of the game and its place in the description. A lazy open takes them from
    // the description when the game names its tiers back: walking the game's tiers costs
    // more than the query (a chess tablebase's 912 tiers).
    let described = lazy.then(|| described_tiers(game, &meta)).flatten();
    let listed = described.is_some().then(|| Listed {
        file: name.clone(),
        walked: std::sync::OnceLock::new(),
    });
    let placed = match described {
        Some(placed) => placed,
        None => {
            let dag = Dag::build(game)?;
            let listed: std::collections::HashMap<&str, usize> = (meta.tiers.iter().enumerate())
                .map(|(p, (n, _))| (n.as_str(), p))
                .collect();
            let mut placed = Vec::with_capacity(dag.tiers.len());
            for (&t, tname) in dag.tiers.iter().zip(&dag.names) {
                let Some(&pos) = listed.get(tname.as_str()) else {
                    return Err(Error::damaged(
                        name,
                        format!("tier {tname} of the game is not in the database"),
                    ));
                };
                placed.push((t, pos));
            }
            placed
        }
    };
    let mut tiers = Vec::with_capacity(placed.len());
    let mut data = Vec::with_capacity(placed.len());
    let mut sizes = Vec::with_capacity(placed.len());
    let mut at = Vec::with_capacity(placed.len());
    for (t, pos) in placed {
        let (tname, size) = &meta.tiers[pos];
        let size = *size;
        tiers.push(t);
        sizes.push(size);
        at.push(pos);
        data.push(match lazy {
            false => open_tier(game, t, &*storage, &meta.game, size, false)?,
            true => TierData::Lazy(Box::new(LazyTier {
                game_name: meta.game.clone(),
                size,
                files: std::iter::once(values_file(tname))
                    .chain((meta.layout == "sorted").then(|| keys_file(tname)))
                    .collect(),
                opened: std::sync::OnceLock::new(),
            })),
        });
    }
    let stats = meta.stats.clone();
    // Read by `read_tier_totals`, which knows where each version keeps them.
    let tier_stats = TierTotals::Stored {
        meta: Box::new(meta),
        at,
        read: std::sync::OnceLock::new(),
    };
    let mut solution = TierSolution::new(
        game,
        tiers,
        data,
        Some(storage),
        stats,
        tier_stats,
        sizes,
        cell_bytes,
    );
    solution.listed = listed;
    if !lazy {
        // Checked with the tier files (a lazy open reads them when first asked).
        solution.all_tier_stats()?;
    }
    Ok(Some(solution))
}

/// Opens tier `t`'s files in a finished database of game `game_name` that says the tier has
/// `size` numbers, checking their headers and indexes; `lazy`, a values file's index is
/// read an entry at a time with the blocks a probe asks for ([`Reader::open_lazy`]).
pub(crate) fn open_tier<G: TierGame>(
    game: &G,
    t: G::Tier,
    storage: &dyn Storage,
    game_name: &str,
    size: u64,
    lazy: bool,
) -> Result<TierData, Error> {
    let tname = game.tier_name(t);
    let open = match lazy {
        true => Reader::open_lazy,
        false => Reader::open,
    };
    let vals = open(
        storage,
        &values_file(&tname),
        &header(game_name, &tname, Kind::Values, 0),
    )?;
    if vals.count() != size {
        return Err(Error::damaged(
            vals.name().to_string(),
            format!("holds {} values, the database says {size}", vals.count()),
        ));
    }
    // Four-byte cells are values with scores (files before version 6 do not say the
    // database's cell width: this much is checked for them too).
    let scored = <G::Score as Scoring<G>>::SCORED;
    if (vals.elem() == 4) != scored {
        let of = if scored { "with" } else { "without" };
        return Err(Error::damaged(
            vals.name().to_string(),
            format!("{}-byte cells, for a game {of} scores", vals.elem()),
        ));
    }
    visit::<G, _>(OpenTier {
        game,
        t,
        storage,
        game_name,
        size,
        vals,
    })
}

/// Where a finished tier's values are found: its values file, and with sorted keys its keys
/// file.
struct OpenTier<'a, G: TierGame> {
    game: &'a G,
    t: G::Tier,
    storage: &'a dyn Storage,
    game_name: &'a str,
    /// Numbers in the tier, as the database says.
    size: u64,
    vals: Reader,
}

impl<G: TierGame> LayoutVisitor<G> for OpenTier<'_, G> {
    type Out = Result<TierData, Error>;
    fn dense(self) -> Self::Out
    where
        G: DenseIndex,
    {
        if self.size != self.game.tier_size(self.t) {
            return Err(Error::damaged(
                self.vals.name().to_string(),
                format!(
                    "tier {:?} has {} slots in the database, the game has another number",
                    self.t, self.size
                ),
            ));
        }
        Ok(TierData::File(self.vals))
    }
    fn sorted(self) -> Self::Out
    where
        G: OrderedMoves,
    {
        let tname = self.game.tier_name(self.t);
        let bits = self.game.key_bits(self.t);
        let keys = Reader::open(
            self.storage,
            &keys_file(&tname),
            &header(
                self.game_name,
                &tname,
                Kind::Keys,
                if bits <= 32 { 4 } else { 8 },
            ),
        )?;
        if keys.count() != self.size {
            return Err(Error::damaged(
                keys.name().to_string(),
                format!(
                    "holds {} keys, the database says {}",
                    keys.count(),
                    self.size
                ),
            ));
        }
        Ok(TierData::SortedFiles {
            keys,
            vals: self.vals,
        })
    }
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
    let start = solution.start_text()?;
    write_tier_totals(st, names, solution.all_tier_stats()?)?;
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
            start,
            stats: solution.stats.clone(),
            tier_stats: vec![],
            checksum: String::new(),
        },
    )
}

/// Before a solve with a storage: refuses a database of another game; with `reuse`, returns
/// the finished database if there is one; without `resume`, forgets the old description
/// (the solve starts over).
pub(crate) fn prepare_storage<'g, G: TierGame>(
    game: &'g G,
    st: &Arc<dyn Storage>,
    opts: &SolveOptions,
    reuse: bool,
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
    if reuse {
        let finished = open_if_finished(game, st)?;
        if let Some(sol) = &finished {
            opts.emit(&Event::Reused {
                tiers: sol.tiers().len(),
                slots: sol.tier_sizes().iter().sum(),
            });
        }
        return Ok(finished);
    }
    if opts.resume {
        return Ok(None);
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
    // A description of an older version is written again by the solve that takes its
    // tiers up.
    match read_meta(&**st) {
        Ok(Some(m)) if m.game == game.name() && m.version == META_VERSION => {}
        _ => return Ok(None),
    };
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
                .all(|b| r.derived().contains(&b) || r.block(&**st, b).is_ok());
            if !ok {
                let _ = k;
                return Ok(None);
            }
        }
    }
    Ok(Some(sol))
}

/// Checks the whole plan against the memory limit before anything runs.
pub(crate) fn plan_memory(
    dag: &Dag<impl Copy>,
    sizes: &[u64],
    work: Work,
    stored: bool,
    opts: &SolveOptions,
) -> Result<(), Error> {
    let Some(limit) = opts.memory_limit else {
        return Ok(());
    };
    let (needed, k) = peak(dag, sizes, work, stored);
    if needed > limit {
        return Err(Error::Memory {
            what: format!(
                "the solve (at its peak, tier {}; {} of values in all)",
                dag.names[k],
                human_bytes(sizes.iter().sum::<u64>() * work.cell)
            ),
            needed,
            limit,
        });
    }
    Ok(())
}

/// What a dense tier holds while it is solved, the one model of the memory plan ([`peak`])
/// and of the driver's batches and evictions. Each part is an upper bound, checked by
/// running every game at its plan (`crates/cli/tests/memory.rs`):
/// - its cells (`cell` bytes a slot);
/// - the level lists (4 bytes an entry: at most one event of the init and one decision a
///   slot);
/// - an init round's events in its tasks' vectors before they are filed by level (`event`
///   bytes each, at most one a place of the round, [`dense::ALONE_ROUND`] places);
/// - without un-moves, the tier's reverse edges: 16 bytes a move inside the tier while they
///   are collected and laid out (a pair of places, and the vectors' growth) and 8 bytes a
///   slot of offsets, for at most `inside` moves inside a position.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Work {
    /// Bytes of a cell.
    pub(crate) cell: u64,
    /// Bytes of an init event (a place and a remoteness; with scores also the stage).
    pub(crate) event: u64,
    /// Moves inside its tier a position makes at most, for a game without un-moves
    /// (`None`: with un-moves, no reverse edges).
    pub(crate) inside: Option<u64>,
    /// Bytes a slot of the cells and level lists while a tier is solved: `cell + 8` for
    /// value cells, at least [`CLASS_SLOT`] for class cells ([`Work::classes`]).
    pub(crate) slot: u64,
}

/// Bytes a slot of a tier solved in class cells ([`Working::Classes`]), at most: its byte,
/// two entries of the packed level lists and one of the level log, each at most 3 bytes (a
/// gap within a piece of 2^18 places). The value cells it makes when the tier is finished
/// (its byte cells and log still held) take fewer.
pub(crate) const CLASS_SLOT: u64 = 10;

impl Work {
    /// The model of `game`'s tiers with `cell`-byte cells.
    pub(crate) fn of<G: TierGame>(game: &G, cell: u64) -> Work {
        let unmoves = <G::Parents as Parents<G>>::UNMOVES;
        Work {
            cell,
            event: if <G::Score as Scoring<G>>::SCORED {
                16
            } else {
                8
            },
            inside: (!unmoves).then(|| {
                game.moves_inside_bound()
                    .unwrap_or(crate::api::game::ASSUMED_MOVES_INSIDE)
            }),
            slot: cell + 8,
        }
    }

    /// The model with class cells while a tier is solved (the tiers kept are value cells
    /// still): the same as value cells' for 2- and 4-byte cells, a byte a slot more for
    /// 1-byte cells.
    pub(crate) fn classes(self) -> Work {
        Work {
            slot: self.slot.max(CLASS_SLOT),
            ..self
        }
    }

    /// The bytes of the work of a tier of `slots` slots (of this rank's share).
    pub(crate) fn bytes(self, slots: u64) -> u64 {
        let round = slots.min(dense::ALONE_ROUND).saturating_mul(self.event);
        let edges = self.inside.map_or(0, |m| {
            slots.saturating_mul(m.saturating_mul(16).saturating_add(8))
        });
        slots
            .saturating_mul(self.slot)
            .saturating_add(round)
            .saturating_add(edges)
    }
}

/// The bytes a dense solve holds at its peak, and the tier it is solving then: the cells of
/// the tiers kept and the tier's working memory ([`Work`]). Without a storage every solved
/// tier is kept. With one, the least the solve can run in: a tier's children (the driver
/// keeps more while the limit allows, and drops what the tier does not read when it does
/// not). `sizes`: the slots of each tier this process holds.
pub(crate) fn peak(dag: &Dag<impl Copy>, sizes: &[u64], work: Work, stored: bool) -> (u64, usize) {
    let cell = work.cell;
    if stored {
        return dag
            .order
            .iter()
            .map(|&k| {
                let kids: u64 = dag.children[k].iter().map(|&c| sizes[c]).sum();
                let need = kids
                    .saturating_mul(cell)
                    .saturating_add(work.bytes(sizes[k]));
                (need, k)
            })
            .max_by_key(|&(need, _)| need)
            .unwrap_or((0, 0));
    }
    let mut held = 0u64;
    let mut peak = (0u64, 0usize);
    for &k in &dag.order {
        let now = held.saturating_add(work.bytes(sizes[k]));
        if now > peak.0 {
            peak = (now, k);
        }
        held = held.saturating_add(sizes[k].saturating_mul(cell));
    }
    peak
}

impl<G: TierGame> TierSolution<'_, G> {
    /// The start's value as `database.json` records it (with its score for a game with
    /// scores).
    pub(crate) fn start_text(&self) -> Result<Option<String>, Error> {
        let Some(p) = self.game.start() else {
            return Ok(None);
        };
        Ok(match <G::Score as Scoring<G>>::SCORED {
            true => self.scored(&p)?.map(|v| v.to_string()),
            false => self.value(&p)?.map(|v| v.to_string()),
        })
    }
}

/// The memory a one-process solve of `game` needs at its peak (the plan the engine checks
/// against [`SolveOptions::memory_limit`] before it allocates), known before solving for a
/// dense index; `None` for sorted keys (their tiers are found as they are solved). `stored`:
/// whether finished tiers go to a storage (then only the tiers still needed stay in memory).
///
/// # Errors
/// A game whose tiers do not form a DAG.
pub fn memory_plan<G: TierGame>(game: &G, stored: bool) -> Result<Option<u64>, Error> {
    struct Plan<'a, G>(&'a G, bool);
    impl<G: TierGame> LayoutVisitor<G> for Plan<'_, G> {
        type Out = Result<Option<u64>, Error>;
        fn dense(self) -> Self::Out
        where
            G: DenseIndex,
        {
            let Plan(game, stored) = self;
            let cell = u64::from(cell_bytes(game));
            let dag = Dag::build(game)?;
            let sizes: Vec<u64> = dag.tiers.iter().map(|&t| game.tier_size(t)).collect();
            Ok(Some(peak(&dag, &sizes, Work::of(game, cell), stored).0))
        }
        fn sorted(self) -> Self::Out
        where
            G: OrderedMoves,
        {
            Ok(None)
        }
    }
    visit::<G, _>(Plan(game, stored))
}

//! One road from a built game to its answer, for every caller: `retrograde game` and
//! `play`, the Python package, the benches.
//!
//! A [`Run`] says where the tiers go (a database directory, a temporary directory for a
//! game that needs files, or memory), whether a finished database there answers without a
//! solve, what a solve takes up, the memory limit, progress and cancellation. [`Run::start`]
//! then does the rest in one order, on one process or across the ranks of an
//! [`Exchange`]: open a finished database (when asked), check the memory plan, lock the
//! database (rank 0, for the job), solve. The [`Ran`] it gives owns what its answer needs
//! (the built game, the temporary directory): nothing borrowed, nothing leaked.
//!
//! This module is the one place above the engines that chooses files: a database directory
//! given by the caller, or a temporary directory removed with the answer.
//!
//! ```
//! use retrograde_registry::{entry, Answer, ArgValue, Args, Query, Run};
//! use retrograde_solve::exchange::Solo;
//! let e = entry("connect4").unwrap();
//! let mut args = Args::with_defaults(e.params).unwrap();
//! args.set("height", ArgValue::Number(3));
//! let game = e.build(&args).unwrap();
//! // Connect-4 keeps its tiers in files: a temporary directory, removed with the answer.
//! let ran = Run::new(game).start(&Solo).unwrap();
//! let q = ran.query(&Query::Moves(vec!["3".into()])).unwrap();
//! assert_eq!((q.side.as_str(), q.moves.len()), ("O", 5));
//! ```

use crate::{
    plan, Answer, Built, Held, Protocol, Query, QueryAnswer, QueryError, Refused, Report, Taken,
};
use retrograde_games::play::DynSession;
use retrograde_solve::exchange::Exchange;
use retrograde_tier::{DirStorage, Error, Event, ProgressFn, SolveOptions, Storage, Traffic};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// Whether a finished database in the run's directory answers without a solve.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reuse {
    /// Always solve (taking up finished tiers when resuming): `game` without `--query`.
    Never,
    /// A finished database answers; one that cannot be opened is an error (`game --query`,
    /// `play --db`).
    Finished,
    /// A finished database answers; a damaged one is solved again, resuming (Python's
    /// `db=`).
    OrRepair,
}

/// A run of a built game: where its tiers go and how it is solved. See the module's docs.
pub struct Run {
    built: Arc<dyn Built>,
    db: Option<PathBuf>,
    resume: bool,
    compact: bool,
    working: retrograde_tier::Working,
    reuse: Reuse,
    keep_values: bool,
    limit: Option<retrograde_mem::Limit>,
    give_back: Option<fn()>,
    progress: Option<ProgressFn>,
    cancel: Option<Arc<AtomicBool>>,
}

/// Why a run gave no answer. Each keeps the engine's error, so that a caller can say how
/// to repair a damaged database its own way.
#[derive(Debug)]
#[non_exhaustive]
pub enum RunError {
    /// The temporary directory for the tiers could not be made.
    Temporary(std::io::Error),
    /// The game was refused before anything big was allocated ([`plan`]).
    Refused(Refused),
    /// The finished database could not be opened (damaged, foreign, of another game).
    Open(Error),
    /// The database could not be locked for writing: another process writes it (every
    /// rank has this error alike).
    Lock(Error),
    /// The solve failed.
    Solve(Error),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Temporary(e) => {
                write!(f, "cannot create a temporary directory for the tiers: {e}")
            }
            RunError::Refused(r) => r.fmt(f),
            RunError::Open(e) | RunError::Lock(e) | RunError::Solve(e) => e.fmt(f),
        }
    }
}

// The message holds its cause's: no `source`, so that a chain of errors says it once.
impl std::error::Error for RunError {}

impl Run {
    /// A run of `built` with the tiers in memory (or in a temporary directory, for a game
    /// that needs files: [`Built::needs_storage`]), solved from scratch, every value kept,
    /// no memory limit.
    pub fn new(built: impl Into<Arc<dyn Built>>) -> Run {
        Run {
            built: built.into(),
            db: None,
            resume: false,
            compact: false,
            working: retrograde_tier::Working::Auto,
            reuse: Reuse::Never,
            keep_values: true,
            limit: None,
            give_back: None,
            progress: None,
            cancel: None,
        }
    }

    /// Keeps the tiers in the database directory `db` (`--db`), when given.
    pub fn db(mut self, db: Option<PathBuf>) -> Run {
        self.db = db;
        self
    }

    /// Takes up the finished tiers in the database instead of solving them again
    /// (`--resume`; a game that always resumes into a database, [`Built::resumes`], does
    /// without it).
    pub fn resume(mut self, resume: bool) -> Run {
        self.resume = resume;
        self
    }

    /// Makes the database compact once solved (`--compact`).
    pub fn compact(mut self, compact: bool) -> Run {
        self.compact = compact;
        self
    }

    /// How a dense tier's positions are held while it is solved (`--cells`).
    pub fn working(mut self, working: retrograde_tier::Working) -> Run {
        self.working = working;
        self
    }

    /// Whether a finished database answers without a solve.
    pub fn reuse(mut self, reuse: Reuse) -> Run {
        self.reuse = reuse;
        self
    }

    /// Whether the solve keeps every value (a report needs the totals and the start's value
    /// only: without a database, nothing else is kept then).
    pub fn keep_values(mut self, keep: bool) -> Run {
        self.keep_values = keep;
        self
    }

    /// The memory limit the plan is checked against, and the engine's (`--memory`).
    pub fn memory(mut self, limit: Option<retrograde_mem::Limit>) -> Run {
        self.limit = limit;
        self
    }

    /// How to give the allocator's free pages back to the system after an eviction
    /// ([`SolveOptions::give_back`]).
    pub fn give_back(mut self, give_back: fn()) -> Run {
        self.give_back = Some(give_back);
        self
    }

    /// Called with the engine's progress events.
    pub fn progress(mut self, progress: ProgressFn) -> Run {
        self.progress = Some(progress);
        self
    }

    /// Set to stop the solve ([`Error::Interrupted`]).
    pub fn cancel(mut self, cancel: Arc<AtomicBool>) -> Run {
        self.cancel = Some(cancel);
        self
    }

    /// The game.
    pub fn built(&self) -> &dyn Built {
        &*self.built
    }

    /// The answer: from a finished database when the run reuses one, else solved over
    /// `ex` (every rank calls this alike; [`Solo`](retrograde_solve::exchange::Solo) for
    /// one process), after the memory plan is checked (each of K ranks holds about 1/K)
    /// and the database locked (by rank 0, for the job: a second writer stops here).
    ///
    /// # Errors
    /// See [`RunError`].
    pub fn start(self, ex: &dyn Exchange) -> Result<Ran, RunError> {
        let built = self.built.clone();
        let mut tmp = None;
        let dir = self
            .db
            .as_ref()
            .map(|d| Arc::new(DirStorage::new(d.clone())));
        let storage: Option<Arc<dyn Storage>> = match &dir {
            Some(d) => Some(d.clone()),
            None if built.needs_storage() => {
                let t = tempfile::Builder::new()
                    .prefix("retrograde-tiers-")
                    .tempdir()
                    .map_err(RunError::Temporary)?;
                let s: Arc<dyn Storage> = Arc::new(DirStorage::new(t.path().to_path_buf()));
                tmp = Some(t);
                Some(s)
            }
            None => None,
        };
        let done = |answer, traffic, seen| Ran {
            answer,
            traffic,
            seen,
            db: self.db.clone(),
            _tmp: tmp,
        };
        if let (Some(st), Some(_), true) = (&storage, &dir, self.reuse != Reuse::Never) {
            match Held::open(built.clone(), st.clone()) {
                Ok(Some(answer)) => return Ok(done(answer, Traffic::default(), None)),
                Ok(None) => {}
                // Solved again below, resuming.
                Err(e) if e.is_damage() && self.reuse == Reuse::OrRepair => {}
                Err(e) => return Err(RunError::Open(e)),
            }
        }
        let ranks = ex.size() as u64;
        plan(&*built, storage.is_some(), self.limit, ranks).map_err(RunError::Refused)?;
        if let Some(d) = &dir {
            lock(d, ex).map_err(RunError::Lock)?;
        }
        let seen = Arc::new(Seen::default());
        let mut opts = SolveOptions::default();
        opts.memory_limit = self.limit.map(retrograde_mem::Limit::room);
        opts.give_back = self.give_back;
        opts.keep_values = self.keep_values;
        opts.storage = storage;
        opts.resume = self.resume || (built.resumes() && dir.is_some());
        opts.compact = self.compact;
        opts.working = self.working;
        opts.cancel = self.cancel.clone();
        opts.progress = Some(progress(self.progress.clone(), seen.clone()));
        let (answer, traffic) = Held::solve(built, &opts, ex).map_err(RunError::Solve)?;
        Ok(done(answer, traffic, Some(seen)))
    }
}

/// Locks `dir` for writing: rank 0 for the job, whose other ranks write their shares under
/// its lock; every rank learns rank 0's error. A collective.
fn lock(dir: &DirStorage, ex: &dyn Exchange) -> Result<(), Error> {
    let mine = match ex.rank() {
        0 => dir.lock(),
        _ => Ok(()),
    };
    if ex.size() == 1 {
        return mine;
    }
    let mut said = match &mine {
        Err(e) => e.to_string().into_bytes(),
        Ok(()) => Vec::new(),
    };
    ex.broadcast(&mut said);
    match (mine, said.is_empty()) {
        (Err(e), _) => Err(e),
        (Ok(()), true) => Ok(()),
        (Ok(()), false) => Err(Error::Unsupported(
            String::from_utf8_lossy(&said).into_owned(),
        )),
    }
}

/// What a solve did, from its events: the tiers it solved and the finished ones it took up
/// from its database, and whether it did any work of its own (found, solved, compacted or
/// put tiers together).
#[derive(Default)]
struct Seen {
    solved: AtomicUsize,
    reused: AtomicUsize,
    worked: AtomicBool,
}

impl Seen {
    /// What the run took up from its database, if anything.
    fn taken(&self) -> Option<Taken> {
        match (
            self.reused.load(Ordering::Relaxed),
            self.worked.load(Ordering::Relaxed),
        ) {
            (0, _) => None,
            (_, false) => Some(Taken::All),
            (k, true) => Some(Taken::Some(k)),
        }
    }
}

/// The caller's progress, with what the solve does seen on the way.
fn progress(caller: Option<ProgressFn>, seen: Arc<Seen>) -> ProgressFn {
    Arc::new(move |e: &Event<'_>| {
        match e {
            Event::Reused { tiers, .. } => seen.reused.store(*tiers, Ordering::Relaxed),
            Event::Solved { .. } => {
                seen.solved.fetch_add(1, Ordering::Relaxed);
                seen.worked.store(true, Ordering::Relaxed);
            }
            Event::Discover { .. }
            | Event::Tier { reused: false, .. }
            | Event::Compact { .. }
            | Event::Assemble { .. } => seen.worked.store(true, Ordering::Relaxed),
            _ => {}
        }
        if let Some(f) = &caller {
            f(e)
        }
    })
}

/// What a [`Run`] gave: the answer, with what it needs. An [`Answer`] itself (the game's).
pub struct Ran {
    // Fields drop in order: the answer before the temporary directory its files are in.
    answer: Held,
    traffic: Traffic,
    /// What the solve did (none when a finished database answered).
    seen: Option<Arc<Seen>>,
    db: Option<PathBuf>,
    _tmp: Option<tempfile::TempDir>,
}

impl Ran {
    /// The game.
    pub fn built(&self) -> &dyn Built {
        self.answer.built()
    }

    /// What crossed between ranks, summed over them (nothing in one process, or when a
    /// finished database answered).
    pub fn traffic(&self) -> &Traffic {
        &self.traffic
    }

    /// The database directory the tiers were kept in, if any.
    pub fn db(&self) -> Option<&Path> {
        self.db.as_deref()
    }

    /// The game's report ([`Answer::report`]) with the run's: for a set of tables, how many
    /// it solved and how many it took up from the database; where the tiers were written
    /// (or that none was: a finished database taken up whole); what it took up
    /// ([`Report::taken`]).
    ///
    /// # Errors
    /// A value that cannot be read.
    pub fn summary(&self) -> Result<Report, Error> {
        let mut report = self.answer.report()?;
        let taken = self.seen.as_ref().and_then(|s| s.taken());
        if let Some(t) = self.seen.as_ref().filter(|_| self.built().logs_tiers()) {
            let (solved, reused) = (
                t.solved.load(Ordering::Relaxed),
                t.reused.load(Ordering::Relaxed),
            );
            report
                .lines
                .push(format!("tables solved {solved}, reused {reused}"));
            report
                .fields
                .push(("tables_solved".into(), serde_json::json!(solved)));
            report
                .fields
                .push(("tables_reused".into(), serde_json::json!(reused)));
        }
        if let Some(d) = &self.db {
            let d = d.display();
            report.lines.push(match taken {
                Some(Taken::All) => {
                    format!(
                        "every tier taken up from {d} (finished before): no tier solved or written"
                    )
                }
                Some(Taken::Some(k)) => {
                    format!("tiers written to {d} ({k} finished before, taken up)")
                }
                None => format!("tiers written to {d}"),
            });
            report
                .fields
                .push(("db".into(), serde_json::json!(d.to_string())));
        }
        report.taken = taken;
        Ok(report)
    }
}

impl Answer for Ran {
    fn report(&self) -> Result<Report, Error> {
        self.answer.report()
    }

    fn query(&self, q: &Query) -> Result<QueryAnswer, QueryError> {
        self.answer.query(q)
    }

    fn query_until(
        &self,
        q: &Query,
        deadline: std::time::Instant,
    ) -> Result<QueryAnswer, QueryError> {
        self.answer.query_until(q, deadline)
    }

    fn session(
        &self,
        side: &str,
        from: Option<&str>,
    ) -> Result<(Box<dyn DynSession + '_>, String), QueryError> {
        self.answer.session(side, from)
    }

    fn protocol(&self) -> Option<Box<dyn Protocol + '_>> {
        self.answer.protocol()
    }

    fn dump(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.answer.dump(out)
    }
}

//! Built-in games and databases, through the registry (`retrograde game` and `retrograde
//! query` in Python).

use crate::common::{interruptible, memory_limit, scored_codes, tier_progress, Progress};
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use retrograde_registry::{
    entry, report, Answer, ArgValue, Args, Input, Kind, Query, QueryError, Reuse, Run, RunError,
};
use retrograde_solve::exchange::Solo;
use retrograde_tier::{DirStorage, Storage};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A solved built-in game or an opened database: the registry's [`Answer`].
///
/// The registry's answers own the built game they answer for ([`Held`]), so that the
/// answer lives as long as this object, and is freed with it.
#[pyclass(module = "retrograde._retrograde", name = "NativeGame", frozen)]
pub(crate) struct NativeGame {
    answer: Box<dyn Answer>,
    name: String,
    title: String,
}

/// A report as it crosses into Python: start value, stats, lines.
type Reported<'py> = (
    Option<(u8, i64, Option<i64>)>,
    Bound<'py, PyDict>,
    Vec<String>,
);

/// A query's answer as it crosses into Python: position, side, picture, value, moves, JSON.
type Answered = (
    String,
    String,
    String,
    (u8, i64, Option<i64>),
    Vec<(String, u8, i64, Option<i64>)>,
    String,
);

fn query_error(name: &str, e: QueryError) -> PyErr {
    match e {
        QueryError::Lookup(e) => tier_error(name, e),
        QueryError::TooLong(m) => PyRuntimeError::new_err(format!("{name}: {m}")),
        // A position, a move or a question at fault.
        e => PyValueError::new_err(format!("{name}: {e}")),
    }
}

fn tier_error(name: &str, e: retrograde_tier::Error) -> PyErr {
    if matches!(e, retrograde_tier::Error::Interrupted) {
        return PyKeyboardInterrupt::new_err("interrupted");
    }
    if e.is_damage() {
        PyOSError::new_err(format!(
            "{name}: {e}; solve again with the same db= to repair it"
        ))
    } else if matches!(e, retrograde_tier::Error::Memory { .. }) {
        pyo3::exceptions::PyMemoryError::new_err(format!("{name}: {e}"))
    } else {
        PyRuntimeError::new_err(format!("{name}: {e}"))
    }
}

#[pymethods]
impl NativeGame {
    /// The game and its parameters (`connect4 5x4`), or `graph`.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// A few lines naming the game and its rules.
    #[getter]
    fn title(&self) -> &str {
        &self.title
    }

    /// The report of the solve: `(start value or None, stats dict, lines)`.
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Reported<'py>> {
        let r = self
            .answer
            .report()
            .map_err(|e| tier_error(&self.name, e))?;
        let d = PyDict::new(py);
        let mut start = None;
        if let Some((v, st)) = &r.standard {
            start = Some(scored_codes(*v, r.score));
            let more = [("classes", st.classes), ("states", st.states)];
            for (k, x) in report::counts(st).into_iter().chain(more) {
                d.set_item(k, x)?;
            }
            d.set_item("longest_win", st.longest_win)?;
            d.set_item("longest_loss", st.longest_loss)?;
            d.set_item("explore_seconds", st.explore.as_secs_f64())?;
            d.set_item("solve_seconds", st.solve.as_secs_f64())?;
        }
        for (k, v) in &r.fields {
            // Small JSON values (numbers, strings, lists of numbers): as their JSON text,
            // which Python's json module reads back.
            d.set_item(k.as_str(), v.to_string())?;
        }
        let mut lines = Vec::new();
        lines.extend(r.first_line.clone());
        lines.extend(r.lines.iter().cloned());
        Ok((start, d, lines))
    }

    /// Answers a query by moves from the start (`position` None), by a position in the
    /// game's notation, or by moves played from that position (both given):
    /// `(position, side, picture, value, moves, json)`.
    #[pyo3(signature = (moves, position=None))]
    fn query(
        &self,
        py: Python<'_>,
        moves: Vec<String>,
        position: Option<String>,
    ) -> PyResult<Answered> {
        let q = match position {
            Some(p) if !moves.is_empty() => Query::After(p, moves),
            Some(p) => Query::Position(p),
            None => Query::Moves(moves),
        };
        let a = py
            .detach(|| self.answer.query(&q))
            .map_err(|e| query_error(&self.name, e))?;
        let json = a.to_json();
        Ok((
            a.position,
            a.side,
            a.picture,
            scored_codes(a.value, a.scores.as_ref().map(|s| s.0)),
            a.moves
                .into_iter()
                .enumerate()
                .map(|(i, (m, v))| {
                    let s = a.scores.as_ref().and_then(|s| s.1.get(i).copied());
                    let (o, r, s) = scored_codes(v, s);
                    (m, o, r, s)
                })
                .collect(),
            json,
        ))
    }
}

/// Solves the built-in game `name` with `args` (parameter name to value as the CLI takes it;
/// for a file parameter, its path), keeping its tiers in `db` when given (reusing a finished
/// database there, resuming an unfinished one; `compact` as `--compact`). The memory plan
/// (`memory` as `--memory`) is checked as `retrograde game` checks it, before anything big
/// is allocated.
#[pyfunction]
#[pyo3(signature = (name, args, db, threads, progress, memory=None, compact=false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn game(
    py: Python<'_>,
    name: &str,
    args: Vec<(String, String)>,
    db: Option<PathBuf>,
    threads: Option<usize>,
    progress: Option<bool>,
    memory: Option<&str>,
    compact: bool,
) -> PyResult<NativeGame> {
    let limit = memory_limit(memory)?;
    if compact && db.is_none() {
        return Err(PyValueError::new_err(format!(
            "{name}: compact=True makes a database compact: it needs db="
        )));
    }
    let e = entry(name).ok_or_else(|| PyValueError::new_err(format!("no game {name:?}")))?;
    let mut values =
        Args::with_defaults(e.params).map_err(|m| PyRuntimeError::new_err(m.to_string()))?;
    for (k, v) in &args {
        let p = e
            .params
            .iter()
            .find(|p| p.name == k.replace('_', "-") || p.name == k.as_str())
            .ok_or_else(|| {
                let known: Vec<&str> = e.params.iter().map(|p| p.name).collect();
                PyTypeError::new_err(format!(
                    "{name}: no parameter {k:?} (it takes {})",
                    known.join(", ")
                ))
            })?;
        if p.kind == Kind::Input {
            let bytes = std::fs::read(v)
                .map_err(|err| PyOSError::new_err(format!("{v}: cannot read: {err}")))?;
            values.set(
                p.name,
                ArgValue::Input(Input {
                    name: v.clone(),
                    bytes,
                }),
            );
        } else {
            values
                .set_text(p, v)
                .map_err(|m| PyValueError::new_err(format!("{name}: {m}")))?;
        }
    }
    for p in e.params {
        if p.default.is_none() && p.kind != Kind::Flag && !args.iter().any(|(k, _)| k == p.name) {
            return Err(PyTypeError::new_err(format!(
                "{name}: the parameter {:?} is required ({})",
                p.name, p.help
            )));
        }
    }
    if db.is_some() && !e.tiered {
        return Err(PyValueError::new_err(format!(
            "{name}: db= applies to tier games only ({})",
            retrograde_registry::tier_games()
        )));
    }
    let built = e
        .build(&values)
        .map_err(|m| PyValueError::new_err(m.to_string()))?;
    let gname = built.name();
    let title = built.title();
    // Explored games (pebbles, the police map) stop at the limit as they find positions.
    retrograde_games::set_memory_limit(limit.map(retrograde_mem::Limit::room));
    let cancel = Arc::new(AtomicBool::new(false));
    let shown = Progress::new(progress);
    // A finished database is opened as it is, and a damaged one solved again (with
    // compact=True, the solve takes a finished database up and makes it compact).
    let run = Run::new(built)
        .db(db.clone())
        .resume(db.is_some())
        .compact(compact)
        .reuse(match compact {
            true => Reuse::Never,
            false => Reuse::OrRepair,
        })
        .memory(limit)
        .give_back(retrograde_mem::give_back)
        .cancel(cancel.clone())
        .progress(tier_progress(shown.clone()));
    let ran = interruptible(py, threads, Some(cancel), move || run.start(&Solo));
    shown.finish();
    let ran = ran?.map_err(|e| run_error(&gname, e))?;
    Ok(NativeGame {
        answer: Box::new(ran),
        name: gname,
        title,
    })
}

/// A run's error as Python's: `MemoryError` for a plan over the memory limit, `ValueError`
/// for a size the game refuses, `OSError` for a temporary directory that cannot be made,
/// the engine's errors as [`tier_error`] says them.
fn run_error(name: &str, e: RunError) -> PyErr {
    match e {
        RunError::Refused(r @ retrograde_registry::Refused::Memory { .. }) => {
            pyo3::exceptions::PyMemoryError::new_err(r.to_string())
        }
        RunError::Refused(r) => PyValueError::new_err(r.to_string()),
        RunError::Open(e) | RunError::Lock(e) | RunError::Solve(e) => tier_error(name, e),
        e => PyOSError::new_err(e.to_string()),
    }
}

/// Opens a database directory made by `retrograde game ... --db DIR` (or `solve --db`),
/// whatever it holds, as `retrograde query` does.
#[pyfunction]
pub(crate) fn open_db(py: Python<'_>, path: PathBuf) -> PyResult<NativeGame> {
    let shown = path.display().to_string();
    if !path.is_dir() {
        return Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!(
            "{shown}: not a directory (a database is the directory `--db DIR` wrote)"
        )));
    }
    let storage: Arc<dyn Storage> = Arc::new(DirStorage::new(path.clone()));
    let fail = |e: retrograde_tier::Error| {
        if matches!(e, retrograde_tier::Error::Missing { .. }) {
            let why = match DirStorage::writer(&path) {
                Some(who) => format!("{who} is writing it"),
                None => e.to_string(),
            };
            PyFileNotFoundError::new_err(format!("{shown}: no finished database here ({why})"))
        } else if e.is_damage() {
            PyOSError::new_err(format!(
                "{e}; solve again with --db {shown} --resume to repair it"
            ))
        } else {
            PyValueError::new_err(e.to_string())
        }
    };
    let opened = py
        .detach(|| retrograde_registry::open(storage))
        .map_err(fail)?;
    Ok(NativeGame {
        answer: opened.answer,
        name: opened.name,
        title: opened.title,
    })
}

use pyo3::exceptions::PyFileNotFoundError;

/// One parameter of a built-in game, as Python sees it: `(name, help, default or None,
/// kind)`, kind one of number, numbers, flag, choice, file, text.
type ParamInfo = (
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static str,
);

/// The built-in games, from the registry (`retrograde.games` makes one function of each):
/// `{"name", "about", "help", "tiered", "moves", "params": [ParamInfo]}`.
#[pyfunction]
pub(crate) fn game_entries(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    retrograde_registry::entries()
        .iter()
        .map(|e| {
            let params: Vec<ParamInfo> = e
                .params
                .iter()
                .map(|p| {
                    let kind = match p.kind {
                        Kind::Number { .. } => "number",
                        Kind::Numbers { .. } => "numbers",
                        Kind::Flag => "flag",
                        Kind::Choice(_) => "choice",
                        Kind::Input => "file",
                        Kind::Text => "text",
                    };
                    (p.name, p.help, p.default, kind)
                })
                .collect();
            let d = PyDict::new(py);
            d.set_item("name", e.name)?;
            d.set_item("about", e.about)?;
            d.set_item("help", e.help)?;
            d.set_item("tiered", e.tiered)?;
            d.set_item("moves", e.moves)?;
            d.set_item("params", params)?;
            Ok(d)
        })
        .collect()
}

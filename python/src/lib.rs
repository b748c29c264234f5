//! The native half of the `retrograde` Python package (`retrograde._retrograde`).
//!
//! Everything here is a thin layer over the library crates: graphs are built with
//! `retrograde_graph::GraphBuilder` and solved with `retrograde_solve`, Sprague-Grundy values
//! come from `retrograde_impartial`, built-in games and databases go through
//! `retrograde_registry` exactly as `retrograde game` and `retrograde query` do. The Python
//! package (`retrograde/__init__.py`) turns what these functions return (NumPy arrays, tuples
//! of codes) into its `Solution`, `Value` and game objects.
//!
//! Values cross the boundary as `(outcome code, remoteness)`: the code is `Outcome as u8`
//! (win 0, loss 1, tie 2, draw 3) and the remoteness is -1 for a draw.
//!
//! Long work (solving, building, exploring databases) runs on a worker thread while the
//! calling thread waits without the GIL and checks for Ctrl-C every 50 ms ([`interruptible`]).
//!
//! Nothing here may take the interpreter down. Before anything big is allocated, the
//! command line's memory plan (`retrograde_mem`: vertex count, largest id and edges of a
//! graph; `retrograde_registry::plan` for a game; the `memory=` argument as `--memory`)
//! refuses what will not fit, as a `MemoryError` with the command line's message. An
//! allocation that fails all the same is caught by the extension's global allocator
//! ([`alloc_failed`]): on a worker thread it becomes a `MemoryError` too.

use numpy::prelude::*;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{
    PyKeyError, PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;
use retrograde_graph::format::{self, Format, ParseOptions};
use retrograde_graph::{Graph, GraphBuilder, Primitive};
use retrograde_registry::{
    chess, entry, report, Answer, ArgValue, Args, Input, Kind, Query, QueryError, Reuse, Run,
    RunError,
};
use retrograde_solve::exchange::Solo;
use retrograde_solve::{Rules, Scored, Value};
use retrograde_tier::{DirStorage, Event, Storage};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// "None" in the solver's remoteness and best-move arrays.
const NONE: u32 = u32::MAX;

#[global_allocator]
static ALLOC: retrograde_mem::Guard = retrograde_mem::Guard(alloc_failed);

thread_local! {
    /// Whether this thread works for [`interruptible`] (the worker and its rayon pool).
    static WORKER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The size of an allocation that failed on a worker thread (0: none).
static FAILED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// What the allocator does when the system refuses memory. An allocator may not unwind, so
/// the failure cannot be a panic: on a worker thread ([`interruptible`]) the size is noted
/// for the waiting Python thread, which raises `MemoryError`, and the worker stops for
/// good (it sleeps, holding what it had: a leak, where the standard library would abort
/// the interpreter). On any other thread nothing can be raised: the message is written and
/// the process aborts, as Rust would, but saying why.
#[cold]
fn alloc_failed(size: usize) -> ! {
    // A const-initialised thread local without a destructor: reading it allocates nothing.
    if WORKER.with(std::cell::Cell::get) {
        FAILED.store((size as u64).max(1), Ordering::SeqCst);
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
    retrograde_mem::AllocationFailure::new(size as u64, None).write_stderr();
    std::process::abort()
}

/// The memory limit of one call: the plan's (`memory=` as `--memory`, in bytes or with a
/// unit, `"20G"`), at most what the system allows.
fn memory_limit(memory: Option<&str>) -> PyResult<Option<retrograde_mem::Limit>> {
    let flag = memory
        .map(|m| {
            retrograde_mem::parse_size(m).map_err(|e| PyValueError::new_err(format!("memory: {e}")))
        })
        .transpose()?;
    Ok(retrograde_mem::detect(flag))
}

/// The plan of a graph: `n` vertices and `m` edges against the limit, before building it
/// (`count`: what sets the vertex count, for the message).
fn plan_graph(
    what: &str,
    n: u64,
    m: u64,
    count: &str,
    limit: Option<retrograde_mem::Limit>,
) -> PyResult<()> {
    retrograde_mem::check(
        &format!("{what}: {n} vertices and {m} edges ({count})"),
        retrograde_mem::graph_bytes(n, m),
        limit,
    )
    .map_err(pyo3::exceptions::PyMemoryError::new_err)
}

/// A value as it crosses into Python: outcome code and remoteness (-1 for a draw).
fn value_codes(v: Value) -> (u8, i64) {
    (v.outcome() as u8, v.remoteness().map_or(-1, i64::from))
}

/// A value that may have a score, as it crosses into Python: outcome code, remoteness (-1
/// when the game never ends) and the score (`None` for a game without scores). With a
/// score, the outcome and remoteness are the score's (a tier game's game that never ends
/// after points were collected is a win or loss with remoteness -1).
fn scored_codes(v: Value, s: Option<Scored>) -> (u8, i64, Option<i64>) {
    match s {
        None => {
            let (o, r) = value_codes(v);
            (o, r, None)
        }
        Some(s) => (
            s.outcome() as u8,
            s.remoteness.map_or(-1, i64::from),
            Some(s.score),
        ),
    }
}

/// Runs `f` on a worker thread, in a rayon pool of its own (`threads` threads, default all
/// cores), while this thread waits without the GIL, checking for signals every 50 ms. On
/// Ctrl-C (or any signal handler that raises) it sets `cancel`, if given, waits for the
/// worker to stop, and returns the exception; without `cancel` the worker is left to finish
/// on its own and its result is dropped. A panic in `f` becomes a `RuntimeError`, and an
/// allocation that fails on the worker or its pool a `MemoryError` ([`alloc_failed`]):
/// never a crash of the interpreter.
fn interruptible<T: Send + 'static>(
    py: Python<'_>,
    threads: Option<usize>,
    cancel: Option<Arc<AtomicBool>>,
    f: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    // A pool per call, its threads marked as workers (a worker that fails to allocate stops
    // for good: a shared pool would lose a thread for every later call).
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .start_handler(|_| WORKER.with(|w| w.set(true)))
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the threads: {e}")))?;
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::Builder::new()
        .name("retrograde".into())
        .spawn(move || {
            WORKER.with(|w| w.set(true));
            let out = pool.install(f);
            let _ = tx.send(out);
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    let mut rx = rx;
    loop {
        // The receiver moves into the GIL-free closure and back (it is not `Sync`).
        let (got, back) = py.detach(move || (rx.recv_timeout(Duration::from_millis(50)), rx));
        rx = back;
        match got {
            Ok(out) => {
                let _ = py.detach(|| worker.join());
                return Ok(out);
            }
            Err(RecvTimeoutError::Timeout) => {
                let failed = FAILED.swap(0, Ordering::SeqCst);
                if failed != 0 {
                    // The worker (or a thread of its pool) sleeps for good: leave it.
                    return Err(pyo3::exceptions::PyMemoryError::new_err(
                        retrograde_mem::AllocationFailure::new(
                            failed,
                            retrograde_mem::detect(None),
                        )
                        .as_str()
                        .to_string(),
                    ));
                }
                if let Err(e) = py.check_signals() {
                    if let Some(c) = &cancel {
                        c.store(true, Ordering::Relaxed);
                        let _ = py.detach(|| worker.join());
                    }
                    return Err(e);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                let _ = py.detach(|| worker.join());
                return Err(PyRuntimeError::new_err(
                    "retrograde: internal error: the solver stopped without an answer (a panic); please report it",
                ));
            }
        }
    }
}

/// Progress lines on Python's `sys.stderr` (so that notebooks show them), at most one every
/// half second, overwriting each other with `\r`. `None` (auto) stays silent for the first
/// second, so quick solves print nothing; `True` prints from the start; `False` never.
struct Progress {
    mode: Option<bool>,
    started: Instant,
    last: Mutex<Option<Instant>>,
    shown: AtomicBool,
}

impl Progress {
    fn new(mode: Option<bool>) -> Arc<Progress> {
        Arc::new(Progress {
            mode,
            started: Instant::now(),
            last: Mutex::new(None),
            shown: AtomicBool::new(false),
        })
    }

    fn show(&self, line: impl FnOnce() -> String) {
        let wait = match self.mode {
            Some(false) => return,
            Some(true) => Duration::ZERO,
            None => Duration::from_secs(1),
        };
        if self.started.elapsed() < wait {
            return;
        }
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if last.is_some_and(|t| t.elapsed() < Duration::from_millis(500)) {
            return;
        }
        *last = Some(Instant::now());
        self.shown.store(true, Ordering::Relaxed);
        let text = format!("\rretrograde: {:<60}", line());
        write_stderr(&text);
    }

    fn finish(&self) {
        if self.shown.load(Ordering::Relaxed) {
            write_stderr("\n");
        }
    }
}

fn write_stderr(text: &str) {
    Python::attach(|py| {
        if let Ok(err) = py.import("sys").and_then(|s| s.getattr("stderr")) {
            let _ = err.call_method1("write", (text,));
            let _ = err.call_method0("flush");
        }
    });
}

fn tier_progress(p: Arc<Progress>) -> retrograde_tier::ProgressFn {
    let total = Arc::new(std::sync::atomic::AtomicU64::new(0));
    Arc::new(move |e: &Event<'_>| match e {
        Event::Plan { slots, .. } => total.store(*slots, Ordering::Relaxed),
        Event::Discover { tier, positions } => {
            p.show(|| format!("finding positions: {positions} (tier {tier})"))
        }
        Event::Tier {
            tier, size, done, ..
        } => {
            let all = total.load(Ordering::Relaxed).max(done + size);
            p.show(|| {
                format!(
                    "solving tier {tier}: {done}/{all} ({:.0}%)",
                    100.0 * *done as f64 / all.max(1) as f64
                )
            })
        }
        Event::Count { done, total } => p.show(|| {
            format!(
                "counting positions: {done}/{total} ({:.0}%)",
                100.0 * *done as f64 / (*total).max(1) as f64
            )
        }),
        Event::Damaged { error } => {
            let error = error.to_string();
            write_stderr(&format!("retrograde: warning: {error}: solving it again\n"))
        }
        _ => {}
    })
}

// ---------------------------------------------------------------------------------------
// Graphs.

fn no_move_rule(no_move: &str) -> PyResult<Rules> {
    // The words of `--no-move`, and no other.
    let p = Primitive::from_word(no_move).ok_or_else(|| {
        PyValueError::new_err(format!(
            "no_move must be \"loss\", \"win\" or \"tie\", got {no_move:?}"
        ))
    })?;
    Ok(Rules { no_move: p })
}

fn primitive_of(code: u8) -> PyResult<Primitive> {
    match code {
        0 => Ok(Primitive::Win),
        1 => Ok(Primitive::Loss),
        2 => Ok(Primitive::Tie),
        c => Err(PyValueError::new_err(format!(
            "a terminal value must be win, loss or tie (codes 0, 1, 2), got code {c}"
        ))),
    }
}

/// Solves `g` and hands the three arrays over as NumPy arrays: outcome codes (moved, not
/// copied), remoteness and best moves widened to int64 with -1 for "none".
/// A solution as it crosses into Python: outcome codes, remoteness, best moves, and a scored
/// graph's scores (`None` for an unscored graph).
type Arrays<'py> = (
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Option<Bound<'py, PyArray1<i64>>>,
);

/// A solution's arrays on the Rust side: [`Arrays`].
type Parts = (Vec<u8>, Vec<i64>, Vec<i64>, Option<Vec<i64>>);

fn solved_arrays(py: Python<'_>, parts: Parts) -> Arrays<'_> {
    let (o, r, b, s) = parts;
    (
        o.into_pyarray(py),
        r.into_pyarray(py),
        b.into_pyarray(py),
        s.map(|s| s.into_pyarray(py)),
    )
}

/// The solve itself, on the worker thread: values, then the arrays widened in parallel.
fn solve_graph(g: &Graph, rules: &Rules) -> Parts {
    let solution = retrograde_solve::solve(g, rules);
    // A scored graph's scores (0 for ties and draws), taken before the arrays are.
    let scores = solution.is_scored().then(|| solution.scores().to_vec());
    let (o, r, b) = solution.into_parts();
    let widen = |x: &u32| if *x == NONE { -1 } else { i64::from(*x) };
    let r: Vec<i64> = r.par_iter().map(widen).collect();
    let b: Vec<i64> = b.par_iter().map(widen).collect();
    (o, r, b, scores)
}

/// Edges from an `(m, 2)` C-contiguous uint32 array, with the largest id seen.
/// Edge pairs and the largest id among them.
type Pairs = (Vec<(u32, u32)>, Option<u32>);

/// The memory plan runs first: the vertex count (the largest id + 1, or `n_vertices`) and
/// the edges against `limit`, before the pairs or the graph are allocated.
fn edge_pairs(
    edges: &PyReadonlyArray2<'_, u32>,
    n_vertices: Option<u64>,
    limit: Option<retrograde_mem::Limit>,
) -> PyResult<Pairs> {
    let shape = edges.shape();
    if shape[1] != 2 {
        return Err(PyValueError::new_err(format!(
            "edges must have shape (m, 2), got ({}, {})",
            shape[0], shape[1]
        )));
    }
    let flat = edges
        .as_slice()
        .map_err(|_| PyValueError::new_err("edges must be a C-contiguous array"))?;
    let max = flat.par_iter().copied().max();
    if max == Some(NONE) {
        return Err(PyValueError::new_err(format!(
            "vertex id {NONE} is too large (ids must be at most {})",
            NONE - 1
        )));
    }
    if let (Some(n), Some(max)) = (n_vertices, max) {
        if u64::from(max) >= n {
            return Err(PyValueError::new_err(format!(
                "vertex id {max} is out of range for n_vertices={n} (ids must be below it)"
            )));
        }
    }
    let n = max
        .map_or(0, |v| u64::from(v) + 1)
        .max(n_vertices.unwrap_or(0));
    let m = flat.len() / 2;
    let count = "the largest vertex id or n_vertices sets the vertex count";
    plan_graph("edges", n, m as u64, count, limit)?;
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    pairs.try_reserve_exact(m).map_err(|_| {
        pyo3::exceptions::PyMemoryError::new_err(format!("edges: cannot hold {m} edges"))
    })?;
    pairs.extend(flat.chunks_exact(2).map(|c| (c[0], c[1])));
    Ok((pairs, max))
}

/// Builds the graph of an edge array and the optional per-vertex and per-edge facts.
#[allow(clippy::too_many_arguments)]
fn edge_builder(
    edges: &PyReadonlyArray2<'_, u32>,
    n_vertices: Option<u64>,
    terminal_v: Option<PyReadonlyArray1<'_, u32>>,
    terminal_code: Option<PyReadonlyArray1<'_, u8>>,
    owners: Option<PyReadonlyArray1<'_, u8>>,
    go_again: Option<PyReadonlyArray1<'_, bool>>,
    limit: Option<retrograde_mem::Limit>,
) -> PyResult<GraphBuilder> {
    let mut b = GraphBuilder::new();
    if let Some(n) = n_vertices {
        b.ensure_vertices(n)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
    }
    let (pairs, max) = edge_pairs(edges, n_vertices, limit)?;
    let m = pairs.len();
    b.push_chunk(pairs, max);
    let n = b.vertex_count();
    if let (Some(tv), Some(tc)) = (terminal_v, terminal_code) {
        let (tv, tc) = (tv.as_slice()?, tc.as_slice()?);
        if tv.len() != tc.len() {
            return Err(PyValueError::new_err(
                "terminal: as many vertices as values",
            ));
        }
        for (&v, &c) in tv.iter().zip(tc) {
            if u64::from(v) >= n {
                return Err(PyValueError::new_err(format!(
                    "terminal: vertex {v} is out of range (the graph has {n} vertices)"
                )));
            }
            b.set_primitive(v, primitive_of(c)?);
        }
    }
    if let Some(owners) = owners {
        let owners = owners.as_slice()?;
        if owners.len() as u64 != n {
            return Err(PyValueError::new_err(format!(
                "owners must have one entry per vertex: {} given for {n} vertices",
                owners.len()
            )));
        }
        for (v, &o) in owners.iter().enumerate() {
            b.set_owner(v as u32, u64::from(o))
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
        }
    }
    if let Some(again) = go_again {
        let again = again.as_slice()?;
        if again.len() != m {
            return Err(PyValueError::new_err(format!(
                "go_again must have one flag per edge: {} given for {m} edges",
                again.len()
            )));
        }
        for (i, &a) in again.iter().enumerate() {
            if a {
                b.mark_again(i);
            }
        }
    }
    Ok(b)
}

/// Solves the graph of an edge array (see `retrograde.solve`).
#[pyfunction]
#[pyo3(signature = (edges, n_vertices, no_move, terminal_v, terminal_code, owners, go_again, threads, memory=None))]
#[allow(clippy::too_many_arguments)]
fn solve_edges<'py>(
    py: Python<'py>,
    edges: PyReadonlyArray2<'py, u32>,
    n_vertices: Option<u64>,
    no_move: &str,
    terminal_v: Option<PyReadonlyArray1<'py, u32>>,
    terminal_code: Option<PyReadonlyArray1<'py, u8>>,
    owners: Option<PyReadonlyArray1<'py, u8>>,
    go_again: Option<PyReadonlyArray1<'py, bool>>,
    threads: Option<usize>,
    memory: Option<&str>,
) -> PyResult<(Arrays<'py>, usize)> {
    let rules = no_move_rule(no_move)?;
    let b = edge_builder(
        &edges,
        n_vertices,
        terminal_v,
        terminal_code,
        owners,
        go_again,
        memory_limit(memory)?,
    )?;
    let out = interruptible(py, threads, None, move || {
        let g = b.build().map_err(|e| e.to_string())?;
        Ok::<_, String>((solve_graph(&g, &rules), g.edge_count()))
    })?
    .map_err(PyValueError::new_err)?;
    Ok((solved_arrays(py, out.0), out.1))
}

/// For the benchmark: the library's own time on an edge array, measured inside Rust with
/// no Python in between: `(build seconds, solve seconds)`, the solve being the same call
/// `solve_edges` makes (values, best moves, the arrays widened).
#[pyfunction]
#[pyo3(signature = (edges, n_vertices=None))]
fn timed_solve(
    py: Python<'_>,
    edges: PyReadonlyArray2<'_, u32>,
    n_vertices: Option<u64>,
) -> PyResult<(f64, f64)> {
    let b = edge_builder(
        &edges,
        n_vertices,
        None,
        None,
        None,
        None,
        memory_limit(None)?,
    )?;
    let rules = Rules::default();
    py.detach(move || {
        let t = Instant::now();
        let g = b.build().map_err(|e| e.to_string())?;
        let build = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let s = solve_graph(&g, &rules);
        let solve = t.elapsed().as_secs_f64();
        drop(s);
        Ok::<_, String>((build, solve))
    })
    .map_err(PyValueError::new_err)
}

/// What a graph file gives beside its solution: edge count, start vertex and names.
type FileFacts = (usize, Option<u32>, Option<Vec<String>>);

/// Reads a graph file, checks the plan (its vertices and edges against `limit`, as the
/// command line does after parsing), and builds it.
fn read_graph(
    path: &PathBuf,
    fmt: &str,
    n_vertices: Option<u64>,
    limit: Option<retrograde_mem::Limit>,
) -> PyResult<Graph> {
    let shown = path.display().to_string();
    if path.is_dir() {
        return Err(PyOSError::new_err(format!("{shown}: is a directory")));
    }
    // The file is read whole: refuse it before reading when the limit cannot hold it, with
    // the command line's words (which holds at most two blocks of it in flight).
    if let Ok(meta) = std::fs::metadata(path) {
        retrograde_mem::check(&format!("{shown}: reading it"), meta.len(), limit)
            .map_err(pyo3::exceptions::PyMemoryError::new_err)?;
    }
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            pyo3::exceptions::PyFileNotFoundError::new_err(format!("{shown}: no such file"))
        }
        _ => PyOSError::new_err(format!("{shown}: cannot read: {e}")),
    })?;
    let format = match fmt {
        "auto" => {
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase);
            match ext.as_deref() {
                Some("grf") => Format::Grf,
                Some("json") => Format::Json,
                _ => format::detect(&bytes),
            }
        }
        f => f.parse().map_err(PyValueError::new_err)?,
    };
    let opts = ParseOptions {
        vertices: n_vertices,
        ..ParseOptions::default()
    };
    let builder = format::parse_builder(&bytes, format, &opts).map_err(|e| {
        PyValueError::new_err(match e.line {
            Some(l) => format!("{shown}:{l}: {}", e.message),
            None => format!("{shown}: {}", e.message),
        })
    })?;
    drop(bytes);
    plan_graph(
        &shown,
        builder.vertex_count(),
        builder.edge_count() as u64,
        retrograde_mem::VERTEX_COUNT_OF_A_FILE,
        limit,
    )?;
    builder
        .build()
        .map_err(|e| PyValueError::new_err(format!("{shown}: {e}")))
}

/// Reads a graph file in any format the CLI reads and solves it.
#[pyfunction]
#[pyo3(signature = (path, format, n_vertices, no_move, threads, memory=None))]
fn solve_file<'py>(
    py: Python<'py>,
    path: PathBuf,
    format: &str,
    n_vertices: Option<u64>,
    no_move: &str,
    threads: Option<usize>,
    memory: Option<&str>,
) -> PyResult<(Arrays<'py>, FileFacts)> {
    let rules = no_move_rule(no_move)?;
    let g = read_graph(&path, format, n_vertices, memory_limit(memory)?)?;
    let (arrays, g) = interruptible(py, threads, None, move || {
        let s = solve_graph(&g, &rules);
        (s, g)
    })?;
    let names = g.has_names().then(|| {
        (0..g.vertex_count() as u32)
            .map(|v| g.name(v).unwrap_or("").to_string())
            .collect()
    });
    Ok((
        solved_arrays(py, arrays),
        (g.edge_count(), g.start(), names),
    ))
}

/// Sprague-Grundy values: `values` (int64, -1 for an infinite value), `outcome` codes, and
/// for infinite values the index into `ksets` (the sets `K`, each a sorted list), else -1.
type GrundyArrays<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<i64>>,
    Vec<Vec<u32>>,
);

fn grundy_arrays(py: Python<'_>, g: Graph) -> PyResult<GrundyArrays<'_>> {
    let out = interruptible(py, None, None, move || {
        let s = retrograde_impartial::grundy(&g).map_err(|e| e.to_string())?;
        let n = s.len();
        let mut values = Vec::with_capacity(n);
        let mut outcome = Vec::with_capacity(n);
        let mut kindex = Vec::with_capacity(n);
        let mut ksets: Vec<Vec<u32>> = Vec::new();
        let mut seen: std::collections::HashMap<Vec<u32>, i64> = Default::default();
        for v in 0..n as u32 {
            let sg = s.value(v);
            outcome.push(sg.outcome() as u8);
            match sg {
                retrograde_impartial::Sg::Finite(x) => {
                    values.push(i64::from(x));
                    kindex.push(-1);
                }
                retrograde_impartial::Sg::Infinite(k) => {
                    values.push(-1);
                    let id = *seen.entry(k.to_vec()).or_insert_with(|| {
                        ksets.push(k.to_vec());
                        ksets.len() as i64 - 1
                    });
                    kindex.push(id);
                }
            }
        }
        Ok::<_, String>((values, outcome, kindex, ksets))
    })?
    .map_err(PyValueError::new_err)?;
    Ok((
        out.0.into_pyarray(py),
        out.1.into_pyarray(py),
        out.2.into_pyarray(py),
        out.3,
    ))
}

/// Sprague-Grundy values of the graph of an edge array.
#[pyfunction]
#[pyo3(signature = (edges, n_vertices, terminal_v, terminal_code, memory=None))]
fn grundy_edges<'py>(
    py: Python<'py>,
    edges: PyReadonlyArray2<'py, u32>,
    n_vertices: Option<u64>,
    terminal_v: Option<PyReadonlyArray1<'py, u32>>,
    terminal_code: Option<PyReadonlyArray1<'py, u8>>,
    memory: Option<&str>,
) -> PyResult<GrundyArrays<'py>> {
    let limit = memory_limit(memory)?;
    let b = edge_builder(
        &edges,
        n_vertices,
        terminal_v,
        terminal_code,
        None,
        None,
        limit,
    )?;
    let g = b
        .build()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    grundy_arrays(py, g)
}

/// Sprague-Grundy values of a graph file.
#[pyfunction]
#[pyo3(signature = (path, format, n_vertices, memory=None))]
fn grundy_file<'py>(
    py: Python<'py>,
    path: PathBuf,
    format: &str,
    n_vertices: Option<u64>,
    memory: Option<&str>,
) -> PyResult<GrundyArrays<'py>> {
    let g = read_graph(&path, format, n_vertices, memory_limit(memory)?)?;
    grundy_arrays(py, g)
}

// ---------------------------------------------------------------------------------------
// Built-in games and databases, through the registry.

/// A solved built-in game or an opened database: the registry's [`Answer`].
///
/// The registry's answers own the built game they answer for ([`Held`]), so that the
/// answer lives as long as this object, and is freed with it.
#[pyclass(module = "retrograde._retrograde", name = "NativeGame", frozen)]
struct NativeGame {
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
fn game(
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
fn open_db(py: Python<'_>, path: PathBuf) -> PyResult<NativeGame> {
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
fn game_entries(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
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

// ---------------------------------------------------------------------------------------
// Games written in Python.

/// `primitive(p)`'s answer as a terminal code, or None.
fn primitive_code(r: &Bound<'_, PyAny>, p: &Bound<'_, PyAny>) -> PyResult<Option<u8>> {
    if r.is_none() {
        return Ok(None);
    }
    if let Ok(s) = r.extract::<String>() {
        return match s.as_str() {
            "win" => Ok(Some(0)),
            "loss" | "lose" => Ok(Some(1)),
            "tie" => Ok(Some(2)),
            _ => Err(PyValueError::new_err(format!(
                "primitive({}) returned {s:?}: expected None, \"win\", \"loss\" or \"tie\" (for the player to move)",
                short_repr(p)
            ))),
        };
    }
    if let Ok(c) = r.extract::<i64>() {
        if (0..=2).contains(&c) {
            return Ok(Some(c as u8));
        }
    }
    Err(PyValueError::new_err(format!(
        "primitive({}) returned {}: expected None, \"win\", \"loss\", \"tie\" or Outcome.WIN/LOSS/TIE",
        short_repr(p),
        short_repr(r)
    )))
}

fn short_repr(x: &Bound<'_, PyAny>) -> String {
    let s = x
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "<unprintable>".into());
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s
    }
}

type Explored<'py> = (
    Bound<'py, PyArray2<u32>>,
    Option<Bound<'py, PyArray1<bool>>>,
    Bound<'py, PyArray1<u32>>,
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyList>,
    Bound<'py, PyDict>,
);

/// Explores a game written in Python breadth-first from `game.start()`: every position is
/// looked up in a dict (so positions must be hashable), numbered in the order found, and
/// every move becomes an edge. A position whose `primitive` is not None is terminal (its
/// moves are not asked). `moves(p)` returns the positions after each move, as an iterable or
/// as a dict from move names to positions. Exceptions raised by the game's methods pass
/// through unchanged.
///
/// Returns the edges `(m, 2)`, the go-again flags (when the game has `keeps_turn`), terminal
/// vertices and codes, the positions in id order and the dict from position to id.
#[pyfunction]
#[pyo3(signature = (game, progress=None, max_positions=None))]
fn explore<'py>(
    py: Python<'py>,
    game: &Bound<'py, PyAny>,
    progress: Option<bool>,
    max_positions: Option<u64>,
) -> PyResult<Explored<'py>> {
    let limit = max_positions.unwrap_or(u64::from(NONE - 1));
    let index = PyDict::new(py);
    let positions = PyList::empty(py);
    let start = game.call_method0("start")?;
    index.set_item(&start, 0u32)?;
    positions.append(&start)?;
    let keeps = game.hasattr("keeps_turn")?;
    let mut edges: Vec<u32> = Vec::new();
    let mut again: Vec<bool> = Vec::new();
    let mut tv: Vec<u32> = Vec::new();
    let mut tc: Vec<u8> = Vec::new();
    let shown = Progress::new(progress);
    let mut q = 0usize;
    while q < positions.len() {
        let p = positions.get_item(q)?;
        if q % 1024 == 0 {
            py.check_signals()?;
            let found = positions.len();
            shown.show(|| format!("explored {q} positions, found {found}"));
        }
        let prim = game.call_method1("primitive", (&p,))?;
        if let Some(code) = primitive_code(&prim, &p)? {
            push(&mut tv, q as u32)?;
            push(&mut tc, code)?;
            q += 1;
            continue;
        }
        let ms = game.call_method1("moves", (&p,))?;
        let children = if let Ok(d) = ms.cast::<PyDict>() {
            d.values().into_any()
        } else if ms.hasattr("values")? && ms.hasattr("keys")? {
            ms.call_method0("values")?
        } else {
            ms
        };
        for child in children.try_iter().map_err(|_| {
            PyTypeError::new_err(format!(
                "moves({}) must return an iterable of positions or a dict of them",
                short_repr(&p)
            ))
        })? {
            let child = child?;
            let id = match index.get_item(&child)? {
                Some(id) => id.extract::<u32>()?,
                None => {
                    let id = positions.len() as u64;
                    if id >= limit {
                        return Err(pyo3::exceptions::PyMemoryError::new_err(format!(
                            "the game has more than {limit} positions (max_positions)"
                        )));
                    }
                    index.set_item(&child, id as u32)?;
                    positions.append(&child)?;
                    id as u32
                }
            };
            push(&mut edges, q as u32)?;
            push(&mut edges, id)?;
            if keeps {
                let k = game.call_method1("keeps_turn", (&p, &child))?.is_truthy()?;
                push(&mut again, k)?;
            }
        }
        q += 1;
    }
    shown.finish();
    let m = edges.len() / 2;
    let edges = edges
        .into_pyarray(py)
        .reshape([m, 2])
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok((
        edges,
        keeps.then(|| again.into_pyarray(py)),
        tv.into_pyarray(py),
        tc.into_pyarray(py),
        positions,
        index,
    ))
}

/// `v.push(x)`, or a `MemoryError` when the vector cannot grow (this runs on the Python
/// thread, where a failed allocation could not be caught).
fn push<T>(v: &mut Vec<T>, x: T) -> PyResult<()> {
    if v.len() == v.capacity() {
        v.try_reserve(v.len().max(64)).map_err(|_| {
            pyo3::exceptions::PyMemoryError::new_err(format!(
                "out of memory: cannot hold more than {} moves of the explored game",
                v.len()
            ))
        })?;
    }
    v.push(x);
    Ok(())
}

/// For the tests: allocates (and frees) `bytes` on a worker thread, as a solve would, so
/// that a failing allocation can be shown to be a `MemoryError`.
#[pyfunction]
fn _allocate(py: Python<'_>, bytes: usize) -> PyResult<usize> {
    interruptible(py, Some(1), None, move || {
        let v: Vec<u8> = Vec::with_capacity(bytes);
        std::hint::black_box(&v);
        v.capacity()
    })
}

/// An open chess tablebase (`retrograde.chess.open_tablebase`): the rules and values of
/// a database directory, probed by FEN, both freed with this object.
#[pyclass(module = "retrograde._retrograde", name = "ChessTablebase", frozen)]
struct ChessTablebase {
    probe: chess::Probe,
    name: String,
}

/// A probe's answer as it crosses into Python: `(fen, (outcome code, remoteness), wdl,
/// dtm, best moves, [(move, outcome code, remoteness)])`.
type Probed = (
    String,
    (u8, i64),
    i8,
    Option<i64>,
    Vec<String>,
    Vec<(String, u8, i64)>,
);

/// Win/draw/loss as python-chess's `chess.syzygy` numbers it (no 50-move rule: 2, 0, -2).
fn wdl_code(w: chess::Wdl) -> i8 {
    match w {
        chess::Wdl::Win => 2,
        chess::Wdl::Draw => 0,
        chess::Wdl::Loss => -2,
    }
}

/// A probe's error as Python's: `ValueError` for what is no position, `KeyError` for a
/// position of an ending the tablebase does not hold (as `chess.syzygy` raises for a
/// missing table), `FileNotFoundError` for no tablebase, `OSError` for a damaged file.
fn probe_error(e: chess::ProbeError) -> PyErr {
    use chess::ProbeError;
    match e {
        ProbeError::NotHeld { .. } => PyKeyError::new_err(e.to_string()),
        ProbeError::Database(retrograde_tier::Error::Missing { .. }) => {
            PyFileNotFoundError::new_err(e.to_string())
        }
        ProbeError::Database(d) if d.is_damage() => PyOSError::new_err(d.to_string()),
        e => PyValueError::new_err(e.to_string()),
    }
}

#[pymethods]
impl ChessTablebase {
    /// What it was solved for (`chess up to 4 pieces`, `chess KQvK`).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// Probes a FEN; see [`Probed`].
    fn probe(&self, py: Python<'_>, fen: &str) -> PyResult<Probed> {
        let r = py.detach(|| self.probe.fen(fen)).map_err(probe_error)?;
        let moves = r
            .moves
            .into_iter()
            .map(|(m, v)| {
                let (o, x) = value_codes(v);
                (m, o, x)
            })
            .collect();
        Ok((
            r.fen,
            value_codes(r.value),
            wdl_code(r.wdl),
            r.dtm,
            r.best,
            moves,
        ))
    }

    /// The win/draw/loss code and the depth to mate (`None` for a draw) of a FEN, without
    /// its moves.
    fn wdl_dtm(&self, py: Python<'_>, fen: &str) -> PyResult<(i8, Option<i64>)> {
        let v = py.detach(|| self.probe.value(fen)).map_err(probe_error)?;
        Ok((wdl_code(v.into()), chess::dtm(v)))
    }
}

/// Opens a chess tablebase directory (`retrograde game chess ... --db DIR`).
#[pyfunction]
fn open_chess_tablebase(py: Python<'_>, path: PathBuf) -> PyResult<ChessTablebase> {
    let opened = py.detach(|| -> Result<_, chess::ProbeError> {
        let tb = chess::Tablebase::open(&path)?;
        Ok((tb.probe()?, tb.name()))
    });
    let (probe, name) = opened.map_err(|e| match e {
        chess::ProbeError::Database(retrograde_tier::Error::Missing { .. }) => {
            PyFileNotFoundError::new_err(format!(
                "{}: no finished chess tablebase (solve one with `retrograde game chess --up-to N --db DIR`)",
                path.display()
            ))
        }
        e => probe_error(e),
    })?;
    Ok(ChessTablebase { probe, name })
}

/// The native module.
#[pymodule]
fn _retrograde(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(solve_edges, m)?)?;
    m.add_function(wrap_pyfunction!(solve_file, m)?)?;
    m.add_function(wrap_pyfunction!(grundy_edges, m)?)?;
    m.add_function(wrap_pyfunction!(grundy_file, m)?)?;
    m.add_function(wrap_pyfunction!(game, m)?)?;
    m.add_function(wrap_pyfunction!(open_db, m)?)?;
    m.add_function(wrap_pyfunction!(game_entries, m)?)?;
    m.add_function(wrap_pyfunction!(explore, m)?)?;
    m.add_function(wrap_pyfunction!(timed_solve, m)?)?;
    m.add_function(wrap_pyfunction!(_allocate, m)?)?;
    m.add_function(wrap_pyfunction!(open_chess_tablebase, m)?)?;
    m.add_class::<NativeGame>()?;
    m.add_class::<ChessTablebase>()?;
    Ok(())
}

//! What every part of the module shares: the memory limit and the allocator's failures,
//! long work on a worker thread that Ctrl-C interrupts, progress on stderr, values as codes.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use retrograde_solve::{Scored, Value};
use retrograde_tier::Event;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// "None" in the solver's remoteness and best-move arrays.
pub(crate) const NONE: u32 = u32::MAX;

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
pub(crate) fn memory_limit(memory: Option<&str>) -> PyResult<Option<retrograde_mem::Limit>> {
    let flag = memory
        .map(|m| {
            retrograde_mem::parse_size(m).map_err(|e| PyValueError::new_err(format!("memory: {e}")))
        })
        .transpose()?;
    Ok(retrograde_mem::detect(flag))
}

/// The plan of a graph: `n` vertices and `m` edges against the limit, before building it
/// (`count`: what sets the vertex count, for the message).
pub(crate) fn plan_graph(
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
pub(crate) fn value_codes(v: Value) -> (u8, i64) {
    (v.outcome() as u8, v.remoteness().map_or(-1, i64::from))
}

/// A value that may have a score, as it crosses into Python: outcome code, remoteness (-1
/// when the game never ends) and the score (`None` for a game without scores). With a
/// score, the outcome and remoteness are the score's (a tier game's game that never ends
/// after points were collected is a win or loss with remoteness -1).
pub(crate) fn scored_codes(v: Value, s: Option<Scored>) -> (u8, i64, Option<i64>) {
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
pub(crate) fn interruptible<T: Send + 'static>(
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
pub(crate) struct Progress {
    mode: Option<bool>,
    started: Instant,
    last: Mutex<Option<Instant>>,
    shown: AtomicBool,
}

impl Progress {
    pub(crate) fn new(mode: Option<bool>) -> Arc<Progress> {
        Arc::new(Progress {
            mode,
            started: Instant::now(),
            last: Mutex::new(None),
            shown: AtomicBool::new(false),
        })
    }

    pub(crate) fn show(&self, line: impl FnOnce() -> String) {
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

    pub(crate) fn finish(&self) {
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

pub(crate) fn tier_progress(p: Arc<Progress>) -> retrograde_tier::ProgressFn {
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

/// For the tests: allocates (and frees) `bytes` on a worker thread, as a solve would, so
/// that a failing allocation can be shown to be a `MemoryError`.
#[pyfunction]
pub(crate) fn _allocate(py: Python<'_>, bytes: usize) -> PyResult<usize> {
    interruptible(py, Some(1), None, move || {
        let v: Vec<u8> = Vec::with_capacity(bytes);
        std::hint::black_box(&v);
        v.capacity()
    })
}

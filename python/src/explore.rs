//! Games written in Python: explored from their start into a graph, then solved.

use crate::common::{Progress, NONE};
use numpy::prelude::*;
use numpy::{PyArray1, PyArray2};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

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
pub(crate) fn explore<'py>(
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

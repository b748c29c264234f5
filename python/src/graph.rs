//! Graphs: solved from edge arrays or a file, and their Sprague-Grundy values.

use crate::common::{interruptible, memory_limit, plan_graph, NONE};
use numpy::prelude::*;
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use rayon::prelude::*;
use retrograde_graph::format::{self, Format, ParseOptions};
use retrograde_graph::{Graph, GraphBuilder, Primitive};
use retrograde_solve::Rules;
use std::path::PathBuf;
use std::time::Instant;

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
pub(crate) fn solve_edges<'py>(
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
pub(crate) fn timed_solve(
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
pub(crate) fn solve_file<'py>(
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
pub(crate) fn grundy_edges<'py>(
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
pub(crate) fn grundy_file<'py>(
    py: Python<'py>,
    path: PathBuf,
    format: &str,
    n_vertices: Option<u64>,
    memory: Option<&str>,
) -> PyResult<GrundyArrays<'py>> {
    let g = read_graph(&path, format, n_vertices, memory_limit(memory)?)?;
    grundy_arrays(py, g)
}

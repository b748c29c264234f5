//! Parity games for Python (`retrograde.ParityGame`, `retrograde.parity`,
//! `retrograde.read_pg`, `retrograde.verify_parity`): a thin layer over `retrograde_parity`.
//! The package's `retrograde/_parity.py` wraps these into its classes.
//!
//! Players cross the boundary as 0 (Even) and 1 (Odd), a missing move as -1. Parsing and
//! solving run on a worker thread without the GIL (`crate::common::interruptible`), and a game too
//! big for the memory limit is refused before it is solved (`MemoryError`).

use numpy::prelude::*;
use numpy::{PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use retrograde_parity::{
    pg, solve_with, verify, Algorithm, Claim, Options, ParityGame, Player, NONE,
};
use std::sync::Arc;

/// A parity game held by the extension.
#[pyclass(name = "NativeParityGame", module = "retrograde._retrograde", frozen)]
pub struct NativeParityGame {
    game: Arc<ParityGame>,
}

/// The memory a solve of `game` needs beside the game (the CLI's estimate), refused over the
/// limit.
fn check_memory(game: &ParityGame, memory: Option<&str>) -> PyResult<()> {
    let flag = memory
        .map(retrograde_mem::parse_size)
        .transpose()
        .map_err(PyValueError::new_err)?;
    let need = game.heap_bytes() as u64 + 40 * game.vertex_count() as u64;
    retrograde_mem::check(
        &format!(
            "solving a parity game of {} vertices and {} edges",
            game.vertex_count(),
            game.edge_count()
        ),
        need,
        retrograde_mem::detect(flag),
    )
    .map_err(PyMemoryError::new_err)
}

#[pymethods]
impl NativeParityGame {
    #[getter]
    fn vertex_count(&self) -> usize {
        self.game.vertex_count()
    }

    #[getter]
    fn edge_count(&self) -> usize {
        self.game.edge_count()
    }

    #[getter]
    fn start(&self) -> Option<u32> {
        self.game.start()
    }

    fn priorities<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        self.game.priorities().to_vec().into_pyarray(py)
    }

    fn owners<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u8>> {
        (0..self.game.vertex_count() as u32)
            .map(|v| self.game.owner(v).index())
            .collect::<Vec<u8>>()
            .into_pyarray(py)
    }

    /// The moves as an (m, 2) array, by source then target.
    fn edges<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<u32>>> {
        let g = &self.game;
        let mut flat = Vec::with_capacity(2 * g.edge_count());
        for v in 0..g.vertex_count() as u32 {
            for &w in g.successors(v) {
                flat.push(v);
                flat.push(w);
            }
        }
        flat.into_pyarray(py).reshape([g.edge_count(), 2])
    }

    /// The names ("" for a vertex without one), or None when no vertex has one.
    fn names(&self) -> Option<Vec<String>> {
        let g = &self.game;
        g.has_names().then(|| {
            (0..g.vertex_count() as u32)
                .map(|v| g.name(v).unwrap_or("").to_string())
                .collect()
        })
    }

    /// The game in PGSolver's format.
    fn to_pg(&self) -> PyResult<String> {
        let mut out = Vec::new();
        pg::write_game(&self.game, &mut out).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(String::from_utf8(out).expect("the format is text"))
    }

    /// Solves: (winners, strategy, phases).
    #[pyo3(signature = (algorithm, preprocess, scc, memory=None))]
    #[allow(clippy::type_complexity)]
    fn solve<'py>(
        &self,
        py: Python<'py>,
        algorithm: &str,
        preprocess: bool,
        scc: bool,
        memory: Option<&str>,
    ) -> PyResult<(
        Bound<'py, PyArray1<u8>>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyDict>,
    )> {
        let algorithm: Algorithm = algorithm.parse().map_err(PyValueError::new_err)?;
        check_memory(&self.game, memory)?;
        let opts = Options {
            algorithm,
            preprocess,
            scc,
        };
        let game = Arc::clone(&self.game);
        let (s, p) =
            crate::common::interruptible(py, Some(1), None, move || solve_with(&game, &opts))?;
        let winners: Vec<u8> = s.winners().iter().map(|w| w.index()).collect();
        let strategy: Vec<i64> = s
            .strategies()
            .iter()
            .map(|&m| if m == NONE { -1 } else { m as i64 })
            .collect();
        let phases = PyDict::new(py);
        phases.set_item("preprocess_seconds", p.preprocess.as_secs_f64())?;
        phases.set_item("solve_seconds", p.solve.as_secs_f64())?;
        phases.set_item("preprocessed", p.preprocessed)?;
        phases.set_item("levels", p.levels)?;
        phases.set_item("components", p.components)?;
        phases.set_item("iterations", p.iterations)?;
        phases.set_item("algorithm", algorithm.as_str())?;
        Ok((winners.into_pyarray(py), strategy.into_pyarray(py), phases))
    }

    /// Checks a claimed solution given as arrays (winner 0 or 1 per vertex, a move or -1):
    /// None when right, else the first fault.
    fn verify(
        &self,
        winners: PyReadonlyArray1<'_, u8>,
        strategy: PyReadonlyArray1<'_, i64>,
    ) -> PyResult<Option<String>> {
        let n = self.game.vertex_count();
        let (w, s) = (winners.as_slice()?, strategy.as_slice()?);
        if w.len() != n || s.len() != n {
            return Err(PyValueError::new_err(format!(
                "a solution has a winner and a move per vertex: {} and {} for {n} vertices",
                w.len(),
                s.len()
            )));
        }
        let claim = Claim {
            winner: w
                .iter()
                .enumerate()
                .map(|(v, &x)| match x {
                    0 => Ok(Some(Player::Even)),
                    1 => Ok(Some(Player::Odd)),
                    _ => Err(PyValueError::new_err(format!(
                        "winner of vertex {v}: expected 0 (Even) or 1 (Odd), got {x}"
                    ))),
                })
                .collect::<PyResult<_>>()?,
            strategy: s.iter().map(|&m| u64::try_from(m).ok()).collect(),
        };
        Ok(verify(&self.game, &claim).err().map(|w| w.to_string()))
    }

    /// Checks a solution file's text (PGSolver's format or the CLI's CSV; gzip or bzip2
    /// too): None when right, else the first fault. A malformed file is a `ValueError`
    /// naming `name` and the line.
    fn verify_text(&self, data: &[u8], name: &str) -> PyResult<Option<String>> {
        let text = retrograde_parity::decompress(data, None)
            .map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?;
        let claim = pg::parse_solution(&text, self.game.vertex_count()).map_err(|e| {
            PyValueError::new_err(match e.line {
                Some(l) => format!("{name}:{l}: {}", e.message),
                None => format!("{name}: {}", e.message),
            })
        })?;
        Ok(verify(&self.game, &claim).err().map(|w| w.to_string()))
    }
}

/// Reads a game from a file's bytes (plain, gzip or bzip2); errors name `name` and the line.
#[pyfunction]
fn parity_parse(py: Python<'_>, data: Vec<u8>, name: String) -> PyResult<NativeParityGame> {
    let game = crate::common::interruptible(py, Some(1), None, move || {
        let text =
            retrograde_parity::decompress(&data, None).map_err(|e| format!("{name}: {e}"))?;
        pg::parse_game(&text).map_err(|e| match e.line {
            Some(l) => format!("{name}:{l}: {}", e.message),
            None => format!("{name}: {}", e.message),
        })
    })?
    .map_err(PyValueError::new_err)?;
    Ok(NativeParityGame {
        game: Arc::new(game),
    })
}

/// A game from arrays: a priority and an owner (0 or 1) per vertex, (m, 2) moves, names and
/// a start if any.
#[pyfunction]
#[pyo3(signature = (priorities, owners, edges, names=None, start=None))]
fn parity_game(
    priorities: PyReadonlyArray1<'_, u32>,
    owners: PyReadonlyArray1<'_, u8>,
    edges: PyReadonlyArray2<'_, u32>,
    names: Option<Vec<String>>,
    start: Option<u32>,
) -> PyResult<NativeParityGame> {
    let prio = priorities.as_slice()?.to_vec();
    let owner = owners
        .as_slice()?
        .iter()
        .enumerate()
        .map(|(v, &o)| match o {
            0 => Ok(Player::Even),
            1 => Ok(Player::Odd),
            _ => Err(PyValueError::new_err(format!(
                "owner of vertex {v}: expected 0 (Even) or 1 (Odd), got {o}"
            ))),
        })
        .collect::<PyResult<Vec<_>>>()?;
    let e = edges.as_array();
    let moves: Vec<(u32, u32)> = e.rows().into_iter().map(|r| (r[0], r[1])).collect();
    let mut game =
        ParityGame::new(prio, owner, &moves).map_err(|e| PyValueError::new_err(e.to_string()))?;
    if let Some(names) = names {
        game = game
            .with_names(&names)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
    }
    let game = game
        .with_start(start)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(NativeParityGame {
        game: Arc::new(game),
    })
}

/// Adds the parity functions and class to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parity_parse, m)?)?;
    m.add_function(wrap_pyfunction!(parity_game, m)?)?;
    m.add_class::<NativeParityGame>()?;
    Ok(())
}

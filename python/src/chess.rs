//! Chess tablebases: a database directory opened, and positions probed by FEN.

use crate::common::value_codes;
use pyo3::exceptions::PyFileNotFoundError;
use pyo3::exceptions::{PyKeyError, PyOSError, PyValueError};
use pyo3::prelude::*;
use retrograde_registry::chess;
use std::path::PathBuf;

/// An open chess tablebase (`retrograde.chess.open_tablebase`): the rules and values of
/// a database directory, probed by FEN, both freed with this object.
#[pyclass(module = "retrograde._retrograde", name = "ChessTablebase", frozen)]
pub(crate) struct ChessTablebase {
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
pub(crate) fn open_chess_tablebase(py: Python<'_>, path: PathBuf) -> PyResult<ChessTablebase> {
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

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
//! calling thread waits without the GIL and checks for Ctrl-C every 50 ms ([`common::interruptible`]).
//!
//! Nothing here may take the interpreter down. Before anything big is allocated, the
//! command line's memory plan (`retrograde_mem`: vertex count, largest id and edges of a
//! graph; `retrograde_registry::plan` for a game; the `memory=` argument as `--memory`)
//! refuses what will not fit, as a `MemoryError` with the command line's message. An
//! allocation that fails all the same is caught by the extension's global allocator
//! ([`common::alloc_failed`]): on a worker thread it becomes a `MemoryError` too.

mod chess;
mod common;
mod explore;
mod game;
mod graph;
mod parity;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
fn _retrograde(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(graph::solve_edges, m)?)?;
    m.add_function(wrap_pyfunction!(graph::solve_file, m)?)?;
    m.add_function(wrap_pyfunction!(graph::grundy_edges, m)?)?;
    m.add_function(wrap_pyfunction!(graph::grundy_file, m)?)?;
    m.add_function(wrap_pyfunction!(game::game, m)?)?;
    m.add_function(wrap_pyfunction!(game::open_db, m)?)?;
    m.add_function(wrap_pyfunction!(game::game_entries, m)?)?;
    m.add_function(wrap_pyfunction!(explore::explore, m)?)?;
    m.add_function(wrap_pyfunction!(graph::timed_solve, m)?)?;
    m.add_function(wrap_pyfunction!(common::_allocate, m)?)?;
    m.add_function(wrap_pyfunction!(chess::open_chess_tablebase, m)?)?;
    m.add_class::<game::NativeGame>()?;
    m.add_class::<chess::ChessTablebase>()?;
    parity::register(m)?;
    Ok(())
}

//! A database directory as the commands see it: a writer locks it first; a reader opens
//! only a finished database and, when there is none, says why.

use crate::input;
use anyhow::{anyhow, Result};
use retrograde_solve::exchange::Exchange;
use retrograde_tier::{DirStorage, META};
use std::path::Path;
use std::sync::Arc;

/// `dir` as the one writer's storage: locked by this process (under MPI, rank 0 locks for
/// the job, whose other ranks write their shares under its lock). A second writer stops
/// here at once, naming the directory and the process holding it. A collective.
///
/// # Errors
/// Another process writes `dir`, or the lock cannot be taken.
pub fn for_writing(dir: &Path, ex: Option<&dyn Exchange>) -> Result<Arc<DirStorage>> {
    let st = DirStorage::new(dir.to_path_buf());
    lock(&st, ex)?;
    Ok(Arc::new(st))
}

/// Locks `st` for writing, as [`for_writing`] does (for a command that writes only when it
/// finds no finished database to read). A collective.
///
/// # Errors
/// Another process writes the directory, or the lock cannot be taken.
pub fn lock(st: &DirStorage, ex: Option<&dyn Exchange>) -> Result<()> {
    let mine = if ex.map_or(0, |w| w.rank()) == 0 {
        st.lock().map_err(|e| anyhow!("{e}"))
    } else {
        Ok(())
    };
    match ex {
        Some(w) if w.size() > 1 => input::agree(mine, w),
        _ => mine,
    }
}

/// Why `dir` holds no finished database, and what to do: a writer at work, a solve
/// interrupted, or nothing that is a database at all.
pub fn not_finished(dir: &Path) -> anyhow::Error {
    let shown = dir.display();
    if let Some(who) = DirStorage::writer(dir) {
        return anyhow!(
            "{shown}: {who} is writing this database and has not finished it: wait for it to finish"
        );
    }
    let has = |f: &str| dir.join(f).exists();
    if has(retrograde_tier::identity::ID_FILE) {
        anyhow!(
            "{shown}: an unfinished database (no {META}: its solve was interrupted, or failed): run that `retrograde game ... --db {shown}` again with --resume"
        )
    } else if has("graph.values") {
        anyhow!(
            "{shown}: an unfinished graph database (no {META}): run `retrograde solve FILE --db {shown}` again"
        )
    } else {
        anyhow!(
            "{shown}: no database here (no {META}): `retrograde game NAME --db {shown}` or `retrograde solve FILE --db {shown}` writes one"
        )
    }
}

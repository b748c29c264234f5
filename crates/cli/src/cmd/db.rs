//! A database directory as the commands see it: a writer locks it first; a reader opens
//! only a finished database and, when there is none, says why; an error reading one says
//! how to repair it.

use crate::{input, mem};
use anyhow::{anyhow, Result};
use retrograde_registry::{Kind, QueryError, RunError};
use retrograde_solve::exchange::Exchange;
use retrograde_tier::{read_meta, DirStorage, Error, Storage, META};
use std::path::Path;
use std::sync::Arc;

/// `dir` as the one writer's storage: locked by this process (under MPI, rank 0 locks for
/// the job, whose other ranks write their shares under its lock). A second writer stops
/// here at once, naming the directory and the process holding it. A collective.
///
/// # Errors
/// Another process writes `dir`, or the lock cannot be taken.
pub fn for_writing(dir: &Path, ex: &dyn Exchange) -> Result<Arc<DirStorage>> {
    let st = DirStorage::new(dir.to_path_buf());
    lock(&st, ex)?;
    Ok(Arc::new(st))
}

/// Locks `st` for writing, as [`for_writing`] does (for a command that writes only when it
/// finds no finished database to read). A collective.
///
/// # Errors
/// Another process writes the directory, or the lock cannot be taken.
pub fn lock(st: &DirStorage, ex: &dyn Exchange) -> Result<()> {
    let mine = if ex.rank() == 0 {
        st.lock().map_err(|e| anyhow!("{e}"))
    } else {
        Ok(())
    };
    match ex.size() {
        1 => mine,
        _ => input::agree(mine, ex),
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

/// A database opened by its directory alone, how to repair it, and its files.
pub struct Opened {
    /// What it holds, and its answers.
    pub db: retrograde_registry::Opened,
    /// How to repair it when a file turns out damaged: ``run `retrograde game NAME ...
    /// --db DIR --resume` ``, or for a graph ``run `retrograde solve FILE --db DIR` ``.
    pub repair: String,
    /// Its files, to tell when they change on disk (a server opens it again then).
    pub storage: Arc<DirStorage>,
}

impl Opened {
    /// A lookup error as a message, with how to repair a damaged database.
    pub fn fail(&self, e: QueryError) -> anyhow::Error {
        let name = &self.db.name;
        match e {
            QueryError::Lookup(e) if e.is_damage() => {
                anyhow!("{name}: {e}; {} to repair it", self.repair)
            }
            e => anyhow!("{name}: {e}"),
        }
    }
}

/// Opens the finished database in `dir`, whatever it holds: `query` and `serve` both use it.
pub fn open(dir: &Path) -> Result<Opened> {
    let files = Arc::new(DirStorage::new(dir.to_path_buf()));
    let storage: Arc<dyn Storage> = files.clone();
    let shown = dir.display().to_string();
    if !dir.is_dir() {
        anyhow::bail!("{shown}: not a directory (a database is the directory `--db DIR` wrote)");
    }
    // Only a finished database is read (its description is written last).
    if !matches!(storage.size(META), Ok(Some(_))) {
        return Err(not_finished(dir));
    }
    let opened = retrograde_registry::open(storage.clone());
    // A graph database is repaired by solving the graph again (its solve does not resume);
    // with its description damaged, its files say what it is.
    let graph = match &opened {
        Ok(o) => o.graph,
        Err(_) => match read_meta(&*storage) {
            Ok(Some(m)) => m.game == "graph",
            _ => dir.join("graph.values").exists(),
        },
    };
    let repair = match repair_command(dir, &*storage) {
        Some(command) => format!("run `{command}`"),
        None if graph => format!("solve the graph again with `retrograde solve FILE --db {shown}`"),
        None => format!("solve again with --db {shown} --resume"),
    };
    match opened {
        Ok(db) => Ok(Opened {
            db,
            repair,
            storage: files,
        }),
        Err(e) if e.is_damage() => Err(anyhow!("{e}; {repair} to repair it")),
        Err(e) => Err(anyhow!("{e}")),
    }
}

/// A tier error with the game's name, and how to repair a damaged database.
pub fn tier_error(name: &str, e: Error, has_db: bool) -> anyhow::Error {
    if let Error::Memory { what, needed, .. } = &e {
        let what = if what.is_empty() { "solving" } else { what };
        return match mem::limit() {
            Some(l) => anyhow!("{name}: {what} {}", mem::refusal(*needed, l)),
            None => anyhow!(
                "{name}: {what} needs about {} of memory, more than could be allocated",
                mem::human(*needed)
            ),
        };
    }
    if e.is_damage() && has_db {
        anyhow!("{name}: {e}; run the same command with --resume to solve the damaged part again")
    } else {
        anyhow!("{name}: {e}")
    }
}

/// A run's error as `game` says it: a solve's or a database's with the game's name and how
/// to repair a damaged database; a lock every rank met alike printed once (rank 0's).
pub fn run_error(name: &str, e: RunError, has_db: bool, ex: &dyn Exchange) -> anyhow::Error {
    match e {
        RunError::Open(e) | RunError::Solve(e) => tier_error(name, e, has_db),
        RunError::Lock(e) if ex.size() > 1 => input::agreed(anyhow!("{e}")),
        e => anyhow::Error::new(e),
    }
}

/// The command that repairs the database in `dir`, from what its description records:
/// `retrograde game NAME PARAMETERS --db DIR --resume` for a game (the resumed solve checks
/// every file and solves again what is damaged), `retrograde solve FILE --db DIR` for a
/// graph (solved again whole), with every parameter it records. `None` when the
/// description cannot say (itself missing or damaged).
pub fn repair_command(dir: &Path, storage: &dyn Storage) -> Option<String> {
    let meta = read_meta(storage).ok()??;
    let params = &meta.params;
    let db = shell_word(&dir.display().to_string());
    let game = params.get("game")?.as_str()?;
    if game == "graph" {
        let file = match params.get("file").and_then(|f| f.as_str()) {
            Some(f) if f != "-" && !f.is_empty() => shell_word(f),
            _ => "FILE".to_string(),
        };
        let rule = match params.get("no_move").and_then(|r| r.as_str()) {
            Some(r) if r != "loss" => format!(" --no-move {}", shell_word(r)),
            _ => String::new(),
        };
        return Some(format!("retrograde solve {file} --db {db}{rule}"));
    }
    let entry = retrograde_registry::entry(game)?;
    let args = params.get("args")?.as_object()?;
    let (mut positional, mut named) = (Vec::new(), Vec::new());
    for p in entry.params {
        let text = match args.get(p.name) {
            None | Some(serde_json::Value::Null) => continue,
            Some(serde_json::Value::Bool(on)) if p.kind == Kind::Flag => {
                if *on {
                    named.push(format!("--{}", p.name));
                }
                continue;
            }
            Some(serde_json::Value::Array(list)) => (list.iter())
                .map(|n| n.as_u64().map(|n| n.to_string()))
                .collect::<Option<Vec<_>>>()?
                .join(","),
            Some(serde_json::Value::Number(n)) => n.to_string(),
            Some(serde_json::Value::String(t)) => t.clone(),
            Some(_) => return None,
        };
        if text.is_empty() {
            continue;
        }
        match p.positional {
            true => positional.push(shell_word(&text)),
            false => named.push(format!("--{} {}", p.name, shell_word(&text))),
        }
    }
    let words: Vec<String> = [format!("retrograde game {game}")]
        .into_iter()
        .chain(positional)
        .chain(named)
        .chain([format!("--db {db} --resume")])
        .collect();
    Some(words.join(" "))
}

/// `text` as one word of a shell command: as it is when it is plain, else in single quotes.
fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./:=,+-@%".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shell_word_is_quoted_only_when_it_needs_to_be() {
        assert_eq!(shell_word("c4-5x5/db"), "c4-5x5/db");
        assert_eq!(shell_word("my db"), "'my db'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
    }
}

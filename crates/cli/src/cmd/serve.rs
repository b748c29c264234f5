//! `retrograde serve DB...`: the web explorer over finished databases (`retrograde-serve`),
//! opened as `query` opens them.

use super::Status;
use crate::cli::ServeArgs;
use anyhow::{anyhow, bail, Context, Result};
use retrograde_registry::QueryError;
use retrograde_serve::{Served, Source};
use retrograde_tier::{DirStorage, META};
use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub fn run(args: &ServeArgs, out: &mut impl Write) -> Result<Status> {
    let mut served: Vec<Served> = Vec::new();
    for dir in &args.dbs {
        let id = unique_id(dir, &served);
        served.push(open(dir, id)?);
    }
    let addr: SocketAddr = (args.host.as_str(), args.port)
        .to_socket_addrs()
        .with_context(|| format!("--host {}: not an address this machine has", args.host))?
        .next()
        .ok_or_else(|| anyhow!("--host {}: no address", args.host))?;
    let listener =
        std::net::TcpListener::bind(addr).with_context(|| format!("cannot listen on {addr}"))?;
    listener.set_nonblocking(true)?;
    let bound = listener.local_addr()?;
    writeln!(out, "listening on http://{bound}/")?;
    for d in &served {
        writeln!(out, "  {}: {} (?db={})", d.id, d.name, d.id)?;
    }
    out.flush()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the server's threads")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let mut limits = retrograde_serve::Limits::default();
        if let Some(n) = crate::mem::open_files_limit() {
            limits.connections = limits.connections.min((n / 2).max(16) as usize);
        }
        retrograde_serve::serve_with(listener, served, limits).await
    })?;
    bail!("the server stopped")
}

/// The database in `dir` as served under `id`, opened as `query` opens it, and followed
/// on disk ([`OnDisk`]).
fn open(dir: &Path, id: String) -> Result<Served> {
    let opened = super::db::open(dir)?;
    let report = (opened.db.answer.report()).map_err(|e| opened.fail(QueryError::Lookup(e)))?;
    let source = OnDisk {
        dir: dir.to_path_buf(),
        id: id.clone(),
        storage: opened.storage.clone(),
    };
    Ok(Served {
        id,
        drawing: retrograde_registry::entry(&report.game)
            .map_or(retrograde_registry::Drawing::None, |e| e.drawing),
        game: report.game,
        name: opened.db.name,
        title: opened.db.title,
        sides: opened.db.sides,
        example: report.example,
        answer: opened.db.answer,
        repair: opened.repair,
        source: Box::new(source),
    })
}

/// A database directory as the server follows it: the storage that read its files tells
/// when they change. Every solve writes the description (`database.json`) last, so a
/// description other than the one read means a repair or a solve again has finished (a
/// missing one, a writer at work: what is open is kept until it is done); after a lookup
/// fails, any file read that has changed counts too.
struct OnDisk {
    dir: PathBuf,
    id: String,
    storage: Arc<DirStorage>,
}

impl Source for OnDisk {
    fn unchanged(&self, thorough: bool) -> bool {
        !(self.storage.replaced(META) || (thorough && self.storage.changed()))
    }

    fn reopen(&self) -> Result<Served, String> {
        open(&self.dir, self.id.clone()).map_err(|e| format!("{e:#}"))
    }
}

/// The directory's name, with `-2`, `-3`… when another database has it.
fn unique_id(dir: &std::path::Path, taken: &[Served]) -> String {
    let base: String = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty() && n != "." && n != "..")
        .unwrap_or_else(|| "db".into())
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut id = base.clone();
    let mut k = 1;
    while taken.iter().any(|d| d.id == id) {
        k += 1;
        id = format!("{base}-{k}");
    }
    id
}

#[cfg(test)]
mod tests {
    use retrograde_serve::{IDLE_TIME, IN_FLIGHT, LOOKUP_TIME, MAX_LISTED, MAX_MOVES};

    #[test]
    fn the_help_states_the_servers_limits() {
        let help = crate::cli::LIMITS;
        for said in [
            format!("at most {MAX_LISTED} moves"),
            format!("replays at most {MAX_MOVES} moves"),
            format!("given\n  up after {} s", LOOKUP_TIME.as_secs()),
            format!("at most {IN_FLIGHT} run at once"),
            format!("for {} s is closed", IDLE_TIME.as_secs()),
            format!(
                "at most {} are open",
                retrograde_serve::Limits::default().connections
            ),
        ] {
            assert!(help.contains(&said), "{said:?} not in the help");
        }
    }
}

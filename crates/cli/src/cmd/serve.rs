//! `retrograde serve DB...`: the web explorer over finished databases (`retrograde-serve`),
//! opened as `query` opens them.

use super::Status;
use crate::cli::ServeArgs;
use anyhow::{anyhow, bail, Context, Result};
use retrograde_serve::Served;
use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};

pub fn run(args: &ServeArgs, out: &mut impl Write) -> Result<Status> {
    let mut served: Vec<Served> = Vec::new();
    for dir in &args.dbs {
        let opened = super::db::open(dir)?.db;
        let report = opened
            .answer
            .report()
            .map_err(|e| anyhow!("{}: {e}", dir.display()))?;
        served.push(Served {
            id: unique_id(dir, &served),
            drawing: retrograde_registry::entry(&report.game)
                .map_or(retrograde_registry::Drawing::None, |e| e.drawing),
            game: report.game,
            name: opened.name,
            title: opened.title,
            sides: opened.sides,
            example: report.example,
            answer: opened.answer,
        });
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

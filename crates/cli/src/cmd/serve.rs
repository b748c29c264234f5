//! `retrograde serve DB...`: the web explorer over finished databases (`retrograde-serve`),
//! opened as `query` opens them.

use super::Status;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use retrograde_serve::Served;
use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The database directories (`game NAME --db DIR` or `solve FILE --db DIR` wrote them).
    #[arg(value_name = "DB", required = true)]
    pub dbs: Vec<PathBuf>,
    /// The port to listen on; 0 picks a free one (the URL printed says which).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on. The server has no access control: keep it on the loopback
    /// address unless everyone who can reach it may read the databases.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
}

/// The server's limits, for `serve --help` (the numbers are `retrograde_serve`'s).
pub const LIMITS: &str = "\
Examples:
  retrograde game connect4 --width 5 --height 4 --db c4 && retrograde serve c4
  retrograde serve c4 t3 --port 0
  curl 'http://127.0.0.1:8080/api/query?db=c4&moves=3,3'

Limits (so that no client can stop the server answering others):
  An answer lists at most 1000 moves, the best first, and \"more\": N counts the others
  (the page shows \"and N more\"). A query replays at most 1000 moves. A lookup is given
  up after 5 s, and at most 32 run at once: past either, HTTP 503 with {\"error\"} and
  Retry-After. A connection with no request in flight for 10 s is closed (one that sends
  nothing, or half a request); at most 512 are open (half of `ulimit -n` when lower), and
  a new one closes the one idle the longest. The Host header must name the address the
  server listens on (on loopback: a loopback address or localhost; with --host 0.0.0.0:
  an address or localhost), else HTTP 403: a page of another site that points a name of
  its own at this machine (DNS rebinding) cannot read the databases. A parameter given
  twice (db=a&db=b) is HTTP 400.";

pub fn run(args: &ServeArgs, out: &mut impl Write) -> Result<Status> {
    let mut served: Vec<Served> = Vec::new();
    for dir in &args.dbs {
        let opened = super::db::open(dir)?;
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
        let help = super::LIMITS;
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

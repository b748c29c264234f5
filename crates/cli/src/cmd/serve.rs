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

pub fn run(args: &ServeArgs, out: &mut impl Write) -> Result<Status> {
    let mut served: Vec<Served> = Vec::new();
    for dir in &args.dbs {
        let opened = super::query::open(dir)?;
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
        retrograde_serve::serve(listener, served).await
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

//! `retrograde play GAME`: play against perfect play, one command line at a time.
//!
//! The game is solved first; then the library's [`Session`] does everything else. This file
//! only parses the arguments, builds the playable game, and runs the read-print loop over
//! standard input and output (no terminal needed: without one, each command read is echoed
//! after the prompt, so a transcript reads like a session).

use super::db::tier_error;
use super::Status;
use crate::cli::PlayArgs;
use crate::flags::GraphPlay;
use crate::games::PlayCommand;
use crate::{input, mem, progress};
use anyhow::{anyhow, bail, Result};
use retrograde_games::play::{start_session, DynSession, PlayGraph};
use retrograde_registry::{Answer, QueryError, Reuse, Run, RunError};
use retrograde_solve::exchange::Solo;
use retrograde_solve::solve;
use std::io::{self, IsTerminal, Write};
use std::path::Path;

pub fn run(args: &PlayArgs, out: &mut impl Write) -> Result<Status> {
    match &args.game {
        PlayCommand::Graph(GraphPlay { file, graph, start }) => {
            not_stdin(file)?;
            let loaded = input::load(Some(file), graph)?;
            let g = &loaded.graph;
            if g.vertex_count() == 0 {
                bail!(
                    "{}: the graph has no vertices: nothing to play",
                    loaded.name
                );
            }
            let start = match start {
                Some(v) => input::vertex(g, v).map_err(|e| anyhow!("--start: {e}"))?,
                None => g.start().unwrap_or(0),
            };
            let solution = solve(g, &input::rules(graph.no_move));
            let game =
                PlayGraph::new(g, &solution, start).map_err(|e| anyhow!("{}: {e}", loaded.name))?;
            let (session, intro) = start_session(&game, &args.side).map_err(|e| anyhow!("{e}"))?;
            play(session, intro, &|e| anyhow!("{e}"), out)
        }
        PlayCommand::Game(choice, flags) => {
            let entry = choice.entry;
            let values = choice.args(true)?;
            let built = entry.build(&values).map_err(|e| anyhow!("{e}"))?;
            let name = built.name();
            let fail = |e: retrograde_tier::Error| {
                match (&flags.db, e.is_damage()) {
                // `play` has no --resume: the repair is a solve by `game`.
                (Some(d), true) => anyhow!(
                    "{name}: {e}; solve it again with `retrograde game {} ... --db {} --resume` (the same parameters) to repair it",
                    entry.name,
                    d.display()
                ),
                _ => tier_error(&name, e, false),
            }
            };
            // A finished database is played as it is; without one, solving writes it.
            let (bars, shown) = progress::tier_bars(built.logs_tiers());
            let ran = Run::new(built)
                .db(flags.db.clone())
                .resume(flags.db.is_some())
                .reuse(Reuse::Finished)
                .memory(mem::limit())
                .give_back(mem::give_back)
                .progress(shown)
                .start(&Solo);
            bars.lock().unwrap_or_else(|p| p.into_inner()).finish();
            let answer = ran.map_err(|e| match e {
                RunError::Open(e) | RunError::Lock(e) | RunError::Solve(e) => fail(e),
                e => anyhow::Error::new(e),
            })?;
            let (session, intro) = answer
                .session(&args.side, flags.position.as_deref())
                .map_err(|e| match e {
                    QueryError::Lookup(e) => fail(e),
                    e => anyhow!("{e}"),
                })?;
            play(session, intro, &fail, out)
        }
    }
}

fn not_stdin(path: &Path) -> Result<()> {
    if path == Path::new("-") {
        bail!("play reads your moves from standard input: give the game as a file, not -");
    }
    Ok(())
}

/// The read-print loop: the session's text out, one command line in, until `quit` or the
/// end of the input.
fn play(
    mut session: Box<dyn DynSession + '_>,
    intro: String,
    fail: &dyn Fn(retrograde_tier::Error) -> anyhow::Error,
    out: &mut impl Write,
) -> Result<Status> {
    out.write_all(intro.as_bytes())?;
    let stdin = io::stdin();
    let echo = !stdin.is_terminal();
    let mut input = stdin.lock();
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        out.write_all(session.prompt().as_bytes())?;
        out.flush()?;
        number += 1;
        let n = input::read_command(&mut input, &mut line, number)?;
        if n == 0 {
            writeln!(out)?;
            out.write_all(session.end_of_input().as_bytes())?;
            break;
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\n', '\r']);
        if echo {
            writeln!(out, "{text}")?;
        }
        let reply = session.command(text).map_err(fail)?;
        out.write_all(reply.text.as_bytes())?;
        if reply.done {
            break;
        }
    }
    Ok(Status::Success)
}

//! `retrograde play GAME`: play against perfect play, one command line at a time.
//!
//! The game is solved first; then the library's [`Session`] does everything else. This file
//! only parses the arguments, builds the playable game, and runs the read-print loop over
//! standard input and output (no terminal needed: without one, each command read is echoed
//! after the prompt, so a transcript reads like a session).

use super::db::tier_error;
use super::Status;
use crate::cli::GraphArgs;
use crate::games::PlayCommand;
use crate::{input, mem, progress};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use retrograde_games::play::{start_session, DynSession, PlayGraph};
use retrograde_registry::{Answer, QueryError, Reuse, Run, RunError};
use retrograde_solve::exchange::Solo;
use retrograde_solve::solve;
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::path::PathBuf;

const PLAY_HELP: &str = "\
How to play:
  The position is shown with its value for the side to move, then every legal move, best
  first, with what it is worth to the side that plays it. Type a move as listed (b2,
  take 2, 7, ne, ...) or a command: moves, show, hint, undo, help, quit. The engine
  answers at once with a best move (the first of the best-valued ones as listed).
  Commands are read line by line from standard input, so a script can play; without a
  terminal each command is echoed after the prompt. An illegal move is reported with the
  legal ones and play goes on. The end of the input ends the session (exit status 0).

Values, for the player to move, with perfect play from both sides (plies = single moves):
  win in 3    that player wins in 3 plies     loss in 8   loses in 8 at the latest
  tie in 2    the game ends level in 2        draw        the game never ends
  A drawn game goes on until you quit (a repeated position is pointed out); if the engine
  would move forever without your turn coming (a cycle of its own), the game ends there
  as a draw.

Examples:
  retrograde play tictactoe                          # you are X and move first
  retrograde play tictactoe --side O                 # the engine opens
  retrograde play pebbles --count 10 --take 1,2      # type \"take 1\" or just \"1\"
  retrograde play graph examples/loopy.rg --start 8  # moves are vertex ids or names
  retrograde play police-thief map.txt --side thief  # moves are n ne e se s sw w nw stay
  printf 'b2\\nhint\\nundo\\nquit\\n' | retrograde play tictactoe";

#[derive(Debug, Args)]
#[command(after_help = PLAY_HELP)]
pub struct PlayArgs {
    #[command(subcommand)]
    pub game: crate::games::PlayCommand,
    /// Your side: `first` or `1` (the side that moves first), `second` or `2`, or a side's
    /// name (X, O, policeman, thief, "player 1" in an arena). The engine plays the other.
    #[arg(long, global = true, value_name = "SIDE", default_value = "first")]
    pub side: String,
}

/// The flags of `play NAME` for tier games.
#[derive(Clone, Debug, Default, Args)]
pub struct PlayTierArgs {
    /// Play from a finished database (`retrograde game NAME ... --db DIR`, the same
    /// parameters) instead of solving first. A database of another game or size is
    /// refused.
    #[arg(long, value_name = "DIR")]
    pub db: Option<PathBuf>,
    /// Start from this position, in the game's notation (see `retrograde game NAME
    /// --help`), instead of the start.
    #[arg(long, value_name = "POSITION")]
    pub position: Option<String>,
}

/// The long help of `play graph`.
pub const GRAPH_ABOUT: &str = "Any game graph file (the formats of `retrograde solve`).\n\n\
Moves are labelled by the successor's id, and by its name when the file gives one. The turn \
passes on every move except go-again ones; in an arena the owner of a vertex moves there (the \
sides are player 0 and player 1).";

/// The examples of `play graph`.
pub const GRAPH_EXAMPLES: &str = "Examples:\n  \
    retrograde play graph examples/pebbles.rg            # starts at the file's start\n  \
    retrograde play graph examples/arena.rg --side 2\n  \
    retrograde play graph game.txt --start 5 --no-move win";

/// `play graph FILE`.
#[derive(Clone, Debug, Args)]
pub struct GraphPlay {
    /// The graph file (not standard input, which carries your moves).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    #[command(flatten)]
    pub graph: GraphArgs,
    /// Where to start: a vertex id or a name from the file (default: the file's start,
    /// else vertex 0).
    #[arg(long, value_name = "V")]
    pub start: Option<String>,
}

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

//! `retrograde play GAME`: play against perfect play, one command line at a time.
//!
//! The game is solved first; then the library's [`Session`] does everything else. This file
//! only parses the arguments, builds the playable game, and runs the read-print loop over
//! standard input and output (no terminal needed: without one, each command read is echoed
//! after the prompt, so a transcript reads like a session).

use super::Status;
use crate::cli::GraphArgs;
use crate::input::{self, located};
use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use retrograde_games::connect4::{self, Connect4};
use retrograde_games::pebbles::Pebbles;
use retrograde_games::play::{parse_side, PlayGraph, Playable, Session};
use retrograde_games::police::Map;
use retrograde_games::quixo::{self, Quixo};
use retrograde_games::tictactoe::TicTacToe;
use retrograde_solve::solve;
use std::io::{self, BufRead, IsTerminal, Read, Write};
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
    pub game: PlayGame,
    /// Your side: `first` or `1` (the side that moves first), `second` or `2`, or a side's
    /// name (X, O, policeman, thief, "player 1" in an arena). The engine plays the other.
    #[arg(long, global = true, value_name = "SIDE", default_value = "first")]
    pub side: String,
}

#[derive(Debug, Subcommand)]
pub enum PlayGame {
    /// Any game graph file (the formats of `retrograde solve`).
    ///
    /// Moves are labelled by the successor's id, and by its name when the file gives one. The turn passes on every
    /// move except go-again ones; in an arena the owner of a vertex moves there (the sides
    /// are player 0 and player 1).
    #[command(after_help = "Examples:\n  \
        retrograde play graph examples/pebbles.rg            # starts at the file's start\n  \
        retrograde play graph examples/arena.rg --side 2\n  \
        retrograde play graph game.txt --start 5 --no-move win")]
    Graph {
        /// The graph file (not standard input, which carries your moves).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        #[command(flatten)]
        graph: GraphArgs,
        /// Where to start: a vertex id or a name from the file (default: the file's start,
        /// else vertex 0).
        #[arg(long, value_name = "V")]
        start: Option<String>,
    },
    /// The pebble game: take pebbles; who cannot move loses (or wins, with --misere).
    ///
    /// A move takes an amount from the take-set: type `take N`, or just `N`.
    #[command(after_help = "Examples:\n  \
        retrograde play pebbles                              # 10 pebbles, take 1 or 2\n  \
        retrograde play pebbles --count 21 --take 1,3,4 --side second")]
    Pebbles {
        /// Pebbles in the bag at the start.
        #[arg(long, default_value_t = 10)]
        count: u32,
        /// The amounts a move may take, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "1,2")]
        take: Vec<u32>,
        /// Misère play: the player who cannot move wins.
        #[arg(long)]
        misere: bool,
    },
    /// Tic-tac-toe and other m,n,k-games.
    ///
    /// X (first) and O fill cells in turn, k in a row wins, a full board is a tie. Cells
    /// are named column letter then row number, a1 top left (b2 is the centre of 3x3).
    /// Every reachable position is solved before play starts: instant for 3x3, but time and
    /// memory grow very fast with the board (boards over 12 cells use a hash map).
    #[command(after_help = "Examples:\n  \
        retrograde play tictactoe --side O\n  \
        retrograde play tictactoe --rows 3 --cols 4 --k 3")]
    Tictactoe {
        /// Board rows.
        #[arg(long, default_value_t = 3)]
        rows: u32,
        /// Board columns (rows x cols at most 32).
        #[arg(long, default_value_t = 3)]
        cols: u32,
        /// How many in a row win.
        #[arg(long, default_value_t = 3)]
        k: u32,
    },
    /// Connect-4: drop stones into columns; four in a row wins, a full board ties.
    ///
    /// Type a column number (1 = left). Every position is solved before play starts (5x4:
    /// under a second; 5x5, 6x4: seconds); with --db, a finished database (from
    /// `retrograde game connect4 --db DIR`) is used without solving, even 6x5.
    #[command(after_help = "Examples:\n  \
        retrograde play connect4                             # 5x4\n  \
        retrograde play connect4 --width 6 --height 5 --db c4-6x5 --side O")]
    Connect4 {
        /// Columns.
        #[arg(long, default_value_t = 5)]
        width: u32,
        /// Rows.
        #[arg(long, default_value_t = 4)]
        height: u32,
        /// A finished database of this board to play from (else a temporary one is made).
        #[arg(long, value_name = "DIR")]
        db: Option<PathBuf>,
    },
    /// Quixo: take a blank cube or one of yours from the border, push it back in at an end
    /// of its row or column; a line of yours wins, making one of the opponent's loses.
    ///
    /// Type the cube taken and where it goes back in: `a1 a3` (columns a.. left to right,
    /// rows 1.. bottom to top). 3x3 solves at once; 4x4 takes about a minute and 150 MB.
    #[command(after_help = "Examples:\n  \
        retrograde play quixo\n  \
        retrograde play quixo --size 4 --side O")]
    Quixo {
        /// The side of the board: 3 or 4.
        #[arg(long, default_value_t = 3)]
        size: u32,
    },
    /// The policeman and the thief on a map file.
    ///
    /// The map is as for `retrograde game police-thief`: `n m`, then n rows; `*` wall, `P` policeman, `T` thief, `E` exit. The policeman moves
    /// first, to one of 8 neighbours; the thief to one of 4; either may stay. Moves are
    /// n ne e se s sw w nw (north is up) and stay.
    #[command(after_help = "Examples:\n  \
        retrograde play police-thief map.txt                 # you are the policeman\n  \
        retrograde play police-thief map.txt --side thief")]
    PoliceThief {
        /// The map file (not standard input, which carries your moves).
        #[arg(value_name = "MAP")]
        map: PathBuf,
    },
}

pub fn run(args: &PlayArgs, out: &mut impl Write) -> Result<Status> {
    match &args.game {
        PlayGame::Graph { file, graph, start } => {
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
            play(&game, &args.side, out)
        }
        PlayGame::Pebbles {
            count,
            take,
            misere,
        } => {
            let game = Pebbles::new(*count, take.clone()).map_err(|e| anyhow!("pebbles: {e}"))?;
            play(&game.solve(*misere)?, &args.side, out)
        }
        PlayGame::Tictactoe { rows, cols, k } => {
            let game = TicTacToe::new(*rows, *cols, *k).map_err(|e| anyhow!("tictactoe: {e}"))?;
            play(&game.solve()?, &args.side, out)
        }
        PlayGame::Connect4 { width, height, db } => {
            let game = Connect4::new(*width, *height).map_err(|e| anyhow!("connect4: {e}"))?;
            let fail = |e: connect4::SolveError| anyhow!("connect4 {width}x{height}: {e}");
            if let Some(dir) = db {
                if let Some(s) = game.open(dir).map_err(fail)? {
                    return play(&s, &args.side, out);
                }
            }
            let tmp = tempfile::Builder::new()
                .prefix("retrograde-tiers-")
                .tempdir()
                .map_err(|e| anyhow!("cannot create a temporary directory for the tiers: {e}"))?;
            let dir = db.clone().unwrap_or_else(|| tmp.path().to_path_buf());
            let s = game
                .solve(&connect4::SolveOptions {
                    dir: Some(dir),
                    resume: db.is_some(),
                    memory_limit: crate::mem::available_bytes(),
                    progress: None,
                })
                .map_err(fail)?;
            play(&s, &args.side, out)
        }
        PlayGame::Quixo { size } => {
            let game = Quixo::new(*size).map_err(|e| anyhow!("quixo: {e}"))?;
            let s = game
                .solve_with(&quixo::SolveOptions {
                    memory_limit: crate::mem::available_bytes(),
                    ..quixo::SolveOptions::default()
                })
                .map_err(|e| anyhow!("quixo {size}x{size}: {e}"))?;
            play(&s, &args.side, out)
        }
        PlayGame::PoliceThief { map } => {
            not_stdin(map)?;
            let name = input::display_name(Some(map));
            let mut text = Vec::new();
            input::open(Some(map))?
                .read_to_end(&mut text)
                .map_err(|e| anyhow!("{name}: cannot read: {e}"))?;
            let map = Map::parse(&text).map_err(|e| located(&name, e))?;
            let s = map.solve()?;
            play(s.game(), &args.side, out)
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
fn play<G: Playable>(game: &G, side: &str, out: &mut impl Write) -> Result<Status> {
    let human = parse_side(game, side).map_err(|e| anyhow!("--side: {e}"))?;
    let (mut session, intro) = Session::new(game, human);
    out.write_all(intro.as_bytes())?;
    let stdin = io::stdin();
    let echo = !stdin.is_terminal();
    let mut input = stdin.lock();
    let mut line = Vec::new();
    loop {
        out.write_all(session.prompt().as_bytes())?;
        out.flush()?;
        line.clear();
        let n = input
            .read_until(b'\n', &mut line)
            .context("<stdin>: cannot read")?;
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
        let reply = session.command(text);
        out.write_all(reply.text.as_bytes())?;
        if reply.done {
            break;
        }
    }
    Ok(Status::Success)
}

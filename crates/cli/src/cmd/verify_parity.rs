//! `retrograde verify-parity`: check a claimed solution of a parity game with the
//! independent verifier (`retrograde_parity::verify`, which shares no code with the
//! solvers).

use super::Status;
use crate::cmd::parity;
use crate::input;
use anyhow::{bail, Result};
use clap::Args;
use retrograde_parity::{pg, verify, Player};
use std::io::Write;
use std::path::PathBuf;

const VERIFY_HELP: &str = "\
The solution: PGSolver's format (\"paritysol N;\" then \"id winner [move];\" per vertex,
the move given where the winner moves), as `retrograde parity --output pgsolver`, Oink
and PGSolver write it, or the CSV of `retrograde parity --output csv`. Either file may be
compressed with gzip or bzip2.

It is right when every vertex has a winner; each player's region is closed (the winner's
move stays in it, every move of the loser stays in it); and every cycle the winner's moves
allow in its region has a largest priority of the winner's parity (checked by splitting the
region into strongly connected components, priority by priority). Then each player wins
its region by its moves, and the regions are the game's only solution.

Exit status: 0 right, 1 wrong (the first fault is named), 2 an error (a file that cannot
be read, a malformed line: the file and the line are named).

Examples:
  retrograde parity game.pg --output pgsolver > game.sol && retrograde verify-parity game.pg game.sol
  oink game.pg game.sol && retrograde verify-parity game.pg game.sol";

/// The arguments of `retrograde verify-parity`.
#[derive(Debug, Args)]
#[command(after_help = VERIFY_HELP)]
pub struct VerifyParityArgs {
    /// The game (PGSolver's format; `-` for standard input).
    #[arg(value_name = "GAME")]
    pub game: PathBuf,
    /// The claimed solution (PGSolver's solution format or this program's CSV; `-` for
    /// standard input).
    #[arg(value_name = "SOLUTION")]
    pub solution: PathBuf,
}

pub fn run(args: &VerifyParityArgs, out: &mut impl Write) -> Result<Status> {
    if args.game.as_os_str() == "-" && args.solution.as_os_str() == "-" {
        bail!("the game and the solution cannot both come from standard input");
    }
    let (game, _, _, _) = parity::load(Some(&args.game))?;
    let (text, name, _) = parity::read_text(Some(&args.solution))?;
    let claim =
        pg::parse_solution(&text, game.vertex_count()).map_err(|e| input::located(&name, e))?;
    match verify(&game, &claim) {
        Ok(()) => {
            let even = claim
                .winner
                .iter()
                .filter(|&&w| w == Some(Player::Even))
                .count();
            writeln!(
                out,
                "ok: {} vertices checked, the solution is right (Even wins {even}, Odd wins {})",
                game.vertex_count(),
                game.vertex_count() - even
            )?;
            Ok(Status::Success)
        }
        Err(w) => {
            writeln!(out, "wrong: {name}: {w}")?;
            Ok(Status::Negative)
        }
    }
}

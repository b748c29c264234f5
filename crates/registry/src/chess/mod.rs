//! Chess endings: the tier game of `retrograde_games::chess` with a report of its own (an
//! ending has no start position: the report counts the ending's positions by side to move;
//! a set of endings reports each ending) and a CSV dump of every position; and the
//! tablebases it writes, probed by FEN ([`Tablebase`]).

mod report;
mod tablebase;

pub use tablebase::{dtm, Probe, ProbeError, ProbeResult, Tablebase, Wdl};

use crate::tier::Hooks;
use crate::{Args, BuildError, Report};
use retrograde_games::about::About;
use retrograde_games::chess::Chess;
use retrograde_games::GameError;
use retrograde_tier::{Error, TierSolution};

/// Chess's entry: positions asked by FEN (no start), a report by side to move or by ending,
/// `--dump`; a set of endings (`--up-to N`) logs a line per table and resumes into its
/// database, with five pieces in files even without `--db` (they do not fit in memory
/// together).
pub(crate) struct Endings;

impl Hooks<Chess> for Endings {
    const FROM_START: bool = false;
    const DUMPS: bool = true;
    const COMPACTS: bool = true;

    fn needs_storage(game: &Chess) -> bool {
        game.set().is_some_and(|n| n >= 5)
    }

    fn is_set(game: &Chess) -> bool {
        game.set().is_some()
    }

    /// An ending's report counts its positions by side to move: it reads every value.
    fn reads_every_value(game: &Chess) -> bool {
        game.set().is_none()
    }

    fn report(solution: &TierSolution<'_, Chess>, _: &About) -> Result<Report, Error> {
        match solution.game().set() {
            Some(n) => report::set_report(solution, n),
            None => report::ending_report(solution),
        }
    }

    fn dump(
        solution: &TierSolution<'_, Chess>,
        out: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        report::dump(solution, out)
    }
}

/// The game of the registry's parameters: an ending (`material`) or every ending of up to
/// `up-to` pieces.
///
/// # Errors
/// Neither or both given; the game's refusal of a malformed material or a number of pieces
/// out of range (inside).
pub(crate) fn make(a: &Args) -> Result<Result<Chess, GameError>, BuildError> {
    let material = a.text("material").ok().filter(|m| !m.is_empty());
    match (material, a.number("up-to").ok()) {
        (Some(m), None) => Ok(Chess::new(m)),
        (None, Some(n)) => Ok(Chess::up_to(usize::try_from(n).unwrap_or(usize::MAX))),
        (Some(_), Some(_)) => Err(BuildError::Invalid(
            "chess: give an ending (MATERIAL) or --up-to N, not both".into(),
        )),
        (None, None) => Err(BuildError::Invalid(
            "chess: give an ending (MATERIAL, like KQvK) or --up-to N (3, 4 or 5 pieces)".into(),
        )),
    }
}

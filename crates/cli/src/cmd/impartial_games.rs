//! `retrograde game octal|subtraction|grundy-game`: nim-sequences of heap games.

use super::Status;
use crate::cli::{GameCommand, GameOutput};
use anyhow::{anyhow, bail, Result};
use retrograde_impartial::HeapGame;
use std::io::Write;
use std::time::Instant;

/// The most terms `--count` may ask for (4 bytes each, and quadratic time for splits).
const MAX_COUNT: u64 = 100_000_000;
/// Heaps of value 0 listed by the text output.
const LISTED_ZEROS: usize = 40;

pub fn run(
    game: &GameCommand,
    output: GameOutput,
    started: Instant,
    out: &mut impl Write,
) -> Result<Status> {
    let (heap_game, id, count, want_period) = match game {
        GameCommand::Octal {
            code,
            count,
            period,
        } => (
            HeapGame::octal(code).map_err(|e| anyhow!("game octal: {e}"))?,
            "octal",
            *count,
            *period,
        ),
        GameCommand::Subtraction {
            take,
            count,
            period,
        } => (
            HeapGame::subtraction(take).map_err(|e| anyhow!("game subtraction: {e}"))?,
            "subtraction",
            *count,
            *period,
        ),
        GameCommand::GrundyGame { count, period } => {
            (HeapGame::grundy_game(), "grundy-game", *count, *period)
        }
        _ => bail!("internal error: not a heap game"),
    };
    if count == 0 {
        bail!("game {id}: --count must be at least 1 (heaps 0 to N-1)");
    }
    if count > MAX_COUNT {
        bail!("game {id}: --count {count} is too many terms (at most {MAX_COUNT})");
    }
    let values = heap_game.nim_sequence(count as usize);
    let period = if want_period {
        heap_game.period(&values)
    } else {
        None
    };
    let zeros: Vec<usize> = (0..values.len()).filter(|&n| values[n] == 0).collect();
    let seconds = started.elapsed().as_secs_f64();
    match output {
        GameOutput::Text => {
            let last = count - 1;
            writeln!(
                out,
                "{}: Grundy values of heaps 0 to {last}",
                heap_game.name()
            )?;
            let line: Vec<String> = values.iter().map(|v| v.to_string()).collect();
            writeln!(out, "{}", line.join(" "))?;
            let listed: Vec<String> = zeros
                .iter()
                .take(LISTED_ZEROS)
                .map(|z| z.to_string())
                .collect();
            write!(
                out,
                "heaps of value 0 (lost for the player to move): {}",
                listed.join(" ")
            )?;
            if zeros.len() > LISTED_ZEROS {
                write!(out, " ... ({} of {count})", zeros.len())?;
            }
            writeln!(out)?;
            if want_period {
                match (period, id) {
                    (Some(p), _) => writeln!(
                        out,
                        "pre-period {}, period {}: G(n + {}) = G(n) for every n >= {} (proved by the Guy-Smith periodicity theorem from these {count} terms)",
                        p.preperiod, p.period, p.period, p.preperiod
                    )?,
                    (None, "grundy-game") => writeln!(
                        out,
                        "no period found up to {count} (no periodicity theorem covers Grundy's game, so none can be proved)"
                    )?,
                    (None, _) => writeln!(
                        out,
                        "no period found up to {count} (none that these terms prove; a larger --count may)"
                    )?,
                }
            }
            writeln!(out, "time {seconds:.3} s")?;
        }
        GameOutput::Json => {
            write!(
                out,
                "{{\"game\":\"{id}\",\"name\":{}",
                serde_json::to_string(&heap_game.name())?
            )?;
            match game {
                GameCommand::Octal { .. } => write!(
                    out,
                    ",\"code\":{}",
                    serde_json::to_string(heap_game.code().unwrap_or_default())?
                )?,
                GameCommand::Subtraction { take, .. } => {
                    let mut set = take.clone();
                    set.sort_unstable();
                    set.dedup();
                    write!(out, ",\"take\":{}", serde_json::to_string(&set)?)?
                }
                _ => {}
            }
            // The largest heap computed stands for the start; a nim-sequence gives values,
            // not game lengths, so there is no remoteness.
            let last = values.len() - 1;
            let start = format!(
                "{{\"heap\":{last},\"outcome\":\"{}\",\"remoteness\":null}}",
                if values[last] == 0 { "loss" } else { "win" }
            );
            write!(
                out,
                ",\"count\":{count},\"values\":{},\"start\":{start},\"positions\":{count},\"win\":{},\"loss\":{},\"tie\":0,\"draw\":0",
                serde_json::to_string(&values)?,
                values.len() - zeros.len(),
                zeros.len()
            )?;
            if want_period {
                match period {
                    Some(p) => write!(
                        out,
                        ",\"period\":{{\"preperiod\":{},\"period\":{}}}",
                        p.preperiod, p.period
                    )?,
                    None => write!(out, ",\"period\":null")?,
                }
            }
            writeln!(out, ",\"seconds\":{seconds:.6}}}")?;
        }
    }
    Ok(Status::Success)
}

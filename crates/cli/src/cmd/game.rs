//! `retrograde game NAME`: solve a built-in game given by its rules.

use super::Status;
use crate::cli::{GameArgs, GameCommand, GameOutput};
use crate::{input, mem};
use anyhow::{anyhow, Result};
use retrograde_games::pebbles::Pebbles;
use retrograde_games::police::Map;
use retrograde_games::Stats;
use retrograde_solve::Value;
use std::io::{Read, Write};
use std::time::Instant;

/// Game-specific extras: (JSON field, JSON value, text line).
type Extra = (&'static str, String, String);

pub fn run(args: &GameArgs, started: Instant, out: &mut impl Write) -> Result<Status> {
    match &args.game {
        GameCommand::Pebbles {
            count,
            take,
            misere,
        } => {
            let game = Pebbles::new(*count, take.clone()).map_err(|e| anyhow!("pebbles: {e}"))?;
            let s = game.solve(*misere)?;
            let pattern = game.pattern(&s);
            let extra = [(
                "pattern",
                serde_json::to_string(&pattern)?,
                format!(
                    "pattern by count 0..{count} (W win, L loss for the player to move): {pattern}"
                ),
            )];
            report(
                "pebbles",
                None,
                s.start_value(),
                s.stats(),
                &extra,
                args.output,
                started,
                out,
            )
        }
        GameCommand::PoliceThief { map } => {
            let name = input::display_name(Some(map));
            let mut text = Vec::new();
            input::open(Some(map))?
                .read_to_end(&mut text)
                .map_err(|e| anyhow!("{name}: cannot read: {e}"))?;
            let map = Map::parse(&text).map_err(|e| match e.line {
                Some(l) => anyhow!("{name}:{l}: {}", e.message),
                None => anyhow!("{name}: {}", e.message),
            })?;
            let s = map.solve()?;
            let verdict = s.verdict().to_string();
            let extra = [("verdict", serde_json::to_string(&verdict)?, String::new())];
            let start = s.game().start_value();
            report(
                "police-thief",
                Some(&verdict),
                start,
                s.game().stats(),
                &extra,
                args.output,
                started,
                out,
            )
        }
    }
}

/// Prints the start value (or a game's own first line) and the statistics.
#[allow(clippy::too_many_arguments)]
fn report(
    game: &str,
    first_line: Option<&str>,
    start: Value,
    st: &Stats,
    extra: &[Extra],
    output: GameOutput,
    started: Instant,
    out: &mut impl Write,
) -> Result<Status> {
    let seconds = started.elapsed().as_secs_f64();
    let peak = mem::peak_rss_bytes();
    match output {
        GameOutput::Text => {
            match first_line {
                Some(l) => writeln!(out, "{l}")?,
                None => writeln!(out, "first player: {start}")?,
            }
            if first_line.is_some() {
                writeln!(out, "start position: {start} for the player to move")?;
            }
            for (_, _, line) in extra.iter().filter(|e| !e.2.is_empty()) {
                writeln!(out, "{line}")?;
            }
            writeln!(out, "positions {}, moves {}", st.positions, st.moves)?;
            writeln!(
                out,
                "win {}, loss {}, tie {}, draw {}",
                st.win, st.loss, st.tie, st.draw
            )?;
            let plies = |x: Option<u32>| x.map_or("none".to_string(), |r| format!("{r} plies"));
            writeln!(
                out,
                "longest win {}, longest loss {}",
                plies(st.longest_win),
                plies(st.longest_loss)
            )?;
            write!(
                out,
                "time {seconds:.3} s (explore {:.3} s, solve {:.3} s)",
                st.explore.as_secs_f64(),
                st.solve.as_secs_f64()
            )?;
            match peak {
                Some(p) => writeln!(out, ", peak memory {}", mem::human(p))?,
                None => writeln!(out)?,
            }
        }
        GameOutput::Json => {
            let opt = |x: Option<u32>| x.map_or("null".to_string(), |r| r.to_string());
            let histogram: Vec<[u64; 3]> =
                st.histogram.iter().map(|&(w, l, t)| [w, l, t]).collect();
            write!(
                out,
                "{{\"game\":\"{game}\",\"start\":{{\"outcome\":\"{}\",\"remoteness\":{}}},\"positions\":{},\"moves\":{},\"win\":{},\"loss\":{},\"tie\":{},\"draw\":{},\"longest_win\":{},\"longest_loss\":{},\"histogram\":{}",
                start.outcome(),
                opt(start.remoteness()),
                st.positions,
                st.moves,
                st.win,
                st.loss,
                st.tie,
                st.draw,
                opt(st.longest_win),
                opt(st.longest_loss),
                serde_json::to_string(&histogram)?
            )?;
            for (key, value, _) in extra {
                write!(out, ",\"{key}\":{value}")?;
            }
            writeln!(
                out,
                ",\"seconds\":{seconds:.6},\"peak_rss_bytes\":{}}}",
                peak.map_or("null".to_string(), |p| p.to_string())
            )?;
        }
    }
    Ok(Status::Success)
}

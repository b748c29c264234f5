//! The heap games of impartial play (octal games, subtraction games, Grundy's game): each
//! computes its nim-sequence in one process and reports it, with the period its terms
//! prove when asked.

use crate::{Answer, Args, BuildError, Built, Report, Solved};
use retrograde_impartial::heap::{self, HeapGame};
use retrograde_solve::exchange::Exchange;
use retrograde_tier::{Error, SolveOptions};

struct HeapBuilt {
    game: HeapGame,
    id: &'static str,
    count: u64,
    period: bool,
    take: Option<Vec<u32>>,
}

pub(crate) fn build_octal(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let game = HeapGame::octal(a.text("code")?)
        .map_err(|e| BuildError::Invalid(format!("game octal: {e}")))?;
    heap(game, heap::OCTAL.name, a, None)
}

pub(crate) fn build_subtraction(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    let take: Vec<u32> = a
        .numbers("take")
        .map_err(|_| {
            BuildError::Invalid("game subtraction: --take is required (e.g. --take 1,2)".into())
        })?
        .into_iter()
        .map(|t| t as u32)
        .collect();
    let game = HeapGame::subtraction(&take)
        .map_err(|e| BuildError::Invalid(format!("game subtraction: {e}")))?;
    let mut set = take;
    set.sort_unstable();
    set.dedup();
    heap(game, heap::SUBTRACTION.name, a, Some(set))
}

pub(crate) fn build_grundy_game(a: &Args) -> Result<Box<dyn Built>, BuildError> {
    heap(HeapGame::grundy_game(), heap::GRUNDY_GAME.name, a, None)
}

fn heap(
    game: HeapGame,
    id: &'static str,
    a: &Args,
    take: Option<Vec<u32>>,
) -> Result<Box<dyn Built>, BuildError> {
    let count = a.number("count")?;
    // Moves that split a heap make the sequence quadratic: 10^6 heaps take about a minute,
    // 10^7 hours, 10^8 (the parameter's limit for the others) days.
    if game.splits() && count > MAX_SPLIT_COUNT {
        return Err(BuildError::Invalid(format!(
            "game {id}: --count {count} is too many for a game whose moves split heaps (time grows with the square of the count: at most {MAX_SPLIT_COUNT})"
        )));
    }
    Ok(Box::new(HeapBuilt {
        game,
        id,
        count,
        period: a.flag("period"),
        take,
    }))
}

/// The most heaps of a splitting game's sequence (see [`heap`]).
const MAX_SPLIT_COUNT: u64 = 1_000_000;

impl Built for HeapBuilt {
    fn name(&self) -> String {
        self.id.into()
    }
    fn memory_needed(&self, _stored: bool) -> Result<Option<u64>, Error> {
        // The values (4 bytes a heap) and the report that lists them all (measured: about
        // 110 bytes a heap at 10^8 heaps, for the lines and the JSON values).
        Ok(Some(self.count.saturating_mul(128)))
    }
    fn solve_over(&self, _: &SolveOptions, _: &dyn Exchange) -> Result<Solved<'_>, Error> {
        let values = self.game.nim_sequence(self.count as usize);
        Ok(Solved::alone(Box::new(HeapAnswer {
            built: self,
            values,
        })))
    }
}

struct HeapAnswer<'a> {
    built: &'a HeapBuilt,
    values: Vec<u32>,
}

/// Heaps of value 0 listed by the text output.
const LISTED_ZEROS: usize = 40;

impl Answer for HeapAnswer<'_> {
    fn report(&self) -> Result<Report, Error> {
        let b = self.built;
        let values = &self.values;
        let count = b.count;
        let period = if b.period {
            b.game.period(values)
        } else {
            None
        };
        let zeros: Vec<usize> = (0..values.len()).filter(|&n| values[n] == 0).collect();
        let mut lines = vec![
            format!(
                "{}: Grundy values of heaps 0 to {}",
                b.game.name(),
                count - 1
            ),
            values
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" "),
        ];
        let listed: Vec<String> = zeros
            .iter()
            .take(LISTED_ZEROS)
            .map(|z| z.to_string())
            .collect();
        let mut z = format!(
            "heaps of value 0 (lost for the player to move): {}",
            listed.join(" ")
        );
        if zeros.len() > LISTED_ZEROS {
            z.push_str(&format!(" ... ({} of {count})", zeros.len()));
        }
        lines.push(z);
        if b.period {
            lines.push(match (period, b.id) {
                (Some(p), _) => format!(
                    "pre-period {}, period {}: G(n + {}) = G(n) for every n >= {} (proved by the Guy-Smith periodicity theorem from these {count} terms)",
                    p.preperiod, p.period, p.period, p.preperiod
                ),
                (None, "grundy-game") => format!(
                    "no period found up to {count} (no periodicity theorem covers Grundy's game, so none can be proved)"
                ),
                (None, _) => format!(
                    "no period found up to {count} (none that these terms prove; a larger --count may)"
                ),
            });
        }
        let mut fields = vec![("name".into(), serde_json::json!(b.game.name()))];
        if let Some(code) = b.game.code() {
            fields.push(("code".into(), serde_json::json!(code)));
        }
        if let Some(take) = &b.take {
            fields.push(("take".into(), serde_json::json!(take)));
        }
        // The largest heap computed stands for the start; a nim-sequence gives values, not
        // game lengths, so there is no remoteness.
        let last = values.len() - 1;
        fields.extend([
            ("count".to_string(), serde_json::json!(count)),
            ("values".to_string(), serde_json::json!(values)),
            (
                "start".to_string(),
                serde_json::json!({"heap": last, "outcome": if values[last] == 0 { "loss" } else { "win" }, "remoteness": null}),
            ),
            ("positions".to_string(), serde_json::json!(count)),
            ("win".to_string(), serde_json::json!(values.len() - zeros.len())),
            ("loss".to_string(), serde_json::json!(zeros.len())),
            ("tie".to_string(), serde_json::json!(0)),
            ("draw".to_string(), serde_json::json!(0)),
        ]);
        if b.period {
            fields.push((
                "period".into(),
                match period {
                    Some(p) => serde_json::json!({"preperiod": p.preperiod, "period": p.period}),
                    None => serde_json::Value::Null,
                },
            ));
        }
        Ok(Report {
            game: b.id.into(),
            first_line: None,
            lines,
            fields,
            standard: None,
            score: None,
            timed: true,
            example: None,
            taken: None,
        })
    }
}

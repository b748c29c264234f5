//! What a solve reports, and the two forms it is printed in: the lines of `retrograde game`
//! and its one JSON object (`--output json`), for every game alike.

use retrograde_solve::{Scored, Value};
use retrograde_tier::Stats;
use std::fmt::Write;

/// What a solve reports.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The game's command name.
    pub game: String,
    /// A line to print first instead of `first player: VALUE` (a game's own verdict).
    pub first_line: Option<String>,
    /// Lines to print after it.
    pub lines: Vec<String>,
    /// Game-specific JSON fields.
    pub fields: Vec<(String, serde_json::Value)>,
    /// The start's value and the totals, for the standard block (none for reports that
    /// are not about one start position).
    pub standard: Option<(Value, Stats)>,
    /// The start's value with its score, for games with scores (then the text and JSON
    /// show it instead of `standard`'s value, whose outcome it has).
    pub score: Option<Scored>,
    /// Whether the text ends with the time taken.
    pub timed: bool,
    /// A position worth showing first, in the game's notation, for games without a start
    /// (a chess ending: a position of its longest win; a graph: its first vertex).
    pub example: Option<String>,
    /// The finished tiers the run took up from its database instead of solving them: then
    /// the totals' phase times are a solve's, not this run's (the text's time line says so).
    pub taken: Option<Taken>,
}

/// Finished tiers a run took up from its database instead of solving them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    /// Every tier: the database was finished, and the run solved and wrote nothing.
    All,
    /// These many, and the run solved the others.
    Some(usize),
}

impl Report {
    /// The report of a game `game` (its command name) with a start: the start's value and
    /// the totals, timed.
    pub fn standard(game: &str, start: Value, stats: &Stats) -> Report {
        Report {
            game: game.into(),
            standard: Some((start, stats.clone())),
            timed: true,
            ..Report::default()
        }
    }

    /// The report as lines of text: the start's value (or the game's own first line), the
    /// game's lines, the totals, and the time taken (`seconds`, the whole run's) with the
    /// peak memory when known (`peak`, bytes). The totals' phase times are a solve's: left
    /// out when the run took every tier up ([`Report::taken`]), and the rate with them
    /// when it took up some.
    pub fn text(&self, seconds: f64, peak: Option<u64>) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let mut line = |l: std::fmt::Arguments<'_>| {
            let _ = out.write_fmt(l);
            out.push('\n');
        };
        match (&self.first_line, &self.standard) {
            (Some(l), _) => line(format_args!("{l}")),
            (None, Some((start, _))) => match &self.score {
                Some(s) => line(format_args!("first player: {s}")),
                None => line(format_args!("first player: {start}")),
            },
            (None, None) => {}
        }
        if let (Some(_), Some((start, _))) = (&self.first_line, &self.standard) {
            line(format_args!(
                "start position: {start} for the player to move"
            ));
        }
        for l in &self.lines {
            line(format_args!("{l}"));
        }
        let peak = match peak {
            Some(p) => format!(", peak memory {}", retrograde_mem::human(p)),
            None => String::new(),
        };
        if let Some((_, st)) = &self.standard {
            line(format_args!(
                "positions {}, moves {}",
                st.positions, st.moves
            ));
            line(format_args!(
                "win {}, loss {}, tie {}, draw {}",
                st.win, st.loss, st.tie, st.draw
            ));
            let plies = |x: Option<u32>| x.map_or("none".to_string(), plies);
            line(format_args!(
                "longest win {}, longest loss {}",
                plies(st.longest_win),
                plies(st.longest_loss)
            ));
            let (explore, solve) = (st.explore.as_secs_f64(), st.solve.as_secs_f64());
            match self.taken {
                None => line(format_args!(
                    "time {seconds:.3} s (explore {explore:.3} s, solve {solve:.3} s), {} positions/s{peak}",
                    rate(st.positions, seconds)
                )),
                Some(Taken::All) => line(format_args!(
                    "time {seconds:.3} s (every tier taken up from the database){peak}"
                )),
                Some(Taken::Some(k)) => line(format_args!(
                    "time {seconds:.3} s (explore {explore:.3} s, solve {solve:.3} s; {k} tiers taken up){peak}"
                )),
            }
        } else if self.timed {
            line(format_args!("time {seconds:.3} s{peak}"));
        }
        out
    }

    /// The report as one JSON object: `game`, the start's value and the totals (`start`,
    /// `positions`, `moves`, `win`, `loss`, `tie`, `draw`, `longest_win`, `longest_loss`,
    /// `histogram`), the game's own fields, `seconds`, and `peak_rss_bytes` for a timed
    /// report.
    pub fn json(&self, seconds: f64, peak: Option<u64>) -> serde_json::Value {
        let mut j = serde_json::Map::new();
        j.insert("game".into(), serde_json::json!(self.game));
        if let Some((start, st)) = &self.standard {
            let histogram: Vec<[u64; 3]> =
                st.histogram.iter().map(|&(w, l, t)| [w, l, t]).collect();
            let start = match &self.score {
                Some(s) => serde_json::json!({
                    "outcome": s.outcome().as_str(),
                    "remoteness": s.remoteness,
                    "score": s.score,
                }),
                None => serde_json::json!({
                    "outcome": start.outcome().as_str(),
                    "remoteness": start.remoteness(),
                }),
            };
            j.insert("start".into(), start);
            for (k, v) in counts(st) {
                j.insert(k.into(), serde_json::json!(v));
            }
            j.insert("longest_win".into(), serde_json::json!(st.longest_win));
            j.insert("longest_loss".into(), serde_json::json!(st.longest_loss));
            j.insert("histogram".into(), serde_json::json!(histogram));
        }
        for (k, v) in &self.fields {
            j.insert(k.clone(), v.clone());
        }
        j.insert("seconds".into(), serde_json::json!(seconds));
        if self.standard.is_some() || self.timed {
            j.insert("peak_rss_bytes".into(), serde_json::json!(peak));
        }
        serde_json::Value::Object(j)
    }
}

/// The counts of a solve's totals by name, in the order reports give them: `positions`,
/// `moves`, `win`, `loss`, `tie`, `draw`.
pub fn counts(st: &Stats) -> [(&'static str, u64); 6] {
    [
        ("positions", st.positions),
        ("moves", st.moves),
        ("win", st.win),
        ("loss", st.loss),
        ("tie", st.tie),
        ("draw", st.draw),
    ]
}

/// `12.3M`: a rate per second in readable units.
fn rate(n: u64, seconds: f64) -> String {
    let r = n as f64 / seconds.max(1e-9);
    if r >= 1e6 {
        format!("{:.1}M", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.1}k", r / 1e3)
    } else {
        format!("{r:.0}")
    }
}

/// `1 ply`, `7 plies`.
pub fn plies(n: u32) -> String {
    if n == 1 {
        "1 ply".into()
    } else {
        format!("{n} plies")
    }
}

//! Progress bars for long phases, on standard error, only when it is a terminal and
//! `--quiet` was not given (so scripts and tests never see them); and the bars of a tier
//! solve ([`Bars`]), drawn from the engine's events, with the log of a long set of tables.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use retrograde_tier::{Event, ProgressFn};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

static QUIET: AtomicBool = AtomicBool::new(false);

/// Turns the bars off for the whole run (`--quiet`).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether `--quiet` was given (or this is not the printing rank).
pub fn is_quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// A bar of `len` steps labelled `prefix`, with a rate and an ETA; hidden when quiet or when
/// standard error is not a terminal.
pub fn bar(len: u64, prefix: &str) -> ProgressBar {
    if QUIET.load(Ordering::Relaxed) {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    b.set_style(
        ProgressStyle::with_template(
            "{prefix:>10} [{elapsed_precise}] [{wide_bar}] {human_pos}/{human_len} {msg} (ETA {eta})",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    b.set_prefix(prefix.to_string());
    b
}

/// The bars of a tier solve: finding tiers (sorted keys), solving, counting; and for a
/// set of tables, a line per tier finished ([`Log`]).
#[derive(Default)]
pub struct Bars {
    /// A line per tier finished, on standard error (unless quiet).
    log: Option<Log>,
    total: u64,
    discover: Option<indicatif::ProgressBar>,
    solve: Option<indicatif::ProgressBar>,
    count: Option<indicatif::ProgressBar>,
    assemble: Option<indicatif::ProgressBar>,
}

/// The log of a long solve (a set of chess tables): a line per tier solved, with how long
/// it took and the time left at the pace of the run so far (small tiers are solved several
/// at a time, so the pace is of the wall time, not the sum of the tiers' times), and one
/// line for the tiers taken up from the database (they cost nothing).
#[derive(Default)]
pub struct Log {
    /// Tiers and slots in all (the plan).
    tiers: usize,
    slots: u64,
    /// Tiers and slots taken up from the database.
    reused: (usize, u64),
    /// Tiers and slots solved so far.
    solved: (usize, u64),
    /// Tiers met so far (solved or reused).
    seen: usize,
    /// When the first tier to solve started.
    since: Option<Instant>,
}

impl Log {
    /// Takes an event; returns the line to print, if any.
    fn event(&mut self, e: &Event<'_>) -> Option<String> {
        match e {
            Event::Plan { tiers, slots } => (self.tiers, self.slots) = (*tiers, *slots),
            Event::Reused { tiers, slots } => {
                self.reused = (*tiers, *slots);
                return Some(format!(
                    "retrograde: {tiers} finished tables ({slots} slots) taken up from the database"
                ));
            }
            Event::Tier { reused: true, .. } => self.seen += 1,
            Event::Tier { reused: false, .. } => {
                self.since.get_or_insert_with(Instant::now);
            }
            Event::Solved {
                tier,
                size,
                seconds,
            } => return Some(self.solved(tier, *size, *seconds)),
            _ => {}
        }
        None
    }

    /// The line of a tier just solved.
    fn solved(&mut self, name: &str, size: u64, took: f64) -> String {
        self.seen += 1;
        self.solved = (self.solved.0 + 1, self.solved.1 + size);
        let to_solve = self.slots.saturating_sub(self.reused.1).max(1);
        let left = to_solve.saturating_sub(self.solved.1);
        let spent = self.since.map_or(0.0, |t| t.elapsed().as_secs_f64());
        let pace = spent / self.solved.1.max(1) as f64;
        format!(
            "retrograde: table {}/{} {name} ({size} slots) solved in {took:.1} s; {:.1}% of the work done, {}",
            self.seen,
            self.tiers,
            // Of the whole set: a resume starts where the last run stopped, not at 0%.
            100.0 * (self.reused.1 + self.solved.1.min(to_solve)) as f64
                / self.slots.max(1) as f64,
            match pace * left as f64 {
                _ if left == 0 => "done".to_string(),
                s if s < 0.5 => "under a second left".to_string(),
                s => format!(
                    "about {} left",
                    indicatif::HumanDuration(std::time::Duration::try_from_secs_f64(s).unwrap_or(std::time::Duration::MAX))
                ),
            }
        )
    }
}

impl Bars {
    /// Prints a line of the log above the bars.
    fn say(&self, line: String) {
        if is_quiet() {
            return;
        }
        match &self.solve {
            Some(b) => b.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    fn event(&mut self, e: &Event<'_>) {
        if let Some(line) = self.log.as_mut().and_then(|l| l.event(e)) {
            self.say(line);
        }
        match e {
            Event::Plan { slots, .. } => self.total = *slots,
            Event::Discover { tier, positions } => {
                let b = self.discover.get_or_insert_with(|| bar(0, "discover"));
                b.set_position(*positions);
                b.set_message(format!("positions, tier {tier}"));
            }
            Event::Tier {
                tier, size, done, ..
            } => {
                if let Some(d) = self.discover.take() {
                    self.total = d.position();
                    d.finish_and_clear();
                }
                let total = self.total.max(done + size);
                let b = self.solve.get_or_insert_with(|| bar(total, "solve"));
                b.set_length(total);
                b.set_position(*done);
                b.set_message(format!("tier {tier}"));
            }
            Event::Count { done, total } => {
                if let Some(s) = self.solve.take() {
                    s.finish_and_clear();
                }
                let b = self.count.get_or_insert_with(|| bar(*total, "count"));
                b.set_position(*done);
            }
            // Putting ranks' shares together, or making the files compact: the last phase.
            Event::Assemble { done, total } | Event::Compact { done, total } => {
                for b in [self.solve.take(), self.count.take()].into_iter().flatten() {
                    b.finish_and_clear();
                }
                let b = self.assemble.get_or_insert_with(|| match e {
                    Event::Compact { .. } => {
                        let b = bar(*total, "compact");
                        b.set_message("bytes of values files");
                        b
                    }
                    _ => bar(*total, "database"),
                });
                b.set_position(*done);
            }
            Event::Damaged { error } => {
                if let Some(s) = &self.solve {
                    s.suspend(|| eprintln!("retrograde: warning: {error}: solving it again"));
                } else {
                    eprintln!("retrograde: warning: {error}: solving it again");
                }
            }
            _ => {}
        }
    }

    /// Clears every bar (the solve is over).
    pub fn finish(&mut self) {
        for b in [
            self.discover.take(),
            self.solve.take(),
            self.count.take(),
            self.assemble.take(),
        ]
        .into_iter()
        .flatten()
        {
            b.finish_and_clear();
        }
    }
}

/// Bars for a tier solve (with the log of a set of tables when `log`), and the progress
/// function that draws them from the engine's events. Call [`Bars::finish`] once the solve
/// is over.
pub fn tier_bars(log: bool) -> (Arc<Mutex<Bars>>, ProgressFn) {
    let bars = Arc::new(Mutex::new(Bars {
        log: log.then(Log::default),
        ..Bars::default()
    }));
    let b = bars.clone();
    let progress: ProgressFn =
        Arc::new(move |e: &Event<'_>| b.lock().unwrap_or_else(|p| p.into_inner()).event(e));
    (bars, progress)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After a resume the share done counts the tables taken up, and the time left only
    /// the slots still to solve.
    #[test]
    fn a_resumed_set_reports_its_share_of_the_whole_set() {
        let mut log = Log::default();
        log.event(&Event::Plan {
            tiers: 4,
            slots: 1000,
        });
        let taken = log.event(&Event::Reused {
            tiers: 2,
            slots: 600,
        });
        assert!(taken.unwrap().contains("2 finished tables (600 slots)"));
        for (tier, done) in [("KvK", 0), ("KBvK", 300)] {
            let line = log.event(&Event::Tier {
                tier,
                size: 300,
                done,
                reused: true,
            });
            assert_eq!(line, None);
        }
        for (i, tier) in ["KQvK", "KRvK"].into_iter().enumerate() {
            let start = log.event(&Event::Tier {
                tier,
                size: 200,
                done: 600 + 200 * i as u64,
                reused: false,
            });
            assert_eq!(start, None);
            let line = log
                .event(&Event::Solved {
                    tier,
                    size: 200,
                    seconds: 1.25,
                })
                .unwrap();
            let want = [
                "table 3/4 KQvK (200 slots) solved in 1.2 s; 80.0% of the work done",
                "table 4/4 KRvK (200 slots) solved in 1.2 s; 100.0% of the work done, done",
            ];
            assert!(line.contains(want[i]), "{line}");
        }
    }
}

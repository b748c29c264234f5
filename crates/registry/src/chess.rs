//! Chess endings: the tier game of `retrograde_games::chess` with a report of its own (an
//! ending has no start position: the report counts the ending's positions by side to move)
//! and a CSV dump of every position.

use crate::tier::{query, session};
use crate::{Answer, Built, Query, QueryAnswer, QueryError, Report};
use retrograde_games::chess::{Chess, Pos};
use retrograde_games::play::DynSession;
use retrograde_solve::Value;
use retrograde_tier::{
    DenseIndex, Error, Notation, SolveOptions, Stats, Storage, SymmetricGame, TierGame,
    TierSolution,
};
use std::collections::BTreeSet;
use std::io::Write;
use std::sync::Arc;

/// The ending named on the command line, ready to solve.
pub struct ChessBuilt {
    game: Chess,
    params: serde_json::Value,
}

impl ChessBuilt {
    /// The ending `material` (`KQvK`).
    ///
    /// # Errors
    /// A malformed material.
    pub fn new(material: &str, params: serde_json::Value) -> Result<ChessBuilt, String> {
        Ok(ChessBuilt {
            game: Chess::new(material).map_err(|e| format!("chess: {e}"))?,
            params,
        })
    }
}

impl Built for ChessBuilt {
    fn name(&self) -> String {
        self.game.name()
    }

    fn title(&self) -> String {
        self.game.title()
    }

    fn side_names(&self) -> [String; 2] {
        self.game.side_names()
    }

    /// The engine's own plan (the one it checks again before it allocates).
    fn memory_needed(&self, stored: bool) -> Result<Option<u64>, String> {
        retrograde_tier::memory_plan(&self.game, stored).map_err(|e| e.to_string())
    }

    fn solve(&self, opts: &SolveOptions) -> Result<Box<dyn Answer + '_>, Error> {
        let mut opts = opts.clone();
        opts.params = serde_json::json!({ "game": "chess", "args": self.params });
        let solution = retrograde_tier::solve(&self.game, &opts)?;
        Ok(Box::new(ChessAnswer {
            built: self,
            solution,
        }))
    }

    fn open(&self, storage: Arc<dyn Storage>) -> Result<Option<Box<dyn Answer + '_>>, Error> {
        Ok(retrograde_tier::open(&self.game, storage)?.map(|solution| {
            Box::new(ChessAnswer {
                built: self,
                solution,
            }) as Box<dyn Answer + '_>
        }))
    }
}

struct ChessAnswer<'b> {
    built: &'b ChessBuilt,
    solution: TierSolution<'b, Chess>,
}

/// Calls `f` with every canonical position of the ending's own tiers and its value.
fn for_each_solved(
    solution: &TierSolution<'_, Chess>,
    mut f: impl FnMut(&Pos, Value) -> Result<(), Error>,
) -> Result<(), Error> {
    let game = solution.game();
    let mut result = Ok(());
    for t in game.root_tiers() {
        game.for_each_in(t, 0..game.tier_size(t), |_, p| {
            let Some(p) = p.filter(|p| result.is_ok() && game.is_canonical(p)) else {
                return;
            };
            result = match solution.value(&p) {
                Ok(Some(v)) => f(&p, v),
                Ok(None) => Ok(()),
                Err(e) => Err(e),
            };
        });
        std::mem::replace(&mut result, Ok(()))?;
    }
    Ok(())
}

/// The depth to mate of a side's longest win, in words.
fn longest(st: &Stats) -> String {
    match st.longest_win {
        Some(r) => format!("{} (mate in {})", crate::plies(r), r.div_ceil(2)),
        None => "none".into(),
    }
}

fn side_json(st: &Stats) -> serde_json::Value {
    let histogram: Vec<[u64; 3]> = st.histogram.iter().map(|&(w, l, t)| [w, l, t]).collect();
    serde_json::json!({
        "positions": st.positions,
        "win": st.win,
        "loss": st.loss,
        "tie": st.tie,
        "draw": st.draw,
        "longest_win": st.longest_win,
        "longest_loss": st.longest_loss,
        "histogram": histogram,
    })
}

impl Answer for ChessAnswer<'_> {
    fn report(&self) -> Result<Report, Error> {
        let game = self.solution.game();
        let mut sides = [Stats::default(), Stats::default()];
        // A position to show first (the ending has no start): white's longest win, else
        // any position with white to move.
        let mut example: Option<(u32, Pos)> = None;
        for_each_solved(&self.solution, |p, v| {
            if p.side_to_move() == 0 {
                let rank = match v {
                    Value::Win(r) => r + 1,
                    _ => 0,
                };
                if example.is_none_or(|(best, _)| rank > best) {
                    example = Some((rank, *p));
                }
            }
            let w = game.class_size(p);
            let s = &mut sides[usize::from(p.side_to_move())];
            s.positions += w;
            s.classes += 1;
            s.count_many(v, w);
            Ok(())
        })?;
        let mut all = Stats::default();
        for s in &sides {
            all.merge(s);
        }
        // Moves are counted by the engine per tier.
        all.moves = game
            .root_tiers()
            .iter()
            .filter_map(|&t| self.solution.tier_stats(t).map(|s| s.moves))
            .sum();
        let endings: BTreeSet<String> = self
            .solution
            .tiers()
            .iter()
            .map(|t| t.mat.to_string())
            .collect();
        let mut lines = Vec::new();
        for (name, st) in [("white", &sides[0]), ("black", &sides[1])] {
            lines.push(format!(
                "{name} to move: positions {}, win {}, loss {}, tie {}, draw {}, longest win {}",
                st.positions,
                st.win,
                st.loss,
                st.tie,
                st.draw,
                longest(st)
            ));
        }
        lines.push(format!(
            "positions {}, moves {}, up to symmetry {}",
            all.positions, all.moves, all.classes
        ));
        lines.push(format!(
            "win {}, loss {}, tie {}, draw {}",
            all.win, all.loss, all.tie, all.draw
        ));
        lines.push("depth to mate in plies (for the side to move): wins, losses".into());
        for (r, &(w, l, _)) in all.histogram.iter().enumerate() {
            if w + l > 0 {
                lines.push(format!("  {r:3}: {w} {l}"));
            }
        }
        lines.push(format!(
            "endings solved with it: {}",
            endings.into_iter().collect::<Vec<_>>().join(", ")
        ));
        let example = example.map(|(_, p)| game.fen(&p));
        if let Some(fen) = &example {
            lines.push(format!("a position of white's longest win: {fen}"));
        }
        let histogram: Vec<[u64; 3]> = all.histogram.iter().map(|&(w, l, t)| [w, l, t]).collect();
        let fields = vec![
            (
                "material".into(),
                serde_json::json!(game.material().to_string()),
            ),
            ("start".into(), serde_json::Value::Null),
            ("positions".into(), serde_json::json!(all.positions)),
            ("moves".into(), serde_json::json!(all.moves)),
            ("win".into(), serde_json::json!(all.win)),
            ("loss".into(), serde_json::json!(all.loss)),
            ("tie".into(), serde_json::json!(all.tie)),
            ("draw".into(), serde_json::json!(all.draw)),
            ("longest_win".into(), serde_json::json!(all.longest_win)),
            ("longest_loss".into(), serde_json::json!(all.longest_loss)),
            ("histogram".into(), serde_json::json!(histogram)),
            ("symmetry_reduced".into(), serde_json::json!(all.classes)),
            ("example".into(), serde_json::json!(example)),
            ("white_to_move".into(), side_json(&sides[0])),
            ("black_to_move".into(), side_json(&sides[1])),
            (
                "tier_sizes".into(),
                serde_json::json!(self.solution.tier_sizes()),
            ),
        ];
        Ok(Report {
            game: "chess".into(),
            first_line: Some(format!("chess {}", game.material())),
            lines,
            fields,
            standard: None,
            timed: true,
            example,
        })
    }

    fn query(&self, q: &Query) -> Result<QueryAnswer, QueryError> {
        query(&self.solution, q)
    }

    fn session(
        &self,
        side: &str,
        from: Option<&str>,
    ) -> Result<(Box<dyn DynSession + '_>, String), String> {
        if from.is_none() {
            return Err("an ending has no start position: give one with --position FEN".into());
        }
        session(&self.solution, self.built.title(), side, from)
    }

    fn dump(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let game = self.solution.game();
        writeln!(out, "fen,outcome,remoteness")?;
        let mut images = Vec::with_capacity(8);
        let mut io = Ok(());
        let looked = for_each_solved(&self.solution, |p, v| {
            images.clear();
            for g in 0..game.symmetry_count() {
                images.push(game.apply_symmetry(p, g));
            }
            images.sort_unstable();
            images.dedup();
            let r = v.remoteness().map_or(String::new(), |r| r.to_string());
            for q in &images {
                if let Err(e) = writeln!(out, "{},{},{r}", game.fen(q), v.outcome().as_str()) {
                    io = Err(e);
                    return Err(Error::Interrupted);
                }
            }
            Ok(())
        });
        io?;
        looked.map_err(|e| std::io::Error::other(e.to_string()))
    }
}

//! Chess endings: the tier game of `retrograde_games::chess` with a report of its own (an
//! ending has no start position: the report counts the ending's positions by side to move)
//! and a CSV dump of every position.

use crate::tier::{query, session};
use crate::{Answer, BuildError, Built, Query, QueryAnswer, QueryError, Report, Solved};
use retrograde_games::chess::{Chess, Pos, Tier};
use retrograde_games::play::DynSession;
use retrograde_solve::exchange::Exchange;
use retrograde_solve::{Scored, Value};
use retrograde_tier::{
    DenseIndex, Error, Notation, SolveOptions, Stats, Storage, SymmetricGame, TierGame,
    TierSolution,
};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::sync::Arc;

/// The game of the registry's parameters: an ending (`material`) or every ending of up to
/// `up-to` pieces.
pub(crate) fn built(a: &crate::Args) -> Result<ChessBuilt, BuildError> {
    let material = a.text("material").ok().filter(|m| !m.is_empty());
    match (material, a.number("up-to").ok()) {
        (Some(m), None) => ChessBuilt::new(m, a.to_json()),
        (None, Some(n)) => ChessBuilt::up_to(n, a.to_json()),
        (Some(_), Some(_)) => Err(BuildError::Invalid(
            "chess: give an ending (MATERIAL) or --up-to N, not both".into(),
        )),
        (None, None) => Err(BuildError::Invalid(
            "chess: give an ending (MATERIAL, like KQvK) or --up-to N (3, 4 or 5 pieces)".into(),
        )),
    }
}

/// Chess's refusal of its parameters.
fn refused(why: retrograde_games::GameError) -> BuildError {
    BuildError::Game { game: "chess", why }
}

/// The ending named on the command line (or every ending up to a number of pieces), ready
/// to solve.
pub struct ChessBuilt {
    game: Chess,
    params: serde_json::Value,
    /// Every ending of up to this many pieces (a tablebase set), not one ending.
    up_to: Option<usize>,
}

impl ChessBuilt {
    /// The ending `material` (`KQvK`).
    ///
    /// # Errors
    /// A malformed material ([`BuildError::Game`]).
    pub fn new(material: &str, params: serde_json::Value) -> Result<ChessBuilt, BuildError> {
        Ok(ChessBuilt {
            game: Chess::new(material).map_err(refused)?,
            params,
            up_to: None,
        })
    }

    /// Every ending of up to `pieces` pieces (3 to 5), each table once.
    ///
    /// # Errors
    /// `pieces` out of range ([`BuildError::Game`]).
    pub fn up_to(pieces: u64, params: serde_json::Value) -> Result<ChessBuilt, BuildError> {
        let n = usize::try_from(pieces).unwrap_or(usize::MAX);
        Ok(ChessBuilt {
            game: Chess::up_to(n).map_err(refused)?,
            params,
            up_to: Some(n),
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
    fn memory_needed(&self, stored: bool) -> Result<Option<u64>, Error> {
        retrograde_tier::memory_plan(&self.game, stored)
    }

    fn needs_storage(&self) -> bool {
        // Five pieces do not fit in memory together.
        self.up_to.is_some_and(|n| n >= 5)
    }

    fn logs_tiers(&self) -> bool {
        self.up_to.is_some()
    }

    fn resumes(&self) -> bool {
        self.up_to.is_some()
    }

    fn on_ranks(&self) -> bool {
        true
    }

    /// Across ranks, rank 0 answers as one process: from the files it puts together when
    /// the tiers go to files, else from the ending's tables gathered (a set's report needs
    /// only the totals of its tables, which every rank holds: nothing is gathered for it).
    fn solve_over(&self, opts: &SolveOptions, ex: &dyn Exchange) -> Result<Solved<'_>, Error> {
        let mut opts = crate::tier::recorded(opts, "chess", &self.params);
        // An ending's report counts its positions by side to move: it reads every value.
        opts.keep_values |= ex.size() > 1 && self.up_to.is_none();
        let (solution, traffic) = crate::tier::solve_tiers(&self.game, &opts, ex)?;
        let answer = Box::new(ChessAnswer {
            built: self,
            solution,
        });
        Ok(Solved { answer, traffic })
    }

    fn open(&self, storage: Arc<dyn Storage>) -> Result<Option<Box<dyn Answer + '_>>, Error> {
        Ok(
            retrograde_tier::open_lazy(&self.game, storage)?.map(|solution| {
                Box::new(ChessAnswer {
                    built: self,
                    solution,
                }) as Box<dyn Answer + '_>
            }),
        )
    }
}

struct ChessAnswer<'b> {
    built: &'b ChessBuilt,
    solution: TierSolution<'b, Chess>,
}

/// Calls `f` with every canonical position of the endings asked for and its value: each
/// kept position of the root tiers, and its colour-swapped twin (which the tables keep as
/// it), each when its ending is one of those asked for.
fn for_each_solved(
    solution: &TierSolution<'_, Chess>,
    mut f: impl FnMut(&Pos, Value) -> Result<(), Error>,
) -> Result<(), Error> {
    let game = solution.game();
    for t in game.root_tiers() {
        each_solved_in(solution, t, 0..game.tier_size(t), &mut f)?;
    }
    Ok(())
}

/// [`for_each_solved`] of the slots `slots` of root tier `t`.
fn each_solved_in(
    solution: &TierSolution<'_, Chess>,
    t: Tier,
    slots: std::ops::Range<u64>,
    mut f: impl FnMut(&Pos, Value) -> Result<(), Error>,
) -> Result<(), Error> {
    let game = solution.game();
    let asked = |t: Option<Tier>| t.is_some_and(|t| game.roots().contains(&t.mat));
    let (own, twin) = (asked(Some(t)), asked(game.twin_tier(t)));
    let mut result = Ok(());
    game.for_each_in(t, slots, |_, p| {
        let Some(p) = p.filter(|p| result.is_ok() && game.is_canonical(p)) else {
            return;
        };
        result = match solution.value(&p) {
            Ok(Some(v)) => {
                let first = if own { f(&p, v) } else { Ok(()) };
                first.and_then(|()| if twin { f(&p.flipped(), v) } else { Ok(()) })
            }
            Ok(None) => Ok(()),
            Err(e) => Err(e),
        };
    });
    result
}

/// [`for_each_solved`] in parallel, for totals: each root tier in runs of slots, every run
/// folded into an `A` of its own by `fold`, the runs' `A`s merged in the order of the
/// slots (so a `merge` that keeps the first of equals keeps what one pass would).
fn fold_solved<A: Default + Send>(
    solution: &TierSolution<'_, Chess>,
    fold: impl Fn(&mut A, &Pos, Value) + Sync,
    merge: impl Fn(&mut A, A) + Sync,
) -> Result<A, Error> {
    use rayon::prelude::*;
    const RUN: u64 = 1 << 14;
    let game = solution.game();
    let mut all = A::default();
    for t in game.root_tiers() {
        let size = game.tier_size(t);
        let runs: Vec<A> = (0..size.div_ceil(RUN))
            .into_par_iter()
            .map(|k| {
                let mut acc = A::default();
                let slots = k * RUN..((k + 1) * RUN).min(size);
                each_solved_in(solution, t, slots, |p, v| {
                    fold(&mut acc, p, v);
                    Ok(())
                })
                .map(|()| acc)
            })
            .collect::<Result<_, Error>>()?;
        for a in runs {
            merge(&mut all, a);
        }
    }
    Ok(all)
}

/// The totals of each side to move of an ending, and a position to show first (the
/// ending has no start): white's longest win, else the first position with white to move
/// (as the rank of its win, plus one, and the position).
type Sides = ([Stats; 2], Option<(u32, Pos)>);

/// Counts canonical position `p` of value `v` into `sides`.
fn count_side(game: &Chess, (sides, example): &mut Sides, p: &Pos, v: Value) {
    // A position whose swap of colours is a symmetry (`KRvKR`) stands for as many
    // positions with the other side to move, of the same value.
    let inside = game.swaps_inside(p);
    let w = game.class_size(p) / if inside { 2 } else { 1 };
    let q = p.flipped();
    for (p, first) in std::iter::once((p, true)).chain(inside.then_some((&q, false))) {
        if p.side_to_move() == 0 {
            let rank = match v {
                Value::Win(r) => r + 1,
                _ => 0,
            };
            if example.is_none_or(|(best, _)| rank > best) {
                *example = Some((rank, *p));
            }
        }
        let s = &mut sides[usize::from(p.side_to_move())];
        s.positions += w;
        s.classes += u64::from(first);
        s.count_many(v, w);
    }
}

/// Adds the totals of positions after those of `sides` (the first of equal examples is
/// kept, as one pass keeps it).
fn merge_sides((sides, example): &mut Sides, (more, later): Sides) {
    for (s, m) in sides.iter_mut().zip(&more) {
        s.merge(m);
    }
    if let Some((rank, _)) = later {
        if example.is_none_or(|(best, _)| rank > best) {
            *example = later;
        }
    }
}

/// The depth to mate of a side's longest win, in words.
fn longest(st: &Stats) -> String {
    match st.longest_win {
        Some(r) => format!("{} (mate in {})", crate::plies(r), r.div_ceil(2)),
        None => "none".into(),
    }
}

/// The totals of a side or an ending: the one JSON shape of both.
fn totals_json(st: &Stats) -> serde_json::Map<String, serde_json::Value> {
    [
        ("positions", st.positions.into()),
        ("win", st.win.into()),
        ("loss", st.loss.into()),
        ("tie", st.tie.into()),
        ("draw", st.draw.into()),
        ("longest_win", st.longest_win.into()),
        ("longest_loss", st.longest_loss.into()),
    ]
    .into_iter()
    .map(|(k, v): (&str, serde_json::Value)| (k.to_string(), v))
    .collect()
}

fn side_json(st: &Stats) -> serde_json::Value {
    let histogram: Vec<[u64; 3]> = st.histogram.iter().map(|&(w, l, t)| [w, l, t]).collect();
    let mut m = totals_json(st);
    m.insert("histogram".into(), histogram.into());
    m.into()
}

/// One ending's line of a set's report, and its JSON.
fn ending_line(
    name: &str,
    st: &Stats,
    tables: usize,
    bytes: Option<u64>,
) -> (String, serde_json::Value) {
    let bits = bytes.map(|b| 8.0 * b as f64 / st.positions.max(1) as f64);
    let mut line = format!(
        "{name}: positions {}, win {}, loss {}, tie {}, draw {}, longest win {}, {} tables, {:.1} s",
        st.positions,
        st.win,
        st.loss,
        st.tie,
        st.draw,
        longest(st),
        tables,
        st.solve.as_secs_f64()
    );
    if let Some(b) = bits {
        line.push_str(&format!(", {b:.2} bits a position on disk"));
    }
    let mut json = serde_json::Map::new();
    json.insert("ending".into(), name.into());
    json.extend(totals_json(st));
    json.insert("tables".into(), tables.into());
    json.insert("seconds".into(), st.solve.as_secs_f64().into());
    json.insert("bytes".into(), bytes.into());
    json.insert("bits_per_position".into(), bits.into());
    (line, json.into())
}

impl ChessAnswer<'_> {
    /// The report of a set (`--up-to N`): a line per ending from the engine's totals of its
    /// tables (positions counted with their symmetric twins, both sides to move), then the
    /// whole set's, with the bytes on disk when the tables are in files. A table kept for
    /// two endings (`KQvKR` stands for `KRvKQ` too, with the colours swapped) counts for
    /// both, its positions, tables and bytes; the whole set's bytes count each file once.
    fn set_report(&self, pieces: usize) -> Result<Report, Error> {
        let sol = &self.solution;
        let game = sol.game();
        let mut by: std::collections::BTreeMap<(usize, String), (Stats, usize, Option<u64>)> =
            Default::default();
        let mut bytes = Some(0u64);
        let mut solve = std::time::Duration::ZERO;
        for &t in sol.tiers() {
            let Some(st) = sol.tier_stats(t)? else {
                continue;
            };
            let stored = sol.stored_bytes(t);
            bytes = bytes.zip(stored).map(|(a, b)| a + b);
            solve += st.solve;
            // A table stands for its tier and its tier's swap of colours: another ending's
            // (`KRvKQ` for `KQvKR`), or another tier of its own (`KPvKP`'s pawns on the
            // 2nd and 3rd ranks for those on the 6th and 7th), whose positions count there
            // too; its file counts once for each ending.
            let twin = game.twin_tier(t).map(|u| u.mat);
            for (i, mat) in std::iter::once(t.mat).chain(twin).enumerate() {
                let key = (mat.len() + 2, mat.to_string());
                let e = by.entry(key).or_insert((Stats::default(), 0, Some(0)));
                if i == 0 || mat != t.mat {
                    e.0.merge(st);
                    e.1 += 1;
                    e.2 = e.2.zip(stored).map(|(a, b)| a + b);
                } else {
                    // The same ending again: its positions, not its time.
                    e.0.merge(&Stats {
                        solve: std::time::Duration::ZERO,
                        explore: std::time::Duration::ZERO,
                        ..st.clone()
                    });
                }
            }
        }
        let mut lines = Vec::new();
        let mut endings = Vec::new();
        let mut all = Stats::default();
        let mut count = 0;
        for ((n, name), (st, tables, b)) in &by {
            if *n < 3 {
                // KvK: one tie table, part of every set.
                all.merge(st);
                continue;
            }
            let (line, json) = ending_line(name, st, *tables, *b);
            lines.push(line);
            endings.push(json);
            all.merge(st);
            count += 1;
        }
        // Each table's time once, though it counts for two endings.
        all.solve = solve;
        let (total, mut json) = ending_line("all", &all, sol.tiers().len(), bytes);
        let sizes = match pieces {
            3 => "3 pieces".to_string(),
            n => format!("3 to {n} pieces"),
        };
        lines.push(format!("{count} endings of {sizes}; {total}"));
        if let serde_json::Value::Object(m) = &mut json {
            m.remove("ending");
        }
        Ok(Report {
            game: "chess".into(),
            first_line: Some(format!("chess, every ending up to {pieces} pieces")),
            lines,
            fields: vec![
                ("up_to".into(), serde_json::json!(pieces)),
                ("start".into(), serde_json::Value::Null),
                ("total".into(), json),
                ("endings".into(), serde_json::Value::Array(endings)),
            ],
            standard: None,
            score: None,
            timed: true,
            // Where the explorer opens: a set holds KQvK.
            example: Some("8/8/8/4k3/8/8/8/4KQ2 w - - 0 1".into()),
        })
    }
}

impl Answer for ChessAnswer<'_> {
    fn report(&self) -> Result<Report, Error> {
        if let Some(n) = self.built.up_to {
            return self.set_report(n);
        }
        let game = self.solution.game();
        let (sides, example) = fold_solved(
            &self.solution,
            |a, p, v| count_side(game, a, p, v),
            merge_sides,
        )?;
        let mut all = Stats::default();
        for s in &sides {
            all.merge(s);
        }
        // Moves are counted by the engine per tier.
        // A table kept for its colour-swapped twin too counts for both when both are asked.
        all.moves = 0;
        for t in game.root_tiers() {
            let twice = game
                .twin_tier(t)
                .is_some_and(|u| game.roots().contains(&t.mat) && game.roots().contains(&u.mat));
            if let Some(s) = self.solution.tier_stats(t)? {
                all.moves += s.moves * if twice { 2 } else { 1 };
            }
        }
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
            score: None,
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
    ) -> Result<(Box<dyn DynSession + '_>, String), QueryError> {
        if from.is_none() {
            return Err(QueryError::Unanswered(crate::Unanswered::NoStartPosition));
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

/// A chess tablebase: the database directory that `retrograde game chess ... --db DIR`
/// wrote (one ending with what it converts into, or `--up-to N`: every ending of up to N
/// pieces), probed the way chess programs probe tablebases. Two steps, because the values
/// borrow the rules: [`Tablebase::open`] reads what the directory holds, [`Tablebase::probe`]
/// opens its values.
///
/// ```no_run
/// use retrograde_registry::chess::{Tablebase, Wdl};
/// let tb = Tablebase::open("tb4")?; // `retrograde game chess --up-to 4 --db tb4`
/// let probe = tb.probe()?;
/// let p = probe.fen("8/8/8/4k3/8/8/8/4KQ2 w - - 0 1")?;
/// assert_eq!(p.wdl, Wdl::Win);
/// println!("mate in {:?} plies, best moves {:?}", p.dtm, p.best);
/// # Ok::<(), retrograde_registry::chess::ProbeError>(())
/// ```
pub struct Tablebase(Arc<Opened>);

/// What a tablebase's directory holds: its storage and the rules it was solved for.
struct Opened {
    storage: Arc<dyn Storage>,
    built: ChessBuilt,
}

/// Why a probe failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProbeError {
    /// Not a position of these rules: a malformed FEN, castling rights, more than five
    /// pieces, the side not to move in check.
    Position(String),
    /// A position of an ending the tablebase does not hold (`KQvKR` in a set of three
    /// pieces).
    NotHeld {
        /// The position, as given.
        fen: String,
        /// Its ending.
        ending: String,
    },
    /// No finished chess tablebase there, or a damaged file.
    Database(Error),
}

impl std::fmt::Display for ProbeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProbeError::Position(m) => write!(f, "{m}"),
            ProbeError::NotHeld { fen, ending } => write!(
                f,
                "{fen:?}: a position of {ending}, an ending this tablebase does not hold"
            ),
            ProbeError::Database(e) => write!(f, "{e}"),
        }
    }
}

/// The message holds the cause's (`Database`: match it for the typed cause): no `source`,
/// so that a chain of causes does not say it twice.
impl std::error::Error for ProbeError {}

impl From<Error> for ProbeError {
    fn from(e: Error) -> Self {
        ProbeError::Database(e)
    }
}

/// Win, draw or loss for the side to move (no 50-move rule: a tie, by stalemate or
/// insufficient material, is a [`Wdl::Draw`] as a draw is).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Wdl {
    /// The side to move is mated against best play.
    Loss,
    /// Neither side can force mate.
    Draw,
    /// The side to move mates against any defence.
    Win,
}

impl From<Value> for Wdl {
    fn from(v: Value) -> Wdl {
        match v {
            Value::Win(_) => Wdl::Win,
            Value::Loss(_) => Wdl::Loss,
            Value::Tie(_) | Value::Draw => Wdl::Draw,
        }
    }
}

/// Depth to mate in plies, signed as chess programs sign it: `+N` the side to move mates
/// in N plies, `-N` it is mated in N plies (0: it is checkmated), `None` for a draw.
pub fn dtm(v: Value) -> Option<i64> {
    match v {
        Value::Win(r) => Some(i64::from(r)),
        Value::Loss(r) => Some(-i64::from(r)),
        Value::Tie(_) | Value::Draw => None,
    }
}

/// What a probe tells of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeResult {
    /// The position probed, as the tablebase reads it (an en-passant square kept only when
    /// the capture is legal).
    pub fen: String,
    /// The exact value for the side to move: win, loss or tie in N plies, or draw.
    pub value: Value,
    /// Win, draw or loss.
    pub wdl: Wdl,
    /// Depth to mate in plies (see [`dtm`]).
    pub dtm: Option<i64>,
    /// The moves that keep the value (UCI, `e7e8q`), in the game's move order; none when
    /// the game is over.
    pub best: Vec<String>,
    /// Every legal move with its value for the side that makes it, best first.
    pub moves: Vec<(String, Value)>,
}

impl Tablebase {
    /// Reads which endings the directory holds (its `database.json`); the values are read
    /// by [`Tablebase::probe`].
    ///
    /// # Errors
    /// [`ProbeError::Database`]: no finished database there ([`Error::Missing`]), a damaged
    /// description, or a database of something else than chess.
    pub fn open(dir: impl AsRef<std::path::Path>) -> Result<Tablebase, ProbeError> {
        let dir = dir.as_ref();
        let storage: Arc<dyn Storage> =
            Arc::new(retrograde_tier::DirStorage::new(dir.to_path_buf()));
        let recorded = crate::database::Recorded::read(&*storage)?;
        let Some(r) = recorded.filter(|r| r.entry.name == "chess") else {
            return Err(ProbeError::Database(Error::Unsupported(format!(
                "{}: a database of another game, not a chess tablebase",
                dir.display()
            ))));
        };
        let built = built(&r.args).map_err(|m| r.damaged(m))?;
        r.check(&built)?;
        Ok(Tablebase(Arc::new(Opened { storage, built })))
    }

    /// What it was solved for: `chess KQvK` (with the endings it converts into), `chess up
    /// to 4 pieces`.
    pub fn name(&self) -> String {
        self.0.built.name()
    }

    /// Opens the values for probing: a table's file is opened (its header read and
    /// checked) when a position of it is first probed, its blocks read with their index
    /// entries, checked and kept as positions ask for them.
    ///
    /// # Errors
    /// A damaged description of the database (a missing or damaged table is an error of
    /// the probe that reads it).
    pub fn probe(&self) -> Result<Probe, ProbeError> {
        let cell = Values::try_new(self.0.clone(), |tb| {
            retrograde_tier::open_lazy(&tb.built.game, tb.storage.clone())?.ok_or_else(|| {
                Error::Missing {
                    file: tb.storage.describe(retrograde_tier::META),
                }
            })
        })?;
        Ok(Probe(cell))
    }
}

/// The values of a tablebase, read with its rules.
type ChessSolution<'t> = TierSolution<'t, Chess>;

self_cell::self_cell!(
    /// A tablebase's rules and its values, which read them.
    struct Values {
        owner: Arc<Opened>,
        #[covariant]
        dependent: ChessSolution,
    }
);

/// An open tablebase: probes positions.
pub struct Probe(Values);

impl Probe {
    /// The values, read with the rules.
    fn solution(&self) -> &TierSolution<'_, Chess> {
        self.0.borrow_dependent()
    }

    /// Probes a FEN (4 or 6 fields, no castling rights): the value, the depth to mate and
    /// every move's value.
    ///
    /// # Errors
    /// [`ProbeError::Position`] for a FEN that is no position, [`ProbeError::NotHeld`] for
    /// a position of another ending, [`ProbeError::Database`] for a damaged file.
    pub fn fen(&self, fen: &str) -> Result<ProbeResult, ProbeError> {
        let (p, value) = self.find(fen)?;
        let a =
            crate::tier::answer(self.solution(), &p, p.side_to_move()).map_err(|e| match e {
                QueryError::Lookup(e) => ProbeError::Database(e),
                e => ProbeError::Position(e.to_string()),
            })?;
        let best = a
            .moves
            .iter()
            .filter(|m| m.1 == value)
            .map(|m| m.0.clone())
            .collect();
        Ok(ProbeResult {
            fen: self.solution().game().fen(&p),
            value,
            wdl: value.into(),
            dtm: dtm(value),
            best,
            moves: a.moves,
        })
    }

    /// Probes a `cozy-chess` board, as [`Probe::fen`].
    ///
    /// # Errors
    /// As [`Probe::fen`].
    pub fn board(&self, board: &cozy_chess::Board) -> Result<ProbeResult, ProbeError> {
        self.fen(&board.to_string())
    }

    /// The value of a FEN for the side to move, without its moves: the quick probe
    /// ([`Wdl::from`] and [`dtm`] read it as chess programs do).
    ///
    /// # Errors
    /// As [`Probe::fen`].
    pub fn value(&self, fen: &str) -> Result<Value, ProbeError> {
        Ok(self.find(fen)?.1)
    }

    /// The longest mate of every ending the tablebase holds, white to move, in plies
    /// (`None`: white never mates there), by ending: each table counts for both colours,
    /// `KQvKR` from its positions with white to move and `KRvKQ` from those with black to
    /// move, its colour swap. The published lists of longest mates count so (OEIS
    /// A274458: the endings of up to 5 pieces by their longest mate, white to move). A pass
    /// over every value the files keep, a table per thread of the current pool (minutes
    /// for five pieces).
    ///
    /// # Errors
    /// A damaged or missing table; a compact table ([`ProbeError::Database`]: the side it
    /// leaves out has no stored values to read; ask the whole tablebase).
    pub fn longest_mates(&self) -> Result<BTreeMap<String, Option<u32>>, ProbeError> {
        use rayon::prelude::*;
        let solution = self.solution();
        let game = solution.game();
        let per_tier = solution
            .tiers()
            .par_iter()
            .map(|&t| {
                let mut longest = [None::<u32>; 2];
                let left = solution.for_each_stored(t, |first, values| {
                    let win = |v: &Option<Scored>| match v.and_then(|v| v.value()) {
                        Some(Value::Win(r)) => Some(r),
                        _ => None,
                    };
                    let last = first + values.len().saturating_sub(1) as u64;
                    let side = |i| usize::from(game.side_to_move_at(t, i));
                    if side(first) == side(last) {
                        // The whole block has one side to move (all but one block a tier).
                        let best = values.iter().filter_map(win).max();
                        longest[side(first)] = longest[side(first)].max(best);
                    } else {
                        for (i, v) in (first..).zip(values) {
                            longest[side(i)] = longest[side(i)].max(win(v));
                        }
                    }
                })?;
                if left > 0 {
                    return Err(ProbeError::Database(Error::Unsupported(format!(
                        "table {t:?} is compact: it leaves out {left} positions of a side to move; ask a whole tablebase for its longest mates"
                    ))));
                }
                Ok((t.mat.to_string(), longest))
            })
            .collect::<Result<Vec<_>, ProbeError>>()?;
        let mut out = BTreeMap::new();
        for (name, [white, black]) in per_tier {
            let swapped = match name.split_once('v') {
                Some((w, b)) => format!("{b}v{w}"),
                None => name.clone(),
            };
            for (ending, r) in [(name, white), (swapped, black)] {
                let e = out.entry(ending).or_insert(None);
                *e = (*e).max(r);
            }
        }
        Ok(out)
    }

    /// The position of `fen` and its value.
    fn find(&self, fen: &str) -> Result<(Pos, Value), ProbeError> {
        let game = self.solution().game();
        let (p, _) = game.parse_position(fen).map_err(|e| {
            ProbeError::Position(format!(
                "{:?}: {e} (expected {})",
                crate::tier::shorten(fen),
                game.position_help()
            ))
        })?;
        match self.solution().value(&p)? {
            Some(v) => Ok((p, v)),
            None => Err(ProbeError::NotHeld {
                fen: fen.to_string(),
                ending: p.material().to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_counted_in_parallel_runs_is_the_one_pass_count() {
        // The one pass (`for_each_solved`) is the oracle: totals by side and the example,
        // the first of white's longest wins, against runs of 16,384 slots on 3 threads,
        // merged in order (a table of 3 pieces has 2 to 4 of them).
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        for ending in ["KQvK", "KPvK", "KvKR", "KNvK"] {
            let game = Chess::new(ending).unwrap();
            let solution = retrograde_tier::solve(&game, &SolveOptions::default()).unwrap();
            let mut one: Sides = Default::default();
            for_each_solved(&solution, |p, v| {
                count_side(&game, &mut one, p, v);
                Ok(())
            })
            .unwrap();
            let runs = pool
                .install(|| {
                    fold_solved(&solution, |a, p, v| count_side(&game, a, p, v), merge_sides)
                })
                .unwrap();
            assert_eq!(runs, one, "{ending}");
            assert!(one.0[0].positions > 0 && one.1.is_some(), "{ending}");
        }
    }
}

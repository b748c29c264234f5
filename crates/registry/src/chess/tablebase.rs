//! Chess tablebases: a database directory of chess endings, probed by FEN as chess
//! programs probe theirs.

use super::make;
use crate::QueryError;
use retrograde_games::chess::{Chess, Pos};
use retrograde_solve::{Scored, Value};
use retrograde_tier::{Error, Notation, Storage, TierGame, TierSolution};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A chess tablebase: the database directory that `retrograde game chess ... --db DIR`
/// wrote (one ending with what it converts into, or `--up-to N`: every ending of up to N
/// pieces), probed the way chess programs probe tablebases, in two steps:
/// [`Tablebase::open`] reads what the directory holds, [`Tablebase::probe`] opens its
/// values (a [`Probe`] keeps the rules it reads them with: it lives on its own).
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
    game: Chess,
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
        let game = make(&r.args)
            .map_err(|m| r.damaged(m))?
            .map_err(|m| r.damaged(m))?;
        r.check(&game.name())?;
        Ok(Tablebase(Arc::new(Opened { storage, game })))
    }

    /// What it was solved for: `chess KQvK` (with the endings it converts into), `chess up
    /// to 4 pieces`.
    pub fn name(&self) -> String {
        self.0.game.name()
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
            retrograde_tier::open_lazy(&tb.game, tb.storage.clone())?.ok_or_else(|| {
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

//! Answers that own the game they answer for.
//!
//! A built game's answer borrows it (the tier engine's solution reads the game's rules as it
//! looks positions up). A [`Held`] answer keeps the built game beside it, behind an `Arc`,
//! so that it lives as long as it is needed (a server's databases, a Python object, a
//! benchmark's fresh opens) and is freed with it: nothing is leaked.

use crate::{Answer, Built, Protocol, Query, QueryAnswer, QueryError, Report, Solved};
use retrograde_games::play::DynSession;
use retrograde_solve::exchange::Exchange;
use retrograde_tier::{Error, SolveOptions, Storage, Traffic};
use std::sync::Arc;

/// An answer borrowing its game for `'a`.
type Borrowed<'a> = Box<dyn Answer + 'a>;

self_cell::self_cell!(
    /// A built game and its answer, which borrows it.
    struct Cell {
        owner: Arc<dyn Built>,
        #[covariant]
        dependent: Borrowed,
    }
);

/// An answer that owns the built game it answers for.
///
/// ```
/// use retrograde_registry::{entry, Answer, Args, Held, Query};
/// use retrograde_solve::exchange::Solo;
/// use retrograde_tier::SolveOptions;
/// let e = entry("tictactoe").unwrap();
/// let game = e.build(&Args::with_defaults(e.params).unwrap()).unwrap();
/// let (answer, _) = Held::solve(game.into(), &SolveOptions::default(), &Solo).unwrap();
/// let q = answer.query(&Query::Moves(vec![])).unwrap();
/// assert_eq!(q.value.to_string(), "tie in 9");
/// ```
pub struct Held(Cell);

impl Held {
    /// Solves `built` over `ex` ([`dyn Built::solve`](Built#method.solve)), keeping it with its
    /// answer; also what crossed between ranks.
    ///
    /// # Errors
    /// As [`dyn Built::solve`](Built#method.solve).
    pub fn solve(
        built: Arc<dyn Built>,
        opts: &SolveOptions,
        ex: &dyn Exchange,
    ) -> Result<(Held, Traffic), Error> {
        let mut traffic = Traffic::default();
        let cell = Cell::try_new(built, |b| {
            b.solve(opts, ex).map(|Solved { answer, traffic: t }| {
                traffic = t;
                answer
            })
        })?;
        Ok((Held(cell), traffic))
    }

    /// The finished database of `built` in `storage` ([`Built::open`]), keeping the game
    /// with it; `None` when there is none.
    ///
    /// # Errors
    /// As [`Built::open`].
    pub fn open(built: Arc<dyn Built>, storage: Arc<dyn Storage>) -> Result<Option<Held>, Error> {
        match Cell::try_new(built, |b| b.open(storage)?.ok_or(None)) {
            Ok(cell) => Ok(Some(Held(cell))),
            Err(None) => Ok(None),
            Err(Some(e)) => Err(e),
        }
    }

    /// The game answered for.
    pub fn built(&self) -> &dyn Built {
        &**self.0.borrow_owner()
    }

    fn answer(&self) -> &(dyn Answer + '_) {
        &**self.0.borrow_dependent()
    }
}

impl Answer for Held {
    fn report(&self) -> Result<Report, Error> {
        self.answer().report()
    }

    fn query(&self, q: &Query) -> Result<QueryAnswer, QueryError> {
        self.answer().query(q)
    }

    fn query_until(
        &self,
        q: &Query,
        deadline: std::time::Instant,
    ) -> Result<QueryAnswer, QueryError> {
        self.answer().query_until(q, deadline)
    }

    fn session(
        &self,
        side: &str,
        from: Option<&str>,
    ) -> Result<(Box<dyn DynSession + '_>, String), QueryError> {
        self.answer().session(side, from)
    }

    fn protocol(&self) -> Option<Box<dyn Protocol + '_>> {
        self.answer().protocol()
    }

    fn dump(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.answer().dump(out)
    }
}

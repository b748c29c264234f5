//! A game that breaks the API is an error naming what broke (`Error::Game`), never a panic
//! and never a value: on one process and on thread ranks, which run the same code.

use retrograde_graph::Primitive;
use retrograde_solve::exchange::{run_local, Exchange};
use retrograde_tier::*;

/// How the game breaks the API.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Fault {
    None,
    /// A move reaches a rank past its tier's size.
    RankPast,
    /// A move reaches a tier the game did not declare as a child tier.
    UndeclaredTier,
    /// An un-move gives a position of another tier.
    UnmoveOutside,
    /// An un-move gives a rank past the tier's size.
    UnmovePast,
    /// `unmoves_ranked` numbers a parent past the tier's size.
    RankedPast,
    /// A move is listed twice (by a game that promises distinct moves: `Cycles<true>`).
    Twice,
    /// `moves_leaving` lists the move inside the tier too, and counts none inside.
    LeavingInside,
}

/// Tiers `0..=N`, each a cycle of `S` positions `(tier, i)`: a move steps round the cycle,
/// and one leaves for tier `t - 1` (tier 0 is lost). With `D`, it promises distinct moves
/// ([`TierGame::DISTINCT_MOVES`]).
struct Cycles<const D: bool = false>(Fault);

const N: u32 = 4;
const S: u64 = 10;

impl<const D: bool> TierGame for Cycles<D> {
    type Position = (u32, u64);
    type Tier = u32;
    type Layout = Dense;
    type Parents = Unmoves;
    type Symmetry = NoSymmetry;
    type Turn = Alternate;
    type Score = Unscored;
    const DISTINCT_MOVES: bool = D;

    fn name(&self) -> String {
        "cycles".into()
    }
    fn start(&self) -> Option<(u32, u64)> {
        Some((N, 0))
    }
    fn tier(&self, p: &(u32, u64)) -> u32 {
        p.0
    }
    fn child_tiers(&self, t: u32, out: &mut Vec<u32>) {
        // Only `t - 1`: with `Fault::UndeclaredTier`, tier N also reaches tier N - 2 (which
        // exists, below N - 1) without declaring it.
        if t > 0 {
            out.push(t - 1);
        }
    }
    fn tier_name(&self, t: u32) -> String {
        t.to_string()
    }
    fn primitive(&self, p: &(u32, u64)) -> Option<Primitive> {
        (p.0 == 0).then_some(Primitive::Loss)
    }
    fn moves(&self, &(t, i): &(u32, u64), out: &mut Vec<(u32, u64)>) {
        out.push((t, (i + 1) % S));
        out.push((t - 1, i));
        match self.0 {
            Fault::RankPast if t == N && i == 3 => out.push((t - 1, S + 3)),
            Fault::UndeclaredTier if t == N && i == 5 => out.push((t - 2, i)),
            Fault::Twice => out.push((t, (i + 1) % S)),
            _ => {}
        }
    }
    /// The default (so that the engine runs it on this game), but with
    /// `Fault::LeavingInside` every move, none counted inside.
    fn moves_leaving(&self, p: &(u32, u64), out: &mut Vec<(u32, u64)>) -> usize {
        if self.0 == Fault::LeavingInside {
            self.moves(p, out);
            return 0;
        }
        moves_split_by_tier(self, p, out)
    }
}

impl<const D: bool> DenseIndex for Cycles<D> {
    fn tier_size(&self, _: u32) -> u64 {
        S
    }
    fn rank(&self, p: &(u32, u64)) -> u64 {
        p.1
    }
    fn unrank(&self, t: u32, i: u64) -> Option<(u32, u64)> {
        Some((t, i))
    }
}

impl<const D: bool> UnmoveGame for Cycles<D> {
    fn unmoves(&self, &(t, i): &(u32, u64), out: &mut Vec<(u32, u64)>) {
        out.push((t, (i + S - 1) % S));
        match self.0 {
            Fault::UnmoveOutside if t > 0 => out.push((t - 1, i)),
            Fault::UnmovePast => out.push((t, S + i)),
            _ => {}
        }
    }
    fn unmoves_ranked(
        &self,
        p: &(u32, u64),
        i: u64,
        ranked: &mut Vec<(u64, bool)>,
        out: &mut Vec<(u32, u64)>,
    ) {
        self.unmoves(p, out);
        if self.0 == Fault::RankedPast {
            ranked.push((S + i, false));
        }
    }
}

fn assert_game_error(r: Result<(), Error>, fault: Fault, what: &str) {
    match r {
        Err(Error::Game(m)) => assert!(!m.is_empty(), "{fault:?} {what}"),
        other => panic!("{fault:?} {what}: expected a game error, got {other:?}"),
    }
}

#[test]
fn the_honest_game_solves_on_one_process_and_on_ranks() {
    let g: Cycles = Cycles(Fault::None);
    check_game(&g, 100).unwrap();
    let one = solve(&g, &SolveOptions::default()).unwrap();
    let start = one.start_value().unwrap();
    for k in 2..=3 {
        let got = run_local(k, |ex| {
            let (s, _) = solve_distributed(&g, &SolveOptions::default(), ex, true).unwrap();
            (ex.rank() == 0).then(|| s.start_value().unwrap())
        });
        assert_eq!(got[0], Some(start), "{k} ranks");
    }
}

#[test]
fn a_game_that_breaks_the_api_is_an_error_not_a_panic() {
    for fault in [
        Fault::RankPast,
        Fault::UndeclaredTier,
        Fault::UnmoveOutside,
        Fault::UnmovePast,
        Fault::RankedPast,
    ] {
        let g: Cycles = Cycles(fault);
        assert!(
            check_game(&g, 100).is_err(),
            "{fault:?}: the check finds it"
        );
        for engine in [Engine::Auto, Engine::Sequential] {
            let mut opts = SolveOptions::default();
            opts.engine = engine;
            let r = solve(&g, &opts).map(|_| ());
            if engine == Engine::Sequential
                && matches!(
                    fault,
                    Fault::UnmoveOutside | Fault::UnmovePast | Fault::RankedPast
                )
            {
                // The reference reads no un-moves: it finds parents from the moves.
                assert!(r.is_ok(), "{fault:?} {engine:?}");
                continue;
            }
            assert_game_error(r, fault, &format!("{engine:?}"));
        }
        // On ranks, the rank that meets the fault fails; the others would wait for it at
        // the next exchange (MPI's abort ends them): here the failing thread rank panics,
        // which breaks the barrier, after noting its error.
        let errors = std::sync::Mutex::new(Vec::new());
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_local(2, |ex| {
                if let Err(e) = solve_distributed(&g, &SolveOptions::default(), ex, true) {
                    let game = matches!(e, Error::Game(_));
                    errors.lock().unwrap().push((game, e.to_string()));
                    panic!("rank {}: {e}", ex.rank());
                }
            })
        }));
        assert!(ran.is_err(), "{fault:?} on 2 ranks: solved");
        let errors = errors.into_inner().unwrap();
        assert!(
            errors.iter().any(|(game, _)| *game),
            "{fault:?} on 2 ranks: {errors:?}"
        );
    }
}

#[test]
fn the_promise_of_distinct_moves_is_checked_and_kept() {
    let kept = Cycles::<true>(Fault::None);
    check_game(&kept, 100).unwrap();
    let kept = solve(&kept, &SolveOptions::default()).unwrap();
    let plain = solve(&Cycles::<false>(Fault::None), &SolveOptions::default()).unwrap();
    for t in 0..=N {
        for i in 0..S {
            assert_eq!(kept.value(&(t, i)).unwrap(), plain.value(&(t, i)).unwrap());
        }
    }
    let e = check_game(&Cycles::<true>(Fault::Twice), 100)
        .unwrap_err()
        .to_string();
    assert!(e.contains("twice") && e.contains("DISTINCT_MOVES"), "{e}");
    // The engine counts the moves inside from `moves_leaving` (distinct moves, un-moves, no
    // symmetry): one that lists a move inside the tier is refused by the check, and the
    // engine's error names it instead of a value.
    let lying = Cycles::<true>(Fault::LeavingInside);
    let e = check_game(&lying, 100).unwrap_err().to_string();
    assert!(e.contains("moves_leaving"), "{e}");
    match &solve(&lying, &SolveOptions::default()) {
        Err(Error::Game(m)) => assert!(m.contains("moves_leaving"), "{m}"),
        other => panic!(
            "expected a game error, got {:?}",
            other.as_ref().map(|_| ())
        ),
    }
}

//! A conformance test any game can call: does it keep the promises of the API?
//!
//! [`check_game`] checks that a tier named back is the tier of that name, samples positions
//! of every tier and checks that rank and unrank are inverse, that moves stay in the tier or go to a child tier (and `moves_leaving` splits them so), that un-moves give exactly
//! the parents in the tier (and the ones the game numbers itself, their numbers), that symmetries keep tiers, primitive values and moves and that
//! canonical forms are stable, that the turn rule is symmetric, and, with sorted keys, that
//! keys round-trip and slots are ordered. The engine relies on all of it; a game that
//! breaks one gives wrong values, so run this in the game's tests.

use crate::api::dag::Dag;
use crate::api::game::{
    canonical, keeps, score_range_fits, visit, DenseIndex, LayoutVisitor, OrderedMoves, Parents,
    ScoredGame, Symmetry, TierGame,
};
use std::collections::HashSet;

/// A failed promise: what and where.
pub type Violation = String;

/// Checks up to `samples` positions of every tier (all of them in a tier that small).
///
/// # Errors
/// The first promise found broken.
pub fn check_game<G: TierGame>(game: &G, samples: u64) -> Result<(), Violation> {
    let dag = Dag::build(game).map_err(|e| e.to_string())?;
    for (&t, name) in dag.tiers.iter().zip(&dag.names) {
        match game.tier_named(name) {
            Some(u) if u != t => {
                return Err(format!(
                    "tier_named({name:?}) is {u:?}, not {t:?}, the tier tier_name calls so"
                ))
            }
            _ => {}
        }
    }
    let rules = visit::<G, _>(ByLayout);
    let positions = (rules.sample)(game, &dag, samples)?;
    let mut moves = Vec::new();
    let mut other = Vec::new();
    let mut parents = Vec::new();
    for &p in &positions {
        let t = game.tier(&p);
        let k = dag
            .tiers
            .iter()
            .position(|&x| x == t)
            .ok_or_else(|| format!("{p:?}: its tier {t:?} is not below the roots"))?;
        (rules.numbering)(game, &p, t)?;
        if game.primitive(&p).is_some() {
            continue;
        }
        moves.clear();
        game.moves(&p, &mut moves);
        (rules.slots)(game, &p, &moves)?;
        if G::DISTINCT_MOVES {
            twice(&moves).map_err(|c| format!("{p:?}: moves lists {c:?} twice, but the game promises distinct moves (DISTINCT_MOVES)"))?;
        }
        leaving(game, &p, t, &moves)?;
        if let Some(bound) = game.moves_inside_bound() {
            let inside = moves.iter().filter(|c| game.tier(c) == t).count() as u64;
            if inside > bound {
                return Err(format!(
                    "{p:?} makes {inside} moves inside its tier {t:?}, past moves_inside_bound, {bound}"
                ));
            }
        }
        for c in &moves {
            let tc = game.tier(c);
            if tc != t && !dag.children[k].iter().any(|&x| dag.tiers[x] == tc) {
                return Err(format!(
                    "{p:?} -> {c:?}: tier {tc:?} is neither {t:?} nor one of its child tiers"
                ));
            }
            (rules.numbering)(game, &canonical(game, c), tc)
                .map_err(|e| format!("{p:?} -> {e}"))?;
            if tc == t && <G::Parents as Parents<G>>::UNMOVES {
                parents.clear();
                <G::Parents as Parents<G>>::unmoves(game, c, &mut parents);
                if !parents.contains(&p) {
                    return Err(format!(
                        "{p:?} -> {c:?}: {p:?} is not among the un-moves of {c:?}"
                    ));
                }
            }
        }
        if <G::Parents as Parents<G>>::UNMOVES {
            parents.clear();
            <G::Parents as Parents<G>>::unmoves(game, &p, &mut parents);
            if G::DISTINCT_MOVES {
                twice(&parents).map_err(|q| format!("{p:?}: unmoves lists {q:?} twice, but the game promises distinct moves (DISTINCT_MOVES)"))?;
            }
            (rules.ranked)(game, &p, &parents)?;
            for q in &parents {
                if game.tier(q) != t {
                    return Err(format!("un-move {q:?} of {p:?} is outside the tier {t:?}"));
                }
                if !(rules.numbered)(game, q, t) || game.primitive(q).is_some() {
                    continue;
                }
                other.clear();
                game.moves(q, &mut other);
                if !other.contains(&p) {
                    return Err(format!("un-move {q:?} of {p:?} has no move to it"));
                }
            }
        }
        if <G::Symmetry as Symmetry<G>>::SYMMETRIC {
            let cp = canonical(game, &p);
            if canonical(game, &cp) != cp {
                return Err(format!(
                    "{p:?}: canonical {cp:?} is not its own canonical form"
                ));
            }
            if game.tier(&cp) != t {
                return Err(format!("{p:?}: canonical {cp:?} is in another tier"));
            }
            // The games' fast twins of the default rules.
            let is_c = <G::Symmetry as Symmetry<G>>::is_canonical;
            if is_c(game, &p) != (cp == p) || !is_c(game, &cp) {
                return Err(format!(
                    "{p:?}: is_canonical disagrees with its canonical form {cp:?}"
                ));
            }
            let size = <G::Symmetry as Symmetry<G>>::class_size(game, &p);
            if size != class_by_images(game, &p) {
                return Err(format!(
                    "{p:?}: class size {size}, but its images say {}",
                    class_by_images(game, &p)
                ));
            }
            if game.primitive(&cp) != game.primitive(&p) {
                return Err(format!(
                    "{p:?} and its canonical {cp:?} differ in primitive value"
                ));
            }
            other.clear();
            game.moves(&cp, &mut other);
            let a: HashSet<(G::Position, bool)> = moves
                .iter()
                .map(|c| (canonical(game, c), keeps(game, &p, c)))
                .collect();
            let b: HashSet<(G::Position, bool)> = other
                .iter()
                .map(|c| (canonical(game, c), keeps(game, &cp, c)))
                .collect();
            if a != b {
                return Err(format!(
                    "{p:?} and its canonical {cp:?} have moves to different classes"
                ));
            }
            if <G::Symmetry as Symmetry<G>>::children_apart(game, &p) {
                let inside: HashSet<G::Position> = moves
                    .iter()
                    .filter(|c| game.tier(c) == t)
                    .copied()
                    .collect();
                let classes: Vec<G::Position> = inside.iter().map(|c| canonical(game, c)).collect();
                twice(&classes).map_err(|c| format!("{p:?}: two of its moves reach the class of {c:?}, but children_apart says no symmetry maps one onto the other"))?;
            }
        }
    }
    Ok(())
}

/// Whether `moves_leaving` gives `p`'s moves out of tier `t` (as a multiset) and the number
/// of the others, as `moves` (given) says.
fn leaving<G: TierGame>(
    game: &G,
    p: &G::Position,
    t: G::Tier,
    moves: &[G::Position],
) -> Result<(), Violation> {
    let mut want: Vec<G::Position> = moves
        .iter()
        .filter(|c| game.tier(c) != t)
        .copied()
        .collect();
    let inside = moves.len() - want.len();
    let mut got = Vec::new();
    let n = game.moves_leaving(p, &mut got);
    want.sort();
    got.sort();
    if n != inside || got != want {
        return Err(format!(
            "{p:?}: moves_leaving gives {} moves out of the tier and {n} inside, moves {} and {inside}",
            got.len(),
            want.len()
        ));
    }
    Ok(())
}

/// A check of one position.
type Check<G, X> = fn(&G, &<G as TierGame>::Position, X) -> Result<(), Violation>;
/// A check of one position against a list (its moves, or its un-moves).
type CheckMoves<G> =
    fn(&G, &<G as TierGame>::Position, &[<G as TierGame>::Position]) -> Result<(), Violation>;
/// Positions to check, from a game's tiers.
type Sample<G> =
    fn(&G, &Dag<<G as TierGame>::Tier>, u64) -> Result<Vec<<G as TierGame>::Position>, Violation>;

/// The checks that depend on the layout, for `G`'s.
struct Rules<G: TierGame> {
    /// A position's number gives it back, within the tier.
    numbering: Check<G, G::Tier>,
    /// With sorted keys, the slot children are the moves, in order, as the flags say.
    slots: CheckMoves<G>,
    /// Whether a position of tier `t` is one the index numbers (an un-move may give a hole).
    numbered: fn(&G, &G::Position, G::Tier) -> bool,
    /// With a dense index, the un-moves the game numbers itself are the un-moves given
    /// (the last argument), numbered.
    ranked: CheckMoves<G>,
    /// Positions of every tier to check.
    sample: Sample<G>,
}

struct ByLayout;

impl<G: TierGame> LayoutVisitor<G> for ByLayout {
    type Out = Rules<G>;
    fn dense(self) -> Rules<G>
    where
        G: DenseIndex,
    {
        Rules {
            numbering: dense_numbering::<G>,
            slots: |_, _, _| Ok(()),
            numbered: |game, q, t| game.unrank(t, game.rank(q)) == Some(*q),
            ranked: dense_ranked::<G>,
            sample: dense_sample::<G>,
        }
    }
    fn sorted(self) -> Rules<G>
    where
        G: OrderedMoves,
    {
        Rules {
            numbering: sorted_numbering::<G>,
            slots: sorted_slots::<G>,
            numbered: |_, _, _| false,
            ranked: |_, _, _| Ok(()),
            sample: sorted_sample::<G>,
        }
    }
}

/// [`UnmoveGame::unmoves_ranked`](crate::UnmoveGame::unmoves_ranked) of a canonical `p`:
/// its numbered parents and the others are `parents` (`unmoves`' list), by canonical rank
/// and turn, and each numbered one is the rank of a parent that is its own canonical form.
fn dense_ranked<G: DenseIndex>(
    game: &G,
    p: &G::Position,
    parents: &[G::Position],
) -> Result<(), Violation> {
    if !<G::Symmetry as Symmetry<G>>::is_canonical(game, p) {
        return Ok(());
    }
    let (mut ranked, mut out) = (Vec::new(), Vec::new());
    <G::Parents as Parents<G>>::unmoves_ranked(game, p, game.rank(p), &mut ranked, &mut out);
    let key = |q: &G::Position| (game.rank(&canonical(game, q)), keeps(game, q, p));
    let mut want: Vec<(u64, bool)> = parents.iter().map(key).collect();
    let mut got: Vec<(u64, bool)> = ranked.iter().copied().chain(out.iter().map(key)).collect();
    want.sort_unstable();
    got.sort_unstable();
    if want != got {
        return Err(format!(
            "{p:?}: unmoves_ranked gives the parents (rank, keeps-turn) {got:?}, unmoves {want:?}"
        ));
    }
    let own: HashSet<(u64, bool)> = parents
        .iter()
        .filter(|q| canonical(game, q) == **q)
        .map(|q| (game.rank(q), keeps(game, q, p)))
        .collect();
    match ranked.iter().find(|r| !own.contains(r)) {
        Some(r) => Err(format!(
            "{p:?}: unmoves_ranked numbers {r:?}, which is no un-move that is its own canonical form"
        )),
        None => Ok(()),
    }
}

/// The first position a list holds twice, if any.
fn twice<P: Copy + Eq + std::hash::Hash>(list: &[P]) -> Result<(), P> {
    let mut seen = HashSet::new();
    match list.iter().find(|&&x| !seen.insert(x)) {
        Some(&x) => Err(x),
        None => Ok(()),
    }
}

fn dense_numbering<G: DenseIndex>(game: &G, p: &G::Position, t: G::Tier) -> Result<(), Violation> {
    let i = game.rank(p);
    if game.unrank(t, i) != Some(*p) {
        return Err(format!(
            "{p:?}: rank {i}, but unrank({t:?}, {i}) is another"
        ));
    }
    if i >= game.tier_size(t) {
        return Err(format!("{p:?}: rank {i} past the tier size"));
    }
    Ok(())
}

fn sorted_numbering<G: OrderedMoves>(
    game: &G,
    p: &G::Position,
    t: G::Tier,
) -> Result<(), Violation> {
    let key = game.key(p);
    if game.key_position(t, key) != *p {
        return Err(format!("{p:?}: key {key} does not give it back"));
    }
    let bits = game.key_bits(t);
    if bits < 64 && key >> bits != 0 {
        return Err(format!("{p:?}: key {key} has more than {bits} bits"));
    }
    Ok(())
}

fn sorted_slots<G: OrderedMoves>(
    game: &G,
    p: &G::Position,
    moves: &[G::Position],
) -> Result<(), Violation> {
    let slots: Vec<G::Position> = (0..game.slots())
        .filter_map(|s| game.slot_child(p, s))
        .collect();
    if slots != moves {
        return Err(format!(
            "{p:?}: the slot children are not the moves, in order"
        ));
    }
    let flags = (0..game.slots()).fold(0u16, |f, s| {
        f | u16::from(game.slot_child(p, s).is_some()) << s
    });
    let said = game.slot_flags(p);
    if said != flags {
        return Err(format!(
            "{p:?}: slot_flags says {said:#b}, the slot children {flags:#b}"
        ));
    }
    Ok(())
}

fn dense_sample<G: DenseIndex>(
    game: &G,
    dag: &Dag<G::Tier>,
    samples: u64,
) -> Result<Vec<G::Position>, Violation> {
    let mut out = Vec::new();

    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    for &t in &dag.tiers {
        let size = game.tier_size(t);
        let mut add = |i: u64| {
            if let Some(p) = game.unrank(t, i) {
                out.push(p);
            }
        };
        if size <= samples {
            (0..size).for_each(&mut add);
        } else {
            for _ in 0..samples {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                add(rng % size);
            }
        }
    }
    // Symmetric images too, so that non-canonical positions are checked.
    if <G::Symmetry as Symmetry<G>>::SYMMETRIC {
        let more: Vec<G::Position> = out.iter().map(|p| canonical(game, p)).collect();
        out.extend(more);
    }
    Ok(out)
}

fn sorted_sample<G: OrderedMoves>(
    game: &G,
    _: &Dag<G::Tier>,
    samples: u64,
) -> Result<Vec<G::Position>, Violation> {
    let mut out = Vec::new();

    // Breadth first from the start, up to `samples` per tier.
    let start = game.start().ok_or("the sorted-keys layout needs a start")?;
    let mut per_tier: std::collections::HashMap<G::Tier, u64> = Default::default();
    crate::api::explicit::breadth_first(game, start, |p| {
        let n = per_tier.entry(game.tier(p)).or_default();
        *n += 1;
        if *n <= samples {
            out.push(*p);
        }
        Ok::<_, Violation>(*n <= samples)
    })?;
    // Slots are increasing in the key over each tier's sample.
    let mut by_tier: std::collections::HashMap<G::Tier, Vec<u64>> = Default::default();
    for p in &out {
        by_tier.entry(game.tier(p)).or_default().push(game.key(p));
    }
    for (t, mut keys) in by_tier {
        keys.sort_unstable();
        for s in 0..game.slots() {
            let mut last: Option<u64> = None;
            for &k in &keys {
                let p = game.key_position(t, k);
                if game.primitive(&p).is_some() {
                    continue;
                }
                if let Some(c) = game.slot_child(&p, s) {
                    let ck = game.key(&c);
                    if last.is_some_and(|l| l >= ck) {
                        return Err(format!(
                            "slot {s} is not increasing in the key at {p:?} (tier {t:?})"
                        ));
                    }
                    last = Some(ck);
                }
            }
        }
    }
    Ok(out)
}

/// The number of distinct images of `p` under the game's symmetries (1 without).
fn class_by_images<G: TierGame>(game: &G, p: &G::Position) -> u64 {
    let mut images = <G::Symmetry as Symmetry<G>>::images(game, p);
    images.sort_unstable();
    images.dedup();
    images.len() as u64
}
/// [`check_game`], then the promises of a game with scores, on up to `samples` positions of
/// every tier: the score range holds 0 (ties and draws) and lies within `±32,766` (what a
/// cell stores); every
/// terminal position's score is in it; every move that leaves its tier has a reward of at
/// most the range's width; with symmetries, terminal scores and rewards are the same on
/// every image.
///
/// # Errors
/// The first promise found broken.
pub fn check_scored<G: ScoredGame + DenseIndex>(game: &G, samples: u64) -> Result<(), Violation> {
    check_game(game, samples)?;
    let (lo, hi) = game.score_range();
    score_range_fits((lo, hi)).map_err(|e| e.to_string())?;
    let width = hi - lo;
    let dag = Dag::build(game).map_err(|e| e.to_string())?;
    let mut moves = Vec::new();
    for &t in &dag.tiers {
        let size = game.tier_size(t);
        let step = (size / samples.max(1)).max(1);
        for i in (0..size).step_by(step as usize) {
            let Some(p) = game.unrank(t, i) else {
                continue;
            };
            let images = <G::Symmetry as Symmetry<G>>::images(game, &p);
            moves.clear();
            if game.primitive(&p).is_none() {
                game.moves(&p, &mut moves);
            }
            if moves.is_empty() {
                let s = game.terminal_score(&p);
                if s < lo || s > hi {
                    return Err(format!(
                        "{p:?} is over with score {s}, outside the range {lo}..={hi}"
                    ));
                }
                if let Some(q) = images.iter().find(|q| game.terminal_score(q) != s) {
                    return Err(format!(
                        "{p:?} is over with score {s}, its symmetric image {q:?} with {}",
                        game.terminal_score(q)
                    ));
                }
                continue;
            }
            for c in &moves {
                if game.tier(c) == t {
                    continue;
                }
                let r = game.reward(&p, c);
                if r.unsigned_abs() > width.unsigned_abs() {
                    return Err(format!(
                        "{p:?} -> {c:?} collects {r}, more than the score range's width {width}"
                    ));
                }
                let child_images = <G::Symmetry as Symmetry<G>>::images(game, c);
                for (pg, cg) in images.iter().zip(&child_images).skip(1) {
                    if game.reward(pg, cg) != r {
                        return Err(format!(
                            "{p:?} -> {c:?} collects {r}, its symmetric image {pg:?} -> {cg:?} {}",
                            game.reward(pg, cg)
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

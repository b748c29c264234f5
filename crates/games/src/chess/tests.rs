use super::*;
use retrograde_solve::{Outcome, Value};
use retrograde_tier::{check_game, solve, SolveOptions, Solved, TierSolution};
use std::collections::HashMap;

fn solved(g: &Chess) -> TierSolution<'_, Chess> {
    solve(g, &SolveOptions::default()).unwrap()
}

fn pos(g: &Chess, fen: &str) -> Pos {
    g.parse_position(fen).unwrap().0
}

/// Every position of the index of `g`'s root tiers (canonical or not), in index order.
fn every_position(g: &Chess) -> Vec<Pos> {
    let mut out = Vec::new();
    for t in g.root_tiers() {
        for i in 0..g.tier_size(t) {
            if let Some(p) = g.unrank(t, i) {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn the_king_pairs_are_the_published_462_and_1806() {
    let g = Chess::new("KvK").unwrap();
    assert_eq!(g.king_pairs(false), 462);
    assert_eq!(g.king_pairs(true), 1806);
}

#[test]
fn material_reads_and_writes_the_usual_way() {
    for (text, shown) in [
        ("KQvK", "KQvK"),
        ("kpvk", "KPvK"),
        ("KPRvKR", "KRPvKR"),
        ("KvK", "KvK"),
        ("KNBvK", "KBNvK"),
    ] {
        assert_eq!(Material::parse(text).unwrap().to_string(), shown);
    }
    for bad in ["", "KQ", "QvK", "KQvQ", "KXvK", "KQRRvK", "KQRvKRR"] {
        assert!(Material::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn keeps_the_api_promises() {
    for m in ["KvK", "KQvK", "KPvK", "KBBvK", "KRvKB", "KPvKP", "KNvKP"] {
        check_game(&Chess::new(m).unwrap(), 3000).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

/// The positions of the tier with a move to `p` are exactly the un-moves of `p`, checked
/// with the crate's forward moves from every position of a few tiers.
#[test]
fn unmoves_are_the_crate_s_moves_backwards() {
    for m in ["KRvK", "KBNvK", "KPvKR"] {
        let g = Chess::new(m).unwrap();
        let tiers = g.root_tiers();
        for &t in tiers.iter().take(2) {
            let size = g.tier_size(t);
            let step = (size / 20_000).max(1);
            let mut forward: HashMap<Pos, Vec<Pos>> = HashMap::new();
            let mut all = Vec::new();
            for i in (0..size).step_by(step as usize) {
                if let Some(p) = g.unrank(t, i) {
                    all.push(p);
                }
            }
            // Forward: every child inside the tier must list p among its un-moves.
            for p in &all {
                if g.primitive(p).is_some() {
                    continue;
                }
                let mut ms = Vec::new();
                g.moves(p, &mut ms);
                for c in ms.into_iter().filter(|c| g.tier(c) == t) {
                    forward.entry(c).or_default().push(*p);
                    let mut back = Vec::new();
                    g.unmoves(&c, &mut back);
                    assert!(
                        back.contains(p),
                        "{m}: {} is missing from the un-moves of {}",
                        g.fen(p),
                        g.fen(&c)
                    );
                }
            }
            // Backward: every un-move is a legal position with a move to p.
            for p in &all {
                let mut back = Vec::new();
                g.unmoves(p, &mut back);
                for q in back {
                    assert_eq!(g.tier(&q), t);
                    assert!(g.board(&q).is_some(), "{m}: un-move to an illegal {q:?}");
                    let mut ms = Vec::new();
                    g.moves(&q, &mut ms);
                    assert!(
                        ms.contains(p),
                        "{m}: {} has no move to {}",
                        g.fen(&q),
                        g.fen(p)
                    );
                }
            }
        }
    }
}

#[test]
fn kvk_and_lone_minor_pieces_are_ties() {
    for m in ["KvK", "KNvK", "KBvK", "KvKB"] {
        let g = Chess::new(m).unwrap();
        let s = solved(&g);
        let st = s.stats();
        assert!(st.positions > 0);
        assert_eq!((st.win, st.loss, st.draw), (0, 0, 0), "{m}");
        assert_eq!(st.tie, st.positions, "{m}");
    }
    // KvK: 462 pairs, 3612 legal placements of two kings (64 x 63 less 420 touching), each
    // with either side to move.
    let g = Chess::new("KvK").unwrap();
    assert_eq!(solved(&g).stats().positions, 2 * 3612);
}

#[test]
fn published_longest_mates_of_three_piece_endings() {
    // Longest wins (white to move): KQvK mate in 10, KRvK mate in 16 (2n - 1 plies).
    for (m, moves) in [("KQvK", 10), ("KRvK", 16)] {
        let g = Chess::new(m).unwrap();
        let s = solved(&g);
        assert_eq!(s.stats().longest_win, Some(2 * moves - 1), "{m}");
        // The longest loss: black to move, one move more.
        assert_eq!(s.stats().longest_loss, Some(2 * moves), "{m}");
    }
    // KPvK: the longest win is mate in 28 (through promotion), white to move.
    let g = Chess::new("KPvK").unwrap();
    let s = solved(&g);
    let longest = g
        .root_tiers()
        .iter()
        .filter_map(|&t| s.tier_stats(t).and_then(|st| st.longest_win))
        .max();
    assert_eq!(longest, Some(55));
}

#[test]
fn mates_stalemates_and_short_wins() {
    let g = Chess::new("KQvK").unwrap();
    let s = solved(&g);
    let v = |fen: &str| s.value(&pos(&g, fen)).unwrap().unwrap();
    // Mate: black to move has none and is in check.
    assert_eq!(v("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1"), Value::Loss(0));
    // Stalemate: no move, not in check.
    assert_eq!(v("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"), Value::Tie(0));
    // Mate in one, and black to move who can take the queen: a tie (KvK).
    assert_eq!(v("k7/8/1K6/8/8/8/8/2Q5 w - - 0 1"), Value::Win(1));
    assert_eq!(v("k7/1Q6/8/8/8/8/8/7K b - - 0 1"), Value::Tie(1));
    // KRvK: mate with the rook on the back rank.
    let g = Chess::new("KRvK").unwrap();
    let s = solved(&g);
    let p = pos(&g, "k7/8/1K6/8/8/8/8/7R w - - 0 1");
    assert_eq!(s.value(&p).unwrap(), Some(Value::Win(1)));
    let best = s.ranked_moves(&p).unwrap()[0].0;
    assert_eq!(g.fen(&best), "k6R/8/1K6/8/8/8/8/8 b - - 0 1");
}

/// Positions of the tiers of `m` (sampled), with en-passant tiers first.
fn sample(g: &Chess, per_tier: u64) -> Vec<Pos> {
    let mut tiers = Vec::new();
    let dag_roots = g.root_tiers();
    let mut seen = std::collections::HashSet::new();
    let mut todo = dag_roots.clone();
    while let Some(t) = todo.pop() {
        if seen.insert(t) {
            tiers.push(t);
            let mut c = Vec::new();
            g.child_tiers(t, &mut c);
            todo.extend(c);
        }
    }
    let mut out = Vec::new();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    for t in tiers {
        let size = g.tier_size(t);
        for _ in 0..per_tier {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            if let Some(p) = g.unrank(t, rng % size) {
                out.push(p);
            }
        }
    }
    out
}

/// The rules' own move generator against the crate's legal moves, in every kind of
/// tier: captures, promotions, double pushes, en passant.
#[test]
fn moves_are_the_crate_s_legal_moves() {
    let mut eps = 0;
    let mut promotions = 0;
    for m in [
        "KQvK", "KPvK", "KPvKP", "KRvKB", "KNPvK", "KPvKN", "KPPvK", "KBvKP",
    ] {
        let g = Chess::new(m).unwrap();
        for p in sample(&g, 300) {
            let board = g
                .board(&p)
                .expect("every position of the index is a legal board");
            let mut ours = Vec::new();
            g.moves(&p, &mut ours);
            let mut theirs: Vec<Pos> = g.legal_moves(&p).into_iter().map(|(_, c)| c).collect();
            ours.sort();
            theirs.sort();
            assert_eq!(ours, theirs, "{m}: {board}");
            eps += ours.iter().filter(|c| c.ep != 0).count() + usize::from(p.ep != 0);
            promotions += ours
                .iter()
                .filter(|c| c.mat != p.mat && c.mat.len() == p.mat.len())
                .count();
            // The primitive value against the crate's verdict.
            let want = if Chess::insufficient(&p) {
                Some(Primitive::Tie)
            } else if theirs.is_empty() {
                Some(if board.checkers().is_empty() {
                    Primitive::Tie
                } else {
                    Primitive::Loss
                })
            } else {
                None
            };
            assert_eq!(g.primitive(&p), want, "{m}: {board}");
        }
    }
    assert!(
        eps > 0 && promotions > 0,
        "the sample has en passant ({eps}) and promotions ({promotions})"
    );
}

use super::*;
use retrograde_solve::{Outcome, Value};
use retrograde_tier::{
    check_game, solve, Notation, SolveOptions, Solved, TierSolution, UnmoveGame,
};
use std::collections::HashMap;

fn solved(g: &Chess) -> TierSolution<'_, Chess> {
    solve(g, &SolveOptions::default()).unwrap()
}

/// KPvK, solved once for all tests: with it KQvK, KRvK, KBvK, KNvK and KvK.
fn kpk() -> &'static TierSolution<'static, Chess> {
    static GAME: std::sync::OnceLock<Chess> = std::sync::OnceLock::new();
    static SOLVED: std::sync::OnceLock<TierSolution<'static, Chess>> = std::sync::OnceLock::new();
    SOLVED.get_or_init(|| solved(GAME.get_or_init(|| Chess::new("KPvK").unwrap())))
}

/// The longest win over the tiers of one material.
fn longest_win(s: &TierSolution<'_, Chess>, m: &str) -> Option<u32> {
    let g = Chess::new(m).unwrap();
    g.root_tiers()
        .iter()
        .filter_map(|&t| s.tier_stats(t).unwrap().and_then(|st| st.longest_win))
        .max()
}

fn pos(g: &Chess, fen: &str) -> Pos {
    g.parse_position(fen).unwrap().0
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
        ("KPRvKR", "KRPvKR"),
        ("KvK", "KvK"),
        ("KNBvK", "KBNvK"),
    ] {
        assert_eq!(Material::parse(text).unwrap().to_string(), shown);
    }
    for bad in [
        "", "KQ", "QvK", "KQvQ", "KXvK", "KQRRNvK", "KQRvKRR", "kpvk", "KPVK",
    ] {
        assert!(Material::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn every_ending_of_three_and_four_pieces() {
    assert_eq!(Material::all(2).len(), 1);
    assert_eq!(Material::all(3).len(), 10);
    // Multisets of 2 among 10 kinds of piece: C(11, 2).
    let four = Material::all(4);
    assert_eq!(four.len(), 55);
    let names: Vec<String> = four.iter().map(Material::to_string).collect();
    for m in ["KQvKR", "KRvKQ", "KBNvK", "KvKBN", "KPvKP", "KPPvK"] {
        assert!(names.iter().any(|n| n == m), "{m}");
    }
    let g = Chess::endings(&Material::all(3));
    assert_eq!(g.name(), "chess KPvK and 9 more");
}

#[test]
fn keeps_the_api_promises() {
    for m in ["KvK", "KQvK", "KPvK", "KBBvK", "KRvKB", "KPvKP"] {
        check_game(&Chess::new(m).unwrap(), 100).unwrap_or_else(|e| panic!("{m}: {e}"));
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
            let step = (size / 3_000).max(1);
            let mut forward: HashMap<Pos, Vec<Pos>> = HashMap::new();
            let mut all = Vec::new();
            for i in (0..size).step_by(step as usize) {
                if let Some(p) = g.unrank(t, i) {
                    // A position's number, decoded without the tests for holes.
                    assert_eq!(g.unrank_solved(t, i), Some(p));
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
    // Longest wins (white to move): KQvK mate in 10, KRvK mate in 16, KPvK mate in 28
    // (through a promotion): 2n - 1 plies.
    let s = kpk();
    assert_eq!(longest_win(s, "KQvK"), Some(19));
    assert_eq!(longest_win(s, "KRvK"), Some(31));
    assert_eq!(longest_win(s, "KPvK"), Some(55));
    // Black to move loses at most one ply later.
    let g = Chess::new("KQvK").unwrap();
    let t = g.root_tiers()[0];
    assert_eq!(s.tier_stats(t).unwrap().unwrap().longest_loss, Some(20));
    assert_eq!(longest_win(s, "KBvK"), None);
}

#[test]
fn mates_stalemates_and_short_wins() {
    let s = kpk();
    let g = s.game();
    let v = |fen: &str| s.value(&pos(g, fen)).unwrap().unwrap();
    // Mate: black to move has none and is in check.
    assert_eq!(v("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1"), Value::Loss(0));
    // Stalemate: no move, not in check.
    assert_eq!(v("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"), Value::Tie(0));
    // Mate in one, and black to move who can take the queen: a tie (KvK).
    assert_eq!(v("k7/8/1K6/8/8/8/8/2Q5 w - - 0 1"), Value::Win(1));
    assert_eq!(v("k7/1Q6/8/8/8/8/8/7K b - - 0 1"), Value::Tie(1));
    // KRvK: the only mate is on the back rank.
    let p = pos(g, "k7/8/1K6/8/8/8/8/7R w - - 0 1");
    assert_eq!(s.value(&p).unwrap(), Some(Value::Win(1)));
    let best = s.ranked_moves(&p).unwrap()[0].0;
    assert_eq!(g.fen(&best), "k6R/8/1K6/8/8/8/8/8 b - - 0 1");
    // KPvK: the king on the sixth rank ahead of its pawn wins whoever moves; with the pawn
    // on the seventh and the defender in front, black to move is stalemated.
    assert_eq!(
        v("4k3/8/4K3/4P3/8/8/8/8 b - - 0 1").outcome(),
        Outcome::Loss
    );
    assert_eq!(v("4k3/8/4K3/4P3/8/8/8/8 w - - 0 1").outcome(), Outcome::Win);
    assert_eq!(v("4k3/4P3/4K3/8/8/8/8/8 b - - 0 1"), Value::Tie(0));
    // A rook pawn with the defender in the corner: a tie whoever moves.
    assert_eq!(v("k7/8/8/P7/8/8/8/K7 w - - 0 1").outcome(), Outcome::Tie);
    // Insufficient material is a tie at once.
    assert_eq!(v("k7/8/8/8/8/8/8/K6N w - - 0 1"), Value::Tie(0));
}

/// Every tier of `g`: its root tiers and all they convert into.
fn all_tiers(g: &Chess) -> Vec<Tier> {
    let mut tiers = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut todo = g.root_tiers();
    while let Some(t) = todo.pop() {
        if seen.insert(t) {
            tiers.push(t);
            let mut c = Vec::new();
            g.child_tiers(t, &mut c);
            todo.extend(c);
        }
    }
    tiers
}

/// Positions of the tiers of `m` (sampled), with en-passant tiers first.
fn sample(g: &Chess, per_tier: u64) -> Vec<Pos> {
    let mut out = Vec::new();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    for t in all_tiers(g) {
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
            for c in ours.iter().chain([&p]) {
                assert_eq!(c.pawns(), c.mat().has_pawns(), "{m}: {c:?}");
            }
            eps += ours.iter().filter(|c| c.ep() != 0).count() + usize::from(p.ep() != 0);
            promotions += ours
                .iter()
                .filter(|c| c.mat() != p.mat() && c.mat().len() == p.mat().len())
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

use super::plain::{self, can_mate, mated_within};

/// Random positions of KQvK, KRvK and KPvK with a short mate: the table's depth to mate is
/// the one a plain search of the crate's moves finds (a mate that soon, none sooner).
#[test]
fn a_plain_search_agrees_on_short_mates() {
    let s = kpk();
    let g = s.game();
    let mut checked = [0usize; 6];
    for m in ["KQvK", "KRvK", "KPvK"] {
        let h = Chess::new(m).unwrap();
        for p in sample(&h, 4000) {
            if p.mat() != h.material() {
                continue;
            }
            let Some(v) = s.value(&p).unwrap() else {
                continue;
            };
            let b = g.board(&p).unwrap();
            match v {
                Value::Win(r) if r <= 3 && checked[r as usize] < 40 => {
                    checked[r as usize] += 1;
                    assert!(can_mate(&b, r), "{b}: {v}");
                    assert!(r < 3 || !can_mate(&b, r - 2), "{b}: {v}");
                }
                Value::Loss(r) if r <= 4 && checked[r as usize] < 40 => {
                    checked[r as usize] += 1;
                    assert!(mated_within(&b, r), "{b}: {v}");
                    assert!(r < 2 || !mated_within(&b, r - 2), "{b}: {v}");
                }
                // A tie or a longer win: no mate within 3 plies for the side to move.
                Value::Tie(_) if checked[5] < 40 => {
                    checked[5] += 1;
                    assert!(!can_mate(&b, 3), "{b}: {v}");
                }
                Value::Win(r) if r > 3 && checked[5] < 40 => {
                    checked[5] += 1;
                    assert!(!can_mate(&b, 3), "{b}: {v}");
                }
                _ => {}
            }
        }
    }
    // Mates themselves are rare in a sample (and checked by name elsewhere).
    assert!(checked.iter().all(|&c| c >= 1), "{checked:?}");
    assert!(checked[1..].iter().all(|&c| c >= 10), "{checked:?}");
}

/// A FEN with its board mirrored left to right (files a-h reversed).
fn mirror_fen(fen: &str) -> String {
    let (board, rest) = fen.split_once(' ').unwrap();
    let rows: Vec<String> = board
        .split('/')
        .map(|r| {
            let mut cells = Vec::new();
            for ch in r.chars() {
                match ch.to_digit(10) {
                    Some(n) => cells.extend(std::iter::repeat_n('1', n as usize)),
                    None => cells.push(ch),
                }
            }
            cells.reverse();
            // Runs of empty cells back to one digit.
            let mut row = String::new();
            let mut empty = 0;
            for c in cells {
                if c == '1' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        row.push_str(&empty.to_string());
                        empty = 0;
                    }
                    row.push(c);
                }
            }
            if empty > 0 {
                row.push_str(&empty.to_string());
            }
            row
        })
        .collect();
    format!("{} {rest}", rows.join("/"))
}

/// The same position with the colours swapped: ranks reversed, case swapped, the other
/// side to move.
fn colour_flip_fen(fen: &str) -> String {
    let parts: Vec<&str> = fen.split(' ').collect();
    let rows: Vec<String> = parts[0]
        .split('/')
        .rev()
        .map(|r| {
            r.chars()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect()
        })
        .collect();
    let side = if parts[1] == "w" { "b" } else { "w" };
    format!("{} {side} - - 0 1", rows.join("/"))
}

/// Mirrored positions have the same value (written as FEN, not through the rules'
/// symmetries); without pawns so do positions turned upside down; and swapping the
/// colours (KPvK against KvKP) changes nothing.
#[test]
fn mirrored_and_colour_swapped_positions_have_the_same_value() {
    let s = kpk();
    let g = s.game();
    let flipped_game = Chess::new("KvKP").unwrap();
    let flipped = solved(&flipped_game);
    let mut n = 0;
    for m in ["KPvK", "KQvK", "KRvK"] {
        let h = Chess::new(m).unwrap();
        for p in sample(&h, 600) {
            if p.mat() != h.material() {
                continue;
            }
            let fen = g.fen(&p);
            let v = s.value(&p).unwrap();
            let mirrored = mirror_fen(&fen);
            assert_eq!(
                s.value(&pos(g, &mirrored)).unwrap(),
                v,
                "{fen} / {mirrored}"
            );
            if m != "KPvK" {
                // Upside down: ranks reversed, same colours.
                let (board, rest) = fen.split_once(' ').unwrap();
                let turned: Vec<&str> = board.split('/').rev().collect();
                let turned = format!("{} {rest}", turned.join("/"));
                assert_eq!(s.value(&pos(g, &turned)).unwrap(), v, "{fen} / {turned}");
            } else {
                let swapped = colour_flip_fen(&fen);
                let q = pos(&flipped_game, &swapped);
                assert_eq!(flipped.value(&q).unwrap(), v, "{fen} / {swapped}");
            }
            n += 1;
        }
    }
    assert!(n > 1000);
}

/// Promotion to a rook, bishop or knight is played, and is better than a queen where the
/// queen would stalemate.
#[test]
fn underpromotion_is_played_where_a_queen_would_stalemate() {
    let s = kpk();
    let g = s.game();
    // Black king a7, white king c6, pawn c7: c8=Q stalemates, c8=R wins.
    let p = pos(g, "8/k1P5/2K5/8/8/8/8/8 w - - 0 1");
    let mut named = Vec::new();
    g.named_moves(&p, 0, &mut named);
    let value_of = |name: &str| {
        let (_, c) = named.iter().find(|(n, _)| n == name).expect(name);
        s.value(c).unwrap().unwrap().through(false)
    };
    assert_eq!(value_of("c7c8q"), Value::Tie(1));
    assert_eq!(value_of("c7c8b").outcome(), Outcome::Tie);
    assert_eq!(value_of("c7c8n").outcome(), Outcome::Tie);
    assert_eq!(value_of("c7c8r").outcome(), Outcome::Win);
    assert_eq!(s.value(&p).unwrap().unwrap().outcome(), Outcome::Win);
    // The plain search agrees that the queen stalemates and the rook does not.
    let b = g.board(&p).unwrap();
    let after = |piece: Piece| {
        plain::moves(&b)
            .into_iter()
            .find(|c| c.pieces(piece).len() == 1 && c.pieces(Piece::Pawn).is_empty())
            .unwrap()
    };
    let q = after(Piece::Queen);
    assert!(plain::moves(&q).is_empty() && q.checkers().is_empty());
    assert!(!plain::moves(&after(Piece::Rook)).is_empty());
    // Somewhere in KPvK an underpromotion is the only winning move.
    let mut only = 0;
    for t in g.root_tiers() {
        for i in 0..g.tier_size(t) {
            let Some(p) = g.unrank(t, i) else { continue };
            if p.stm() != 0 || p.sq(2) >> 3 != 6 {
                continue;
            }
            let ranked = s.ranked_moves(&p).unwrap();
            let wins: Vec<&(Pos, Value)> = ranked
                .iter()
                .filter(|(_, v)| v.outcome() == Outcome::Win)
                .collect();
            if !wins.is_empty()
                && wins.iter().all(|(c, _)| {
                    c.mat().len() == 1 && !c.mat().has_pawns() && c.mat().to_string() != "KQvK"
                })
            {
                only += 1;
            }
        }
    }
    assert!(only > 0);
}

/// A FEN's en-passant square is kept when the capture is legal and dropped when not (the
/// position is then the one without it); positions with the right have tiers of their own.
#[test]
fn en_passant_is_a_position_of_its_own() {
    let g = Chess::new("KPvKP").unwrap();
    // Black can take e3 en passant.
    let (p, side) = g.parse_position("7k/8/8/8/3pP3/8/8/K7 b - e3 0 1").unwrap();
    assert_eq!((side, p.ep()), (1, 5));
    assert_eq!(g.tier_name(g.tier(&p)), "KPvKP_44_epw");
    assert_eq!(g.unrank(g.tier(&p), g.rank(&p)), Some(p));
    assert_eq!(g.unrank_solved(g.tier(&p), g.rank(&p)), Some(p));
    let mut names = Vec::new();
    g.named_moves(&p, 1, &mut names);
    let (_, after) = names
        .iter()
        .find(|(n, _)| n == "d4e3")
        .expect("the capture");
    assert_eq!(after.mat().to_string(), "KvKP");
    // Kings side by side are no position (the crate reads the FEN).
    let e = g.parse_position("8/8/8/8/8/8/8/Kk6 w - - 0 1").unwrap_err();
    assert!(e.to_string().contains("next to each other"), "{e}");
    // Without a pawn beside it, or with the taker pinned, the square says nothing.
    let (q, _) = g.parse_position("7k/8/8/8/4P3/8/8/K7 b - - 0 1").unwrap();
    assert_eq!(q.ep(), 0);
    let (r, _) = g
        .parse_position("8/8/8/8/k2pP2R/8/8/7K b - e3 0 1")
        .unwrap();
    assert_eq!(
        r.ep(),
        0,
        "the black pawn is pinned to its king along the rank"
    );
    // The double push from the tier without the right leads to the one with it.
    let (before, _) = g.parse_position("7k/8/8/8/3p4/8/4P3/K7 w - - 0 1").unwrap();
    let mut kids = Vec::new();
    g.moves(&before, &mut kids);
    assert!(kids.contains(&p));
    let mut tiers = Vec::new();
    g.child_tiers(g.tier(&before), &mut tiers);
    assert!(tiers.contains(&g.tier(&p)));
}

/// A position no game reaches is refused with why: the kings side by side, the side not to
/// move in check (the crate's checks), a double check by two knights or by a pawn and a
/// knight (each gives check only by moving; the second checker of a double check is
/// uncovered, so it checks along a line).
#[test]
fn positions_no_game_reaches_are_refused() {
    let g = Chess::new("KNNvK").unwrap();
    let e = g.parse_position("8/8/8/8/8/8/8/Kk6 w - - 0 1").unwrap_err();
    assert!(e.to_string().contains("next to each other"), "{e}");
    let e = g
        .parse_position("k7/8/1N6/8/8/8/8/K6N w - - 0 1")
        .unwrap_err();
    assert!(
        e.to_string().contains("the side not to move is in check"),
        "{e}"
    );
    let e = g
        .parse_position("k7/2N5/1N6/8/8/8/8/K7 b - - 0 1")
        .unwrap_err();
    assert!(e.to_string().contains("two pawns or knights"), "{e}");
    let h = Chess::new("KNPvK").unwrap();
    let e = h
        .parse_position("8/8/k7/1PN5/8/8/8/K7 b - - 0 1")
        .unwrap_err();
    assert!(e.to_string().contains("two pawns or knights"), "{e}");
    // A knight's check with a rook's uncovered behind it arises.
    let r = Chess::new("KRNvK").unwrap();
    r.parse_position("k7/8/1N6/8/8/8/8/R6K b - - 0 1").unwrap();
}

/// KPvKP solved: a position with the en-passant right is worth what the best of its moves
/// gives, and the right changes the value of some positions. (Slow in a debug build: it
/// solves every 4-piece ending with two queens or fewer that KPvKP converts into.)
#[test]
#[cfg_attr(debug_assertions, ignore)]
fn en_passant_values_follow_from_the_moves() {
    let g = Chess::new("KPvKP").unwrap();
    let s = solved(&g);
    let mut differs = 0;
    let mut checked = 0;
    for t in g
        .root_tiers()
        .into_iter()
        .filter(|t| g.tier_name(*t).contains("_ep"))
    {
        for i in 0..g.tier_size(t) {
            let Some(p) = g.unrank(t, i) else { continue };
            let v = s.value(&p).unwrap().unwrap();
            // The value from the children, by the rules of the contract.
            let kids: Vec<Value> = {
                let mut c = Vec::new();
                g.moves(&p, &mut c);
                c.iter().map(|c| s.value(c).unwrap().unwrap()).collect()
            };
            let best = kids.iter().map(|&k| k.through(false)).max().unwrap();
            assert_eq!(v, best, "{}", g.fen(&p));
            let mut plain = p;
            plain.set_ep(0);
            if s.value(&plain).unwrap() != Some(v) {
                differs += 1;
            }
            checked += 1;
        }
    }
    assert!(checked > 1000 && differs > 0, "{checked} {differs}");
}

// ------------------------------------------------------------------------------------------
// The fast rules against the crate and against plain definitions.

/// A legal position of random material (up to five pieces), as the crate reads it: kings
/// and pieces on random squares (pawns on ranks 2 to 7, so that promotions are common), a
/// random side to move, and in about half the cases a pawn of the side not to move just
/// pushed two squares with the en-passant square set and, with two pieces or more, a pawn
/// beside it that may take it (the crate refuses the square where no such push could have
/// happened; the rules keep it only where the capture is legal).
fn random_board(
    kings: (u8, u8),
    pieces: &[(u8, u8)],
    black: bool,
    ep: Option<u8>,
) -> Option<Board> {
    if kings.0 == kings.1 {
        return None;
    }
    let mut b = BoardBuilder::empty();
    b.board[usize::from(kings.0)] = Some((Piece::King, Color::White));
    b.board[usize::from(kings.1)] = Some((Piece::King, Color::Black));
    let stm = if black { Color::Black } else { Color::White };
    let mut pushed = false;
    let mut beside = false;
    for (i, &(code, s)) in pieces.iter().enumerate() {
        // With an en-passant file and two pieces or more, the first two are pawns: the
        // pusher's and one of the side to move.
        let code = match (ep, i, pieces.len() >= 2, black) {
            (Some(_), 0, true, b) => 5 * u8::from(!b),
            (Some(_), 1, true, b) => 5 * u8::from(b),
            _ => code,
        };
        let kind = code % 5;
        let colour = if code >= 5 {
            Color::Black
        } else {
            Color::White
        };
        let mut s = s;
        if kind == 0 {
            // A pawn: ranks 2 to 7; with an en-passant file, the first pawn of the side
            // not to move is the one that has just made a double push, and the first of
            // the side to move stands beside it (left or right, by a bit of its square).
            s = (1 + (s >> 3) % 6) * 8 + (s & 7);
            let rank = if black { 24 } else { 32 };
            match ep {
                Some(f) if colour != stm && !pushed => {
                    s = rank + f;
                    pushed = true;
                }
                Some(f) if colour == stm && !beside => {
                    let g = if s & 1 == 0 { f.wrapping_sub(1) } else { f + 1 };
                    if g < 8 {
                        s = rank + g;
                    }
                    beside = true;
                }
                _ => {}
            }
        }
        if b.board[usize::from(s)].is_some() {
            return None;
        }
        b.board[usize::from(s)] = Some((Piece::index(usize::from(kind)), colour));
    }
    b.side_to_move = stm;
    if let (Some(f), true) = (ep, pushed) {
        let rank = if black { Rank::Third } else { Rank::Sixth };
        b.en_passant = Some(Square::new(File::index(usize::from(f)), rank));
    }
    b.build().ok()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

    /// The rules' move generator gives exactly the crate's legal moves (captures,
    /// promotions to every piece, double pushes with and without the en-passant right,
    /// en passant, pins, checks), the primitive value agrees with the crate's verdict, and
    /// every move inside the tier is undone by an un-move.
    #[test]
    fn fast_moves_are_the_crate_s_legal_moves_on_random_positions(
        kings in (0u8..64, 0u8..64),
        pieces in proptest::collection::vec((0u8..10, 0u8..64), 0..=3),
        black in proptest::bool::ANY,
        ep in proptest::option::of(0u8..8),
    ) {
        let Some(board) = random_board(kings, &pieces, black, ep) else {
            return Ok(());
        };
        let Ok(p) = Chess::from_board(&board) else {
            // Only kings side by side are refused (the crate accepts them).
            proptest::prop_assert!(get_king_moves(sq(kings.0)).has(sq(kings.1)));
            return Ok(());
        };
        let g = Chess::with_material(p.mat());
        let mut ours = Vec::new();
        g.children(&p, |c| {
            ours.push(c);
            false
        });
        let mut theirs: Vec<Pos> = g.legal_moves(&p).into_iter().map(|(_, c)| c).collect();
        ours.sort();
        theirs.sort();
        proptest::prop_assert_eq!(&ours, &theirs, "{}", board);
        // The moves that leave the tier, and the count of the others, as the crate's moves
        // split by tier say (`theirs` is sorted, and so is each part).
        let (stay, away): (Vec<Pos>, Vec<Pos>) =
            theirs.iter().partition(|c| g.tier(c) == g.tier(&p));
        let mut leaving = Vec::new();
        let inside = g.moves_leaving(&p, &mut leaving);
        leaving.sort();
        proptest::prop_assert_eq!(inside, stay.len(), "{}", board);
        proptest::prop_assert_eq!(&leaving, &away, "{}", board);
        let want = if Chess::insufficient(&p) {
            Some(Primitive::Tie)
        } else if theirs.is_empty() {
            Some(if board.checkers().is_empty() { Primitive::Tie } else { Primitive::Loss })
        } else {
            None
        };
        proptest::prop_assert_eq!(g.primitive(&p), want, "{}", board);
        for c in ours.iter().filter(|c| g.tier(c) == g.tier(&p)) {
            let mut back = Vec::new();
            g.unmoves(c, &mut back);
            proptest::prop_assert!(back.contains(&p), "{} -> {}", board, g.fen(c));
        }
        // The index holds the position, and the packed order is the fields' order.
        if g.is_canonical(&p) {
            proptest::prop_assert_eq!(g.unrank(g.tier(&p), g.rank(&p)), Some(p));
            proptest::prop_assert_eq!(g.unrank_solved(g.tier(&p), g.rank(&p)), Some(p));
        }
        for c in &ours {
            let fields = |q: &Pos| (q.squares(), q.ep(), q.stm(), q.mat());
            proptest::prop_assert_eq!(p.cmp(c), fields(&p).cmp(&fields(c)));
        }
    }
}

/// The random positions of the property test above do hold en-passant captures and
/// promotions.
#[test]
fn random_positions_cover_en_passant_and_promotions() {
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n) as u8
    };
    let (mut eps, mut promotions, mut boards) = (0, 0, 0);
    for _ in 0..3000 {
        let kings = (next(64), next(64));
        let count = usize::from(next(4));
        let pieces: Vec<(u8, u8)> = (0..count).map(|_| (next(10), next(64))).collect();
        let black = next(2) == 1;
        let ep = (next(2) == 1).then(|| next(8));
        let Some(board) = random_board(kings, &pieces, black, ep) else {
            continue;
        };
        let Ok(p) = Chess::from_board(&board) else {
            continue;
        };
        boards += 1;
        eps += usize::from(p.ep() != 0);
        let g = Chess::with_material(p.mat());
        g.children(&p, |c| {
            promotions += usize::from(c.mat() != p.mat() && c.mat().len() == p.mat().len());
            false
        });
    }
    assert!(
        boards > 1000 && eps > 20 && promotions > 100,
        "{boards} boards, {eps} with en passant, {promotions} promotions"
    );
}

/// The quick symmetry answers (class size from the kings' stabilizer, canonical test from
/// the king pair, the swap of colours of equal material) against the plain definitions
/// over all 16 symmetries.
#[test]
fn class_sizes_and_canonical_tests_agree_with_all_symmetries() {
    for m in ["KvK", "KQvK", "KBBvK", "KRvKB", "KPvK", "KPvKP", "KRvKR"] {
        let g = Chess::new(m).unwrap();
        let (mut diagonal, mut swapped) = (0, 0);
        for p in sample(&g, 2000) {
            let images: Vec<Pos> = (0..16).map(|s| g.apply_symmetry(&p, s)).collect();
            let fixed = images.iter().filter(|&&q| q == p).count() as u64;
            assert_eq!(g.class_size(&p), 16 / fixed, "{m}: {}", g.fen(&p));
            // The swap is a symmetry exactly where it keeps the tier; there it is never
            // a symmetry of the board (the other side is to move).
            let inside = g.swaps_inside(&p);
            assert_eq!(
                inside,
                p.mat() == p.flipped().mat() && g.own_tier(&p.flipped()) == g.own_tier(&p),
                "{m}"
            );
            assert_eq!(images.contains(&p.flipped()), inside, "{m}: {}", g.fen(&p));
            swapped += usize::from(inside);
            let least = *images.iter().min().unwrap();
            assert_eq!(g.canonical(&p), least, "{m}: {}", g.fen(&p));
            assert_eq!(g.is_canonical(&p), least == p, "{m}: {}", g.fen(&p));
            diagonal += usize::from(fixed > 1 && !p.mat().has_pawns());
        }
        if m == "KvK" {
            assert!(diagonal > 0, "symmetric positions sampled");
        }
        if m == "KRvKR" || m == "KPvKP" {
            assert!(
                swapped > 100,
                "{m}: {swapped} positions whose swap is a symmetry"
            );
        }
    }
}

/// `children_apart` against the plain definition: where it says so, no two moves inside
/// the tier reach positions that one of the 16 symmetries maps onto each other; and where
/// it does not (the king of the side not to move on a long diagonal, no pawns), some do.
#[test]
fn children_apart_where_no_symmetry_maps_one_move_onto_another() {
    let mut met = 0;
    for m in ["KQvK", "KBBvK", "KRvKB", "KRvKR", "KPvK", "KPvKP", "KRPvK"] {
        let g = Chess::new(m).unwrap();
        let mut apart = 0;
        for p in sample(&g, 2000) {
            if !g.is_canonical(&p) || g.primitive(&p).is_some() {
                continue;
            }
            let t = g.tier(&p);
            let mut moves = Vec::new();
            g.moves(&p, &mut moves);
            moves.retain(|c| g.tier(c) == t);
            let twins = moves.iter().enumerate().any(|(i, c)| {
                moves[..i]
                    .iter()
                    .any(|d| (0..16).any(|s| g.apply_symmetry(c, s) == *d))
            });
            if g.children_apart(&p) {
                assert!(!twins, "{m}: {}", g.fen(&p));
                apart += 1;
            }
            met += usize::from(twins);
        }
        assert!(apart > 100, "{m}: {apart} positions with moves apart");
    }
    assert!(met > 0, "positions with two moves to one class sampled");
}

/// The bit tricks on materials against counting.
#[test]
fn material_length_and_pawns_by_bits() {
    for n in 2..=MAX_PIECES {
        for m in Material::all(n) {
            assert_eq!(m.len(), m.codes().count(), "{m}");
            assert_eq!(m.has_pawns(), m.codes().any(|c| c & 7 == 1), "{m}");
            for j in 0..m.len() {
                let w = m.without(j);
                let mut codes: Vec<u8> = m.codes().collect();
                let c = codes.remove(j);
                assert_eq!(w.codes().collect::<Vec<_>>(), codes, "{m} without {j}");
                assert_eq!(w.with(j, c), m, "{m}");
            }
        }
    }
}

/// Every position of `roots`, both colourings (every canonical position of the game that
/// solves them apart), with its value in `kept` (one colouring solved, the other read
/// through the swap) and in `apart` (both solved): the same, for every position.
fn same_as_both_colourings_solved_apart(roots: &[&str]) -> usize {
    let roots: Vec<Material> = roots.iter().map(|m| Material::parse(m).unwrap()).collect();
    let kept = Chess::endings(&roots);
    let apart = Chess::endings(&roots).both_colourings();
    let (sk, sa) = (solved(&kept), solved(&apart));
    assert!(
        sk.tiers().len() < sa.tiers().len(),
        "{roots:?}: {} tables against {}",
        sk.tiers().len(),
        sa.tiers().len()
    );
    let mut n = 0;
    for &t in sa.tiers() {
        apart.for_each_in(t, 0..apart.tier_size(t), |_, p| {
            let Some(p) = p.filter(|p| apart.is_canonical(p)) else {
                return;
            };
            let want = sa.value(&p).unwrap();
            assert!(want.is_some(), "{}", apart.fen(&p));
            assert_eq!(sk.value(&p).unwrap(), want, "{}", apart.fen(&p));
            n += 1;
        });
    }
    n
}

/// The tables keep one colouring of each ending and read the other through the swap of
/// colours (`KvKP` through `KPvK`): the values are those of both colourings solved apart,
/// on every position. (The 4-piece endings were checked the same way in a release build,
/// by `--dump` against the build that solved both colourings: too slow for a debug test.)
#[test]
fn one_colouring_kept_gives_the_values_of_both_solved_apart() {
    assert!(same_as_both_colourings_solved_apart(&["KPvK", "KvKP"]) > 600_000);
}

/// With the same pieces on both sides the swap of colours is a symmetry of each tier
/// without pawns: `KNvKN` keeps half its positions, and they give the values of the table
/// that keeps them all. (`KPvKP`'s tiers, kept the lesser of each pair and with the swap
/// inside those that are their own, were checked the same way in a release build, by
/// `--dump` against the build before: too slow for a debug test.)
#[test]
fn equal_material_keeps_the_swap_as_a_symmetry() {
    let n = same_as_both_colourings_solved_apart(&["KNvKN"]);
    assert!(n > 3_000_000, "{n}");
}

/// `tier_named` is `tier_name` backwards for each of the 912 tables of up to five pieces,
/// and names no other tier: not a tier kept as its twin, not a name `tier_name` would not
/// write (a lazy open trusts it to find each table's file).
#[test]
fn every_table_is_named_back_and_nothing_else() {
    let five = Chess::up_to(5).unwrap();
    let mut kept = 0;
    for m in (2..=5).flat_map(Material::all) {
        for t in five.tiers_of(m) {
            let name = five.tier_name(t);
            if five.kept_tier(t) == t {
                assert_eq!(five.tier_named(&name), Some(t), "{name}");
                kept += 1;
            } else {
                assert_eq!(five.tier_named(&name), None, "{name}");
            }
        }
    }
    assert_eq!(kept, 912);
    for bad in [
        "",
        "K",
        "KvK_",
        "KvK_2",
        "KPvK",
        "KPvK_1",
        "KPvK_8",
        "KPvK_22",
        "KPvK_2_",
        "KPvK_4_epw",
        "KPvKP_44_epx",
        "KPvKP_44_epw_",
        "KPPvK_32",
        "KvKP_5",
        "KXvK",
        "KQQQQvK",
    ] {
        assert_eq!(five.tier_named(bad), None, "{bad}");
    }
    assert!(five.tier_named("KPvKP_44_epw").is_some());
}

/// Swapping colours twice is nothing; the swap is the FEN's (ranks reversed, case
/// swapped, the other side to move); a tier's swap holds the swapped positions; and no
/// move of any tier of five pieces reaches the kept twin of its own tier (a debug build's
/// `child_tiers` asserts it).
#[test]
fn the_swap_of_colours_of_positions_and_tiers() {
    let g = Chess::up_to(4).unwrap();
    for p in sample(&g, 40) {
        let q = p.flipped();
        assert_eq!(q.flipped(), p);
        assert_eq!(g.own_tier(&q), g.own_tier(&p).flipped());
        // One table and one canonical form for both (with the same pieces on both sides,
        // `KRvKR`, through the lesser tier or a symmetry).
        assert_eq!(g.tier(&q), g.tier(&p));
        assert_eq!(g.canonical(&q), g.canonical(&p), "{}", g.fen(&p));
        assert!(g.kept(&p));
        assert_eq!(g.kept(&q), g.swaps_inside(&p), "{}", g.fen(&p));
        // (The parser refuses some placements the index holds: a double check by two
        // knights.)
        if p.ep() == 0 && g.parse_position(&g.fen(&p)).is_ok() {
            assert_eq!(pos(&g, &colour_flip_fen(&g.fen(&p))), q, "{}", g.fen(&p));
        }
    }
    let five = Chess::up_to(5).unwrap();
    let mut out = Vec::new();
    let mut tiers = 0;
    for m in (2..=5).flat_map(Material::all) {
        for t in five.tiers_of(m) {
            assert_eq!(t.flipped().flipped(), t);
            assert_eq!(five.kept_tier(t.flipped()), five.kept_tier(t));
            out.clear();
            five.child_tiers(five.kept_tier(t), &mut out);
            assert!(!out.contains(&five.kept_tier(t)));
            tiers += 1;
        }
    }
    assert!(tiers > 1000, "{tiers}");
    // The stronger side is white in the tables.
    for (m, kept) in [
        ("KQvKR", "KQvKR"),
        ("KRvKQ", "KQvKR"),
        ("KvKP", "KPvK"),
        ("KRvKBN", "KBNvKR"),
    ] {
        let t = five.kept_tier(five.tiers_of(Material::parse(m).unwrap())[0]);
        assert_eq!(t.mat.to_string(), kept);
    }
}

/// A tier's init runs in rounds (one process: 2^22 places a round, so that its events never
/// wait all at once). Chess tiers are the largest of the dense games, so they are where a
/// tier of many rounds is solved: with rounds of three places, the values of every position
/// of `KPvK` (and what it converts into) are those of one round and of the sequential
/// engine, on one thread and on three.
#[test]
fn an_init_in_many_rounds_gives_every_value_of_one_round() {
    use retrograde_tier::{small_rounds_for_tests, Engine};
    let g = Chess::new("KPvK").unwrap();
    let mut seq = SolveOptions::default();
    seq.engine = Engine::Sequential;
    let want = solve(&g, &seq).unwrap();
    small_rounds_for_tests(true);
    let got: Vec<TierSolution<'_, Chess>> = [1, 3]
        .into_iter()
        .map(|threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| solved(&g))
        })
        .collect();
    small_rounds_for_tests(false);
    let one_round = kpk();
    let mut n = 0u64;
    let mut rounds = 0u64;
    for &t in want.tiers() {
        rounds = rounds.max(g.tier_size(t).div_ceil(3));
        g.for_each_in(t, 0..g.tier_size(t), |_, p| {
            let Some(p) = p.filter(|p| g.is_canonical(p)) else {
                return;
            };
            let v = want.value(&p).unwrap();
            assert!(v.is_some(), "{}", g.fen(&p));
            for s in got.iter().chain([one_round]) {
                assert_eq!(s.value(&p).unwrap(), v, "{}", g.fen(&p));
            }
            n += 1;
        });
    }
    assert!(rounds >= 10, "the largest tier takes {rounds} rounds");
    assert!(n > 100_000, "{n} positions");
    for s in &got {
        assert_eq!(s.stats().histogram, want.stats().histogram);
    }
}

/// A compact database (one side to move kept of each table that has two) answers every
/// position of KPvK and what it converts into as the whole one does, through the
/// lookups a probe makes (lazily opened files, the other side derived from its moves);
/// its tables are smaller; taken up again it is not solved again; and a damaged table is
/// solved again from its compact children (their left-out values derived), the other
/// files untouched, the values again the whole database's.
#[test]
fn a_compact_database_answers_every_position_as_the_whole_one() {
    use retrograde_tier::{open_lazy, MemStorage, Storage};
    use std::sync::Arc;
    let g = Chess::new("KPvK").unwrap();
    let st = Arc::new(MemStorage::new());
    let opts = |compact: bool| {
        let mut o = SolveOptions::default();
        o.storage = Some(st.clone() as Arc<dyn Storage>);
        o.resume = true;
        o.compact = compact;
        o
    };
    solve(&g, &opts(false)).unwrap();
    let size = |name: &str| st.size(&format!("{name}.values")).unwrap().unwrap();
    let whole_krk = size("KRvK");
    // Compaction reports its progress in bytes of values files, from 0 to all of them.
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut o = opts(true);
    let log = seen.clone();
    o.progress = Some(Arc::new(move |e: &retrograde_tier::Event<'_>| {
        if let retrograde_tier::Event::Compact { done, total } = e {
            log.lock().unwrap().push((*done, *total));
        }
    }));
    let compact = solve(&g, &o).unwrap();
    let seen = seen.lock().unwrap().clone();
    let total = seen[0].1;
    assert!(total > whole_krk, "{seen:?}");
    assert_eq!((seen[0].0, *seen.last().unwrap()), (0, (total, total)));
    assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "{seen:?}");
    assert!(
        size("KRvK") * 10 < whole_krk * 7,
        "{} of {whole_krk}",
        size("KRvK")
    );
    let lazy = open_lazy(&g, st.clone() as Arc<dyn Storage>)
        .unwrap()
        .unwrap();
    let whole = kpk();
    let (mut n, mut derived) = (0, 0);
    for &t in whole.tiers() {
        let split = g.sides(t);
        g.for_each_in(t, 0..g.tier_size(t), |i, p| {
            let Some(p) = p.filter(|p| g.is_canonical(p)) else {
                return;
            };
            let want = whole.value(&p).unwrap();
            assert!(want.is_some(), "{}", g.fen(&p));
            assert_eq!(lazy.value(&p).unwrap(), want, "{}", g.fen(&p));
            // Asked again: a derived value as it was derived (kept).
            assert_eq!(lazy.value(&p).unwrap(), want, "{}", g.fen(&p));
            assert_eq!(compact.value(&p).unwrap(), want, "{}", g.fen(&p));
            n += 1;
            derived += usize::from(split.is_some_and(|s| i >= s));
        });
    }
    assert!(
        n > 300_000 && derived > 50_000,
        "{n} positions, {derived} on a high side"
    );
    // Taken up again: opened, not solved.
    let again = solve(&g, &opts(false)).unwrap();
    assert_eq!(again.stats().longest_win, whole.stats().longest_win);
    // A damaged table: solved again (from its compact children), nothing else rewritten.
    let before: Vec<(String, Vec<u8>)> = st
        .names()
        .into_iter()
        .filter(|n| n.ends_with(".values") && n != "KPvK_2.values")
        .map(|n| (n.clone(), st.get(&n).unwrap()))
        .collect();
    let mut bytes = st.get("KPvK_2.values").unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x40;
    st.put("KPvK_2.values", bytes);
    let repaired = solve(&g, &opts(false)).unwrap();
    for (n, b) in &before {
        assert_eq!(&st.get(n).unwrap(), b, "{n} was rewritten");
    }
    let lazy = open_lazy(&g, st.clone() as Arc<dyn Storage>)
        .unwrap()
        .unwrap();
    for &t in whole.tiers() {
        g.for_each_in(t, 0..g.tier_size(t), |_, p| {
            let Some(p) = p.filter(|p| g.is_canonical(p)) else {
                return;
            };
            let want = whole.value(&p).unwrap();
            assert_eq!(repaired.value(&p).unwrap(), want, "{}", g.fen(&p));
            assert_eq!(lazy.value(&p).unwrap(), want, "{}", g.fen(&p));
        });
    }
    assert_eq!(repaired.stats().longest_win, whole.stats().longest_win);
}

/// A values file made compact at a split that is not the side to move: a lookup whose move
/// inside the table lands in the part left out is an error naming the file, never a wrong
/// value (every other lookup still gives the whole database's value).
#[test]
fn a_compact_file_split_where_moves_stay_on_its_side_is_an_error_not_a_value() {
    use retrograde_tier::tierfile::{compact_values, Header, Kind};
    use retrograde_tier::{open_lazy, MemStorage, Storage};
    use std::sync::Arc;
    let g = Chess::new("KQvK").unwrap();
    let st = Arc::new(MemStorage::new());
    let mut opts = SolveOptions::default();
    opts.storage = Some(st.clone() as Arc<dyn Storage>);
    solve(&g, &opts).unwrap();
    let whole = solved(&g);
    let t = *whole
        .tiers()
        .iter()
        .find(|&&t| g.tier_name(t) == "KQvK")
        .unwrap();
    let header = Header {
        game: g.name(),
        tier: "KQvK".into(),
        kind: Kind::Values,
        elem: 0,
    };
    // A quarter of the way: the part left out holds both sides to move.
    let meta = retrograde_tier::read_meta(&*st).unwrap().unwrap();
    let (id, facts) = (meta.identity().unwrap(), retrograde_tier::Facts::of(&meta));
    let ours = retrograde_tier::Identified::wrap(st.clone() as Arc<dyn Storage>, id, facts);
    compact_values(&*ours, "KQvK.values", &header, g.tier_size(t) / 4)
        .unwrap()
        .unwrap();
    let lazy = open_lazy(&g, st.clone() as Arc<dyn Storage>)
        .unwrap()
        .unwrap();
    let (mut same, mut refused) = (0, 0);
    g.for_each_in(t, 0..g.tier_size(t), |_, p| {
        let Some(p) = p.filter(|p| g.is_canonical(p)) else {
            return;
        };
        match lazy.value(&p) {
            Ok(v) => {
                assert_eq!(v, whole.value(&p).unwrap(), "{}", g.fen(&p));
                same += 1;
            }
            Err(e) => {
                let m = e.to_string();
                assert!(
                    m.contains("KQvK.values") && m.contains("stays on the side"),
                    "{m}"
                );
                refused += 1;
            }
        }
    });
    assert!(
        same > 10_000 && refused > 10_000,
        "{same} answered, {refused} refused"
    );
}

/// `for_each_in` over any range visits its numbers in order with `unrank`'s answer for
/// each: ranges that start inside a king pair's run, cross pairs and blocks, and end
/// anywhere, in tiers with pawns, without, and with an en-passant right; with identical
/// pieces, sliders of both sides (that check, or block a check), and pawns last.
#[test]
fn for_each_in_is_unrank_over_any_range() {
    let g = Chess::endings(&[
        Material::parse("KRvKN").unwrap(),
        Material::parse("KPvKP").unwrap(),
        Material::parse("KRRvKB").unwrap(),
        Material::parse("KQvKBN").unwrap(),
        Material::parse("KBPvKR").unwrap(),
        Material::parse("KNvKPP").unwrap(),
    ]);
    let tiers = all_tiers(&g);
    assert!(tiers.iter().any(|t| t.ep != 0), "an en-passant tier");
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    let mut visited = 0u64;
    for &t in &tiers {
        let size = g.tier_size(t);
        for _ in 0..4 {
            let start = next(size);
            // Up to two kings' runs of 64^2 (or 64 * 8) numbers: across pairs and blocks.
            let end = (start + 1 + next(2 * 4096)).min(size);
            let mut want = start;
            g.for_each_in(t, start..end, |i, p| {
                assert_eq!(i, want, "{t:?}");
                assert_eq!(p, g.unrank(t, i), "{t:?} {i}");
                want += 1;
            });
            assert_eq!(want, end, "{t:?} {start}..{end}");
            visited += end - start;
        }
    }
    assert!(visited > 100_000, "{visited}");
}

// ------------------------------------------------------------------------------------------
// FENs read exactly.

/// Whether `p` reads back from its FEN: the same position and side to move, or a refusal
/// that says why (a double check by two pawns or knights, a placement the index holds that
/// no game reaches).
fn reads_back(g: &Chess, p: &Pos) -> Result<(), String> {
    let fen = g.fen(p);
    match g.parse_position(&fen) {
        Ok((q, side)) if q == *p && side == p.stm() => Ok(()),
        Ok((q, side)) => Err(format!("{fen} reads back as {} ({side})", g.fen(&q))),
        Err(e) if e.to_string().contains("two pawns or knights") => Ok(()),
        Err(e) => Err(format!("{fen}: {e}")),
    }
}

/// Every position of every table of up to three pieces, both sides to move and en-passant
/// tiers included, reads back from its FEN.
#[test]
fn every_position_of_three_pieces_reads_back_from_its_fen() {
    let g = Chess::up_to(3).unwrap();
    let (mut read, mut failed) = (0u64, Vec::new());
    for t in all_tiers(&g) {
        g.for_each_in(t, 0..g.tier_size(t), |_, p| {
            if let Some(p) = p {
                read += 1;
                if let Err(e) = reads_back(&g, &p) {
                    failed.push(e);
                }
            }
        });
    }
    assert!(
        failed.is_empty(),
        "{} of {read}: {:?}",
        failed.len(),
        &failed[..5.min(failed.len())]
    );
    // KvK's placements of two kings apart, and tens of thousands a table of three pieces.
    assert!(read > 300_000, "{read}");
}

/// Positions of every table of four pieces, sampled widely, read back from their FENs.
#[test]
fn positions_of_four_pieces_read_back_from_their_fens() {
    let g = Chess::up_to(4).unwrap();
    let sampled = sample(&g, 400);
    assert!(sampled.len() > 30_000, "{}", sampled.len());
    for p in &sampled {
        reads_back(&g, p).unwrap();
    }
    // And every position of the en-passant tiers (a pawn that has just moved two squares,
    // which the sample above seldom meets).
    let mut eps = 0;
    for t in all_tiers(&g).into_iter().filter(|t| t.ep != 0) {
        g.for_each_in(t, 0..g.tier_size(t), |_, p| {
            if let Some(p) = p {
                eps += 1;
                reads_back(&g, &p).unwrap();
            }
        });
    }
    assert!(eps > 1000, "{eps}");
}

/// Every way to get the board's ranks wrong, from a good FEN: a rank dropped or added (a
/// copy of one, or an empty one), a rank made a square longer (at either end) or a square
/// shorter. Each comes with what the message must say.
fn malformed(fen: &str) -> Vec<(String, String)> {
    let (board, rest) = fen.split_once(' ').unwrap();
    let ranks: Vec<String> = board.split('/').map(str::to_string).collect();
    let with = |rs: Vec<String>| format!("{} {rest}", rs.join("/"));
    let mut out = Vec::new();
    for i in 0..8 {
        let mut r = ranks.clone();
        r.remove(i);
        out.push((with(r), "has 7 ranks, expected 8".to_string()));
        for added in [ranks[i].clone(), "8".to_string()] {
            let mut r = ranks.clone();
            r.insert(i, added);
            out.push((with(r), "has 9 ranks, expected 8".to_string()));
        }
        let number = 8 - i;
        for longer in [format!("{}1", ranks[i]), format!("1{}", ranks[i])] {
            let want = format!("rank {number} is {longer:?}: 9 squares, expected 8");
            let mut r = ranks.clone();
            r[i] = longer;
            out.push((with(r), want));
        }
        let mut shorter = ranks[i].clone();
        let last = shorter.pop().unwrap();
        if let Some(d) = last.to_digit(10).filter(|&d| d > 1) {
            shorter.push_str(&(d - 1).to_string());
        }
        let mut r = ranks.clone();
        let want = match shorter.is_empty() {
            true => format!("rank {number} is empty"),
            false => format!("rank {number} is {shorter:?}: 7 squares, expected 8"),
        };
        r[i] = shorter;
        out.push((with(r), want));
    }
    out
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// Of a position of any table of up to four pieces, every malformed variant of its FEN
    /// (six fields or four) is refused, naming the rank or the count of ranks.
    #[test]
    fn every_malformed_board_is_refused_and_named(tier in 0usize..10_000, i in proptest::num::u64::ANY) {
        static GAME: std::sync::OnceLock<(Chess, Vec<Tier>)> = std::sync::OnceLock::new();
        let (g, tiers) = GAME.get_or_init(|| {
            let g = Chess::up_to(4).unwrap();
            let tiers = all_tiers(&g);
            (g, tiers)
        });
        let t = tiers[tier % tiers.len()];
        let size = g.tier_size(t);
        let Some(p) = (0..size).map(|k| (i.wrapping_add(k)) % size).find_map(|k| g.unrank(t, k)) else {
            return Ok(());
        };
        let fen = g.fen(&p);
        let short = fen.trim_end_matches(" 0 1").to_string();
        for good in [&fen, &short] {
            for (bad, want) in malformed(good) {
                let e = g.parse_position(&bad).map(|_| ()).unwrap_err().to_string();
                proptest::prop_assert!(e.contains(&want), "{}: {} (wanted {})", bad, e, want);
            }
        }
    }
}

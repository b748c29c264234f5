//! The policeman and the thief against a naive oracle written here: the seed's two rules
//! (a move to a lost position wins; only moves to won positions lose) applied to the whole
//! state space until nothing changes. No code shared with the engine.

use proptest::prelude::*;
use retrograde_games::police::{Map, Verdict};

#[derive(Clone, Copy, PartialEq, Debug)]
enum L {
    Win,
    Loss,
    Unknown,
}

fn naive(rows: usize, cols: usize, board: &[u8]) -> Verdict {
    let cells = rows * cols;
    let free = |i: usize| board[i] != b'*';
    let idx = |p: usize, t: usize, pt: bool| (p * cells + t) * 2 + pt as usize;
    let neighbours = |i: usize, eight: bool| -> Vec<usize> {
        let (r, c) = ((i / cols) as isize, (i % cols) as isize);
        let d: &[(isize, isize)] = &[
            (-1, 0),
            (0, 1),
            (1, 0),
            (0, -1),
            (-1, -1),
            (-1, 1),
            (1, -1),
            (1, 1),
        ];
        let d = if eight { d } else { &d[..4] };
        let mut out = vec![i]; // passing
        for &(dr, dc) in d {
            let (nr, nc) = (r + dr, c + dc);
            if nr >= 0 && nc >= 0 && (nr as usize) < rows && (nc as usize) < cols {
                let j = nr as usize * cols + nc as usize;
                if free(j) {
                    out.push(j);
                }
            }
        }
        out
    };
    let mut label = vec![L::Unknown; cells * cells * 2];
    let mut terminal = vec![false; cells * cells * 2];
    for p in (0..cells).filter(|&p| free(p)) {
        for t in (0..cells).filter(|&t| free(t)) {
            let exit = board[t] == b'E';
            let (a, b) = (idx(p, t, true), idx(p, t, false));
            if p == t {
                (label[a], label[b]) = (L::Win, L::Loss);
            } else if exit {
                (label[a], label[b]) = (L::Loss, L::Win);
            }
            terminal[a] = label[a] != L::Unknown;
            terminal[b] = label[b] != L::Unknown;
        }
    }
    loop {
        let mut changed = false;
        for p in (0..cells).filter(|&p| free(p)) {
            for t in (0..cells).filter(|&t| free(t)) {
                for pt in [true, false] {
                    let me = idx(p, t, pt);
                    if terminal[me] || label[me] != L::Unknown {
                        continue;
                    }
                    let kids: Vec<L> = if pt {
                        neighbours(p, true)
                            .into_iter()
                            .map(|q| label[idx(q, t, false)])
                            .collect()
                    } else {
                        neighbours(t, false)
                            .into_iter()
                            .map(|q| label[idx(p, q, true)])
                            .collect()
                    };
                    if kids.contains(&L::Loss) {
                        label[me] = L::Win;
                        changed = true;
                    } else if kids.iter().all(|&k| k == L::Win) {
                        label[me] = L::Loss;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    let (p, t) = (
        board.iter().position(|&c| c == b'P').unwrap(),
        board.iter().position(|&c| c == b'T').unwrap(),
    );
    match label[idx(p, t, true)] {
        L::Win => Verdict::Caught,
        L::Loss => Verdict::Escaped,
        L::Unknown => Verdict::Draw,
    }
}

fn map_text(rows: usize, cols: usize, board: &[u8]) -> String {
    let mut s = format!("{rows} {cols}\n");
    for r in 0..rows {
        s.push_str(std::str::from_utf8(&board[r * cols..(r + 1) * cols]).unwrap());
        s.push('\n');
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn verdicts_match_the_naive_fixpoint(
        rows in 1usize..4,
        cols in 2usize..5,
        raw in prop::collection::vec(0u8..10, 16),
        places in (0usize..16, 0usize..16),
    ) {
        let cells = rows * cols;
        let mut board: Vec<u8> = raw[..cells]
            .iter()
            .map(|&x| match x { 0 | 1 => b'*', 2 => b'E', _ => b'.' })
            .collect();
        let (p, t) = (places.0 % cells, places.1 % cells);
        prop_assume!(p != t);
        board[p] = b'P';
        board[t] = b'T';
        let text = map_text(rows, cols, &board);
        let ours = Map::parse(text.as_bytes()).unwrap().solve().unwrap().verdict();
        prop_assert_eq!(ours, naive(rows, cols, &board), "map:\n{}", text);
    }
}

#[test]
fn the_seeds_outputs_and_a_bigger_open_map() {
    // The policeman moves first and is faster: on an open board without exits he wins.
    let mut text = String::from("10 10\n");
    for r in 0..10 {
        let row: String = (0..10)
            .map(|c| match (r, c) {
                (0, 0) => 'P',
                (9, 9) => 'T',
                (4, 4) => '*',
                _ => '.',
            })
            .collect();
        text.push_str(&row);
        text.push('\n');
    }
    let map = Map::parse(text.as_bytes()).unwrap();
    let s = map.solve().unwrap();
    assert_eq!(s.verdict(), Verdict::Caught);
    assert_eq!(s.verdict().to_string(), "Police catches the thief");
    // A thief next to an exit, far from the policeman, escapes; one walled in with no exit
    // and no policeman path draws.
    assert_eq!(
        Map::parse(b"1 5\nP..TE\n")
            .unwrap()
            .solve()
            .unwrap()
            .verdict()
            .to_string(),
        "The thief escapes"
    );
    assert_eq!(
        Map::parse(b"1 3\nP*T\n")
            .unwrap()
            .solve()
            .unwrap()
            .verdict()
            .to_string(),
        "Draw"
    );
    // Seed 002 writes the policeman as C.
    assert_eq!(
        Map::parse(b"1 3\nC.T\n")
            .unwrap()
            .solve()
            .unwrap()
            .verdict(),
        Verdict::Caught
    );
}

#[test]
fn bad_maps_name_the_line() {
    let e = |t: &str| Map::parse(t.as_bytes()).unwrap_err().to_string();
    assert_eq!(
        e(""),
        "1: expected the number of rows n, found the end of the file"
    );
    assert!(e("2 x\n").starts_with("1: expected the number of columns m"));
    assert_eq!(
        e("2 3\nP.T\n.."),
        "3: expected a row of 3 cells, found 2 (\"..\")"
    );
    assert!(e("2 3\nP.T\n").contains("expected row 2 of 2"));
    assert!(e("1 3\n...\n").contains("no policeman"));
    assert!(e("1 3\nP..\n").contains("no thief"));
    assert_eq!(
        e("2 3\nP.T\n.P.\n"),
        "3: the map has more than one policeman (P or C)"
    );
    assert!(e("1 3\nP.T\nextra\n").starts_with("3: expected the end of the map"));
    assert!(e("50000 50000\n").contains("too large"));
}

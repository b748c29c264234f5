//! Shuffle Nim, the game of the guide `docs/tier-games.md`: two heaps; take one or two tokens
//! from a heap, or move one token to the other heap; who cannot move loses.
//!
//! `cargo run --release -p retrograde-tier --example shuffle_nim -- 30` solves heaps of 30;
//! `cargo test -p retrograde-tier --example shuffle_nim` runs the guide's checks.

use retrograde_graph::Primitive;
use retrograde_tier::{
    Alternate, Dense, DenseIndex, Notation, NotationError, SymmetricGame, Symmetries, TierGame,
    UnmoveGame, Unmoves, Unscored,
};

/// Shuffle Nim with heaps of at most `n` tokens each.
pub struct ShuffleNim {
    n: u32,
}

impl TierGame for ShuffleNim {
    type Position = (u32, u32);
    type Tier = u32;
    type Layout = Dense;
    type Parents = Unmoves;
    type Symmetry = Symmetries;
    type Turn = Alternate;
    type Score = Unscored;

    fn name(&self) -> String {
        format!("shuffle-nim {}", self.n)
    }
    fn start(&self) -> Option<(u32, u32)> {
        Some((self.n, self.n))
    }
    fn tier(&self, p: &(u32, u32)) -> u32 {
        p.0 + p.1
    }
    fn child_tiers(&self, t: u32, out: &mut Vec<u32>) {
        out.extend((1..=2).filter(|&k| k <= t).map(|k| t - k));
    }
    fn tier_name(&self, t: u32) -> String {
        format!("{t:03}")
    }
    fn primitive(&self, _: &(u32, u32)) -> Option<Primitive> {
        None // (0, 0) has no moves: the no-move rule makes it a loss
    }
    fn moves(&self, &(a, b): &(u32, u32), out: &mut Vec<(u32, u32)>) {
        for k in 1..=2 {
            if a >= k {
                out.push((a - k, b));
            }
            if b >= k {
                out.push((a, b - k));
            }
        }
        if a > 0 && b < self.n {
            out.push((a - 1, b + 1));
        }
        if b > 0 && a < self.n {
            out.push((a + 1, b - 1));
        }
    }
}

impl DenseIndex for ShuffleNim {
    fn tier_size(&self, t: u32) -> u64 {
        u64::from(t) + 1
    }
    fn rank(&self, p: &(u32, u32)) -> u64 {
        u64::from(p.0)
    }
    fn unrank(&self, t: u32, i: u64) -> Option<(u32, u32)> {
        let a = i as u32;
        // Heaps hold at most n tokens: other numbers are holes.
        (a <= self.n && t - a <= self.n).then_some((a, t - a))
    }
}

impl UnmoveGame for ShuffleNim {
    /// The positions of the same tier with a move to `(a, b)`: the moves of a token.
    fn unmoves(&self, &(a, b): &(u32, u32), out: &mut Vec<(u32, u32)>) {
        if a > 0 && b < self.n {
            out.push((a - 1, b + 1));
        }
        if b > 0 && a < self.n {
            out.push((a + 1, b - 1));
        }
    }
}

impl SymmetricGame for ShuffleNim {
    fn symmetry_count(&self) -> usize {
        2
    }
    fn apply_symmetry(&self, &(a, b): &(u32, u32), g: usize) -> (u32, u32) {
        if g == 0 {
            (a, b)
        } else {
            (b, a)
        }
    }
}

impl Notation for ShuffleNim {
    fn named_moves(&self, p: &(u32, u32), _side: u8, out: &mut Vec<(String, (u32, u32))>) {
        let mut next = Vec::new();
        self.moves(p, &mut next);
        for q in next {
            let name = match (q.0 as i64 - p.0 as i64, q.1 as i64 - p.1 as i64) {
                (d, 0) => format!("a-{}", -d),
                (0, d) => format!("b-{}", -d),
                (-1, 1) => "a>b".to_string(),
                _ => "b>a".to_string(),
            };
            out.push((name, q));
        }
    }
    fn render(&self, p: &(u32, u32), _side: u8) -> String {
        format!(
            "a: {}\nb: {}\n",
            "o".repeat(p.0 as usize),
            "o".repeat(p.1 as usize)
        )
    }
    fn position_string(&self, p: &(u32, u32), _side: u8) -> String {
        format!("{},{}", p.0, p.1)
    }
    fn parse_position(&self, text: &str) -> Result<((u32, u32), u8), NotationError> {
        let (a, b) = text.split_once(',').ok_or("expected two heaps, like 3,4")?;
        let heap = |s: &str| s.trim().parse::<u32>().ok().filter(|&h| h <= self.n);
        match (heap(a), heap(b)) {
            (Some(a), Some(b)) => Ok(((a, b), 0)),
            _ => Err(format!("heaps are 0 to {}", self.n).into()),
        }
    }
    fn position_help(&self) -> String {
        "the two heaps, like 3,4".into()
    }
}

fn main() {
    let n = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10);
    let game = ShuffleNim { n };
    let s = retrograde_tier::solve(&game, &retrograde_tier::SolveOptions::default())
        .expect("a small game solves");
    let st = retrograde_tier::Solved::stats(&s);
    println!(
        "shuffle Nim {n}: start {:?}; {} positions ({} up to symmetry): win {}, loss {}, draw {}",
        retrograde_tier::Solved::start_value(&s).ok().flatten(),
        st.positions,
        st.classes,
        st.win,
        st.loss,
        st.draw
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guide_checks() {
        use retrograde_solve::{solve as solve_graph, Rules, Value};
        use retrograde_tier::{check_game, explicit_graph, solve, SolveOptions, Solved};

        let game = ShuffleNim { n: 6 };
        check_game(&game, 1000).unwrap();

        let s = solve(&game, &SolveOptions::default()).unwrap();
        let e = explicit_graph(&game, 100_000).unwrap();
        let g = solve_graph(&e.graph, &Rules::default());
        for (v, p) in e.positions.iter().enumerate() {
            assert_eq!(s.value(p).unwrap(), Some(g.value(v as u32)));
        }
        assert_eq!(s.value(&(0, 0)).unwrap(), Some(Value::Loss(0)));
        assert_eq!(
            s.value(&(1, 1)).unwrap().map(|v| v.outcome()),
            Some(retrograde_solve::Outcome::Loss)
        );
        // One position of each symmetric pair was solved; the totals count both.
        assert!(s.stats().classes < s.stats().positions);
    }
}

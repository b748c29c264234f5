//! Helpers of this crate's unit tests: random graphs, and an exchange that forges what the
//! other rank sends.

use crate::exchange::Exchange;
use crate::Solution;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use retrograde_graph::{Graph, GraphBuilder, Primitive};

/// Up to 3 random moves from `v` among `n` vertices, some of them go-again in a graph of
/// `kind` 1 (the moves of both random graphs below).
fn add_moves(rng: &mut SmallRng, b: &mut GraphBuilder, v: u32, n: u32, kind: u32) {
    for _ in 0..rng.gen_range(0..4) {
        let w = rng.gen_range(0..n);
        if kind == 1 && rng.gen_bool(0.3) {
            b.add_edge_again(v, w);
        } else {
            b.add_edge(v, w);
        }
    }
}

/// A random graph of up to 60 vertices with cycles and primitives, and (sometimes) go-again
/// moves or an arena.
pub(crate) fn random_graph(seed: u64) -> Graph {
    let mut rng = SmallRng::seed_from_u64(seed);
    let n = rng.gen_range(1..60u32);
    let mut b = GraphBuilder::new();
    let kind = rng.gen_range(0..3);
    for v in 0..n {
        add_moves(&mut rng, &mut b, v, n, kind);
        if rng.gen_bool(0.1) || v + 1 == n {
            let p = [Primitive::Win, Primitive::Loss, Primitive::Tie][rng.gen_range(0..3)];
            b.set_primitive(v, p);
        }
        if kind == 2 {
            b.set_owner(v, rng.gen_range(0..2)).unwrap();
        }
    }
    b.build().unwrap()
}

/// A random scored graph of up to 60 vertices: [`random_graph`]'s moves and turn rules, and
/// scores (few distinct ones, some extreme) instead of most labels.
pub(crate) fn random_scored_graph(seed: u64) -> Graph {
    let mut rng = SmallRng::seed_from_u64(seed);
    let n = rng.gen_range(1..60u32);
    let mut b = GraphBuilder::new();
    let kind = rng.gen_range(0..3);
    let palette: Vec<i64> = (0..rng.gen_range(1..5))
        .map(|_| match rng.gen_range(0..4) {
            0 => i64::MAX,
            1 => -i64::MAX,
            _ => rng.gen_range(-4..=4),
        })
        .collect();
    for v in 0..n {
        add_moves(&mut rng, &mut b, v, n, kind);
        if rng.gen_bool(0.15) || v + 1 == n {
            b.set_score(v, palette[rng.gen_range(0..palette.len())])
                .unwrap();
        } else if rng.gen_bool(0.05) {
            b.set_primitive(
                v,
                [Primitive::Win, Primitive::Loss, Primitive::Tie][rng.gen_range(0..3)],
            );
        }
        if kind == 2 {
            b.set_owner(v, rng.gen_range(0..2)).unwrap();
        }
    }
    b.build().unwrap()
}

/// Rank 0 of 2, where rank 1 sends `message` in every exchange (and agrees with rank 0 in
/// every reduction).
pub(crate) struct Forged(Vec<u8>);

/// See [`Forged`].
pub(crate) fn forged(message: Vec<u8>) -> Forged {
    Forged(message)
}

impl Exchange for Forged {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        2
    }
    fn all_to_all(&self, mut send: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        send[1] = self.0.clone();
        send
    }
    fn sum(&self, _: &mut [u64]) {}
    fn max(&self, _: &mut [u64]) {}
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        Some(vec![bytes.to_vec(), self.0.clone()])
    }
    fn broadcast(&self, _: &mut Vec<u8>) {}
    fn bytes_sent(&self) -> u64 {
        0
    }
}

/// Every rank's part of a solution, joined in rank order at rank 0 (a collective; `None`
/// elsewhere): the whole solution when the ranks hold ascending ranges of vertices. `scored`:
/// the graph is scored (every rank's part has scores).
pub(crate) fn gather(part: &Solution, scored: bool, ex: &dyn Exchange) -> Option<Solution> {
    let best = part.has_best_moves();
    let mut mine = Vec::with_capacity(part.len() * 17);
    for i in 0..part.len() {
        mine.push(part.outcome[i]);
        mine.extend_from_slice(&part.remoteness[i].to_le_bytes());
        if best {
            mine.extend_from_slice(&part.best[i].to_le_bytes());
        }
        if scored {
            mine.extend_from_slice(&part.score[i].to_le_bytes());
        }
    }
    let mut s = Solution {
        outcome: Vec::new(),
        remoteness: Vec::new(),
        best: Vec::new(),
        score: Vec::new(),
    };
    let size = 5 + if best { 4 } else { 0 } + if scored { 8 } else { 0 };
    for b in ex.gather(&mine)? {
        for c in b.chunks_exact(size) {
            s.outcome.push(c[0]);
            s.remoteness
                .push(u32::from_le_bytes([c[1], c[2], c[3], c[4]]));
            let mut at = 5;
            if best {
                s.best.push(u32::from_le_bytes([c[5], c[6], c[7], c[8]]));
                at = 9;
            }
            if scored {
                s.score
                    .push(i64::from_le_bytes(c[at..at + 8].try_into().unwrap()));
            }
        }
    }
    Some(s)
}

//! Shared by the tests: small random games, and the brute-force oracle (sharing nothing
//! with the solvers): for a small game, try every positional strategy of Even; Odd, left
//! alone to move in the one-player game that remains, wins from a vertex when it can reach a
//! cycle whose largest priority is odd, or a dead end of Even's. Even wins a vertex when some
//! strategy keeps Odd from winning there (parity games are positionally determined).
#![allow(dead_code)]

use retrograde_parity::{ParityGame, Player};

/// A small random game: `n` vertices, moves as given (modulo n), owners and priorities from
/// the lists; `shape` makes one-player games, games of one priority, or plain ones.
pub fn game(
    n: usize,
    moves: &[(usize, usize)],
    owners: &[bool],
    prios: &[u32],
    shape: u8,
) -> ParityGame {
    let owner = (0..n)
        .map(|v| match shape {
            1 => Player::Even,
            2 => Player::Odd,
            _ => Player::from_bit(owners[v]),
        })
        .collect();
    let priority = (0..n)
        .map(|v| if shape == 3 { 5 } else { prios[v] })
        .collect();
    let moves: Vec<(u32, u32)> = moves
        .iter()
        .map(|&(u, v)| ((u % n) as u32, (v % n) as u32))
        .collect();
    ParityGame::new(priority, owner, &moves).unwrap()
}

/// The vertices from which Odd wins the one-player game where Even's vertices move by
/// `sigma` (`None`: a dead end).
pub fn odd_wins(g: &ParityGame, sigma: &[Option<u32>]) -> Vec<bool> {
    let n = g.vertex_count();
    let moves = |v: usize| -> Vec<usize> {
        if g.owner(v as u32) == Player::Even {
            sigma[v].map(|s| vec![s as usize]).unwrap_or_default()
        } else {
            g.successors(v as u32).iter().map(|&w| w as usize).collect()
        }
    };
    // Good for Odd: an Even dead end, or a vertex of odd priority p on a cycle of vertices
    // of priority at most p.
    let mut good = vec![false; n];
    for u in 0..n {
        if g.owner(u as u32) == Player::Even && sigma[u].is_none() {
            good[u] = true;
            continue;
        }
        let p = g.priority(u as u32);
        if p % 2 == 1 {
            let mut seen = vec![false; n];
            let mut stack: Vec<usize> = moves(u)
                .into_iter()
                .filter(|&w| g.priority(w as u32) <= p)
                .collect();
            while let Some(x) = stack.pop() {
                if seen[x] {
                    continue;
                }
                seen[x] = true;
                for w in moves(x) {
                    if g.priority(w as u32) <= p {
                        stack.push(w);
                    }
                }
            }
            good[u] = seen[u];
        }
    }
    // Odd wins where it can reach a good vertex.
    (0..n)
        .map(|v| {
            let mut seen = vec![false; n];
            let mut stack = vec![v];
            while let Some(x) = stack.pop() {
                if seen[x] {
                    continue;
                }
                seen[x] = true;
                if good[x] {
                    return true;
                }
                stack.extend(moves(x));
            }
            false
        })
        .collect()
}

/// Even's winning region, by trying all of Even's positional strategies.
pub fn oracle(g: &ParityGame) -> Vec<bool> {
    let n = g.vertex_count();
    let even: Vec<usize> = (0..n)
        .filter(|&v| g.owner(v as u32) == Player::Even && !g.successors(v as u32).is_empty())
        .collect();
    let mut choice = vec![0usize; even.len()];
    let mut sigma: Vec<Option<u32>> = vec![None; n];
    let mut w0 = vec![false; n];
    loop {
        for (k, &v) in even.iter().enumerate() {
            sigma[v] = Some(g.successors(v as u32)[choice[k]]);
        }
        for (v, odd) in odd_wins(g, &sigma).into_iter().enumerate() {
            w0[v] |= !odd;
        }
        // The next strategy, as a counter.
        let mut k = 0;
        loop {
            if k == even.len() {
                return w0;
            }
            choice[k] += 1;
            if choice[k] < g.successors(even[k] as u32).len() {
                break;
            }
            choice[k] = 0;
            k += 1;
        }
    }
}

/// A random game of `n` vertices with out-degrees 1 to `deg` (dead ends sometimes), and
/// priorities below `d`.
pub fn random_game(seed: u64, n: usize, deg: usize, d: u32) -> ParityGame {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let mut moves = Vec::new();
    for u in 0..n {
        let k = if rng.gen_bool(0.02) {
            0
        } else {
            rng.gen_range(1..=deg)
        };
        for _ in 0..k {
            moves.push((u as u32, rng.gen_range(0..n) as u32));
        }
    }
    let owner = (0..n)
        .map(|_| Player::from_bit(rng.gen_bool(0.5)))
        .collect();
    let priority = (0..n).map(|_| rng.gen_range(0..d)).collect();
    ParityGame::new(priority, owner, &moves).unwrap()
}

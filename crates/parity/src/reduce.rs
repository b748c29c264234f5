//! Reductions: games changed into games with the same winners (priority compression and
//! inflation; self-loops and components are options of the solve, [`crate::Options`]), and
//! the W/L/D games of the graph engine as parity games, with their solutions read back as
//! outcomes. Each is checked against the plain solve in the tests (`tests/reductions.rs`).

use crate::game::{ParityGame, Player};
use crate::solve::{solve_with, Options};
use retrograde_graph::{BitSet, Graph};
use retrograde_solve::{terminal_value, Outcome, Rules, Value};

pub use crate::priority::compressed_priorities;

/// The game with its priorities compressed ([`compressed_priorities`]): the same winners and
/// winning strategies, with as few priorities as the game needs.
pub fn compress(game: &ParityGame) -> ParityGame {
    let (p, _) = compressed_priorities(game.priorities());
    with_priorities(game, p)
}

/// The game with every vertex given a priority of its own (the opposite of compression):
/// vertices in order of priority (ids within a priority) get 0, 1, 2, ..., each number's
/// parity that of the vertex's priority (so a number is skipped where the parity would be
/// wrong). The same winners and winning strategies: between two vertices the order of
/// priorities is kept or made strict among equals, which the largest recurring priority of
/// a cycle does not notice in parity. Algorithms whose cost grows with the number of
/// priorities are slower on it; a test of their robustness.
///
/// # Example
/// ```
/// use retrograde_parity::{reduce::inflate, ParityGame, Player};
/// let g = ParityGame::new(vec![2, 2, 5], vec![Player::Even; 3], &[(0, 1), (1, 2), (2, 0)]).unwrap();
/// assert_eq!(inflate(&g).priorities(), &[0, 2, 3]);
/// ```
pub fn inflate(game: &ParityGame) -> ParityGame {
    let n = game.vertex_count();
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&v| (game.priority(v), v));
    let mut p = vec![0u32; n];
    let mut next = 0u32;
    for &v in &order {
        let parity = game.priority(v) & 1;
        if next & 1 != parity {
            next += 1;
        }
        p[v as usize] = next;
        next += 1;
    }
    with_priorities(game, p)
}

/// `game` with other priorities (one per vertex, as the game's).
fn with_priorities(game: &ParityGame, priority: Vec<u32>) -> ParityGame {
    let names: Vec<&str> = (0..game.vertex_count() as u32)
        .map(|v| game.name(v).unwrap_or(""))
        .collect();
    ParityGame::from_graph(game.graph().clone(), priority)
        .and_then(|g| g.with_names(&names))
        .and_then(|g| g.with_start(game.start()))
        .expect("the same graph with one priority per vertex")
}

/// A game of the graph engine (a graph with its rules: terminal labels, scores, dead ends
/// under the no-move rule, the turn rule) as a parity game in which `draws` wins every play
/// that never ends, and every tie.
///
/// In an arena (vertices with owners) vertex `v` stays `v`, owned by its owner; otherwise
/// each vertex `v` becomes two, `2v` with Even to move and `2v + 1` with Odd to move, a move
/// leading to the copy of the player who moves next (the same one after a go-again move).
/// A terminal vertex (a label, a score, a dead end: its value for the player to move there)
/// gets a single self-loop with priority 0 if Even wins there, 1 if Odd does (a tie:
/// `draws`'s); every other vertex has priority 0 if `draws` is Even, 1 if Odd. So a play
/// that reaches a terminal is won by its winner, and one that never does by `draws`.
///
/// # Example
/// ```
/// use retrograde_graph::format::{parse, Format, ParseOptions};
/// use retrograde_parity::{reduce::wld_game, solve, Player};
/// use retrograde_solve::Rules;
/// // 0 -> 1 -> 2 (a dead end: the player to move there loses).
/// let g = parse(b"0 1\n1 2\n", Format::Edges, &ParseOptions::default()).unwrap();
/// let p = wld_game(&g, &Rules::default(), Player::Odd);
/// assert_eq!(p.vertex_count(), 6);
/// // Even to move at 1 moves to 2, where Odd cannot move: Even wins.
/// assert_eq!(solve(&p).winner(2), Player::Even);
/// ```
pub fn wld_game(g: &Graph, rules: &Rules, draws: Player) -> ParityGame {
    let n = g.vertex_count();
    let arena = g.is_arena();
    let copies = if arena { 1 } else { 2 };
    let total = n * copies;
    let mut offsets = Vec::with_capacity(total + 1);
    let mut targets = Vec::with_capacity(g.edge_count() * copies);
    let mut priority = Vec::with_capacity(total);
    let mut owner = BitSet::new(total);
    offsets.push(0u64);
    for v in 0..n as u32 {
        let terminal = terminal_value(g, rules, v);
        for s in 0..copies as u8 {
            let me = v as usize * copies + s as usize;
            let mover = if arena { g.owner(v) } else { s };
            owner.set(me, mover == 1);
            match terminal {
                Some(value) => {
                    let winner = match value {
                        Value::Win(_) => Player::from_bit(mover == 1),
                        Value::Loss(_) => Player::from_bit(mover == 0),
                        _ => draws,
                    };
                    priority.push(winner.index() as u32);
                    targets.push(me as u32);
                }
                None => {
                    priority.push(draws.index() as u32);
                    let range = g.successor_range(v);
                    for (e, &w) in range.clone().zip(g.successors(v)) {
                        let next = if arena {
                            w as usize
                        } else if g.forward_keeps_turn(e, v, w) {
                            w as usize * 2 + s as usize
                        } else {
                            w as usize * 2 + 1 - s as usize
                        };
                        targets.push(next as u32);
                    }
                }
            }
            offsets.push(targets.len() as u64);
        }
    }
    let graph = Graph::from_successors(offsets, targets, Some(owner))
        .expect("the copies' moves lead to copies");
    ParityGame::from_graph(graph, priority).expect("a priority per copy")
}

/// The outcome of every vertex of a graph game for the player to move there, from the two
/// parity games of [`wld_game`]: a win where that player wins the game whose draws go to
/// the opponent, a loss where the opponent wins the one whose draws go to the player, and
/// otherwise [`Outcome::Draw`], which here stands for both a tie and a draw (neither player
/// can force a win; [`retrograde_solve::solve`] tells them apart, and agrees on the rest:
/// tested).
pub fn wld_outcomes(g: &Graph, rules: &Rules) -> Vec<Outcome> {
    let arena = g.is_arena();
    let to_odd = solve_with(&wld_game(g, rules, Player::Odd), &Options::default()).0;
    let to_even = solve_with(&wld_game(g, rules, Player::Even), &Options::default()).0;
    (0..g.vertex_count() as u32)
        .map(|v| {
            // The vertex of the parity games where v's player to move moves, and who that is.
            let (x, mover) = if arena {
                (v, Player::from_bit(g.owner(v) == 1))
            } else {
                (2 * v, Player::Even)
            };
            let forced = |p: Player| {
                let s = if p == Player::Even { &to_odd } else { &to_even };
                s.winner(x) == p
            };
            if forced(mover) {
                Outcome::Win
            } else if forced(mover.opponent()) {
                Outcome::Loss
            } else {
                Outcome::Draw
            }
        })
        .collect()
}

//! The independent verifier: does a claimed solution solve the game?
//!
//! It shares no code with the solvers (no attractor, no algorithm of this crate; only the
//! game's accessors). A claim is right when, for each player P and the vertices it is said
//! to win (its region W):
//! 1. every vertex of W that P owns has a move, one of its moves, into W;
//! 2. every vertex of W that the opponent owns has all its moves into W (the region is
//!    closed under the opponent's moves; a dead end of the opponent is fine: it loses);
//! 3. in the graph of W restricted to P's moves (P's vertices keep only their chosen move,
//!    the opponent's keep all), every cycle has a largest priority of P's parity.
//!
//! Then P wins from every vertex of W by playing its moves: the play stays in W and every
//! play's recurring part is a cycle's worth of vertices whose largest priority is P's. As the
//! two regions cover the game, the claim is the game's one solution.
//!
//! Check 3 is an SCC decomposition per priority: in each strongly connected component with
//! a cycle, the largest priority is P's (else the component holds a cycle through a vertex of
//! that priority, which is returned), and the component without the vertices of that
//! priority is decomposed again. O(d (n + m)) time for d distinct priorities, iterative
//! (Tarjan's algorithm on an explicit stack).
//!
//! The vertices' own checks run in parallel, and so do the two regions' decompositions, on
//! the current rayon pool; the fault reported is the same for every number of threads (the
//! first in vertex order, then Even's region's before Odd's).

use crate::game::{ParityGame, Player};
use crate::solution::Solution;
use rayon::prelude::*;
use std::fmt;

/// A solution as a file claims it: a winner and a move per vertex, either possibly missing,
/// the move not yet known to be a move. ([`crate::pg::parse_solution`] reads one.)
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Claim {
    /// The winner of each vertex, if the claim gives one.
    pub winner: Vec<Option<Player>>,
    /// The move given for each vertex, if any (a claimed move of a vertex its winner does not
    /// own is not looked at).
    pub strategy: Vec<Option<u64>>,
}

impl From<&Solution> for Claim {
    fn from(s: &Solution) -> Claim {
        Claim {
            winner: s.winners().iter().map(|&w| Some(w)).collect(),
            strategy: (0..s.vertex_count() as u32)
                .map(|v| s.strategy(v).map(u64::from))
                .collect(),
        }
    }
}

/// Why a claimed solution is wrong (the first fault found).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wrong {
    /// The claim has not one entry per vertex.
    Size {
        /// Entries in the claim.
        claimed: usize,
        /// Vertices of the game.
        vertices: usize,
    },
    /// A vertex without a winner.
    NoWinner {
        /// The vertex.
        vertex: u32,
    },
    /// A vertex its winner owns, without a move.
    NoMove {
        /// The vertex.
        vertex: u32,
        /// Its claimed winner (and owner).
        winner: Player,
    },
    /// A dead end its winner owns: the owner of a dead end cannot move, and loses.
    DeadEnd {
        /// The vertex.
        vertex: u32,
        /// Its claimed winner (and owner).
        winner: Player,
    },
    /// A move that is not one of the vertex's moves.
    NotAMove {
        /// The vertex.
        vertex: u32,
        /// The claimed move.
        to: u64,
        /// Its claimed winner (and owner).
        winner: Player,
    },
    /// A winner's move that leaves its region.
    Leaves {
        /// The vertex.
        vertex: u32,
        /// The move.
        to: u32,
        /// Its claimed winner (and owner).
        winner: Player,
    },
    /// A move of the opponent out of the winner's region.
    Escape {
        /// The vertex.
        vertex: u32,
        /// The opponent's move.
        to: u32,
        /// The claimed winner of the vertex (the opponent owns it).
        winner: Player,
    },
    /// A cycle the winner's moves allow, whose largest priority is the opponent's.
    Cycle {
        /// The player whose strategy allows it.
        winner: Player,
        /// The cycle, from a vertex of the largest priority back to (just before) it.
        cycle: Vec<u32>,
        /// Its largest priority.
        priority: u32,
    },
}

impl fmt::Display for Wrong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Wrong::Size { claimed, vertices } => write!(
                f,
                "the solution has {claimed} entries for a game of {vertices} vertices"
            ),
            Wrong::NoWinner { vertex } => write!(f, "vertex {vertex} has no winner"),
            Wrong::NoMove { vertex, winner } => write!(
                f,
                "vertex {vertex} is won by {winner}, who moves there, but has no move"
            ),
            Wrong::DeadEnd { vertex, winner } => write!(
                f,
                "vertex {vertex} is won by {winner}, who moves there, but it has no move: {winner} cannot move and loses"
            ),
            Wrong::NotAMove {
                vertex,
                to,
                winner,
            } => write!(
                f,
                "vertex {vertex} is won by {winner} with the move to {to}, which is not one of its moves"
            ),
            Wrong::Leaves {
                vertex,
                to,
                winner,
            } => write!(
                f,
                "vertex {vertex} is won by {winner} with the move to {to}, but {to} is won by {}",
                winner.opponent()
            ),
            Wrong::Escape {
                vertex,
                to,
                winner,
            } => write!(
                f,
                "vertex {vertex} is won by {winner}, but {} moves there and can go to {to}, which {} wins",
                winner.opponent(),
                winner.opponent()
            ),
            Wrong::Cycle {
                winner,
                cycle,
                priority,
            } => {
                write!(f, "{winner}'s moves let the play go round the cycle ")?;
                const SHOWN: usize = 12;
                for (k, v) in cycle.iter().take(SHOWN).enumerate() {
                    if k > 0 {
                        f.write_str(" -> ")?;
                    }
                    write!(f, "{v}")?;
                }
                if cycle.len() > SHOWN {
                    write!(f, " -> ... ({} vertices)", cycle.len())?;
                }
                write!(
                    f,
                    " -> {} forever, whose largest priority {priority} is {}'s",
                    cycle[0],
                    winner.opponent()
                )
            }
        }
    }
}

impl std::error::Error for Wrong {}

/// Checks a claimed solution of `game` (module docs).
///
/// # Errors
/// The first [`Wrong`] found: the local checks vertex by vertex in id order first, then the
/// cycles of Even's region, then Odd's.
///
/// # Complexity
/// O(d (n + m)) time for d distinct priorities, O(n) memory beyond the game (about 40 bytes
/// per vertex: the two regions are decomposed at once).
///
/// # Example
/// ```
/// use retrograde_parity::{verify, Claim, ParityGame, Player};
/// // Even at 0 can stay on 0 (priority 2) or go to 1, an Odd loop of priority 1.
/// let g = ParityGame::new(vec![2, 1], vec![Player::Even, Player::Odd], &[(0, 0), (0, 1), (1, 1)])
///     .unwrap();
/// let right = Claim { winner: vec![Some(Player::Even), Some(Player::Odd)], strategy: vec![Some(0), Some(1)] };
/// assert!(verify(&g, &right).is_ok());
/// let wrong = Claim { strategy: vec![Some(1), Some(1)], ..right };
/// assert_eq!(
///     verify(&g, &wrong).unwrap_err().to_string(),
///     "vertex 0 is won by Even with the move to 1, but 1 is won by Odd"
/// );
/// ```
pub fn verify(game: &ParityGame, claim: &Claim) -> Result<(), Wrong> {
    let n = game.vertex_count();
    if claim.winner.len() != n || claim.strategy.len() != n {
        return Err(Wrong::Size {
            claimed: claim.winner.len().min(claim.strategy.len()),
            vertices: n,
        });
    }
    if let Some(v) = claim.winner.par_iter().position_first(Option::is_none) {
        return Err(Wrong::NoWinner { vertex: v as u32 });
    }
    let winner: Vec<Player> = claim
        .winner
        .par_iter()
        .map(|w| w.unwrap_or(Player::Even))
        .collect();
    // The move each vertex keeps in its winner's graph (u32::MAX: all its moves), or the
    // vertex's fault: checked in parallel, the first fault in vertex order reported.
    if let Some(w) = (0..n as u32)
        .into_par_iter()
        .find_map_first(|v| local_check(game, claim, &winner, v).err())
    {
        return Err(w);
    }
    let chosen: Vec<u32> = (0..n as u32)
        .into_par_iter()
        .map(|v| local_check(game, claim, &winner, v).unwrap_or(u32::MAX))
        .collect();
    // The two regions' cycles, side by side; Even's fault first.
    let region = |p: Player| -> Option<Wrong> {
        let set: Vec<u32> = (0..n as u32).filter(|&v| winner[v as usize] == p).collect();
        bad_cycle(game, &chosen, p, set, &mut Scc::new(n))
    };
    let (even, odd) = rayon::join(|| region(Player::Even), || region(Player::Odd));
    match even.or(odd) {
        Some(w) => Err(w),
        None => Ok(()),
    }
}

/// The checks of one vertex on its own: its winner's move (a move, into the region), or the
/// loser's moves (all into the region). Returns the move it keeps (u32::MAX: all).
fn local_check(game: &ParityGame, claim: &Claim, winner: &[Player], v: u32) -> Result<u32, Wrong> {
    let w = winner[v as usize];
    let moves = game.successors(v);
    if game.owner(v) == w {
        if moves.is_empty() {
            return Err(Wrong::DeadEnd {
                vertex: v,
                winner: w,
            });
        }
        let Some(to) = claim.strategy[v as usize] else {
            return Err(Wrong::NoMove {
                vertex: v,
                winner: w,
            });
        };
        if to >= winner.len() as u64 || moves.binary_search(&(to as u32)).is_err() {
            return Err(Wrong::NotAMove {
                vertex: v,
                to,
                winner: w,
            });
        }
        let to = to as u32;
        if winner[to as usize] != w {
            return Err(Wrong::Leaves {
                vertex: v,
                to,
                winner: w,
            });
        }
        Ok(to)
    } else if let Some(&to) = moves.iter().find(|&&t| winner[t as usize] != w) {
        Err(Wrong::Escape {
            vertex: v,
            to,
            winner: w,
        })
    } else {
        Ok(u32::MAX)
    }
}

/// The moves of `v` in its winner's graph: the chosen one, or all of them.
fn moves<'a>(game: &'a ParityGame, chosen: &'a [u32], v: u32) -> &'a [u32] {
    let c = &chosen[v as usize];
    if *c == u32::MAX {
        game.successors(v)
    } else {
        std::slice::from_ref(c)
    }
}

/// A cycle of `p`'s region (closed, with `chosen` moves) whose largest priority is the
/// opponent's, if there is one: SCCs, then each SCC without its largest priority, again.
fn bad_cycle(
    game: &ParityGame,
    chosen: &[u32],
    p: Player,
    region: Vec<u32>,
    scc: &mut Scc,
) -> Option<Wrong> {
    let mut work: Vec<Vec<u32>> = vec![region];
    while let Some(set) = work.pop() {
        for c in scc.components(game, chosen, &set) {
            let cyclic = c.len() > 1 || moves(game, chosen, c[0]).contains(&c[0]);
            if !cyclic {
                continue;
            }
            let top = c.iter().map(|&v| game.priority(v)).max().unwrap_or(0);
            if Player::of_priority(top) != p {
                let x = *c
                    .iter()
                    .find(|&&v| game.priority(v) == top)
                    .expect("the largest priority is some vertex's");
                return Some(Wrong::Cycle {
                    winner: p,
                    cycle: scc.cycle_through(game, chosen, x, &c),
                    priority: top,
                });
            }
            let rest: Vec<u32> = c.into_iter().filter(|&v| game.priority(v) != top).collect();
            if !rest.is_empty() {
                work.push(rest);
            }
        }
    }
    None
}

/// Tarjan's strongly connected components on an explicit stack, within a set of vertices
/// marked by a number that changes from set to set (so marks are never cleared).
struct Scc {
    /// `set[v] == epoch`: `v` is in the current set.
    set: Vec<u32>,
    epoch: u32,
    /// Discovery index (0: not yet visited in this set) and low link.
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
}

impl Scc {
    fn new(n: usize) -> Scc {
        Scc {
            set: vec![0; n],
            epoch: 0,
            index: vec![0; n],
            low: vec![0; n],
            on_stack: vec![false; n],
        }
    }

    fn mark(&mut self, set: &[u32]) {
        self.epoch += 1;
        if self.epoch == u32::MAX {
            self.set.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        for &v in set {
            self.set[v as usize] = self.epoch;
            self.index[v as usize] = 0;
            self.on_stack[v as usize] = false;
        }
    }

    #[inline]
    fn inside(&self, v: u32) -> bool {
        self.set[v as usize] == self.epoch
    }

    /// The SCCs of the winner's graph restricted to `set`.
    fn components(&mut self, game: &ParityGame, chosen: &[u32], set: &[u32]) -> Vec<Vec<u32>> {
        self.mark(set);
        let mut out = Vec::new();
        let mut counter = 0u32;
        let mut stack: Vec<u32> = Vec::new();
        // (vertex, index of its next move)
        let mut call: Vec<(u32, usize)> = Vec::new();
        for &root in set {
            if self.index[root as usize] != 0 {
                continue;
            }
            call.push((root, 0));
            while let Some(&(v, from)) = call.last() {
                let vi = v as usize;
                if from == 0 && self.index[vi] == 0 {
                    counter += 1;
                    self.index[vi] = counter;
                    self.low[vi] = counter;
                    stack.push(v);
                    self.on_stack[vi] = true;
                }
                let ms = moves(game, chosen, v);
                let mut next = from;
                let mut child = None;
                while next < ms.len() {
                    let w = ms[next];
                    next += 1;
                    if !self.inside(w) {
                        continue;
                    }
                    let wi = w as usize;
                    if self.index[wi] == 0 {
                        child = Some(w);
                        break;
                    } else if self.on_stack[wi] {
                        self.low[vi] = self.low[vi].min(self.index[wi]);
                    }
                }
                if let Some(top) = call.last_mut() {
                    top.1 = next;
                }
                if let Some(w) = child {
                    call.push((w, 0));
                    continue;
                }
                // All of v's moves are done.
                call.pop();
                if let Some(&(parent, _)) = call.last() {
                    let pi = parent as usize;
                    self.low[pi] = self.low[pi].min(self.low[vi]);
                }
                if self.low[vi] == self.index[vi] {
                    let mut c = Vec::new();
                    loop {
                        let w = stack.pop().expect("v is on the stack");
                        self.on_stack[w as usize] = false;
                        c.push(w);
                        if w == v {
                            break;
                        }
                    }
                    out.push(c);
                }
            }
        }
        out
    }

    /// A cycle from `x` back to `x` within the strongly connected `comp` (breadth first, so
    /// a shortest one).
    fn cycle_through(
        &mut self,
        game: &ParityGame,
        chosen: &[u32],
        x: u32,
        comp: &[u32],
    ) -> Vec<u32> {
        self.mark(comp);
        // `index` holds each reached vertex's parent + 1 (0: not reached).
        let mut queue = std::collections::VecDeque::new();
        queue.push_back(x);
        let mut end = None;
        'search: while let Some(v) = queue.pop_front() {
            for &w in moves(game, chosen, v) {
                if !self.inside(w) {
                    continue;
                }
                if w == x {
                    end = Some(v);
                    break 'search;
                }
                if self.index[w as usize] == 0 {
                    self.index[w as usize] = v + 1;
                    queue.push_back(w);
                }
            }
        }
        let mut cycle = Vec::new();
        let mut v = end.expect("a strongly connected component with a cycle returns to x");
        while v != x {
            cycle.push(v);
            v = self.index[v as usize] - 1;
        }
        cycle.push(x);
        cycle.reverse();
        cycle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(prio: &[u32], owner: &[u8], moves: &[(u32, u32)]) -> ParityGame {
        let owner = owner.iter().map(|&o| Player::from_bit(o == 1)).collect();
        ParityGame::new(prio.to_vec(), owner, moves).unwrap()
    }

    fn claim(winner: &[u8], strategy: &[Option<u64>]) -> Claim {
        Claim {
            winner: winner
                .iter()
                .map(|&w| Some(Player::from_bit(w == 1)))
                .collect(),
            strategy: strategy.to_vec(),
        }
    }

    #[test]
    fn finds_the_bad_cycle() {
        // Odd owns 0 and 1; 0 <-> 1 with priorities 3 and 2, and 1 -> 2, a loop of 4.
        let g = game(&[3, 2, 4], &[1, 1, 0], &[(0, 1), (1, 0), (1, 2), (2, 2)]);
        // Claiming Odd wins 0 and 1 by cycling is right only if Odd owns every escape: it
        // does (Odd at 1 chooses 0).
        let ok = claim(&[1, 1, 0], &[Some(1), Some(0), Some(2)]);
        assert_eq!(verify(&g, &ok), Ok(()));
        // Even claims everything: Odd at 0 and 1 can cycle with largest priority 3.
        let bad = claim(&[0, 0, 0], &[None, None, Some(2)]);
        let e = verify(&g, &bad).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Even's moves let the play go round the cycle 0 -> 1 -> 0 forever, whose largest priority 3 is Odd's"
        );
    }

    #[test]
    fn local_faults() {
        let g = game(&[2, 1, 2], &[0, 1, 0], &[(0, 1), (1, 2), (1, 0), (2, 2)]);
        let mut c = claim(&[0, 0, 0], &[Some(1), None, Some(2)]);
        assert_eq!(verify(&g, &c), Ok(()));
        c.strategy[0] = None;
        assert_eq!(
            verify(&g, &c),
            Err(Wrong::NoMove {
                vertex: 0,
                winner: Player::Even
            })
        );
        c.strategy[0] = Some(2);
        assert!(matches!(verify(&g, &c), Err(Wrong::NotAMove { to: 2, .. })));
        c.strategy[0] = Some(1);
        c.winner[2] = Some(Player::Odd);
        assert_eq!(
            verify(&g, &c).unwrap_err().to_string(),
            "vertex 1 is won by Even, but Odd moves there and can go to 2, which Odd wins"
        );
        c.winner[1] = None;
        assert_eq!(verify(&g, &c), Err(Wrong::NoWinner { vertex: 1 }));
        let dead = game(&[0], &[0], &[]);
        assert!(matches!(
            verify(&dead, &claim(&[0], &[None])),
            Err(Wrong::DeadEnd { .. })
        ));
        assert_eq!(verify(&dead, &claim(&[1], &[None])), Ok(()));
    }
}

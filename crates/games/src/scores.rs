//! IOI 2001 "Score" (seed 003): a race for the highest value on a graph that always leads
//! back to its start.
//!
//! # The rules
//! Positions `1..=N`, each owned by player 1 or player 2 and carrying a distinct positive
//! value. A token starts on position 1. At each turn the owner of the token's position
//! raises their score to that position's value if it is larger (a score is the largest value
//! its player has picked up, 0 before the first one), then moves the token along an arrow of
//! their choice. The game ends as soon as the token returns to position 1 (nothing is picked
//! up there a second time); the higher score wins. Every cycle of the graph passes through
//! position 1, so every game is finite.
//!
//! There are no ties: the owner of position 1 picks its value on the very first move, so
//! that player ends with the (positive) value of a position they own, while the other ends
//! with 0 or the value of a different position, which is a different value.
//!
//! # Input
//! The IOI format, read as whitespace-separated tokens: `N`; the `N × N` arrow matrix of
//! 0s and 1s (row `i`, column `j` is 1 for an arrow `i → j`); the `N` owners (1 or 2); the
//! `N` values. [`parse`] checks all of it and names the line of the first problem: a missing
//! or malformed number, an entry that is not 0 or 1, an owner that is not 1 or 2, a value
//! that is 0 or repeats an earlier one, a position with no arrow out (its owner could not
//! move; the rules say nothing about that, so it is refused), a cycle that avoids
//! position 1 (the game could go on forever), and anything after the values. The arrow and
//! cycle conditions are checked on the whole graph, reachable from position 1 or not.
//!
//! # The state space
//! A position of the game (a [`State`]) is (token's position, player 1's score, player 2's
//! score), where a score is kept as the position whose value it is (or 0 for none yet): the
//! values being distinct, that is exact, and it gives the dense index
//! `(token − 1) · (N+1)² + score₁ · (N+1) + score₂` below `N · (N+1)²`. The owner of the
//! token's position is the player to move, so a move keeps the turn exactly when both ends
//! have the same owner ([`Game::keeps_turn`]), and every value is "for the owner of the
//! token's position". The start is (1, 0, 0); a state with the token on position 1 and a
//! score above 0 is the end of the game, whose value the rules fix (a win for the owner of
//! position 1 if their score is the higher, else a loss). [`Instance::solve`] discovers and
//! solves every reachable state exactly with [`crate::solve_game`] under the default rules.
//!
//! The seed's bottom-up labels (one pair of scores per position) are a heuristic: the best
//! continuation from a position can depend on the scores picked up on the way there, which
//! a label per position does not see. The state here keeps both scores, so the result is
//! exact.
//!
//! # Complexity
//! At most `N · (N+1)²` states and `(N+1)² · A` moves for `A` arrows (`A ≤ N²`), so
//! `O(N⁴)` time and memory in the worst case, linear in the reachable part; in practice far
//! fewer states are reachable, since a score can only be the value of a position on a path
//! from 1 to the token. `N = 100` (the IOI bound) fits easily. Above `2²²` possible states
//! the states are kept in a hash map instead of the dense index, so that memory follows
//! the reachable states only.
//!
//! ```
//! use retrograde_games::scores;
//! // The seed's example: 1 (player 1) → 3 (player 1) → 2 or 4, 4 → 2, 2 → 1; player 2 owns
//! // positions 2 and 4. Player 1 picks 3 and avoids 4 by moving from 3 to 2.
//! let text = b"4\n0 0 1 0\n1 0 0 0\n0 1 0 1\n0 1 0 0\n1 2 1 2\n1 2 3 4\n";
//! let game = scores::parse(text).unwrap();
//! let solution = game.solve().unwrap();
//! assert_eq!(solution.winner(), 1);
//! let s = game.apply(&game.start(), 3).unwrap();
//! assert_eq!(game.to_move(&s), Some(1));
//! assert_eq!(solution.best_move(&s), Some(2));
//! let s = game.apply(&game.apply(&s, 2).unwrap(), 1).unwrap();
//! assert_eq!((game.is_over(&s), game.winner_at(&s)), (true, Some(1)));
//! ```

use crate::about::{About, Kind, Param};
use crate::{solve_game, ExploreError, Game, GameSolution, Stats};
use retrograde_graph::format::ParseError;
use retrograde_graph::Primitive;
use retrograde_solve::{Outcome, Rules, Value};
use std::collections::VecDeque;

/// What the game says of itself: its command, rules, parameters and notation.
pub const ABOUT: About = About {
    name: "scores",
    about: "IOI 2001 \"Score\": a token, two players, the higher score wins",
    help: "IOI 2001 \"Score\": N positions owned by player 1 or 2 with distinct values; the \
           owner of the token's position raises their score to its value, then moves along \
           an arrow; the game ends when the token returns to 1; the higher score wins. \
           Input: N, an N x N 0/1 arrow matrix, N owners, N values. Prints the winner and \
           player 1's winning strategy; --play plays as player 1 over standard \
           input/output (IOI protocol).",
    examples: &["scores score.txt", "scores score.txt --play"],
    params: &[
        Param {
            name: "file",
            help: "The instance file (`-` for standard input).",
            kind: Kind::Input,
            default: None,
            positional: true,
            value_name: "FILE",
        },
        Param {
            name: "play",
            help: "Play as player 1 over standard input/output (IOI protocol): write each \
                   position player 1 moves to on its own line, read each opponent move as \
                   a position number.",
            kind: Kind::Flag,
            default: None,
            positional: false,
            value_name: "",
        },
    ],
    moves: None,
    symmetry: "",
};

/// Above this many possible states (`N · (N+1)²`), states are interned in a hash map rather
/// than laid out by the dense index (whose graph would hold every possible state).
const DENSE_LIMIT: u64 = 1 << 22;

/// A checked Score instance: the graph, the owners, the values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// `arrows[v]`: the 0-based targets of the arrows out of 0-based position `v`, ascending.
    arrows: Vec<Vec<u32>>,
    /// `owners[v]`: 1 or 2.
    owners: Vec<u8>,
    /// `values[v]`: positive, distinct.
    values: Vec<u64>,
}

/// A state of play: where the token is and what each player has picked up so far.
///
/// Made by [`Instance::start`] and [`Instance::apply`]; a state belongs to the instance that
/// made it (the methods of another instance answer `None` or an error for a state that does
/// not fit them, never panic).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// 0-based position of the token.
    token: u32,
    /// 1-based position whose value is player 1's score, 0 for none.
    pick1: u32,
    /// 1-based position whose value is player 2's score, 0 for none.
    pick2: u32,
}

impl State {
    /// The token's position, 1-based.
    pub fn position(&self) -> usize {
        self.token as usize + 1
    }

    /// The position (1-based) whose value is `player`'s score so far, or `None` while that
    /// player has picked nothing (or `player` is neither 1 nor 2).
    pub fn pick(&self, player: u8) -> Option<usize> {
        let p = match player {
            1 => self.pick1,
            2 => self.pick2,
            _ => 0,
        };
        (p != 0).then_some(p as usize)
    }
}

/// Reads an instance in the IOI format (see the [module docs](self)).
///
/// # Errors
/// A [`ParseError`] naming the line of the first problem (see the module docs for the list).
pub fn parse(text: &[u8]) -> Result<Instance, ParseError> {
    Instance::parse(text)
}

/// Whitespace-separated tokens with their 1-based line numbers.
struct Tokens<'a> {
    text: &'a [u8],
    at: usize,
    line: u64,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a [u8]) -> Self {
        Tokens {
            text,
            at: 0,
            line: 1,
        }
    }

    fn next_token(&mut self) -> Option<(&'a [u8], u64)> {
        while let Some(&b) = self.text.get(self.at) {
            if !b.is_ascii_whitespace() {
                break;
            }
            if b == b'\n' {
                self.line += 1;
            }
            self.at += 1;
        }
        let start = self.at;
        while self
            .text
            .get(self.at)
            .is_some_and(|b| !b.is_ascii_whitespace())
        {
            self.at += 1;
        }
        (self.at > start).then(|| (&self.text[start..self.at], self.line))
    }

    /// The line where the input ends (its last line, not counting an empty one after a
    /// final newline), for "found end of input"; `None` for an empty input.
    fn end_line(&self) -> Option<u64> {
        if self.text.is_empty() {
            return None;
        }
        let newlines = self.text.iter().filter(|&&b| b == b'\n').count() as u64;
        let last_empty = self.text.last() == Some(&b'\n');
        Some((newlines + 1 - u64::from(last_empty)).max(1))
    }

    /// The next token, or an error saying `what` was expected at the end of the input.
    fn expect(&mut self, what: &dyn Fn() -> String) -> Result<(&'a [u8], u64), ParseError> {
        match self.next_token() {
            Some(t) => Ok(t),
            None => Err(ParseError {
                line: self.end_line(),
                message: format!("expected {}, found end of input", what()),
            }),
        }
    }
}

/// A token for an error message: quoted, escaped, at most 40 characters.
fn show(token: &[u8]) -> String {
    let text = String::from_utf8_lossy(token);
    let mut out: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        out.push('…');
    }
    format!("{out:?}")
}

/// A plain decimal number (digits only), if it fits a `u64`.
fn number(token: &[u8]) -> Option<u64> {
    if token.is_empty() {
        return None;
    }
    token.iter().try_fold(0u64, |n, &b| {
        if b.is_ascii_digit() {
            n.checked_mul(10)?.checked_add(u64::from(b - b'0'))
        } else {
            None
        }
    })
}

fn error_at(line: u64, message: String) -> ParseError {
    ParseError {
        line: Some(line),
        message,
    }
}

/// A position on a cycle of `arrows` that avoids position 0, with the cycle from there
/// (0-based, the first position repeated at the end), or `None` if every cycle passes
/// through 0. Kahn's algorithm on the graph without the arrows into 0, then a walk back
/// through the positions it could not remove; no recursion.
fn cycle_avoiding_start(arrows: &[Vec<u32>]) -> Option<Vec<usize>> {
    let n = arrows.len();
    let mut indegree = vec![0u32; n];
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (v, out) in arrows.iter().enumerate() {
        for &w in out.iter().filter(|&&w| w != 0) {
            indegree[w as usize] += 1;
            preds[w as usize].push(v as u32);
        }
    }
    let mut removed = vec![false; n];
    let mut queue: VecDeque<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    while let Some(v) = queue.pop_front() {
        removed[v] = true;
        for &w in arrows[v].iter().filter(|&&w| w != 0) {
            let w = w as usize;
            indegree[w] -= 1;
            if indegree[w] == 0 {
                queue.push_back(w);
            }
        }
    }
    // Every position left has a predecessor left (its in-degree only fell for removed
    // ones), so walking back from one must come round to a position seen before: that one
    // is on a cycle.
    let first = (0..n).find(|&v| !removed[v])?;
    let mut seen_at = vec![usize::MAX; n];
    let mut walk = vec![first];
    seen_at[first] = 0;
    let mut cur = first;
    let start_of_cycle = loop {
        let pred = preds[cur]
            .iter()
            .map(|&p| p as usize)
            .find(|&p| !removed[p])?;
        if seen_at[pred] != usize::MAX {
            break seen_at[pred];
        }
        seen_at[pred] = walk.len();
        walk.push(pred);
        cur = pred;
    };
    // walk[k+1] → walk[k] are arrows; the cycle forwards is walk[start..] reversed.
    let mut cycle: Vec<usize> = walk[start_of_cycle..].iter().rev().copied().collect();
    // Start it at its smallest position, for a stable message.
    let low = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap_or(0);
    cycle.rotate_left(low);
    cycle.push(cycle[0]);
    Some(cycle)
}

impl Instance {
    /// Reads an instance in the IOI format; the same as [`parse`].
    ///
    /// # Errors
    /// A [`ParseError`] naming the line of the first problem.
    pub fn parse(text: &[u8]) -> Result<Instance, ParseError> {
        let mut tokens = Tokens::new(text);
        let (t, line) = tokens.expect(&|| "the number of positions N".to_string())?;
        let n = match number(t).and_then(|n| u32::try_from(n).ok()) {
            Some(n) if (1..u32::MAX).contains(&n) => n as usize,
            _ => {
                return Err(error_at(
                    line,
                    format!(
                        "expected the number of positions N (a positive integer), found {}",
                        show(t)
                    ),
                ))
            }
        };

        // The matrix, row by row (nothing is allocated per position before its tokens are
        // read, so a huge N in a short file costs nothing).
        let mut arrows: Vec<Vec<u32>> = Vec::new();
        let mut arrow_lines: Vec<Vec<u64>> = Vec::new();
        for i in 0..n {
            let mut out = Vec::new();
            let mut lines = Vec::new();
            let mut row_end = line;
            for j in 0..n {
                let what = || {
                    format!(
                        "0 or 1 for the arrow from position {} to position {}",
                        i + 1,
                        j + 1
                    )
                };
                let (t, l) = tokens.expect(&what)?;
                match t {
                    b"0" => {}
                    b"1" => {
                        out.push(j as u32);
                        lines.push(l);
                    }
                    _ => {
                        return Err(error_at(
                            l,
                            format!("expected {}, found {}", what(), show(t)),
                        ))
                    }
                }
                row_end = l;
            }
            if out.is_empty() {
                return Err(error_at(
                    row_end,
                    format!(
                        "position {} has no arrow (every position needs an arrow out, or its \
                         owner could not move)",
                        i + 1
                    ),
                ));
            }
            arrows.push(out);
            arrow_lines.push(lines);
        }
        if let Some(cycle) = cycle_avoiding_start(&arrows) {
            let (a, b) = (cycle[0], cycle[1]);
            let k = arrows[a].iter().position(|&w| w as usize == b).unwrap_or(0);
            let line = arrow_lines[a].get(k).copied().unwrap_or(1);
            let path: Vec<String> = cycle.iter().map(|v| (v + 1).to_string()).collect();
            return Err(error_at(
                line,
                format!(
                    "position {} is on a cycle that avoids position 1 ({}), so the game could \
                     go on forever",
                    a + 1,
                    path.join(" -> ")
                ),
            ));
        }

        let mut owners = Vec::new();
        for i in 0..n {
            let what = || format!("the owner of position {} (1 or 2)", i + 1);
            let (t, l) = tokens.expect(&what)?;
            match t {
                b"1" => owners.push(1),
                b"2" => owners.push(2),
                _ => {
                    return Err(error_at(
                        l,
                        format!("expected {}, found {}", what(), show(t)),
                    ))
                }
            }
        }

        let mut values: Vec<u64> = Vec::new();
        let mut first_with: std::collections::HashMap<u64, usize> =
            std::collections::HashMap::new();
        for i in 0..n {
            let what = || format!("the value of position {} (a positive integer)", i + 1);
            let (t, l) = tokens.expect(&what)?;
            let v = match number(t) {
                Some(v) if v > 0 => v,
                _ => {
                    return Err(error_at(
                        l,
                        format!("expected {}, found {}", what(), show(t)),
                    ))
                }
            };
            if let Some(&j) = first_with.get(&v) {
                return Err(error_at(
                    l,
                    format!(
                        "position {} has the value {v}, like position {} (values must be distinct)",
                        i + 1,
                        j + 1
                    ),
                ));
            }
            first_with.insert(v, i);
            values.push(v);
        }

        if let Some((t, l)) = tokens.next_token() {
            return Err(error_at(
                l,
                format!(
                    "expected the end of the input after the {n} values, found {}",
                    show(t)
                ),
            ));
        }
        Ok(Instance {
            arrows,
            owners,
            values,
        })
    }

    /// `N`, the number of positions.
    pub fn positions(&self) -> usize {
        self.owners.len()
    }

    /// The positions (1-based, ascending) that position `v` (1-based) has arrows to; empty
    /// for a position that does not exist.
    pub fn arrows(&self, v: usize) -> Vec<usize> {
        v.checked_sub(1)
            .and_then(|v| self.arrows.get(v))
            .map(|out| out.iter().map(|&w| w as usize + 1).collect())
            .unwrap_or_default()
    }

    /// The owner (1 or 2) of position `v` (1-based), `None` if there is no such position.
    pub fn owner(&self, v: usize) -> Option<u8> {
        self.owners.get(v.checked_sub(1)?).copied()
    }

    /// The value of position `v` (1-based), `None` if there is no such position.
    pub fn value(&self, v: usize) -> Option<u64> {
        self.values.get(v.checked_sub(1)?).copied()
    }

    /// The start of the game: the token on position 1, nothing picked up.
    pub fn start(&self) -> State {
        State {
            token: 0,
            pick1: 0,
            pick2: 0,
        }
    }

    /// Whether `s` fits this instance (every [`State`] it made does).
    fn fits(&self, s: &State) -> bool {
        let n = self.owners.len();
        let ok_pick =
            |p: u32, player: u8| p == 0 || self.owners.get(p as usize - 1) == Some(&player);
        (s.token as usize) < n && ok_pick(s.pick1, 1) && ok_pick(s.pick2, 2)
    }

    /// `player`'s score at `s`: the largest value they have picked up, 0 for none.
    pub fn score(&self, s: &State, player: u8) -> u64 {
        s.pick(player)
            .and_then(|p| self.values.get(p - 1))
            .copied()
            .unwrap_or(0)
    }

    /// Whether the game is over at `s` (the token has come back to position 1).
    pub fn is_over(&self, s: &State) -> bool {
        s.token == 0 && (s.pick1 != 0 || s.pick2 != 0)
    }

    /// The player (1 or 2) to move at `s`: the owner of the token's position; `None` once
    /// the game is over (or for a state that does not fit this instance).
    pub fn to_move(&self, s: &State) -> Option<u8> {
        if !self.fits(s) || self.is_over(s) {
            return None;
        }
        Some(self.owners[s.token as usize])
    }

    /// The winner (1 or 2) once the game is over at `s`: the higher score; `None` while it
    /// goes on.
    pub fn winner_at(&self, s: &State) -> Option<u8> {
        if !self.fits(s) || !self.is_over(s) {
            return None;
        }
        Some(if self.score(s, 1) > self.score(s, 2) {
            1
        } else {
            2
        })
    }

    /// The positions (1-based) the player to move at `s` may move the token to; empty once
    /// the game is over.
    pub fn legal_moves(&self, s: &State) -> Vec<usize> {
        if self.to_move(s).is_none() {
            return Vec::new();
        }
        self.arrows(s.position())
    }

    /// The state after the player to move at `s` picks up the value of the token's position
    /// (if it raises their score) and moves the token to position `to` (1-based).
    ///
    /// # Errors
    /// [`MoveError`]: a state of another game, the game is over, there is no position `to`,
    /// or there is no arrow to it from the token's position.
    pub fn apply(&self, s: &State, to: usize) -> Result<State, MoveError> {
        if !self.fits(s) {
            return Err(MoveError::Foreign);
        }
        if self.is_over(s) {
            return Err(MoveError::Over);
        }
        let n = self.positions();
        if to == 0 || to > n {
            return Err(MoveError::NoPosition { to, positions: n });
        }
        let w = (to - 1) as u32;
        if self.arrows[s.token as usize].binary_search(&w).is_err() {
            return Err(MoveError::NoArrow {
                from: s.position(),
                to,
            });
        }
        Ok(self.step(s, w))
    }

    /// The move from `s` to 0-based `w` (which must be an arrow of the token's position).
    fn step(&self, s: &State, w: u32) -> State {
        let v = s.token as usize;
        let mut next = State { token: w, ..*s };
        let player = self.owners[v];
        if self.values[v] > self.score(s, player) {
            let here = v as u32 + 1;
            if player == 1 {
                next.pick1 = here;
            } else {
                next.pick2 = here;
            }
        }
        next
    }

    /// Solves every state reachable from the start.
    ///
    /// # Errors
    /// [`ExploreError::TooManyPositions`] when more states are reachable than the engine's
    /// vertex ids.
    pub fn solve(&self) -> Result<ScoresSolution<'_>, ExploreError> {
        let game = solve_game(self, &Rules::default())?;
        Ok(ScoresSolution {
            instance: self,
            game,
        })
    }

    /// `N · (N+1)²`, the size of the dense index (saturating).
    fn index_bound(&self) -> u64 {
        let n = self.positions() as u64;
        n.saturating_mul(n.saturating_add(1).saturating_mul(n.saturating_add(1)))
    }
}

impl Game for Instance {
    type Position = State;

    fn start(&self) -> State {
        Instance::start(self)
    }

    fn moves(&self, p: &State, out: &mut Vec<State>) {
        if let Some(targets) = self.arrows.get(p.token as usize) {
            out.extend(targets.iter().map(|&w| self.step(p, w)));
        }
    }

    fn primitive(&self, p: &State) -> Option<Primitive> {
        // The owner of position 1 is "to move" at the end; it wins with the higher score.
        let winner = self.winner_at(p)?;
        Some(if winner == self.owners[0] {
            Primitive::Win
        } else {
            Primitive::Loss
        })
    }

    fn keeps_turn(&self, p: &State, q: &State) -> bool {
        self.owners.get(p.token as usize) == self.owners.get(q.token as usize)
    }

    fn index_size(&self) -> Option<u64> {
        let size = self.index_bound();
        (size <= DENSE_LIMIT).then_some(size)
    }

    fn index(&self, p: &State) -> u64 {
        let side = self.positions() as u64 + 1;
        (u64::from(p.token) * side + u64::from(p.pick1)) * side + u64::from(p.pick2)
    }
}

/// Every reachable state of an [`Instance`], solved: who wins, and how.
pub struct ScoresSolution<'a> {
    instance: &'a Instance,
    game: GameSolution<'a, Instance>,
}

impl<'a> ScoresSolution<'a> {
    /// The instance solved.
    pub fn instance(&self) -> &'a Instance {
        self.instance
    }

    /// The winner (1 or 2) under optimal play from the start.
    pub fn winner(&self) -> u8 {
        let first = self.instance.owners[0];
        match self.start_value().outcome() {
            Outcome::Win => first,
            _ => 3 - first,
        }
    }

    /// The value of the start for the owner of position 1 (who moves first), with its
    /// remoteness in moves.
    pub fn start_value(&self) -> Value {
        self.game.start_value()
    }

    /// The value of `s` for the player to move there (at the end of the game: for the owner
    /// of position 1); `None` if `s` is not reachable from the start.
    pub fn value(&self, s: &State) -> Option<Value> {
        if !self.instance.fits(s) {
            return None;
        }
        self.game.value(s)
    }

    /// The winner (1 or 2) under optimal play from `s`; `None` if `s` is not reachable.
    pub fn winner_from(&self, s: &State) -> Option<u8> {
        let v = self.value(s)?;
        let mover = self.instance.owners[s.token as usize];
        Some(if v.outcome() == Outcome::Win {
            mover
        } else {
            3 - mover
        })
    }

    /// The best move (the 1-based position to move the token to) for the player to move at
    /// `s`, whichever player that is: the quickest win, or else the longest resistance;
    /// `None` once the game is over or for a state not reachable from the start. With
    /// [`Instance::apply`] this plays player 1's side of the IOI protocol.
    pub fn best_move(&self, s: &State) -> Option<usize> {
        self.value(s)?;
        if self.instance.is_over(s) {
            return None;
        }
        let (best, _) = self.game.ranked_moves(s).into_iter().next()?;
        Some(best.position())
    }

    /// The totals of the solve.
    pub fn stats(&self) -> &Stats {
        self.game.stats()
    }

    /// The underlying solution, for the graph and per-state values.
    pub fn game(&self) -> &GameSolution<'a, Instance> {
        &self.game
    }

    /// Player 1's winning strategy, when player 1 wins: player 1's best move at every state
    /// reachable when player 1 follows it and player 2 plays anything, in order of
    /// (position, score of player 1, score of player 2). Empty when player 2 wins.
    pub fn strategy(&self) -> Vec<(State, usize)> {
        if self.winner() != 1 {
            return Vec::new();
        }
        let inst = self.instance;
        let mut seen = std::collections::HashSet::new();
        let mut todo = std::collections::VecDeque::from([inst.start()]);
        let mut out = Vec::new();
        while let Some(st) = todo.pop_front() {
            if !seen.insert(st) || inst.is_over(&st) {
                continue;
            }
            let next: Vec<usize> = if inst.to_move(&st) == Some(1) {
                let Some(m) = self.best_move(&st) else {
                    continue;
                };
                out.push((st, m));
                vec![m]
            } else {
                inst.legal_moves(&st)
            };
            for m in next {
                if let Ok(n) = inst.apply(&st, m) {
                    todo.push_back(n);
                }
            }
        }
        out.sort_by_key(|(st, _)| (st.position(), inst.score(st, 1), inst.score(st, 2)));
        out
    }
}

/// Player 1's side of the IOI 2001 protocol, without I/O: [`IoiPlayer::our_moves`] gives
/// the positions to write (each on its own line), [`IoiPlayer::opponent`] takes each line
/// the opponent writes, until [`IoiPlayer::is_over`].
pub struct IoiPlayer<'s, 'a> {
    solution: &'s ScoresSolution<'a>,
    state: State,
    move_no: usize,
}

impl<'s, 'a> IoiPlayer<'s, 'a> {
    /// A game from the start.
    pub fn new(solution: &'s ScoresSolution<'a>) -> Self {
        IoiPlayer {
            solution,
            state: solution.instance.start(),
            move_no: 0,
        }
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.solution.instance.is_over(&self.state)
    }

    /// Player 1's moves (positions, 1-based) until player 2 must move or the game ends.
    pub fn our_moves(&mut self) -> Vec<usize> {
        let inst = self.solution.instance;
        let mut out = Vec::new();
        while !self.is_over() && inst.to_move(&self.state) == Some(1) {
            let Some(m) = self.solution.best_move(&self.state) else {
                break;
            };
            let Ok(next) = inst.apply(&self.state, m) else {
                break;
            };
            self.move_no += 1;
            out.push(m);
            self.state = next;
        }
        out
    }

    /// The opponent's move, a line holding the position the token moves to.
    ///
    /// # Errors
    /// [`OpponentError`]: a line that is not a position, or an illegal move; says which
    /// move and why.
    pub fn opponent(&mut self, line: &str) -> Result<(), OpponentError> {
        self.move_no += 1;
        let n = self.move_no;
        let t = line.trim();
        let to: usize = t.parse().map_err(|_| OpponentError::NotAPosition {
            move_no: n,
            found: t.chars().take(40).collect(),
        })?;
        self.state = self
            .solution
            .instance
            .apply(&self.state, to)
            .map_err(|why| OpponentError::Illegal { move_no: n, why })?;
        Ok(())
    }

    /// The number of the next move (for a message when the input ends early).
    pub fn next_move_number(&self) -> usize {
        self.move_no + 1
    }
}

/// Why a move cannot be made ([`Instance::apply`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The state belongs to another game.
    Foreign,
    /// The game is over.
    Over,
    /// There is no position `to`.
    NoPosition {
        /// The position asked for (1-based).
        to: usize,
        /// The game's positions.
        positions: usize,
    },
    /// There is no arrow from the token's position to `to`.
    NoArrow {
        /// The token's position (1-based).
        from: usize,
        /// The position asked for.
        to: usize,
    },
}

impl std::fmt::Display for MoveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            MoveError::Foreign => f.write_str("the state does not belong to this game"),
            MoveError::Over => f.write_str("the game is over"),
            MoveError::NoPosition { to, positions } => write!(
                f,
                "there is no position {to} (positions run from 1 to {positions})"
            ),
            MoveError::NoArrow { from, to } => {
                write!(f, "there is no arrow from position {from} to position {to}")
            }
        }
    }
}

impl std::error::Error for MoveError {}

/// Why an opponent's line is refused ([`IoiPlayer::opponent`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpponentError {
    /// The line is not a position.
    NotAPosition {
        /// The number of the move (1-based, counting both players').
        move_no: usize,
        /// The line (trimmed, its first 40 characters).
        found: String,
    },
    /// The move is illegal (the message includes why).
    Illegal {
        /// The number of the move.
        move_no: usize,
        /// Why.
        why: MoveError,
    },
}

impl std::fmt::Display for OpponentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpponentError::NotAPosition { move_no, found } => write!(
                f,
                "move {move_no}: expected the position the opponent moves to, found {found:?}"
            ),
            OpponentError::Illegal { move_no, why } => {
                write!(f, "move {move_no}: illegal move: {why}")
            }
        }
    }
}

impl std::error::Error for OpponentError {}

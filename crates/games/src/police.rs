//! The policeman and the thief (seed 000, "Games on arbitrary graphs").
//!
//! An `n × m` board: `*` walls, `P` (or `C`, as seed 002 writes it) the policeman's start,
//! `T` the thief's start, `E` exits, anything else free. The policeman moves first. Both move
//! in turn, and either may pass: the policeman to any of the 8 neighbouring cells, the thief
//! to any of the 4 orthogonal ones, never onto a wall or off the board. If they ever share a
//! cell the policeman wins; if the thief stands on an exit (without the policeman) the thief
//! wins. No size limit beyond memory (the seed's arrays stop at 100 cells).
//!
//! Positions are (policeman's cell, thief's cell, policeman to move) with the dense index
//! `(p · cells + t) · 2 + turn`, exactly the seed's state; the seed's terminal rules become
//! primitive values:
//! - policeman to move: a win if the cells coincide, else a loss if the thief is on an exit;
//! - thief to move: a loss if the cells coincide, else a win if the thief is on an exit.
//!
//! ```
//! use retrograde_games::police::{Map, Verdict};
//! let map = Map::parse(b"1 4\nP..T\n").unwrap(); // no exit: the thief can only run
//! assert_eq!(map.solve().unwrap().verdict(), Verdict::Caught);
//! let map = Map::parse(b"1 4\nP.TE\n").unwrap(); // the thief reaches the exit first
//! assert_eq!(map.solve().unwrap().verdict(), Verdict::Escaped);
//! ```

use crate::about::{About, Kind, Param};
use crate::{solve_game, ExploreError, Game, GameSolution};
use retrograde_graph::format::ParseError;
use retrograde_graph::Primitive;
use retrograde_solve::{Outcome, Rules, Value};
use std::fmt;

/// What the game says of itself: its command, rules, parameters and notation.
pub const ABOUT: About = About {
    name: "police-thief",
    about: "the policeman and the thief on a map",
    help: "The policeman and the thief on a map file: `n m`, then n rows; `*` wall, `P` (or \
           `C`) policeman, `T` thief, `E` exit. The policeman moves first, to one of 8 \
           neighbours; the thief to one of 4; either may stay. The first line printed is \
           exactly one of \"Police catches the thief\", \"The thief escapes\", \"Draw\". \
           Memory and time grow with the square of the free cells (a 40x40 open map has \
           about 5 million positions). In play, moves are n ne e se s sw w nw and stay.",
    examples: &["police-thief map.txt", "police-thief map.txt --output json"],
    params: &[Param {
        name: "map",
        help: "The map file (`-` for standard input).",
        kind: Kind::Input,
        default: None,
        positional: true,
        value_name: "MAP",
    }],
    moves: Some("n ne e se s sw w nw, or stay"),
    symmetry: "",
};

/// The board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Map {
    rows: usize,
    cols: usize,
    /// Row-major; `b'*'` wall, `b'E'` exit, `b'.'` free.
    cells: Vec<u8>,
    police: usize,
    thief: usize,
}

/// The result of optimal play from the start.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The policeman catches the thief.
    Caught,
    /// The thief reaches an exit.
    Escaped,
    /// Neither can force a result.
    Draw,
}

impl Verdict {
    /// The seed's answer for a start of value `v` (for the policeman, who moves first).
    pub fn of(v: Value) -> Verdict {
        match v.outcome() {
            Outcome::Win => Verdict::Caught,
            Outcome::Loss => Verdict::Escaped,
            _ => Verdict::Draw,
        }
    }
}

impl fmt::Display for Verdict {
    /// The seed's own output lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Caught => "Police catches the thief",
            Verdict::Escaped => "The thief escapes",
            Verdict::Draw => "Draw",
        })
    }
}

/// A position: (policeman's cell, thief's cell, policeman to move).
pub type Position = (u32, u32, bool);

impl Map {
    /// Reads the seed's map format: `n m`, then `n` rows of `m` characters.
    ///
    /// # Errors
    /// A [`ParseError`] naming the line: a missing or bad size, a short or long row, no or
    /// several policemen or thieves, a board too large for the position index.
    pub fn parse(text: &[u8]) -> Result<Map, ParseError> {
        let err = |line: usize, msg: String| ParseError {
            line: Some(line as u64),
            message: msg,
        };
        let mut tokens = Vec::new();
        for (i, line) in text.split(|&b| b == b'\n').enumerate() {
            for t in line
                .split(|b| b.is_ascii_whitespace())
                .filter(|t| !t.is_empty())
            {
                tokens.push((i + 1, t));
            }
        }
        let mut it = tokens.into_iter();
        let mut number = |what: &str| -> Result<(usize, usize), ParseError> {
            let (line, t) = it
                .next()
                .ok_or_else(|| err(1, format!("expected {what}, found the end of the file")))?;
            let s = String::from_utf8_lossy(t);
            let v = s.parse::<usize>().ok().filter(|&v| v > 0).ok_or_else(|| {
                err(
                    line,
                    format!("expected {what} (a positive number), found {s:?}"),
                )
            })?;
            Ok((line, v))
        };
        let (line, rows) = number("the number of rows n")?;
        let (_, cols) = number("the number of columns m")?;
        let cells_count = rows
            .checked_mul(cols)
            .filter(|&c| (c as u64) * (c as u64) * 2 <= retrograde_graph::MAX_VERTICES)
            .ok_or_else(|| {
                err(
                    line,
                    format!("a {rows} x {cols} board is too large (at most 46340 cells)"),
                )
            })?;
        let mut cells = Vec::with_capacity(cells_count);
        let (mut police, mut thief) = (Vec::new(), Vec::new());
        let mut last = line;
        for r in 0..rows {
            let (line, row) = it.next().ok_or_else(|| {
                err(
                    last,
                    format!(
                        "expected row {} of {rows}, found the end of the file",
                        r + 1
                    ),
                )
            })?;
            last = line;
            if row.len() != cols {
                return Err(err(
                    line,
                    format!(
                        "expected a row of {cols} cells, found {} ({:?})",
                        row.len(),
                        String::from_utf8_lossy(row)
                    ),
                ));
            }
            for (c, &ch) in row.iter().enumerate() {
                let at = r * cols + c;
                cells.push(match ch {
                    b'*' => b'*',
                    b'E' => b'E',
                    b'P' | b'C' => {
                        police.push((line, at));
                        b'.'
                    }
                    b'T' => {
                        thief.push((line, at));
                        b'.'
                    }
                    _ => b'.',
                });
            }
        }
        if let Some((line, t)) = it.next() {
            return Err(err(
                line,
                format!(
                    "expected the end of the map after {rows} rows, found {:?}",
                    String::from_utf8_lossy(t)
                ),
            ));
        }
        let one = |found: Vec<(usize, usize)>, who: &str, letters: &str| match found.as_slice() {
            [(_, at)] => Ok(*at),
            [] => Err(err(last, format!("the map has no {who} ({letters})"))),
            [_, (line, _), ..] => Err(err(
                *line,
                format!("the map has more than one {who} ({letters})"),
            )),
        };
        let police = one(police, "policeman", "P or C")?;
        let thief = one(thief, "thief", "T")?;
        Ok(Map {
            rows,
            cols,
            cells,
            police,
            thief,
        })
    }

    /// Rows and columns.
    pub fn size(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// The ground at cell `at` (row-major): `b'*'` a wall, `b'E'` an exit, `b'.'` free
    /// (the players' start cells are free).
    ///
    /// # Panics
    /// When `at` is past the last cell.
    pub fn tile(&self, at: usize) -> u8 {
        self.cells[at]
    }

    /// Solves every position reachable from the start.
    ///
    /// # Errors
    /// As [`solve_game`].
    pub fn solve(&self) -> Result<PoliceSolution<'_>, ExploreError> {
        Ok(PoliceSolution {
            inner: solve_game(self, &Rules::default())?,
        })
    }

    fn open(&self, r: isize, c: isize) -> Option<u32> {
        if r < 0 || c < 0 || r as usize >= self.rows || c as usize >= self.cols {
            return None;
        }
        let at = r as usize * self.cols + c as usize;
        (self.cells[at] != b'*').then_some(at as u32)
    }
}

/// The solved game.
pub struct PoliceSolution<'m> {
    inner: GameSolution<'m, Map>,
}

impl<'m> PoliceSolution<'m> {
    /// The seed's answer for the start position.
    pub fn verdict(&self) -> Verdict {
        Verdict::of(self.inner.start_value())
    }

    /// Everything else: values by position, statistics.
    pub fn game(&self) -> &GameSolution<'m, Map> {
        &self.inner
    }
}

const STEPS: [(isize, isize); 8] = [
    (-1, 0),
    (0, 1),
    (1, 0),
    (0, -1),
    (-1, -1),
    (-1, 1),
    (1, -1),
    (1, 1),
];

impl Game for Map {
    type Position = Position;

    fn start(&self) -> Position {
        (self.police as u32, self.thief as u32, true)
    }

    fn moves(&self, &(p, t, police): &Position, out: &mut Vec<Position>) {
        // Passing is a move.
        out.push((p, t, !police));
        let (who, steps) = if police {
            (p, &STEPS[..])
        } else {
            (t, &STEPS[..4])
        };
        let (r, c) = (
            (who as usize / self.cols) as isize,
            (who as usize % self.cols) as isize,
        );
        for &(dr, dc) in steps {
            if let Some(to) = self.open(r + dr, c + dc) {
                out.push(if police {
                    (to, t, false)
                } else {
                    (p, to, true)
                });
            }
        }
    }

    fn primitive(&self, &(p, t, police): &Position) -> Option<Primitive> {
        let exit = self.cells[t as usize] == b'E';
        match (police, p == t, exit) {
            (true, true, _) => Some(Primitive::Win),
            (true, false, true) => Some(Primitive::Loss),
            (false, true, _) => Some(Primitive::Loss),
            (false, false, true) => Some(Primitive::Win),
            _ => None,
        }
    }

    fn index_size(&self) -> Option<u64> {
        let n = self.cells.len() as u64;
        Some(n * n * 2)
    }

    fn index(&self, &(p, t, police): &Position) -> u64 {
        (p as u64 * self.cells.len() as u64 + t as u64) * 2 + police as u64
    }
}

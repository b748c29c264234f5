//! Playing the policeman and the thief: moves are compass directions (`n`, `ne`, `e`, …,
//! north is up) or `stay`.

use super::{Move, Playable};
use crate::police::{Map, Position};
use crate::{Game, GameSolution};
use retrograde_solve::Value;

/// The direction from cell `a` to cell `b` (neighbours, or the same cell).
fn direction(cols: usize, a: u32, b: u32) -> (&'static str, &'static str) {
    let (ar, ac) = ((a as usize / cols) as isize, (a as usize % cols) as isize);
    let (br, bc) = ((b as usize / cols) as isize, (b as usize % cols) as isize);
    match (br - ar, bc - ac) {
        (-1, 0) => ("n", "north"),
        (-1, 1) => ("ne", "northeast"),
        (0, 1) => ("e", "east"),
        (1, 1) => ("se", "southeast"),
        (1, 0) => ("s", "south"),
        (1, -1) => ("sw", "southwest"),
        (0, -1) => ("w", "west"),
        (-1, -1) => ("nw", "northwest"),
        _ => ("stay", "pass"),
    }
}

impl Playable for GameSolution<'_, Map> {
    type Position = Position;

    fn start(&self) -> Position {
        Game::start(self.game())
    }

    fn moves(&self, at: &Position) -> Result<Vec<Move<Position>>, retrograde_tier::Error> {
        let map = self.game();
        if map.primitive(at).is_some() {
            return Ok(Vec::new());
        }
        let (_, cols) = map.size();
        let &(p, t, police) = at;
        let mut next = Vec::new();
        map.moves(at, &mut next);
        Ok(next
            .into_iter()
            .map(|n| {
                let (from, to) = if police { (p, n.0) } else { (t, n.1) };
                let (short, long) = direction(cols, from, to);
                Move::new(short, n).alias(long)
            })
            .collect())
    }

    fn value(&self, p: &Position) -> Result<Value, retrograde_tier::Error> {
        GameSolution::value(self, p).ok_or_else(|| {
            retrograde_tier::Error::Game("every position reached in play was solved".into())
        })
    }

    fn render(&self, &(p, t, _): &Position) -> String {
        let map = self.game();
        let (rows, cols) = map.size();
        let mut s = String::with_capacity(rows * (cols + 1) + 60);
        for r in 0..rows {
            for c in 0..cols {
                let at = (r * cols + c) as u32;
                s.push(match (at == p, at == t) {
                    (true, true) => '@',
                    (true, false) => 'P',
                    (false, true) => 'T',
                    _ => map.tile(at as usize) as char,
                });
            }
            s.push('\n');
        }
        if p == t {
            s.push_str("(@: the policeman has caught the thief)\n");
        } else if map.tile(t as usize) == b'E' {
            s.push_str("(the thief is on an exit)\n");
        }
        s
    }

    fn side_names(&self) -> [String; 2] {
        ["the policeman".into(), "the thief".into()]
    }

    fn title(&self) -> String {
        let (rows, cols) = self.game().size();
        format!(
            "The policeman and the thief on a {rows}x{cols} map (* wall, E exit).\n\
             The policeman (P) moves first, to one of the 8 neighbouring cells or stays;\n\
             the thief (T) to one of the 4 orthogonal ones or stays. The policeman wins on\n\
             the thief's cell, the thief on an exit. Moves: n ne e se s sw w nw (north is up)\n\
             or stay."
        )
    }
}

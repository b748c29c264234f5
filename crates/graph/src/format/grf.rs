//! GamesmanClassic's graph format (`.grf`, read by its `mgraph.c` module).
//!
//! Whitespace-separated tokens; line breaks carry no meaning:
//! ```text
//! N                      number of position records that follow
//! id value k c1 c2 … ck  N times: a position, its value, its k children
//! ```
//! - `id` and children are 0-based decimal ids; records may come in any order.
//! - `value` is one letter, either case: `u` undecided (play on), `w` win, `l` loss (lose),
//!   `t` tie, stated for the player to move. A `w`/`l`/`t` position is terminal: children
//!   listed for it are kept as edges but never played (the primitive label wins).
//! - A child written with a `g` suffix right after the number (`37g`) is a go-again move: the
//!   same player moves next.
//! - Position 0 is the start. Text after the N-th record is ignored, as GamesmanClassic does
//!   (files use it for notes), unless it starts with a number: that is a record past the N
//!   the file announces (or an edge list read as GRF), an error.
//!
//! Differences from GamesmanClassic, on purpose: no 50-position limit; a position listed
//! twice is an error (GamesmanClassic silently keeps the later record); ids, of positions
//! and of children, must be below N (GamesmanClassic would read past its arrays), so the
//! records are exactly the positions `0..N`.
//!
//! ```
//! use retrograde_graph::format::{grf, ParseOptions};
//! // GamesmanClassic's meta/default.grf
//! let text = b"7\n0 u 2\n1 2\n1 u 2\n3 4\n2 u 2\n5 6\n3 w 0\n4 l 0\n5 t 0\n6 w 0\n";
//! let g = grf::parse(text, &ParseOptions::default()).unwrap();
//! assert_eq!((g.vertex_count(), g.edge_count(), g.start()), (7, 6, Some(0)));
//! ```

use super::{show, ParseError, ParseOptions};
use crate::builder::checked_id;
use crate::{Graph, GraphBuilder, Primitive};

struct Tokens<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: u64,
    /// Line of the last token read (where an "unexpected end" is reported).
    last: u64,
}

impl<'a> Tokens<'a> {
    /// The next token and its line, or `None` at the end.
    fn next(&mut self) -> Option<(&'a [u8], u64)> {
        let b = self.bytes;
        while self.pos < b.len() && b[self.pos].is_ascii_whitespace() {
            if b[self.pos] == b'\n' {
                self.line += 1;
            }
            self.pos += 1;
        }
        if self.pos == b.len() {
            return None;
        }
        let start = self.pos;
        while self.pos < b.len() && !b[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        self.last = self.line;
        Some((&b[start..self.pos], self.line))
    }

    fn expect(&mut self, what: &str) -> Result<(&'a [u8], u64), ParseError> {
        self.next().ok_or_else(|| {
            ParseError::at(
                self.last,
                format!("expected {what}, found the end of the file"),
            )
        })
    }
}

fn number(tok: &[u8], line: u64, what: &str) -> Result<u64, ParseError> {
    if tok.is_empty() || !tok.iter().all(u8::is_ascii_digit) {
        return Err(ParseError::at(
            line,
            format!("expected {what}, found {}", show(tok)),
        ));
    }
    if tok.len() > 19 {
        return Err(ParseError::at(
            line,
            format!("{what} {} is too large", show(tok)),
        ));
    }
    Ok(std::str::from_utf8(tok)
        .expect("digits")
        .parse()
        .expect("at most 19 digits"))
}

fn id(tok: &[u8], line: u64, what: &str) -> Result<u32, ParseError> {
    let n = number(tok, line, what)?;
    checked_id(n).map_err(|e| ParseError::at(line, e.to_string()))
}

/// An id below the announced number of positions, or an error at `line`.
fn below(v: u32, count: u64, line: u64, what: &str) -> Result<(), ParseError> {
    if u64::from(v) < count {
        return Ok(());
    }
    let ids = match count {
        0 => "none".to_string(),
        1 => "only 0".to_string(),
        n => format!("0 to {}", n - 1),
    };
    Err(ParseError::at(
        line,
        format!(
            "{what} {v} is past the {count} position{} the first line announces (ids {ids})",
            if count == 1 { "" } else { "s" }
        ),
    ))
}

/// Parses a `.grf` file.
///
/// # Errors
/// A [`ParseError`] naming the line of the first bad token.
pub fn parse(bytes: &[u8], opts: &ParseOptions) -> Result<Graph, ParseError> {
    Ok(parse_builder(bytes, opts)?.build()?)
}

/// Like [`parse`], but returns the filled builder before the layout.
///
/// # Errors
/// As [`parse`].
pub fn parse_builder(bytes: &[u8], opts: &ParseOptions) -> Result<GraphBuilder, ParseError> {
    let mut t = Tokens {
        bytes,
        pos: 0,
        line: 1,
        last: 1,
    };
    let (tok, line) = t.expect("the number of positions")?;
    let count = number(tok, line, "the number of positions")?;
    let mut b = GraphBuilder::new();
    let mut seen: std::collections::HashMap<u32, u64> = std::collections::HashMap::new();
    for _ in 0..count {
        let (tok, line) = t.expect("a position id")?;
        let v = id(tok, line, "a position id")?;
        below(v, count, line, "position")?;
        if let Some(first) = seen.insert(v, line) {
            return Err(ParseError::at(
                line,
                format!("position {v} is listed twice (first on line {first})"),
            ));
        }
        let (tok, vline) = t.expect("a value letter u, w, l or t")?;
        let value = match tok {
            b"u" | b"U" => None,
            b"w" | b"W" => Some(Primitive::Win),
            b"l" | b"L" => Some(Primitive::Loss),
            b"t" | b"T" => Some(Primitive::Tie),
            _ => {
                return Err(ParseError::at(
                    vline,
                    format!("expected a value letter u, w, l or t, found {}", show(tok)),
                ))
            }
        };
        let (tok, kline) = t.expect("the number of children")?;
        let k = number(tok, kline, "the number of children")?;
        for _ in 0..k {
            let (tok, cline) = t.expect("a child id")?;
            let (digits, again) = match tok.last() {
                Some(b'g' | b'G') => (&tok[..tok.len() - 1], true),
                _ => (tok, false),
            };
            let c = id(digits, cline, "a child id (digits, with g for go-again)")?;
            below(c, count, cline, "child")?;
            if again {
                b.add_edge_again(v, c);
            } else {
                b.add_edge(v, c);
            }
        }
        // Touch v so that a childless position still counts.
        b.ensure_vertices(v as u64 + 1)?;
        if let Some(p) = value {
            b.set_primitive(v, p);
        }
    }
    if let Some((tok, line)) = t.next() {
        if tok[0].is_ascii_digit() {
            let hint = if count == 0 {
                " (is this an edge list? use --format edges)"
            } else {
                ""
            };
            return Err(ParseError::at(
                line,
                format!(
                    "expected the end of the {count} position{} the first line announces, found {}{hint} (notes after the last position must not start with a number)",
                    if count == 1 { "" } else { "s" },
                    show(tok)
                ),
            ));
        }
    }
    if count > 0 {
        b.set_start(0);
    }
    if let Some(n) = opts.vertices {
        b.ensure_vertices(n)?;
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Graph, ParseError> {
        parse(s.as_bytes(), &ParseOptions::default())
    }

    #[test]
    fn go_again_children_and_trailing_notes() {
        let g = p("3\n0 u 2\n1g 2\n1 l 0\n2 w 0\ngo again always\n").unwrap();
        assert_eq!(g.successors(0), &[1, 2]);
        let r = g.successor_range(0);
        assert!(g.forward_keeps_turn(r.start, 0, 1));
        assert!(!g.forward_keeps_turn(r.start + 1, 0, 2));
        assert_eq!(g.primitive(1), Some(Primitive::Loss));
    }

    #[test]
    fn records_and_children_past_n_are_errors() {
        assert_eq!(
            p("2\n0 u 1 1\n1 l 0\n2 l 0\n").unwrap_err().to_string(),
            "4: expected the end of the 2 positions the first line announces, found \"2\" \
             (notes after the last position must not start with a number)"
        );
        assert_eq!(
            p("2\n0 u 1 5\n1 l 0\n").unwrap_err().to_string(),
            "2: child 5 is past the 2 positions the first line announces (ids 0 to 1)"
        );
        assert_eq!(
            p("1\n3 u 0\n").unwrap_err().to_string(),
            "2: position 3 is past the 1 position the first line announces (ids only 0)"
        );
        // An edge list is not a GRF file.
        assert!(p("0 1\n1 2\n")
            .unwrap_err()
            .to_string()
            .starts_with("1: expected the end of the 0 positions"));
        assert!(p("0 1\n1 2\n")
            .unwrap_err()
            .to_string()
            .contains("--format edges"));
        assert_eq!(p("0\n").unwrap().vertex_count(), 0);
    }

    #[test]
    fn errors_name_the_line() {
        assert_eq!(
            p("").unwrap_err().to_string(),
            "1: expected the number of positions, found the end of the file"
        );
        assert_eq!(
            p("2\n0 u 1\n1\n").unwrap_err().to_string(),
            "3: expected a position id, found the end of the file"
        );
        assert_eq!(
            p("1\n0 x 0\n").unwrap_err().to_string(),
            "2: expected a value letter u, w, l or t, found \"x\""
        );
        assert!(p("1\n0 u 1\n1h\n")
            .unwrap_err()
            .to_string()
            .starts_with("3: expected a child id"));
        assert!(p("2\n0 u 0\n0 w 0\n")
            .unwrap_err()
            .to_string()
            .contains("listed twice"));
        assert!(p("1\n4294967295 u 0\n")
            .unwrap_err()
            .to_string()
            .contains("too large"));
        assert!(p("1\n0 u 99999999999999999999999\n")
            .unwrap_err()
            .to_string()
            .contains("too large"));
    }
}

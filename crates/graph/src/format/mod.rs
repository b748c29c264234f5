//! Reading graphs from text: edge lists, the annotated `rg` format, GamesmanClassic's `.grf`
//! format, and JSON.
//!
//! Every parser takes bytes (the caller does the I/O) and returns a [`Graph`] or a
//! [`ParseError`] naming the line and what was expected. None of them panics on any input
//! (a fuzz target per parser checks this).
//!
//! # Formats
//! - **edges**: one move `u v` per line, ids 0-based decimal; blank lines and lines starting
//!   with `#` or `%` are skipped, and so is a trailing `# comment`. `n` is the largest id + 1
//!   (or [`ParseOptions::vertices`]).
//! - **rg** (the native format, a superset of *edges*): edge lines, optionally `u v again`
//!   for a go-again move, and directive lines:
//!   `vertices N`, `terminal V win|loss|tie`, `score V S` (V is terminal, worth the integer
//!   S, `-(2^63-1) <= S <= 2^63-1`, to the player to move there; the graph is then scored),
//!   `owner V 0|1` (makes the graph an arena), `name V free text`, `start V`.
//! - **grf** (GamesmanClassic): see [`grf`].
//! - **json**: see [`json`].
//!
//! ```
//! use retrograde_graph::format::{parse, Format, ParseOptions};
//! let text = b"# pebbles 0..3\nvertices 4\n1 0\n2 1\n2 0\n3 2\n3 1\nname 3 three pebbles\n";
//! let g = parse(text, Format::Auto, &ParseOptions::default()).unwrap();
//! assert_eq!((g.vertex_count(), g.edge_count()), (4, 5));
//! assert_eq!(g.name(3), Some("three pebbles"));
//!
//! let err = parse(b"0 1\n1 x\n", Format::Edges, &ParseOptions::default()).unwrap_err();
//! assert_eq!(err.to_string(), "2: expected two vertex ids, found \"1 x\"");
//! ```

mod common;
pub mod grf;
pub mod json;
mod text;

pub(crate) use common::show;
pub use common::{Format, ParseError, ParseOptions};
pub use text::{apply_directives, Chunk, LineParser, TextParser};

use crate::{BuildError, Graph, GraphBuilder};

impl From<BuildError> for ParseError {
    fn from(e: BuildError) -> Self {
        ParseError::whole(e.to_string())
    }
}

/// Parses `bytes` in `format` ([`Format::Auto`] guesses with [`detect`]).
///
/// # Errors
/// A [`ParseError`] with the first offending line.
pub fn parse(bytes: &[u8], format: Format, opts: &ParseOptions) -> Result<Graph, ParseError> {
    Ok(parse_builder(bytes, format, opts)?.build()?)
}

/// Like [`parse`], but stops before the layout: returns the filled [`GraphBuilder`] (so that
/// reading and laying out can be timed apart).
///
/// # Errors
/// As [`parse`].
pub fn parse_builder(
    bytes: &[u8],
    format: Format,
    opts: &ParseOptions,
) -> Result<GraphBuilder, ParseError> {
    let format = if format == Format::Auto {
        detect(bytes)
    } else {
        format
    };
    match format {
        Format::Auto | Format::Rg | Format::Edges => {
            let mut p = TextParser::new(format);
            p.feed(bytes)?;
            p.finish(opts)
        }
        Format::Grf => grf::parse_builder(bytes, opts),
        Format::Json => json::parse_builder(bytes, opts),
    }
}

/// Guesses the format of `bytes` from its first tokens: JSON starts with `{`; GamesmanClassic
/// starts with a count, an id and a value letter (`7` / `0 u 2`); anything else is read as
/// `rg`, which accepts plain edge lists too.
pub fn detect(bytes: &[u8]) -> Format {
    let head = &bytes[..bytes.len().min(1 << 16)];
    let mut tokens: Vec<&[u8]> = Vec::with_capacity(3);
    for line in head.split(|&b| b == b'\n') {
        let trimmed = line.trim_ascii_start();
        if trimmed.first().is_some_and(|&c| c == b'#' || c == b'%') {
            continue;
        }
        if tokens.is_empty() && trimmed.first().is_some_and(|&c| c == b'{') {
            return Format::Json;
        }
        for t in trimmed
            .split(|b| b.is_ascii_whitespace())
            .filter(|t| !t.is_empty())
        {
            tokens.push(t);
            if tokens.len() == 3 {
                break;
            }
        }
        if tokens.len() == 3 {
            break;
        }
    }
    let is_int = |t: &[u8]| !t.is_empty() && t.iter().all(u8::is_ascii_digit);
    if tokens.len() == 3
        && is_int(tokens[0])
        && is_int(tokens[1])
        && tokens[2].len() == 1
        && b"uwltUWLT".contains(&tokens[2][0])
    {
        return Format::Grf;
    }
    Format::Rg
}

/// What [`read_line`] found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A whole line (without its line break) is in the buffer.
    Whole,
    /// A line longer than the limit: it was read to its end and dropped, never held whole;
    /// its length in bytes.
    TooLong(u64),
    /// The end of the input.
    End,
}

/// Reads one line of `input` into `line` (cleared first, without the line break), in the
/// reader's own pieces: at most `max` bytes are kept, so a longer line (even one of
/// gigabytes without a line break) costs no memory; it is read to its end and reported.
///
/// # Errors
/// A read error.
pub fn read_line(
    input: &mut impl std::io::BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    line.clear();
    let mut seen = 0u64;
    loop {
        let buf = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            // The end of the input (after a last line without a line break, if any).
            if seen == 0 {
                return Ok(Line::End);
            }
            break;
        }
        let (piece, ended) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        let keep = piece.len().min((max + 1).saturating_sub(line.len()));
        line.extend_from_slice(&piece[..keep]);
        seen += piece.len() as u64;
        let used = piece.len() + usize::from(ended);
        input.consume(used);
        if ended {
            return Ok(if line.len() > max {
                line.clear();
                Line::TooLong(seen)
            } else {
                Line::Whole
            });
        }
    }
    if line.len() > max {
        line.clear();
        return Ok(Line::TooLong(seen));
    }
    Ok(Line::Whole)
}

#[cfg(test)]
mod read_line_tests {
    use super::{read_line, Line};

    #[test]
    fn lines_are_kept_up_to_the_limit_and_longer_ones_skipped() {
        let text = b"ab\n\n0123456789\nlast";
        // A reader whose pieces are 3 bytes: a long line spans many of them.
        let mut r = std::io::BufReader::with_capacity(3, &text[..]);
        let mut line = Vec::new();
        let mut got = Vec::new();
        loop {
            match read_line(&mut r, &mut line, 4).unwrap() {
                Line::End => break,
                l => got.push((l, String::from_utf8(line.clone()).unwrap())),
            }
        }
        assert_eq!(
            got,
            [
                (Line::Whole, "ab".to_string()),
                (Line::Whole, String::new()),
                (Line::TooLong(10), String::new()),
                (Line::Whole, "last".to_string()),
            ]
        );
    }
}

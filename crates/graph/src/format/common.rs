//! What the parsers share: the formats, their options, their error, and how a bad line is
//! shown in it.

use std::fmt;
use std::str::FromStr;

/// A graph file format.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Guess from the content (see [`detect`]).
    Auto,
    /// A plain edge list.
    Edges,
    /// The annotated native text format.
    Rg,
    /// GamesmanClassic's graph format.
    Grf,
    /// JSON.
    Json,
}

impl Format {
    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Edges => "edges",
            Format::Rg => "rg",
            Format::Grf => "grf",
            Format::Json => "json",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "auto" => Format::Auto,
            "edges" => Format::Edges,
            "rg" => Format::Rg,
            "grf" => Format::Grf,
            "json" => Format::Json,
            _ => {
                return Err(format!(
                    "unknown format {s:?} (expected auto, edges, rg, grf or json)"
                ))
            }
        })
    }
}

/// Options shared by the parsers.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// At least this many vertices, even if fewer ids appear.
    pub vertices: Option<u64>,
    /// For a reader whose values have no scores: a graph with a score is an error at its
    /// first `score` line (JSON: its `scores`), saying `a score line, but ` and then this
    /// reason. `None` (the default): scores are read.
    ///
    /// ```
    /// use retrograde_graph::format::{parse, Format, ParseOptions};
    /// let opts = ParseOptions { no_scores: Some("these values have none"), ..Default::default() };
    /// let e = parse(b"0 1\nscore 1 -2\n", Format::Rg, &opts).unwrap_err();
    /// assert_eq!(e.to_string(), "2: a score line, but these values have none");
    /// ```
    pub no_scores: Option<&'static str>,
}

impl ParseOptions {
    /// The error of a score where [`ParseOptions::no_scores`] refuses them, at `line`.
    pub(crate) fn scores_refused(&self, line: Option<u64>) -> Option<ParseError> {
        let why = self.no_scores?;
        let message = match line {
            Some(_) => format!("a score line, but {why}"),
            None => format!("\"scores\" are given, but {why}"),
        };
        Some(ParseError { line, message })
    }
}

/// A parse failure: where, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number, when the error is tied to a line.
    pub line: Option<u64>,
    /// What was expected and what was found.
    pub message: String,
}

impl ParseError {
    pub(crate) fn at(line: u64, message: impl Into<String>) -> Self {
        ParseError {
            line: Some(line),
            message: message.into(),
        }
    }
    pub(crate) fn whole(message: impl Into<String>) -> Self {
        ParseError {
            line: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ParseError {}

/// Shows at most 40 characters of a line, escaped, for an error message.
pub(crate) fn show(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches('\r');
    let mut out: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        out.push('…');
    }
    format!("{out:?}")
}

//! The PGSolver format of parity games and of their solutions, as PGSolver and Oink read and
//! write them, from and to bytes (no I/O here).
//!
//! # Games
//! ```text
//! parity 4;                 an optional header: the largest vertex id
//! start 0;                  an optional start vertex
//! 0 3 1 1,2 "a name";       id, priority, owner (0 Even, 1 Odd), successors, a name
//! 1 2 0 0;                  the name is optional
//! ...
//! ```
//! Tokens are separated by any whitespace (a vertex may span lines); each vertex ends with
//! `;`. Every id from 0 to the largest must have exactly one vertex. With a header `parity
//! N;` the largest id is `N`, or `N - 1` (the games of the SYNTCOMP competition, which Oink
//! ships, give the number of vertices there; Oink accepts both). A name is everything
//! between the double quotes (no escapes). Ids are below 4 294 967 295 and priorities at
//! most 4 294 967 295. A vertex without successors (`3 2 0;`) is a dead end, which its owner
//! loses; PGSolver and Oink refuse such files.
//!
//! # Solutions
//! ```text
//! paritysol 4;              an optional header (the largest id; readers ignore it)
//! 0 1;                      vertex 0 is won by Odd (who does not own it)
//! 1 0 0;                    vertex 1 is won by Even, who moves to 0
//! ```
//! A winner's own vertex has its move after the winner. [`parse_solution`] also reads the
//! CSV this project writes (`vertex,priority,owner,winner,strategy`).

use crate::game::{Names, ParityGame, Player};
use crate::solution::Solution;
use crate::verify::Claim;
pub use retrograde_graph::format::ParseError;
use retrograde_graph::{BitSet, Graph, MAX_VERTEX_ID};
use std::borrow::Cow;
use std::io::{self, Read, Write};

/// The text of a file given as its bytes: gzip (bytes `1f 8b`) and bzip2 (`BZh`) are
/// decompressed (every member or stream of the file, as `zcat` and `bzcat` do), anything
/// else is the text as it is. Oink reads both kinds by their extension; the bytes tell here.
///
/// # Errors
/// A [`ParseError`] without a line: the compressed data is damaged or truncated, or the
/// text would pass `limit` bytes (a guard against a small file that decompresses to more
/// than the memory holds).
///
/// # Example
/// ```
/// use retrograde_parity::decompress;
/// assert_eq!(&*decompress(b"parity 0;", None).unwrap(), b"parity 0;");
/// let gz = [31, 139, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0];
/// assert_eq!(&*decompress(&gz, None).unwrap(), b"");
/// assert!(decompress(&gz[..12], None).is_err());
/// ```
pub fn decompress(bytes: &[u8], limit: Option<u64>) -> Result<Cow<'_, [u8]>, ParseError> {
    let whole = |what: &str, e: io::Error| ParseError {
        line: None,
        message: format!("the {what} data is damaged or cut short: {e}"),
    };
    let read = |mut r: Box<dyn Read + '_>, what: &str| -> Result<Vec<u8>, ParseError> {
        let mut out = Vec::new();
        match limit {
            Some(l) => {
                r.take(l.saturating_add(1))
                    .read_to_end(&mut out)
                    .map_err(|e| whole(what, e))?;
                if out.len() as u64 > l {
                    return Err(ParseError {
                        line: None,
                        message: format!(
                            "the {what} file decompresses to more than {l} bytes, the memory limit"
                        ),
                    });
                }
            }
            None => {
                r.read_to_end(&mut out).map_err(|e| whole(what, e))?;
            }
        }
        Ok(out)
    };
    if bytes.starts_with(&[0x1f, 0x8b]) {
        Ok(Cow::Owned(read(
            Box::new(flate2::read::MultiGzDecoder::new(bytes)),
            "gzip",
        )?))
    } else if bytes.starts_with(b"BZh") {
        Ok(Cow::Owned(read(
            Box::new(bzip2::read::MultiBzDecoder::new(bytes)),
            "bzip2",
        )?))
    } else {
        Ok(Cow::Borrowed(bytes))
    }
}

fn err(line: u64, message: impl Into<String>) -> ParseError {
    ParseError {
        line: Some(line),
        message: message.into(),
    }
}

/// A cursor over the bytes with the current line.
struct Reader<'a> {
    b: &'a [u8],
    i: usize,
    line: u64,
}

impl<'a> Reader<'a> {
    fn new(b: &'a [u8]) -> Self {
        // A UTF-8 byte order mark is not part of the text.
        let i = if b.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
        Reader { b, i, line: 1 }
    }

    #[inline(always)]
    fn skip_ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            match c {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' => {}
                _ => break,
            }
            self.i += 1;
        }
    }

    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn at_end(&self) -> bool {
        self.i >= self.b.len()
    }

    /// The token at the cursor, for messages: up to the next separator, at most 24 bytes.
    fn found(&self) -> String {
        let rest = &self.b[self.i.min(self.b.len())..];
        if rest.is_empty() {
            return "the end of the file".into();
        }
        let mut end = rest
            .iter()
            .position(|&c| matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b';' | b','))
            .unwrap_or(rest.len());
        if end == 0 {
            end = 1;
        }
        let cut = end.min(24);
        let text = String::from_utf8_lossy(&rest[..cut]);
        if cut < end {
            format!("\"{text}...\"")
        } else {
            format!("\"{text}\"")
        }
    }

    /// A decimal number of at most `u64::MAX`; `what` names it in messages (called only
    /// on an error, so that the hot path builds no text).
    #[inline(always)]
    fn number<S: std::fmt::Display>(
        &mut self,
        what: impl FnOnce() -> S,
    ) -> Result<u64, ParseError> {
        let start = self.i;
        let mut n: u64 = 0;
        while let Some(&c) = self.b.get(self.i) {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            n = match n.checked_mul(10).and_then(|n| n.checked_add(d as u64)) {
                Some(n) => n,
                None => {
                    self.i = start;
                    return Err(err(
                        self.line,
                        format!("{} {} is too large", what(), self.found()),
                    ));
                }
            };
            self.i += 1;
        }
        if self.i == start {
            return Err(err(
                self.line,
                format!("expected {}, found {}", what(), self.found()),
            ));
        }
        Ok(n)
    }

    /// The keyword `word` at the cursor, followed by a separator?
    fn keyword(&self, word: &[u8]) -> bool {
        self.b[self.i..].starts_with(word)
            && self
                .b
                .get(self.i + word.len())
                .is_none_or(|c| !c.is_ascii_alphanumeric())
    }

    fn expect_semicolon(&mut self, after: &str) -> Result<(), ParseError> {
        self.skip_ws();
        if self.peek() == Some(b';') {
            self.i += 1;
            Ok(())
        } else {
            Err(err(
                self.line,
                format!("expected ';' {after}, found {}", self.found()),
            ))
        }
    }
}

/// One vertex as the file gives it.
struct Record {
    id: u32,
    priority: u32,
    odd: bool,
    line: u64,
}

/// Parses a game in the PGSolver format (module docs).
///
/// # Errors
/// A [`ParseError`] naming the line and what was expected: a malformed vertex, an id, a
/// priority or a successor too large, an owner other than 0 or 1, an id given twice, an id
/// missing below the largest, a successor or a start that is not a vertex, an unterminated
/// name, a header the ids do not match. Never panics.
///
/// # Example
/// ```
/// use retrograde_parity::pg::parse_game;
/// let game = parse_game(b"parity 2;\n0 1 0 1,2;\n1 2 1 0 \"b\";\n2 0 1 2;\n").unwrap();
/// assert_eq!(game.vertex_count(), 3);
/// assert_eq!(game.successors(0), &[1, 2]);
/// assert_eq!(game.name(1), Some("b"));
/// let e = parse_game(b"0 1 0 5;\n").unwrap_err();
/// assert_eq!(e.to_string(), "1: successor 5 of vertex 0 is not a vertex (the largest id is 0)");
/// ```
pub fn parse_game(bytes: &[u8]) -> Result<ParityGame, ParseError> {
    let mut r = Reader::new(bytes);
    r.skip_ws();
    let mut header: Option<(u64, u64)> = None;
    if r.keyword(b"parity") {
        let line = r.line;
        r.i += 6;
        r.skip_ws();
        let n = r.number(|| "the largest vertex id after \"parity\"")?;
        r.expect_semicolon("after the header")?;
        header = Some((n, line));
        r.skip_ws();
    }
    let mut start: Option<(u64, u64)> = None;
    if r.keyword(b"start") {
        let line = r.line;
        r.i += 5;
        r.skip_ws();
        let s = r.number(|| "a start vertex after \"start\"")?;
        r.expect_semicolon("after the start vertex")?;
        start = Some((s, line));
        r.skip_ws();
    }

    // The vertices in file order; their successors and names concatenated.
    let mut records: Vec<Record> = Vec::new();
    let mut succ_end: Vec<u64> = Vec::new();
    let mut succ: Vec<u32> = Vec::new();
    // Lines of the successors past the ids seen, checked once the largest id is known.
    let mut names = String::new();
    let mut name_end: Vec<u64> = Vec::new();
    let mut max_id: Option<u32> = None;
    let mut in_order = true;
    while !r.at_end() {
        let line = r.line;
        let id = r.number(|| "a vertex id")?;
        if id > MAX_VERTEX_ID {
            return Err(err(
                line,
                format!("vertex id {id} is too large (ids are at most {MAX_VERTEX_ID})"),
            ));
        }
        if let Some((n, _)) = header {
            if id > n {
                return Err(err(
                    line,
                    format!("vertex id {id} is past the largest id {n} the header gives"),
                ));
            }
        }
        let id = id as u32;
        r.skip_ws();
        let priority = r.number(|| format!("the priority of vertex {id}"))?;
        if priority > u32::MAX as u64 {
            return Err(err(
                line,
                format!(
                    "priority {priority} of vertex {id} is too large (priorities are at most {})",
                    u32::MAX
                ),
            ));
        }
        r.skip_ws();
        let owner_line = r.line;
        let owner = r.number(|| format!("the owner of vertex {id} (0 or 1)"))?;
        if owner > 1 {
            return Err(err(
                owner_line,
                format!("the owner of vertex {id} must be 0 (Even) or 1 (Odd), found {owner}"),
            ));
        }
        r.skip_ws();
        if r.peek().is_some_and(|c| c.is_ascii_digit()) {
            loop {
                let s = r.number(|| format!("a successor of vertex {id}"))?;
                if s > MAX_VERTEX_ID {
                    return Err(err(
                        r.line,
                        format!("successor {s} of vertex {id} is not a vertex (ids are at most {MAX_VERTEX_ID})"),
                    ));
                }
                succ.push(s as u32);
                r.skip_ws();
                if r.peek() == Some(b',') {
                    r.i += 1;
                    r.skip_ws();
                    if !r.peek().is_some_and(|c| c.is_ascii_digit()) {
                        return Err(err(
                            r.line,
                            format!(
                                "expected a successor of vertex {id} after ',', found {}",
                                r.found()
                            ),
                        ));
                    }
                } else {
                    break;
                }
            }
        }
        if r.peek() == Some(b'"') {
            let open = r.line;
            r.i += 1;
            let rest = &r.b[r.i..];
            let Some(len) = memchr_quote(rest) else {
                return Err(err(
                    open,
                    format!("the name of vertex {id} has no closing '\"'"),
                ));
            };
            let name = &rest[..len];
            r.line += name.iter().filter(|&&c| c == b'\n').count() as u64;
            let Ok(name) = std::str::from_utf8(name) else {
                return Err(err(open, format!("the name of vertex {id} is not UTF-8")));
            };
            if name_end.len() < records.len() {
                name_end.resize(records.len(), names.len() as u64);
            }
            names.push_str(name);
            name_end.push(names.len() as u64);
            r.i += len + 1;
            r.skip_ws();
        }
        if r.peek() != Some(b';') {
            return Err(err(
                r.line,
                if r.peek().is_some_and(|c| c.is_ascii_digit()) {
                    format!(
                        "expected ',' between the successors of vertex {id}, or ';', found {}",
                        r.found()
                    )
                } else {
                    format!(
                        "expected a successor, a name in quotes or ';' ending vertex {id}, found {}",
                        r.found()
                    )
                },
            ));
        }
        r.i += 1;
        if max_id.is_none_or(|m| id > m) {
            in_order &= id as usize == records.len();
            max_id = Some(id);
        } else {
            in_order = false;
        }
        records.push(Record {
            id,
            priority: priority as u32,
            odd: owner == 1,
            line,
        });
        succ_end.push(succ.len() as u64);
        r.skip_ws();
    }
    if !name_end.is_empty() && name_end.len() < records.len() {
        name_end.resize(records.len(), names.len() as u64);
    }

    let n = max_id.map_or(0, |m| m as usize + 1);
    if let Some((h, line)) = header {
        // The header names the largest id, or (as SYNTCOMP's games have it) the count.
        let ok = match max_id {
            None => h <= 1,
            Some(m) => m as u64 == h || m as u64 + 1 == h,
        };
        if !ok {
            return Err(err(
                line,
                format!(
                    "the header gives {h} as the largest vertex id, but the largest id is {}",
                    max_id.map_or("none (no vertices)".to_string(), |m| m.to_string())
                ),
            ));
        }
    }
    // Every id from 0 to the largest exactly once. An id past the number of vertices
    // means one below is missing, so a bit set that large finds every problem.
    let limit = records.len() + 1;
    let mut seen = BitSet::new(limit.min(n));
    let mut first_line = vec![0u64; 0];
    for rec in &records {
        let id = rec.id as usize;
        if id < seen.len() {
            if seen.get(id) {
                if first_line.is_empty() {
                    first_line = vec![0u64; seen.len()];
                    for r2 in &records {
                        if (r2.id as usize) < seen.len() && first_line[r2.id as usize] == 0 {
                            first_line[r2.id as usize] = r2.line;
                        }
                    }
                }
                return Err(err(
                    rec.line,
                    format!(
                        "vertex {id} is given twice (first on line {})",
                        first_line[id]
                    ),
                ));
            }
            seen.set(id, true);
        }
    }
    if records.len() != n {
        let missing = (0..seen.len())
            .find(|&v| !seen.get(v))
            .unwrap_or(seen.len());
        return Err(ParseError {
            line: None,
            message: format!(
                "vertex {missing} has no line: every id from 0 to the largest, {}, needs one",
                n - 1
            ),
        });
    }
    if let Some((s, line)) = start {
        if s >= n as u64 {
            return Err(err(
                line,
                format!(
                    "the start {s} is not a vertex (the largest id is {})",
                    n as i64 - 1
                ),
            ));
        }
    }
    // A successor past the largest id, reported with its vertex's line.
    let mut from = 0usize;
    for (k, rec) in records.iter().enumerate() {
        let to = succ_end[k] as usize;
        if let Some(&s) = succ[from..to].iter().find(|&&s| s as usize >= n) {
            return Err(err(
                rec.line,
                format!(
                    "successor {s} of vertex {} is not a vertex (the largest id is {})",
                    rec.id,
                    n - 1
                ),
            ));
        }
        from = to;
    }

    let mut priority = vec![0u32; n];
    let mut owner = BitSet::new(n);
    for rec in &records {
        priority[rec.id as usize] = rec.priority;
        owner.set(rec.id as usize, rec.odd);
    }
    let (offsets, targets, names) = if in_order {
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        offsets.extend_from_slice(&succ_end);
        let names = (!name_end.is_empty()).then(|| Names::new(names, name_end));
        (offsets, succ, names)
    } else {
        // Vertices out of order: each list moved to its id's place.
        let mut at = vec![0usize; n];
        for (k, rec) in records.iter().enumerate() {
            at[rec.id as usize] = k;
        }
        let range = |k: usize| {
            let s = if k == 0 { 0 } else { succ_end[k - 1] as usize };
            s..succ_end[k] as usize
        };
        let mut offsets = Vec::with_capacity(n + 1);
        let mut targets = Vec::with_capacity(succ.len());
        offsets.push(0u64);
        for &k in &at {
            targets.extend_from_slice(&succ[range(k)]);
            offsets.push(targets.len() as u64);
        }
        let names = (!name_end.is_empty()).then(|| {
            let name = |k: usize| {
                let s = if k == 0 { 0 } else { name_end[k - 1] as usize };
                &names[s..name_end[k] as usize]
            };
            let mut text = String::with_capacity(names.len());
            let mut ends = Vec::with_capacity(n);
            for &k in &at {
                text.push_str(name(k));
                ends.push(text.len() as u64);
            }
            Names::new(text, ends)
        });
        (offsets, targets, names)
    };
    let graph = Graph::from_successors(offsets, targets, Some(owner)).map_err(|e| ParseError {
        line: None,
        message: e.to_string(),
    })?;
    let mut game = ParityGame::from_graph(graph, priority).map_err(|e| ParseError {
        line: None,
        message: e.to_string(),
    })?;
    game.set_names(names);
    game.with_start(start.map(|(s, _)| s as u32))
        .map_err(|e| ParseError {
            line: None,
            message: e.to_string(),
        })
}

/// The position of the next `"`.
fn memchr_quote(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'"')
}

/// Writes `game` in the PGSolver format: the header (the largest id), the start if any,
/// then a line per vertex in id order (dead ends as `id priority owner;`, names in quotes).
/// [`parse_game`] reads it back as the same game.
///
/// # Errors
/// The writer's errors; [`io::ErrorKind::InvalidData`] for a name with a `"`, which the
/// format cannot hold.
pub fn write_game(game: &ParityGame, out: &mut impl Write) -> io::Result<()> {
    let n = game.vertex_count();
    writeln!(out, "parity {};", n.saturating_sub(1))?;
    if let Some(s) = game.start() {
        writeln!(out, "start {s};")?;
    }
    let mut num = itoa::Buffer::new();
    for v in 0..n as u32 {
        out.write_all(num.format(v).as_bytes())?;
        out.write_all(b" ")?;
        out.write_all(num.format(game.priority(v)).as_bytes())?;
        out.write_all(b" ")?;
        out.write_all(num.format(game.owner(v).index()).as_bytes())?;
        for (k, &w) in game.successors(v).iter().enumerate() {
            out.write_all(if k == 0 { b" " } else { b"," })?;
            out.write_all(num.format(w).as_bytes())?;
        }
        if let Some(name) = game.name(v) {
            if name.contains('"') {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "the name of vertex {v} has a '\"', which the PGSolver format cannot hold"
                    ),
                ));
            }
            write!(out, " \"{name}\"")?;
        }
        out.write_all(b";\n")?;
    }
    Ok(())
}

/// Writes a solution in PGSolver's format: `paritysol N;` (N the largest id), then `id
/// winner;` per vertex, with the winning move after the winner for a vertex its winner
/// owns. Oink and PGSolver read it.
///
/// # Errors
/// The writer's errors.
pub fn write_solution(game: &ParityGame, s: &Solution, out: &mut impl Write) -> io::Result<()> {
    let n = game.vertex_count();
    writeln!(out, "paritysol {};", n.saturating_sub(1))?;
    let mut num = itoa::Buffer::new();
    for v in 0..n as u32 {
        out.write_all(num.format(v).as_bytes())?;
        out.write_all(b" ")?;
        out.write_all(num.format(s.winner(v).index()).as_bytes())?;
        if let Some(m) = s.strategy(v) {
            out.write_all(b" ")?;
            out.write_all(num.format(m).as_bytes())?;
        }
        out.write_all(b";\n")?;
    }
    Ok(())
}

/// Reads a claimed solution of a game of `n` vertices: PGSolver's format (module docs), or
/// the CSV `parity --output csv` writes (a header line starting `vertex,`; the columns
/// `vertex`, `winner` and `strategy` are read, the others ignored). What a claim says about
/// the game (a vertex left out, a move that is not one) is for [`crate::verify`] to judge;
/// this only reads it.
///
/// # Errors
/// A [`ParseError`] with the line: malformed text, a winner other than 0 or 1, a vertex
/// that is not one of the game's, a vertex given twice.
///
/// # Example
/// ```
/// use retrograde_parity::pg::parse_solution;
/// let c = parse_solution(b"paritysol 1;\n0 0 1;\n1 0;\n", 2).unwrap();
/// assert_eq!(c.strategy[0], Some(1));
/// assert!(parse_solution(b"0 2;\n", 2).is_err());
/// ```
pub fn parse_solution(bytes: &[u8], n: usize) -> Result<Claim, ParseError> {
    let mut claim = Claims::new(n);
    let mut r = Reader::new(bytes);
    r.skip_ws();
    if r.b[r.i..].starts_with(b"vertex,") {
        parse_csv_solution(r, &mut claim)?;
        return Ok(claim.finish());
    }
    if r.keyword(b"paritysol") {
        r.i += 9;
        r.skip_ws();
        r.number(|| "a number after \"paritysol\"")?;
        r.expect_semicolon("after the header")?;
        r.skip_ws();
    }
    while !r.at_end() {
        let line = r.line;
        let v = r.number(|| "a vertex id")?;
        r.skip_ws();
        let w = r.number(|| format!("the winner of vertex {v} (0 or 1)"))?;
        r.skip_ws();
        let s = if r.peek().is_some_and(|c| c.is_ascii_digit()) {
            Some(r.number(|| format!("the move of vertex {v}"))?)
        } else {
            None
        };
        r.expect_semicolon(&format!("ending vertex {v}"))?;
        claim.record(v, w, s, line)?;
        r.skip_ws();
    }
    Ok(claim.finish())
}

/// A claim as it is read, with the line of each vertex (for the message about a vertex
/// given twice).
struct Claims {
    claim: Claim,
    line_of: Vec<u64>,
}

impl Claims {
    fn new(n: usize) -> Claims {
        Claims {
            claim: Claim {
                winner: vec![None; n],
                strategy: vec![None; n],
            },
            line_of: vec![0; n],
        }
    }

    fn record(&mut self, v: u64, w: u64, s: Option<u64>, line: u64) -> Result<(), ParseError> {
        let n = self.line_of.len();
        if v >= n as u64 {
            return Err(err(
                line,
                format!(
                    "vertex {v} is not a vertex of the game (its vertices are 0 to {})",
                    n as i64 - 1
                ),
            ));
        }
        let w = match w {
            0 => Player::Even,
            1 => Player::Odd,
            _ => {
                return Err(err(
                    line,
                    format!("the winner of vertex {v} must be 0 (Even) or 1 (Odd), found {w}"),
                ))
            }
        };
        let v = v as usize;
        if self.claim.winner[v].is_some() {
            return Err(err(
                line,
                format!(
                    "vertex {v} is given twice (first on line {})",
                    self.line_of[v]
                ),
            ));
        }
        self.claim.winner[v] = Some(w);
        self.claim.strategy[v] = s;
        self.line_of[v] = line;
        Ok(())
    }

    fn finish(self) -> Claim {
        self.claim
    }
}

/// The CSV form of a solution: a header naming the columns, then a row per vertex.
fn parse_csv_solution(r: Reader<'_>, claim: &mut Claims) -> Result<(), ParseError> {
    let mut line = r.line;
    let text = &r.b[r.i..];
    let mut lines = text.split(|&c| c == b'\n');
    let header = lines.next().unwrap_or_default();
    let header = String::from_utf8_lossy(header.strip_suffix(b"\r").unwrap_or(header));
    let cols: Vec<&str> = header.split(',').collect();
    let col = |name: &str| -> Result<usize, ParseError> {
        cols.iter().position(|&c| c == name).ok_or_else(|| {
            err(
                line,
                format!("the CSV header has no column {name:?} (it has {header:?})"),
            )
        })
    };
    let (cv, cw, cs) = (col("vertex")?, col("winner")?, col("strategy")?);
    for row in lines {
        line += 1;
        let row = row.strip_suffix(b"\r").unwrap_or(row);
        if row.iter().all(|c| c.is_ascii_whitespace()) {
            continue;
        }
        let fields: Vec<&[u8]> = row.split(|&c| c == b',').collect();
        if fields.len() != cols.len() {
            return Err(err(
                line,
                format!(
                    "expected {} fields as in the header, found {}",
                    cols.len(),
                    fields.len()
                ),
            ));
        }
        let number = |k: usize, what: &str| -> Result<Option<u64>, ParseError> {
            let f = fields[k];
            if f.is_empty() {
                return Ok(None);
            }
            std::str::from_utf8(f)
                .ok()
                .and_then(|s| s.parse::<u64>().ok())
                .map(Some)
                .ok_or_else(|| {
                    err(
                        line,
                        format!("expected {what}, found {:?}", String::from_utf8_lossy(f)),
                    )
                })
        };
        let v = number(cv, "a vertex id")?
            .ok_or_else(|| err(line, "expected a vertex id, found an empty field"))?;
        let w = number(cw, "a winner (0 or 1)")?
            .ok_or_else(|| err(line, format!("vertex {v} has no winner")))?;
        let s = number(cs, "a move (a vertex id, or nothing)")?;
        claim.record(v, w, s, line)?;
    }
    Ok(())
}

//! The edge-list and `rg` text formats: a byte parser that splits the input into chunks at
//! line boundaries and parses them in parallel.
//!
//! Edge lines are the hot path (no allocation per line, no UTF-8 decoding); directive lines
//! (`rg` only) are rare and handled after the edges, in file order.

use super::{show, ParseError, ParseOptions};
use crate::{GraphBuilder, Primitive, VertexId, MAX_VERTEX_ID};
use rayon::prelude::*;

/// What one chunk of lines produced.
struct ChunkOut<'a> {
    edges: Vec<(u32, u32)>,
    max_id: Option<u32>,
    /// Chunk-local indices of go-again edges.
    again: Vec<usize>,
    /// (chunk-local line number, line) of each directive.
    directives: Vec<(u64, &'a [u8])>,
    /// Lines in the chunk.
    lines: u64,
    /// The first error: chunk-local line and message.
    error: Option<(u64, String)>,
}

/// Lines longer than this are an error (no edge or directive line comes close).
const MAX_LINE: usize = 16 << 20;

/// The message for a line over [`MAX_LINE`].
fn long_line() -> String {
    format!(
        "expected a line of at most {} MiB, found a longer one (is this a binary file?)",
        MAX_LINE >> 20
    )
}

/// What a run of complete lines held (one chunk of a block; see [`LineParser`]).
#[derive(Debug, Default)]
pub struct Chunk {
    /// The edges `(u, v)`, in file order.
    pub edges: Vec<(u32, u32)>,
    /// The largest id among `edges` (`None` when there are none).
    pub max_id: Option<u32>,
    /// Indices into `edges` of the go-again edges (`u v again`, `rg` only).
    pub again: Vec<usize>,
    /// The directive lines (`rg` only), each with its line number counted from the first
    /// byte the parser was fed (1-based), in file order.
    pub directives: Vec<(u64, Vec<u8>)>,
}

/// The line-level half of [`TextParser`]: splits blocks of any size into lines (keeping a
/// partial last line for the next block), parses edge lines, and hands over each chunk's
/// edges and directive lines as they come, without applying the directives. Line numbers
/// count from the first byte fed, so a caller that parses a part of a file (one rank of a
/// distributed solve) adds the number of lines before it.
///
/// ```
/// use retrograde_graph::format::{Format, LineParser};
/// let mut p = LineParser::new(Format::Rg);
/// let mut edges = Vec::new();
/// p.feed(b"0 1\nname 1 one\n1 ", &mut |c| edges.extend(c.edges)).unwrap();
/// p.feed(b"2", &mut |c| edges.extend(c.edges)).unwrap();
/// p.finish(&mut |c| edges.extend(c.edges)).unwrap();
/// assert_eq!(edges, [(0, 1), (1, 2)]);
/// assert_eq!(p.lines(), 3);
/// let err = LineParser::new(Format::Edges).feed(b"0 1\nx\n", &mut |_| {}).unwrap_err();
/// assert_eq!(err.line, Some(2));
/// ```
#[derive(Debug)]
pub struct LineParser {
    rg: bool,
    carry: Vec<u8>,
    lines: u64,
}

impl LineParser {
    /// A parser for [`Format::Rg`](super::Format::Rg) (which accepts plain edge lists too);
    /// any other format gives the strict edge-list parser.
    pub fn new(format: super::Format) -> Self {
        LineParser {
            rg: format == super::Format::Rg || format == super::Format::Auto,
            carry: Vec::new(),
            lines: 0,
        }
    }

    /// Complete lines parsed so far.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// Parses the complete lines of `data`, keeping a partial last line for the next call,
    /// and hands each chunk of lines to `sink` in file order.
    ///
    /// # Errors
    /// The first bad line, with its number counted from the first byte ever fed; `sink` has
    /// then seen the chunks of earlier calls only.
    pub fn feed(&mut self, mut data: &[u8], sink: &mut dyn FnMut(Chunk)) -> Result<(), ParseError> {
        if !self.carry.is_empty() {
            match memchr::memchr(b'\n', data) {
                None => return self.keep(data),
                Some(i) => {
                    let mut line = std::mem::take(&mut self.carry);
                    line.extend_from_slice(&data[..=i]);
                    self.block(&line, sink)?;
                    data = &data[i + 1..];
                }
            }
        }
        match memchr::memrchr(b'\n', data) {
            None => self.keep(data),
            Some(i) => {
                self.block(&data[..=i], sink)?;
                self.keep(&data[i + 1..])
            }
        }
    }

    /// Ends the input: parses a last line without a newline.
    ///
    /// # Errors
    /// A bad last line.
    pub fn finish(&mut self, sink: &mut dyn FnMut(Chunk)) -> Result<(), ParseError> {
        if !self.carry.is_empty() {
            let last = std::mem::take(&mut self.carry);
            self.block(&last, sink)?;
        }
        Ok(())
    }

    fn keep(&mut self, tail: &[u8]) -> Result<(), ParseError> {
        self.carry.extend_from_slice(tail);
        if self.carry.len() > MAX_LINE {
            return Err(ParseError::at(self.lines + 1, long_line()));
        }
        Ok(())
    }

    /// Parses whole lines (each ending in a newline, but perhaps the very last).
    fn block(&mut self, bytes: &[u8], sink: &mut dyn FnMut(Chunk)) -> Result<(), ParseError> {
        let chunks = split_chunks(bytes);
        let rg = self.rg;
        let outs: Vec<ChunkOut<'_>> = if chunks.len() == 1 {
            vec![parse_chunk(chunks[0], rg)]
        } else {
            chunks.par_iter().map(|c| parse_chunk(c, rg)).collect()
        };
        let mut line_base = self.lines;
        for out in &outs {
            if let Some((line, msg)) = &out.error {
                return Err(ParseError::at(line_base + line, msg.clone()));
            }
            line_base += out.lines;
        }
        for out in outs {
            let lines = out.lines;
            let c = self.chunk_of(out);
            self.lines += lines;
            sink(c);
        }
        Ok(())
    }

    fn chunk_of(&self, out: ChunkOut<'_>) -> Chunk {
        Chunk {
            max_id: out.max_id,
            again: out.again,
            directives: out
                .directives
                .iter()
                .map(|&(l, t)| (self.lines + l, t.to_vec()))
                .collect(),
            edges: out.edges,
        }
    }
}

/// A streaming parser for the `edges` and `rg` formats: [`feed`](TextParser::feed) it blocks of
/// any size (it keeps the partial last line), then [`finish`](TextParser::finish). Memory stays
/// at 8 bytes per edge whatever the block size, so a caller reading a file in blocks never
/// holds the whole file.
///
/// ```
/// use retrograde_graph::format::{Format, ParseOptions, TextParser};
/// let mut p = TextParser::new(Format::Edges);
/// p.feed(b"0 1\n1 ").unwrap();
/// p.feed(b"2\n").unwrap();
/// let g = p.finish(&ParseOptions::default()).unwrap().build().unwrap();
/// assert_eq!(g.edge_count(), 2);
/// ```
#[derive(Debug)]
pub struct TextParser {
    lines: LineParser,
    builder: GraphBuilder,
    again: Vec<usize>,
    directives: Vec<(u64, Vec<u8>)>,
}

impl TextParser {
    /// A parser for [`Format::Rg`](super::Format::Rg) (which accepts plain edge lists too);
    /// any other format gives the strict edge-list parser.
    pub fn new(format: super::Format) -> Self {
        TextParser {
            lines: LineParser::new(format),
            builder: GraphBuilder::new(),
            again: Vec::new(),
            directives: Vec::new(),
        }
    }

    /// Parses the complete lines of `data`, keeping a partial last line for the next call.
    ///
    /// # Errors
    /// The first bad line, with its number counted from the first byte ever fed.
    pub fn feed(&mut self, data: &[u8]) -> Result<(), ParseError> {
        let (b, again, directives) = (&mut self.builder, &mut self.again, &mut self.directives);
        self.lines
            .feed(data, &mut |c| take_chunk(b, again, directives, c))
    }

    /// The vertices and edges read so far (the vertex count is the largest id plus one),
    /// and the lines: what a caller compares with its memory limit as the input comes in.
    pub fn read_so_far(&self) -> (u64, u64, u64) {
        (
            self.builder.vertex_count(),
            self.builder.edge_count() as u64,
            self.lines.lines(),
        )
    }

    /// Ends the input: parses a last line without a newline, applies the directives, and
    /// hands over the builder (call [`GraphBuilder::build`] to lay the graph out).
    ///
    /// # Errors
    /// A bad last line or directive.
    pub fn finish(mut self, opts: &ParseOptions) -> Result<GraphBuilder, ParseError> {
        let (b, again, directives) = (&mut self.builder, &mut self.again, &mut self.directives);
        self.lines
            .finish(&mut |c| take_chunk(b, again, directives, c))?;
        let mut b = self.builder;
        for i in self.again {
            b.mark_again(i);
        }
        if opts.no_scores.is_some() {
            let first = self.directives.iter().find(|d| keyword(&d.1) == b"score");
            if let Some(e) = first.and_then(|d| opts.scores_refused(Some(d.0))) {
                return Err(e);
            }
        }
        apply_directives(
            &mut b,
            self.directives.iter().map(|(l, t)| (*l, t.as_slice())),
        )?;
        if let Some(n) = opts.vertices {
            b.ensure_vertices(n)?;
        }
        Ok(b)
    }
}

fn take_chunk(
    b: &mut GraphBuilder,
    again: &mut Vec<usize>,
    directives: &mut Vec<(u64, Vec<u8>)>,
    c: Chunk,
) {
    let base = b.edge_count();
    again.extend(c.again.iter().map(|&i| base + i));
    directives.extend(c.directives);
    b.push_chunk(c.edges, c.max_id);
}

/// Applies `rg` directive lines, given with their line numbers in file order, to `b`, as
/// [`TextParser::finish`] does (a directive that contradicts an earlier one is an error
/// naming both lines).
///
/// # Errors
/// The first bad directive, at its line.
pub fn apply_directives<'a>(
    b: &mut GraphBuilder,
    directives: impl IntoIterator<Item = (u64, &'a [u8])>,
) -> Result<(), ParseError> {
    let mut seen = Seen::default();
    for (line, text) in directives {
        directive(b, text, line, &mut seen).map_err(|m| ParseError::at(line, m))?;
    }
    Ok(())
}

/// The first word of a directive line.
fn keyword(text: &[u8]) -> &[u8] {
    let text = text.trim_ascii_start();
    let end = text
        .iter()
        .position(u8::is_ascii_whitespace)
        .unwrap_or(text.len());
    &text[..end]
}

/// Splits into chunks of about equal size, each ending just after a newline (but the last).
fn split_chunks(bytes: &[u8]) -> Vec<&[u8]> {
    let threads = rayon::current_num_threads().max(1);
    let target = (bytes.len() / (threads * 8)).max(1 << 20);
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let mut end = (start + target).min(bytes.len());
        if end < bytes.len() {
            end = match memchr::memchr(b'\n', &bytes[end..]) {
                Some(i) => end + i + 1,
                None => bytes.len(),
            };
        }
        chunks.push(&bytes[start..end]);
        start = end;
    }
    if chunks.is_empty() {
        chunks.push(bytes);
    }
    chunks
}

fn parse_chunk(bytes: &[u8], rg: bool) -> ChunkOut<'_> {
    // About 12 bytes per edge line in typical files; the vector grows if that is too few.
    let mut out = ChunkOut {
        edges: Vec::with_capacity(bytes.len() / 12 + 16),
        max_id: None,
        again: Vec::new(),
        directives: Vec::new(),
        lines: 0,
        error: None,
    };
    let mut max: u32 = 0;
    let mut pos = 0;
    while pos < bytes.len() {
        out.lines += 1;
        // Fast path: "digits SPACE digits NEWLINE" with ids of at most 10 digits.
        if let Some((u, v, next)) = fast_edge(bytes, pos) {
            out.edges.push((u, v));
            max = max.max(u).max(v);
            pos = next;
            continue;
        }
        let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
        let line = &bytes[pos..end];
        pos = end + 1;
        if line.len() > MAX_LINE {
            // The same limit whether the line came in one block or across several.
            out.error = Some((out.lines, long_line()));
            break;
        }
        match edge_line(line, rg) {
            Line::Skip => {}
            Line::Edge(u, v, again) => {
                if again {
                    out.again.push(out.edges.len());
                }
                out.edges.push((u, v));
                max = max.max(u).max(v);
            }
            Line::Directive => out.directives.push((out.lines, line)),
            Line::Error(msg) => {
                out.error = Some((out.lines, msg));
                break;
            }
        }
    }
    out.edges.shrink_to_fit();
    if !out.edges.is_empty() {
        out.max_id = Some(max);
    }
    out
}

/// Reads up to 10 digits at `*i`; `None` when there are none or more than 10 (the careful
/// path then takes over and reports what is wrong).
#[inline(always)]
fn fast_number(b: &[u8], i: &mut usize) -> Option<u64> {
    let start = *i;
    let mut x: u64 = 0;
    while *i < b.len() {
        let d = b[*i].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        x = x * 10 + d as u64;
        *i += 1;
        if *i - start > 10 {
            return None;
        }
    }
    (*i > start).then_some(x)
}

/// The common edge line `u v\n` (single spaces or tabs, optional `\r`), or `None`.
#[inline(always)]
fn fast_edge(b: &[u8], pos: usize) -> Option<(u32, u32, usize)> {
    let mut i = pos;
    let u = fast_number(b, &mut i)?;
    let sep = i;
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    if i == sep {
        return None;
    }
    let v = fast_number(b, &mut i)?;
    if i < b.len() && b[i] == b'\r' {
        i += 1;
    }
    // A line must end here: newline or end of input.
    if i < b.len() && b[i] != b'\n' {
        return None;
    }
    if u > MAX_VERTEX_ID || v > MAX_VERTEX_ID {
        return None;
    }
    Some((u as u32, v as u32, i + 1))
}

enum Line {
    Skip,
    Edge(u32, u32, bool),
    Directive,
    Error(String),
}

#[inline]
fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r'
}

/// Reads a decimal number starting at `*i` (a digit); `Err` carries the too-large message.
#[inline]
fn number(line: &[u8], i: &mut usize) -> Result<u32, String> {
    let start = *i;
    let mut value: u64 = 0;
    let mut overflow = false;
    while *i < line.len() && line[*i].is_ascii_digit() {
        let d = (line[*i] - b'0') as u64;
        match value.checked_mul(10).and_then(|x| x.checked_add(d)) {
            Some(x) => value = x,
            None => overflow = true,
        }
        *i += 1;
    }
    if overflow || value > MAX_VERTEX_ID {
        let digits = String::from_utf8_lossy(&line[start..*i]);
        return Err(format!(
            "vertex id {digits} is too large (ids must be at most {MAX_VERTEX_ID})"
        ));
    }
    Ok(value as u32)
}

fn expected_edge(line: &[u8], rg: bool) -> String {
    let t = line.trim_ascii_start();
    let hint = if t.first() == Some(&b'-')
        || t.windows(2)
            .any(|w| w[0].is_ascii_whitespace() && w[1] == b'-')
    {
        " (ids are non-negative integers)"
    } else if t.contains(&0) || std::str::from_utf8(line).is_err() {
        " (is this a binary file?)"
    } else {
        ""
    };
    let what = if rg {
        "an edge \"u v\" or a directive"
    } else {
        "two vertex ids"
    };
    format!("expected {what}, found {}{hint}", show(line))
}

#[inline]
fn edge_line(line: &[u8], rg: bool) -> Line {
    let n = line.len();
    let mut i = 0;
    while i < n && is_space(line[i]) {
        i += 1;
    }
    if i == n || line[i] == b'#' || line[i] == b'%' {
        return Line::Skip;
    }
    if !line[i].is_ascii_digit() {
        if rg && line[i].is_ascii_alphabetic() {
            return Line::Directive;
        }
        return Line::Error(expected_edge(line, false));
    }
    let u = match number(line, &mut i) {
        Ok(u) => u,
        Err(m) => return Line::Error(m),
    };
    let sep = i;
    while i < n && is_space(line[i]) {
        i += 1;
    }
    if i == sep || i == n || !line[i].is_ascii_digit() {
        return Line::Error(expected_edge(line, false));
    }
    let v = match number(line, &mut i) {
        Ok(v) => v,
        Err(m) => return Line::Error(m),
    };
    let sep = i;
    while i < n && is_space(line[i]) {
        i += 1;
    }
    if i == n || (i > sep && (line[i] == b'#' || line[i] == b'%')) {
        return Line::Edge(u, v, false);
    }
    if rg && i > sep && line[i..].starts_with(b"again") {
        let mut j = i + 5;
        while j < n && is_space(line[j]) {
            j += 1;
        }
        if j == n || line[j] == b'#' {
            return Line::Edge(u, v, true);
        }
    }
    let what = if rg {
        format!(
            "expected an edge \"u v\" or \"u v again\", found {}",
            show(line)
        )
    } else {
        format!("expected two vertex ids, found {}", show(line))
    };
    Line::Error(what)
}

/// What the directives said so far, and on which line, to refuse contradictions.
#[derive(Default)]
struct Seen {
    /// (keyword, vertex) -> (line, value as written).
    said: std::collections::HashMap<(&'static str, VertexId), (u64, String)>,
    /// name -> (line, vertex).
    names: std::collections::HashMap<String, (u64, VertexId)>,
}

impl Seen {
    /// Refuses `keyword v` when `other v` was said before (a vertex has a terminal label or a
    /// score, not both).
    fn not_both(&self, v: VertexId, keyword: &str, other: &'static str) -> Result<(), String> {
        match self.said.get(&(other, v)) {
            Some((first, before)) => Err(format!(
                "{keyword}: vertex {v} already has \"{other} {v} {before}\" (line {first}); a vertex has a terminal value or a score, not both"
            )),
            None => Ok(()),
        }
    }

    /// Records `keyword v value` on line `at`; the same thing said twice is fine, two
    /// different values an error naming both lines.
    fn say(
        &mut self,
        keyword: &'static str,
        v: VertexId,
        value: &str,
        at: u64,
    ) -> Result<(), String> {
        // `start` is one per graph: keyed by keyword alone.
        let key = (keyword, if keyword == "start" { 0 } else { v });
        let shown = |val: &str| {
            if keyword == "start" {
                format!("start {val}")
            } else {
                format!("{keyword} {v} {val}")
            }
        };
        match self.said.get(&key) {
            Some((first, before)) if before != value => Err(format!(
                "{} contradicts line {first}: {}",
                show(shown(value).as_bytes()),
                show(shown(before).as_bytes())
            )),
            Some(_) => Ok(()),
            None => {
                self.said.insert(key, (at, value.to_string()));
                Ok(())
            }
        }
    }
}

/// A score as `score V S` writes it: a decimal integer from -(2^63-1) to 2^63-1 (so that it
/// can be negated).
fn parse_score(s: &str) -> Result<i64, String> {
    let range = || format!("-{max}..={max}", max = i64::MAX);
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(format!(
            "score: expected an integer score, found {}",
            show(s.as_bytes())
        ));
    }
    match s.parse::<i64>() {
        Ok(x) if x != crate::NO_SCORE => Ok(x),
        _ => Err(format!(
            "score: {} is out of range (a score lies in {})",
            show(s.as_bytes()),
            range()
        )),
    }
}

/// Applies one `rg` directive line (line `at` of the file).
fn directive(b: &mut GraphBuilder, line: &[u8], at: u64, seen: &mut Seen) -> Result<(), String> {
    let text = std::str::from_utf8(line)
        .map_err(|_| format!("expected a directive, found {} (not UTF-8)", show(line)))?;
    let text = match text.find('#') {
        Some(i) if !text.trim_start().starts_with("name") => &text[..i],
        _ => text,
    };
    let text = text.trim();
    let (keyword, rest) = text
        .split_once(|c: char| c.is_ascii_whitespace())
        .unwrap_or((text, ""));
    let rest = rest.trim();
    let args: Vec<&str> = rest.split_ascii_whitespace().collect();
    let vertex = |s: &str| -> Result<VertexId, String> {
        let id: u64 = s.parse().map_err(|_| {
            format!(
                "{keyword}: expected a vertex id, found {}",
                show(s.as_bytes())
            )
        })?;
        crate::builder::checked_id(id).map_err(|e| e.to_string())
    };
    let arity = |k: usize, usage: &str| -> Result<(), String> {
        if args.len() == k {
            Ok(())
        } else {
            Err(format!("expected \"{usage}\", found {}", show(line)))
        }
    };
    match keyword {
        "vertices" => {
            arity(1, "vertices N")?;
            let n: u64 = args[0]
                .parse()
                .map_err(|_| format!("vertices: expected a count, found {}", show(args[0].as_bytes())))?;
            b.ensure_vertices(n).map_err(|e| e.to_string())
        }
        "terminal" => {
            arity(2, "terminal V win|loss|tie")?;
            let v = vertex(args[0])?;
            let p: Primitive = args[1].parse().map_err(|e| format!("terminal: {e}"))?;
            seen.say("terminal", v, args[1], at)?;
            seen.not_both(v, "terminal", "score")?;
            b.set_primitive(v, p);
            Ok(())
        }
        "score" => {
            arity(2, "score V S")?;
            let v = vertex(args[0])?;
            let score = parse_score(args[1])?;
            seen.say("score", v, &score.to_string(), at)?;
            seen.not_both(v, "score", "terminal")?;
            b.set_score(v, score).map_err(|e| e.to_string())
        }
        "owner" => {
            arity(2, "owner V 0|1")?;
            let v = vertex(args[0])?;
            let o: u64 = args[1]
                .parse()
                .map_err(|_| format!("owner: expected 0 or 1, found {}", show(args[1].as_bytes())))?;
            b.set_owner(v, o).map_err(|e| e.to_string())?;
            seen.say("owner", v, &o.to_string(), at)
        }
        "name" => {
            let (v, name) = rest
                .split_once(|c: char| c.is_ascii_whitespace())
                .ok_or_else(|| format!("expected \"name V TEXT\", found {}", show(line)))?;
            let v = vertex(v)?;
            let name = name.trim();
            seen.say("name", v, name, at)?;
            match seen.names.get(name) {
                Some(&(first, w)) if w != v => {
                    return Err(format!(
                        "name {} is already vertex {w}'s (line {first}); names must be unique",
                        show(name.as_bytes())
                    ))
                }
                Some(_) => {}
                None => {
                    seen.names.insert(name.to_string(), (at, v));
                }
            }
            b.set_name(v, name);
            Ok(())
        }
        "start" => {
            arity(1, "start V")?;
            let v = vertex(args[0])?;
            seen.say("start", v, &v.to_string(), at)?;
            b.set_start(v);
            Ok(())
        }
        _ => Err(format!(
            "expected two vertex ids or a directive (vertices, terminal, score, owner, name, start), found {}",
            show(line)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{parse as parse_any, Format};
    use crate::Graph;

    fn edges(text: &str) -> Result<Graph, ParseError> {
        parse_any(text.as_bytes(), Format::Edges, &ParseOptions::default())
    }
    fn rg(text: &str) -> Result<Graph, ParseError> {
        parse_any(text.as_bytes(), Format::Rg, &ParseOptions::default())
    }
    fn err(r: Result<Graph, ParseError>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn comments_blank_lines_tabs_and_crlf() {
        let g = edges("# c\n% c\n\n  0\t1 \r\n1 2 # trailing\r\n\n").unwrap();
        assert_eq!(g.vertex_count(), 3);
        assert_eq!(g.edge_count(), 2);
    }

    #[test]
    fn empty_input_is_an_empty_graph() {
        assert_eq!(edges("").unwrap().vertex_count(), 0);
        assert_eq!(edges("# only a comment\n").unwrap().vertex_count(), 0);
        let g = parse_any(
            b"",
            Format::Edges,
            &ParseOptions {
                vertices: Some(5),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(g.vertex_count(), 5);
    }

    #[test]
    fn bad_lines_name_the_line() {
        assert_eq!(
            err(edges("0 1\nx y\n")),
            "2: expected two vertex ids, found \"x y\""
        );
        assert_eq!(
            err(edges("0 1\n\n5\n")),
            "3: expected two vertex ids, found \"5\""
        );
        assert_eq!(
            err(edges("0 1 2\n")),
            "1: expected two vertex ids, found \"0 1 2\""
        );
        assert_eq!(
            err(edges("01\n")),
            "1: expected two vertex ids, found \"01\""
        );
        assert!(err(edges("-1 2\n")).contains("non-negative"));
        assert!(err(edges("1 -2\n")).contains("non-negative"));
        assert_eq!(
            err(edges("0 4294967295\n")),
            "1: vertex id 4294967295 is too large (ids must be at most 4294967294)"
        );
        assert!(err(edges("99999999999999999999999 1\n")).contains("99999999999999999999999"));
        assert!(err(edges("\0\x01\x02\n")).contains("binary"));
        assert!(err(edges("vertices 3\n")).starts_with("1: expected two vertex ids"));
    }

    #[test]
    fn largest_id_is_accepted() {
        // Only parse: building 2^32 vertices would need 64 GiB.
        let out = parse_chunk(b"4294967294 0\n", false);
        assert!(out.error.is_none());
        assert_eq!(out.max_id, Some(4294967294));
    }

    #[test]
    fn rg_directives() {
        let g = rg("vertices 5\n0 1\n1 2 again\nterminal 2 tie\nname 0 the start # not a comment\nstart 0\n")
            .unwrap();
        assert_eq!(g.vertex_count(), 5);
        assert_eq!(g.primitive(2), Some(Primitive::Tie));
        assert_eq!(g.name(0), Some("the start # not a comment"));
        assert_eq!(g.start(), Some(0));
        let e = g.successor_range(1).start;
        assert!(g.forward_keeps_turn(e, 1, 2));
        let g = rg("0 1\nowner 1 1\n").unwrap();
        assert!(g.is_arena());
        assert_eq!(g.owner(1), 1);
    }

    #[test]
    fn rg_errors() {
        assert_eq!(
            err(rg("0 1\nterminal 1 maybe\n")),
            "2: terminal: expected win, loss or tie, found \"maybe\""
        );
        assert_eq!(
            err(rg("0 1\nbogus 1\n")),
            "2: expected two vertex ids or a directive (vertices, terminal, score, owner, name, start), found \"bogus 1\""
        );
        assert!(err(rg("owner 1 2\n")).contains("owner must be 0 or 1"));
        assert!(err(rg("0 1 again\nowner 1 1\n")).contains("go-again"));
        assert!(err(rg("terminal 1\n")).starts_with("1: expected \"terminal V win|loss|tie\""));
        assert!(err(rg("0 1 twice\n")).contains("\"u v again\""));
        assert!(err(rg("start 4294967295\n")).contains("too large"));
        assert!(err(rg("vertices 4294967296\n")).contains("too many"));
    }

    #[test]
    fn rg_scores() {
        let g = rg("0 1\n1 2\nscore 2 -9223372036854775807\nscore 1 +9223372036854775807\nscore 1 9223372036854775807\n")
            .unwrap();
        assert!(g.is_scored());
        assert_eq!(g.score(2), Some(-i64::MAX));
        assert_eq!(g.score(1), Some(i64::MAX));
        assert_eq!(g.score(0), None);
        assert!(!rg("0 1\nterminal 1 win\n").unwrap().is_scored());
    }

    #[test]
    fn rg_score_errors() {
        let range = "(a score lies in -9223372036854775807..=9223372036854775807)";
        assert_eq!(
            err(rg("0 1\nscore 1 -9223372036854775808\n")),
            format!("2: score: \"-9223372036854775808\" is out of range {range}")
        );
        assert_eq!(
            err(rg("score 1 99999999999999999999\n")),
            format!("1: score: \"99999999999999999999\" is out of range {range}")
        );
        for bad in ["1e9", "x", "-", "3.5", "0x10"] {
            assert_eq!(
                err(rg(&format!("score 0 {bad}\n"))),
                format!("1: score: expected an integer score, found \"{bad}\"")
            );
        }
        assert!(err(rg("score 1\n")).starts_with("1: expected \"score V S\""));
        assert_eq!(
            err(rg("score 1 3\n0 1\nscore 1 4\n")),
            "3: \"score 1 4\" contradicts line 1: \"score 1 3\""
        );
        assert!(err(rg("score 1 3\nterminal 1 win\n"))
            .starts_with("2: terminal: vertex 1 already has \"score 1 3\" (line 1)"));
        assert!(err(rg("terminal 1 win\nscore 1 3\n"))
            .starts_with("2: score: vertex 1 already has \"terminal 1 win\" (line 1)"));
    }

    #[test]
    fn chunked_parse_keeps_order_and_lines() {
        // Enough lines to span several chunks.
        let mut s = String::new();
        for i in 0..300_000u32 {
            s.push_str(&format!("{} {}\n", i, (i * 7) % 300_000));
        }
        let g = edges(&s).unwrap();
        assert_eq!(g.edge_count(), 300_000);
        assert_eq!(g.successors(12345), &[86415]);
        s.push_str("oops\n");
        assert!(err(edges(&s)).starts_with("300001: "));
        let mut t = s.clone();
        t.replace_range(0..3, "x 0");
        assert!(err(edges(&t)).starts_with("1: "));
    }

    #[test]
    fn feeding_in_pieces_gives_the_same_graph_and_lines() {
        let text = b"0 1\n# c\n1 2 again\nname 2 two\n2 0\nbad\n";
        for cut in 0..text.len() {
            for cut2 in cut..text.len() {
                let mut p = TextParser::new(Format::Rg);
                let r = p
                    .feed(&text[..cut])
                    .and_then(|_| p.feed(&text[cut..cut2]))
                    .and_then(|_| p.feed(&text[cut2..]));
                let e = match r {
                    Err(e) => e,
                    Ok(()) => p.finish(&ParseOptions::default()).unwrap_err(),
                };
                assert_eq!(e.line, Some(6), "cut at {cut}, {cut2}");
            }
        }
        let mut p = TextParser::new(Format::Rg);
        p.feed(b"0 1\n1 2 again\nname 2 two\n2 0").unwrap();
        let g = p.finish(&ParseOptions::default()).unwrap().build().unwrap();
        assert_eq!(g.edge_count(), 3);
        assert_eq!(g.name(2), Some("two"));
        assert!(g.forward_keeps_turn(g.successor_range(1).start, 1, 2));
    }

    #[test]
    fn an_endless_line_is_refused() {
        let mut p = TextParser::new(Format::Edges);
        let junk = vec![b'7'; 1 << 20];
        let mut r = Ok(());
        for _ in 0..20 {
            r = p.feed(&junk);
            if r.is_err() {
                break;
            }
        }
        assert!(r
            .unwrap_err()
            .to_string()
            .starts_with("1: expected a line of at most 16 MiB"));
        // The same line fed whole, in one block, and after other lines.
        let mut one = b"0 1\n".to_vec();
        one.extend(std::iter::repeat_n(b'9', (16 << 20) + 1));
        one.push(b'\n');
        let mut p = TextParser::new(Format::Edges);
        assert!(p
            .feed(&one)
            .unwrap_err()
            .to_string()
            .starts_with("2: expected a line of at most 16 MiB"));
    }
}

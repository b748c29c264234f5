//! A graph divided among the ranks of an [`Exchange`]: rank `r` of `K` owns the vertices
//! `n r / K .. n (r + 1) / K` and holds only their moves (forward, for out-degrees and best
//! moves) and the moves into them (reverse, for propagation), with their labels.
//!
//! # Reading a text file by parts ([`TextShare`])
//! 1. The caller cuts the file into `K` byte ranges at line starts ([`byte_range`]) and feeds
//!    rank `r` the bytes of range `r` only. Each rank parses its lines with the one-process
//!    [`LineParser`] (line numbers counted from its own first byte) and keeps its edges,
//!    go-again marks and directive lines; after a bad line it parses no further.
//! 2. [`TextShare::finish`]: every rank learns every rank's line count and whether it failed
//!    (one `sum` of a `2K` vector). The first failing rank's error is the file's first bad
//!    line; its number is its local number plus the lines of the ranks before it (an
//!    exclusive prefix sum), and that rank sends the message to all, so every rank returns
//!    the error one process gives, word for word.
//! 3. Directive lines (`rg`: `vertices`, `terminal`, `owner`, `name`, `start`) are rare: every
//!    rank gets all of them (with file line numbers) and applies them in file order with the
//!    one-process code, so contradictions and their messages are the same; then each keeps
//!    only the labels of its own vertices. `n` is the largest id + 1 over all ranks (a `max`),
//!    or more from `vertices` lines and [`ParseOptions::vertices`].
//! 4. [`Counted::layout`]: each edge `u -> v` goes to the owner of `u` (a forward entry: `u`'s
//!    place in its owner's range with the go-again bit, and `v`) and to the owner of `v` (a
//!    reverse entry), in rounds of at most [`ROUND`] edges per rank (an `all_to_all` each).
//!    Per direction, a first pass sends only the places (4 bytes an edge), from which each
//!    owner counts its vertices' degrees and sizes its CSR; a second pass sends the entries
//!    (8 bytes) straight into it. The reverse direction's second pass frees the edges as it
//!    sends them.
//!
//! Errors come in one process's order: bad edge lines, then directives, then
//! [`ParseOptions::vertices`], then (at layout) go-again moves in an arena, then a vertex
//! with too many moves. Every rank returns the same error.
//!
//! # Invariants
//! `fwd_off` and `rev_off` have `hi - lo + 1` entries, start at 0 and end at the numbers of
//! forward and reverse entries held; `fwd` holds global target ids (in no particular order
//! within a vertex), `rev` global source ids. The forward entries of all ranks are the file's
//! edges, each once; so are the reverse entries.
//!
//! # Memory
//! Per rank, after layout: 16 bytes per owned vertex (offsets) plus 4 bytes per forward and
//! 4 per reverse entry held (about `8 m / K` for random ids), plus the labels of its own
//! vertices: `1/K` of the one-process [`Graph`]. While reading: 8 bytes per edge of its byte
//! range (about `m / K`) and the directive lines of the whole file (every rank gets them all);
//! while laying out, also the CSR being filled and one round's buffers (at most 8 bytes x
//! [`ROUND`] sent, as much received). Measured on 10M vertices and 40M edges: 420 MiB peak
//! per rank at K = 2 and 238 MiB at K = 4, against 769 MiB for one process
//! (docs/distributed.md).

use crate::error::{places, Error};
use crate::exchange::Exchange;
use crate::place::Placement;
pub use crate::place::Ranges;
use crate::share::Share;
use retrograde_graph::format::{
    apply_directives, Chunk, Format, LineParser, ParseError, ParseOptions,
};
use retrograde_graph::{BitSet, BuildError, Graph, GraphBuilder, Primitive, TurnRule, NO_SCORE};

/// Edges a rank sends per round of the layout's exchange, at most.
pub const ROUND: usize = if cfg!(test) { 5 } else { 1 << 20 };

/// The byte range rank `r` of `k` parses, of a file of `len` bytes: from the first line start
/// at or after `len r / k` to the first at or after `len (r + 1) / k` (so every line belongs to
/// exactly one rank, and every range but the last ends with a newline). `newline_from(p)`
/// gives the offset of the first `\n` at or after `p`, if any (the caller reads the file).
///
/// # Errors
/// What `newline_from` returns.
pub fn byte_range<E>(
    len: u64,
    k: usize,
    r: usize,
    mut newline_from: impl FnMut(u64) -> Result<Option<u64>, E>,
) -> Result<std::ops::Range<u64>, E> {
    let mut cut = |r: usize| -> Result<u64, E> {
        let p = (len as u128 * r as u128 / k.max(1) as u128) as u64;
        if p == 0 || r >= k {
            return Ok(p.min(len));
        }
        Ok(newline_from(p - 1)?.map_or(len, |i| i + 1))
    };
    let (a, b) = (cut(r)?, cut(r + 1)?);
    Ok(a..b.max(a))
}

/// One rank's part of a text graph file (`edges` or `rg`) while it is being read. See the
/// [module docs](self).
#[derive(Debug)]
pub struct TextShare {
    parser: LineParser,
    chunks: Vec<Vec<(u32, u32)>>,
    /// Indices (among this rank's edges) of go-again edges, increasing.
    again: Vec<u64>,
    directives: Vec<(u64, Vec<u8>)>,
    max_id: Option<u32>,
    edges: u64,
    error: Option<ParseError>,
}

impl TextShare {
    /// A share of a file in `format` ([`Format::Edges`], or [`Format::Rg`] which also reads
    /// plain edge lists).
    pub fn new(format: Format) -> Self {
        TextShare {
            parser: LineParser::new(format),
            chunks: Vec::new(),
            again: Vec::new(),
            directives: Vec::new(),
            max_id: None,
            edges: 0,
            error: None,
        }
    }

    /// Parses the next bytes of this rank's range (blocks of any size). After a bad line
    /// the rest is ignored (the error comes out of [`finish`](TextShare::finish)).
    pub fn feed(&mut self, data: &[u8]) {
        if self.error.is_some() {
            return;
        }
        let TextShare {
            parser,
            chunks,
            again,
            directives,
            max_id,
            edges,
            ..
        } = self;
        let mut sink = |c: Chunk| take(chunks, again, directives, max_id, edges, c);
        if let Err(e) = parser.feed(data, &mut sink) {
            self.fail(e);
        }
    }

    fn fail(&mut self, e: ParseError) {
        self.error = Some(e);
        self.chunks = Vec::new();
        self.again = Vec::new();
        self.directives = Vec::new();
    }

    /// Whether a bad line was met (this rank's part alone; others may have failed earlier).
    pub fn failed(&self) -> bool {
        self.error.is_some()
    }

    /// Ends the input on every rank (a collective): finds the file's first error, applies the
    /// directives and counts the vertices and edges.
    ///
    /// # Errors
    /// The error one process reading the whole file gives (the same on every rank).
    pub fn finish(mut self, opts: &ParseOptions, ex: &dyn Exchange) -> Result<Counted, ParseError> {
        if self.error.is_none() {
            let TextShare {
                parser,
                chunks,
                again,
                directives,
                max_id,
                edges,
                ..
            } = &mut self;
            let mut sink = |c: Chunk| take(chunks, again, directives, max_id, edges, c);
            if let Err(e) = parser.finish(&mut sink) {
                self.fail(e);
            }
        }
        let (k, me) = (ex.size(), ex.rank());
        // Every rank's line count and failure, then the first failure's message from its rank.
        let mut v = vec![0u64; 2 * k];
        v[me] = self.parser.lines();
        v[k + me] = u64::from(self.error.is_some());
        ex.sum(&mut v);
        let before: u64 = v[..me].iter().sum();
        if let Some(first) = (0..k).find(|&r| v[k + r] == 1) {
            let base: u64 = v[..first].iter().sum();
            let mut send = vec![Vec::new(); k];
            if let (true, Some(e)) = (me == first, self.error.take()) {
                let mut b = e.line.map_or(0, |l| l + base).to_le_bytes().to_vec();
                b.extend_from_slice(e.message.as_bytes());
                send = vec![b; k];
            }
            let got = ex.all_to_all(send);
            return Err(decode_error(&got[first], first));
        }
        // Every rank's directive lines, at every rank, in file order.
        let mut mine = Vec::new();
        for (line, text) in &self.directives {
            mine.extend_from_slice(&(line + before).to_le_bytes());
            mine.extend_from_slice(&(text.len() as u64).to_le_bytes());
            mine.extend_from_slice(text);
        }
        self.directives = Vec::new();
        let all = ex.all_to_all(vec![mine; k]);
        let mut labels = GraphBuilder::new();
        let mut parsed: Vec<(u64, &[u8])> = Vec::new();
        for (from, b) in all.iter().enumerate() {
            decode_directives(b, from, &mut parsed).map_err(|e| whole(e.to_string()))?;
        }
        apply_directives(&mut labels, parsed.iter().map(|&(l, t)| (l, t)))?;
        drop(parsed);
        drop(all);
        if let Some(n) = opts.vertices {
            labels.ensure_vertices(n)?;
        }
        let mut w = [
            self.max_id.map_or(0, |x| x as u64 + 1),
            u64::from(!self.again.is_empty()),
        ];
        ex.max(&mut w);
        let mut m = [self.edges];
        ex.sum(&mut m);
        let labels = labels.into_labels();
        let n = w[0].max(labels.vertices);
        Ok(Counted {
            ranges: Ranges::new(n, k),
            m: m[0],
            go_again: w[1] == 1,
            chunks: self.chunks,
            again: self.again,
            labels,
        })
    }
}

fn take(
    chunks: &mut Vec<Vec<(u32, u32)>>,
    again: &mut Vec<u64>,
    directives: &mut Vec<(u64, Vec<u8>)>,
    max_id: &mut Option<u32>,
    edges: &mut u64,
    c: Chunk,
) {
    again.extend(c.again.iter().map(|&i| *edges + i as u64));
    directives.extend(c.directives);
    *max_id = (*max_id).max(c.max_id);
    *edges += c.edges.len() as u64;
    if !c.edges.is_empty() {
        chunks.push(c.edges);
    }
}

fn whole(message: impl Into<String>) -> ParseError {
    ParseError {
        line: None,
        message: message.into(),
    }
}

/// The little-endian `u64` at `b[at..at + 8]`, if there is one.
fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    let w = b.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes([
        w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7],
    ]))
}

/// The first bad line's error, as rank `from` sent it (line number, then the message); a
/// message too short for a line number is that rank's error of another kind.
fn decode_error(b: &[u8], from: usize) -> ParseError {
    let Some(line) = u64_at(b, 0) else {
        return whole(
            Error::Message {
                step: "reading: the first error",
                from,
                problem: format!("{} bytes, too short for a line number", b.len()),
            }
            .to_string(),
        );
    };
    ParseError {
        line: (line > 0).then_some(line),
        message: String::from_utf8_lossy(&b[8..]).into_owned(),
    }
}

/// Appends to `out` the directive lines rank `from` sent: (line number, length, text) each.
fn decode_directives<'a>(
    mut b: &'a [u8],
    from: usize,
    out: &mut Vec<(u64, &'a [u8])>,
) -> Result<(), Error> {
    while !b.is_empty() {
        let text = u64_at(b, 0).zip(u64_at(b, 8)).and_then(|(line, len)| {
            let end = usize::try_from(len).ok()?.checked_add(16)?;
            Some((line, b.get(16..end)?, end))
        });
        let Some((line, text, end)) = text else {
            return Err(Error::Message {
                step: "reading: directive lines",
                from,
                problem: format!("{} bytes left that are no whole directive", b.len()),
            });
        };
        out.push((line, text));
        b = &b[end..];
    }
    Ok(())
}

/// A text file read by every rank, counted, not yet laid out: the vertex and edge counts are
/// known (for a memory check) and nothing big has moved.
#[derive(Debug)]
pub struct Counted {
    ranges: Ranges,
    m: u64,
    go_again: bool,
    chunks: Vec<Vec<(u32, u32)>>,
    again: Vec<u64>,
    labels: retrograde_graph::Labels,
}

impl Counted {
    /// The graph's number of vertices.
    pub fn vertex_count(&self) -> u64 {
        self.ranges.size()
    }

    /// The graph's number of edges (every rank's).
    pub fn edge_count(&self) -> u64 {
        self.m
    }

    /// Sends every edge to the ranks that need it and lays out this rank's share (a
    /// collective).
    ///
    /// # Errors
    /// As one process's layout: go-again moves in an arena, a vertex with `u32::MAX` moves or
    /// more; also a rank range of 2^31 vertices or more. The same on every rank.
    pub fn layout(self, ex: &dyn Exchange) -> Result<DistGraph, ParseError> {
        let Counted {
            ranges,
            m,
            go_again,
            chunks,
            again,
            labels,
        } = self;
        let arena = !labels.owner.is_empty();
        if go_again && arena {
            return Err(BuildError::GoAgainInArena.into());
        }
        ranges.check().map_err(|e| whole(e.to_string()))?;
        let me = ex.rank();
        let (lo, hi) = (ranges.start(me), ranges.start(me + 1));
        let count = (hi - lo) as usize;
        let mut local = [chunks.iter().map(Vec::len).sum::<usize>().div_ceil(ROUND) as u64];
        ex.max(&mut local);
        let rounds = local[0];
        // Per direction, a pass that only counts (each rank learns its vertices' degrees
        // and sizes its CSR), then one that fills it: never a received entry held beside the
        // CSR it goes into. The reverse filling pass frees the edges as it sends them.
        let mut chunks = chunks;
        let mut csr = |forward: bool| -> Result<_, Error> {
            let mut off = vec![0u64; count + 1];
            let mut routes = Routes {
                chunks: &mut chunks,
                again: &again,
                rounds,
                ranges,
                ex,
                forward,
                counted: vec![0; ex.size()],
            };
            routes.send(Pass::Count, |p, _| {
                off[p as usize + 1] += 1;
                true
            })?;
            for i in 0..count {
                off[i + 1] += off[i];
            }
            let total = off[count] as usize;
            let mut to = vec![0u32; total];
            let mut bits = go_again.then(|| BitSet::new(total));
            // off[p] runs from the start of p's entries to their end (the start of p + 1's),
            // then everything moves back one place.
            routes.send(Pass::Fill, |p, x| {
                let (place, again) = ((p & !(1 << 31)) as usize, p >> 31 == 1);
                let slot = off[place] as usize;
                if slot >= total {
                    return false;
                }
                off[place] += 1;
                to[slot] = x;
                if let Some(b) = bits.as_mut() {
                    b.set(slot, again);
                }
                true
            })?;
            off.copy_within(0..count, 1);
            off[0] = 0;
            Ok((off, to, bits))
        };
        let laid = |e: Error| whole(e.to_string());
        let (fwd_off, fwd, fwd_again) = csr(true).map_err(laid)?;
        let (rev_off, rev, rev_again) = csr(false).map_err(laid)?;
        drop(again);
        // A vertex with u32::MAX moves or more: the smallest such id, as one process reports.
        let bad = (0..count)
            .find(|&i| fwd_off[i + 1] - fwd_off[i] >= u32::MAX as u64)
            .map_or(0, |i| u64::MAX - (lo as u64 + i as u64));
        let mut w = [bad];
        ex.max(&mut w);
        if w[0] != 0 {
            return Err(BuildError::TooManyMoves {
                vertex: (u64::MAX - w[0]) as u32,
            }
            .into());
        }
        let turn = match (fwd_again, rev_again) {
            (Some(forward), Some(reverse)) => TurnRule::GoAgain { forward, reverse },
            _ if arena => TurnRule::Arena {
                owner: BitSet::new(count),
            },
            _ => TurnRule::Alternate,
        };
        let mut g = DistGraph {
            ranges,
            lo,
            hi,
            m,
            fwd_off,
            fwd,
            rev_off,
            rev,
            turn,
            primitive: None,
            scores: None,
            names: None,
            has_names: !labels.names.is_empty(),
            start: labels.start,
        };
        g.keep_labels(labels.primitive, labels.scores, labels.owner, labels.names);
        Ok(g)
    }
}

/// What a pass of [`Routes::send`] sends.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Pass {
    /// 4 bytes an edge: the place of the end whose owner gets it.
    Count,
    /// 8 bytes an edge: that place with the go-again bit, and the other end; the reverse
    /// direction's filling pass frees each chunk of edges once sent.
    Fill,
}

/// This rank's edges on their way to the owners of one of their ends.
struct Routes<'a> {
    chunks: &'a mut [Vec<(u32, u32)>],
    /// Indices (among this rank's edges) of go-again edges, increasing.
    again: &'a [u64],
    /// Rounds every rank runs.
    rounds: u64,
    ranges: Ranges,
    ex: &'a dyn Exchange,
    /// To the owner of the source (forward entries), else of the target.
    forward: bool,
    /// Entries counted from each rank: as many must come to fill.
    counted: Vec<u64>,
}

impl Routes<'_> {
    /// Sends every edge to the owner of its source (`forward`) or of its target, in `rounds`
    /// rounds of at most [`ROUND`] edges, and hands each entry this rank receives to
    /// `each(place | again << 31, other end)` (the other end is 0 when counting), which
    /// returns false for an entry that has no room. A collective.
    ///
    /// # Errors
    /// A message with a place past this rank's vertices, of no whole number of entries, or
    /// with an entry `each` has no room for; a rank that sends another number of entries to
    /// fill than it sent to count.
    fn send(&mut self, pass: Pass, mut each: impl FnMut(u32, u32) -> bool) -> Result<(), Error> {
        let k = self.ex.size();
        let held = self.ranges.len(self.ex.rank()) as usize;
        let free = !self.forward && pass == Pass::Fill;
        let step = match pass {
            Pass::Count => "layout: counting moves",
            Pass::Fill => "layout: moves",
        };
        let (mut chunk, mut at, mut index, mut next_again) = (0usize, 0usize, 0u64, 0usize);
        for _ in 0..self.rounds {
            let mut send: Vec<Vec<u8>> = vec![Vec::new(); k];
            let mut sent = 0;
            while sent < ROUND && chunk < self.chunks.len() {
                if at == self.chunks[chunk].len() {
                    if free {
                        self.chunks[chunk] = Vec::new();
                    }
                    (chunk, at) = (chunk + 1, 0);
                    continue;
                }
                let (u, v) = self.chunks[chunk][at];
                at += 1;
                let a = next_again < self.again.len() && self.again[next_again] == index;
                next_again += usize::from(a);
                index += 1;
                sent += 1;
                let (from, to) = if self.forward { (u, v) } else { (v, u) };
                let (o, l) = self.ranges.place(u64::from(from));
                let p = l as u32 | u32::from(a) << 31;
                send[o].extend_from_slice(&p.to_le_bytes());
                if pass == Pass::Fill {
                    send[o].extend_from_slice(&to.to_le_bytes());
                }
            }
            for (from, b) in self.ex.all_to_all(send).iter().enumerate() {
                let bad = |problem: String| Error::Message {
                    step,
                    from,
                    problem,
                };
                if pass == Pass::Count {
                    places(b, from, step, held, |p, _| {
                        each(p, 0);
                    })?;
                    self.counted[from] += b.len() as u64 / 4;
                    continue;
                }
                self.counted[from] = self.counted[from].wrapping_sub(b.len() as u64 / 8);
                if b.len() % 8 != 0 {
                    return Err(bad(format!("{} bytes, not whole 8-byte moves", b.len())));
                }
                for c in b.chunks_exact(8) {
                    let p = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                    if (p & !(1 << 31)) as usize >= held {
                        let problem = format!(
                            "vertex place {}, but this rank holds {held}",
                            p & !(1 << 31)
                        );
                        return Err(bad(problem));
                    }
                    if !each(p, u32::from_le_bytes([c[4], c[5], c[6], c[7]])) {
                        return Err(bad("more moves than were counted".into()));
                    }
                }
            }
        }
        if free {
            for c in self.chunks.iter_mut() {
                *c = Vec::new();
            }
        }
        if pass == Pass::Fill {
            if let Some(from) = self.counted.iter().position(|&c| c != 0) {
                return Err(Error::Message {
                    step,
                    from,
                    problem: "another number of moves than it counted".into(),
                });
            }
        }
        Ok(())
    }
}

/// One rank's share of a graph: the vertices `lo..hi` it owns, their moves forward and
/// backward (with global ids) and their labels; a [`Share`] with the placement [`Ranges`].
/// See the [module docs](self).
#[derive(Clone, Debug)]
pub struct DistGraph {
    ranges: Ranges,
    lo: u32,
    hi: u32,
    m: u64,
    fwd_off: Vec<u64>,
    fwd: Vec<u32>,
    rev_off: Vec<u64>,
    rev: Vec<u32>,
    /// Go-again bits by forward and reverse entry, or an arena's owners by place.
    turn: TurnRule,
    primitive: Option<Vec<Option<Primitive>>>,
    /// The scores of the vertices held (`NO_SCORE` where none) when the graph is scored.
    scores: Option<Vec<i64>>,
    names: Option<Vec<String>>,
    has_names: bool,
    start: Option<u32>,
}

impl DistGraph {
    /// This rank's share of a whole graph every rank holds (for formats read whole, and
    /// tests). Not a collective.
    ///
    /// # Errors
    /// [`Error::RankTooLarge`]: a rank would own 2^31 vertices or more.
    pub fn from_graph(g: &Graph, ex: &dyn Exchange) -> Result<DistGraph, Error> {
        let ranges = Ranges::new(g.vertex_count() as u64, ex.size());
        ranges.check()?;
        let me = ex.rank();
        let (lo, hi) = (ranges.start(me), ranges.start(me + 1));
        let part = |off: &[u64], to: &[u32]| {
            let (a, b) = (off[lo as usize], off[hi as usize]);
            let o: Vec<u64> = off[lo as usize..=hi as usize]
                .iter()
                .map(|&x| x - a)
                .collect();
            (
                o,
                to[a as usize..b as usize].to_vec(),
                a as usize..b as usize,
            )
        };
        let (fwd_off, fwd, fr) = part(g.forward_offsets(), g.forward_targets());
        let (rev_off, rev, rr) = part(g.reverse_offsets(), g.reverse_sources());
        let bits = |s: &BitSet, r: std::ops::Range<usize>| {
            let mut out = BitSet::new(r.len());
            for (i, j) in r.enumerate() {
                out.set(i, s.get(j));
            }
            out
        };
        let turn = match g.turn_rule() {
            TurnRule::Alternate => TurnRule::Alternate,
            TurnRule::GoAgain { forward, reverse } => TurnRule::GoAgain {
                forward: bits(forward, fr),
                reverse: bits(reverse, rr),
            },
            TurnRule::Arena { owner } => TurnRule::Arena {
                owner: bits(owner, lo as usize..hi as usize),
            },
        };
        let primitive = g
            .has_primitives()
            .then(|| (lo..hi).map(|v| g.primitive(v)).collect());
        let scores = g
            .is_scored()
            .then(|| (lo..hi).map(|v| g.score(v).unwrap_or(NO_SCORE)).collect());
        let names = g.has_names().then(|| {
            (lo..hi)
                .map(|v| g.name(v).unwrap_or_default().to_string())
                .collect()
        });
        Ok(DistGraph {
            ranges,
            lo,
            hi,
            m: g.edge_count() as u64,
            fwd_off,
            fwd,
            rev_off,
            rev,
            turn,
            primitive,
            scores,
            names,
            has_names: g.has_names(),
            start: g.start(),
        })
    }

    fn keep_labels(
        &mut self,
        primitive: Vec<(u32, Primitive)>,
        scores: Vec<(u32, i64)>,
        owner: Vec<(u32, bool)>,
        names: Vec<(u32, String)>,
    ) {
        let (lo, hi) = (self.lo, self.hi);
        let count = (hi - lo) as usize;
        let mine = |v: u32| (lo..hi).contains(&v);
        if primitive.iter().any(|&(v, _)| mine(v)) {
            let mut p = vec![None; count];
            for (v, x) in primitive.into_iter().filter(|&(v, _)| mine(v)) {
                p[(v - lo) as usize] = Some(x);
            }
            self.primitive = Some(p);
        }
        // Every rank has every directive: a graph is scored at every rank or at none.
        if !scores.is_empty() {
            let mut p = vec![NO_SCORE; count];
            for (v, x) in scores.into_iter().filter(|&(v, _)| mine(v)) {
                p[(v - lo) as usize] = x;
            }
            self.scores = Some(p);
        }
        if let TurnRule::Arena { owner: b } = &mut self.turn {
            for (v, o) in owner.into_iter().filter(|&(v, _)| mine(v)) {
                b.set((v - lo) as usize, o);
            }
        }
        if names.iter().any(|(v, _)| mine(*v)) {
            let mut p = vec![String::new(); count];
            for (v, x) in names.into_iter().filter(|(v, _)| mine(*v)) {
                p[(v - lo) as usize] = x;
            }
            self.names = Some(p);
        }
    }

    /// The graph's number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.ranges.size() as usize
    }

    /// The id ranges of the ranks.
    pub fn ranges(&self) -> Ranges {
        self.ranges
    }

    /// The vertices this rank owns.
    pub fn range(&self) -> std::ops::Range<u32> {
        self.lo..self.hi
    }

    /// Whether vertices have owners (an arena).
    pub fn is_arena(&self) -> bool {
        Share::is_arena(self)
    }

    /// The start vertex, if the file gave one.
    pub fn start(&self) -> Option<u32> {
        self.start
    }

    #[inline]
    fn place(&self, v: u32) -> u32 {
        debug_assert!(self.range().contains(&v), "vertex {v} is not this rank's");
        v - self.lo
    }

    /// The owner (player 0 or 1) of an owned vertex `v`; 0 outside arenas.
    pub fn owner(&self, v: u32) -> u8 {
        self.owner_at(self.place(v))
    }

    /// The name of an owned vertex `v`, if it has one.
    pub fn name(&self, v: u32) -> Option<&str> {
        self.name_at(self.place(v))
    }

    /// The moves from an owned vertex `v`: `(go-again, target)`, in no particular order
    /// (in an arena the owners decide whether a move keeps the turn).
    pub fn moves(&self, v: u32) -> impl Iterator<Item = (bool, u32)> + '_ {
        let p = self.place(v) as usize;
        (self.fwd_off[p] as usize..self.fwd_off[p + 1] as usize).map(|e| {
            let again = match &self.turn {
                TurnRule::GoAgain { forward, .. } => forward.get(e),
                _ => false,
            };
            (again, self.fwd[e])
        })
    }
}

impl Share for DistGraph {
    type Place = Ranges;

    fn placement(&self) -> Ranges {
        self.ranges
    }
    fn len(&self) -> usize {
        (self.hi - self.lo) as usize
    }
    #[inline]
    fn held(&self, v: u32) -> Option<u32> {
        let l = v.wrapping_sub(self.lo);
        (l < self.hi - self.lo).then_some(l)
    }
    #[inline]
    fn global(&self, l: u32) -> u32 {
        self.lo + l
    }
    fn vertex_count(&self) -> usize {
        self.ranges.size() as usize
    }
    fn edge_count(&self) -> u64 {
        self.m
    }
    fn forward_offsets(&self) -> &[u64] {
        &self.fwd_off
    }
    fn forward_targets(&self) -> &[u32] {
        &self.fwd
    }
    fn reverse_offsets(&self) -> &[u64] {
        &self.rev_off
    }
    fn reverse_sources(&self) -> &[u32] {
        &self.rev
    }
    fn turn_rule(&self) -> &TurnRule {
        &self.turn
    }
    fn primitive_at(&self, l: u32) -> Option<Primitive> {
        self.primitive.as_ref().and_then(|p| p[l as usize])
    }
    fn score_at(&self, l: u32) -> Option<i64> {
        self.scores
            .as_ref()
            .map(|s| s[l as usize])
            .filter(|&s| s != NO_SCORE)
    }
    fn is_scored(&self) -> bool {
        self.scores.is_some()
    }
    fn name_at(&self, l: u32) -> Option<&str> {
        self.names
            .as_ref()
            .map(|n| n[l as usize].as_str())
            .filter(|s| !s.is_empty())
    }
    fn has_names(&self) -> bool {
        self.has_names
    }
    fn start(&self) -> Option<u32> {
        self.start
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::run_local;
    use crate::{solve_distributed, Rules};
    use proptest::prelude::*;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use retrograde_graph::format::parse;

    /// A random `rg` file with cycles: edges (some go-again), comments, blank lines, labels,
    /// and sometimes a mistake (a bad line, a contradiction, go-again in an arena, an id too
    /// large).
    fn random_text(seed: u64) -> String {
        let mut rng = SmallRng::seed_from_u64(seed);
        let n = rng.gen_range(1..80u32);
        let arena = rng.gen_bool(0.2);
        let again = !arena && rng.gen_bool(0.3);
        let scored = rng.gen_bool(0.3);
        let mut lines = Vec::new();
        for v in 0..n {
            for _ in 0..rng.gen_range(0..4) {
                let w = rng.gen_range(0..n);
                if again && rng.gen_bool(0.3) {
                    lines.push(format!("{v} {w} again"));
                } else if rng.gen_bool(0.1) {
                    lines.push(format!("{v}\t{w}  # a comment"));
                } else {
                    lines.push(format!("{v} {w}"));
                }
            }
            if rng.gen_bool(0.1) {
                let p = ["win", "loss", "tie", "lose"][rng.gen_range(0..4)];
                lines.push(format!("terminal {v} {p}"));
            } else if scored && rng.gen_bool(0.15) {
                let x = [-i64::MAX, -3, 0, 2, i64::MAX][rng.gen_range(0..5)];
                lines.push(format!("score {v} {x}"));
            }
            if arena && rng.gen_bool(0.5) {
                lines.push(format!("owner {v} {}", rng.gen_range(0..2)));
            }
            if rng.gen_bool(0.1) {
                lines.push(format!("name {v} vertex number {v}"));
            }
            if rng.gen_bool(0.05) {
                lines.push(String::new());
                lines.push("# a comment line".into());
            }
        }
        if rng.gen_bool(0.2) {
            lines.push(format!("vertices {}", n + rng.gen_range(0..5)));
        }
        if rng.gen_bool(0.2) {
            lines.push(format!("start {}", rng.gen_range(0..n)));
        }
        // Mistakes, anywhere.
        for _ in 0..rng.gen_range(0..3) {
            if !rng.gen_bool(0.3) {
                continue;
            }
            let bad = match rng.gen_range(0..8) {
                7 => "score 0 1e9".to_string(),
                0 => "7 x".to_string(),
                1 => "12".to_string(),
                2 => "4294967295 1".to_string(),
                3 => "terminal 0 maybe".to_string(),
                4 => format!("terminal {} win\nterminal {} loss", n - 1, n - 1),
                5 => "0 1 again\nowner 1 1".to_string(),
                _ => "name 0 same\nname 1 same".to_string(),
            };
            let at = rng.gen_range(0..=lines.len());
            lines.insert(at, bad);
        }
        let mut text = lines.join("\n");
        if rng.gen_bool(0.7) {
            text.push('\n');
        }
        text
    }

    /// What rank `ex` reads of `text`: its byte range, fed in random blocks.
    fn share(text: &[u8], format: Format, seed: u64, ex: &dyn Exchange) -> TextShare {
        let range = byte_range(text.len() as u64, ex.size(), ex.rank(), |p| {
            Ok::<_, ()>(newline_at(text, p as usize).map(|i| i as u64))
        })
        .unwrap();
        let mut s = TextShare::new(format);
        let mut rng = SmallRng::seed_from_u64(seed ^ ex.rank() as u64);
        let mut at = range.start as usize;
        while at < range.end as usize {
            let next = (at + rng.gen_range(1..40)).min(range.end as usize);
            s.feed(&text[at..next]);
            at = next;
        }
        s
    }

    fn newline_at(text: &[u8], p: usize) -> Option<usize> {
        text.get(p..)?
            .iter()
            .position(|&c| c == b'\n')
            .map(|i| p + i)
    }

    #[test]
    fn ranges_cover_every_id_once() {
        for n in [0u64, 1, 2, 3, 7, 100, 4294967295] {
            for k in 1..=5 {
                let r = Ranges::new(n, k);
                assert_eq!((r.start(0), r.start(k) as u64), (0, n));
                for v in [0, n / 3, n.saturating_sub(1)] {
                    if v < n {
                        let o = r.owner(v as u32);
                        assert!(r.start(o) as u64 <= v && v < r.start(o + 1) as u64);
                    }
                }
            }
        }
    }

    #[test]
    fn byte_ranges_cut_at_line_starts() {
        let text = b"0 1\n22 3\n\n4 5\n6 7";
        for k in 1..=8 {
            let mut end = 0;
            for r in 0..k {
                let range = byte_range(text.len() as u64, k, r, |p| {
                    Ok::<_, ()>(newline_at(text, p as usize).map(|i| i as u64))
                })
                .unwrap();
                assert_eq!(range.start, end, "{k} ranks, rank {r}");
                assert!(range.start == 0 || text[range.start as usize - 1] == b'\n');
                end = range.end;
            }
            assert_eq!(end, text.len() as u64);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]
        /// Every rank reading its part of a file gives one process's graph, solution and
        /// error, for 1 to 4 ranks.
        #[test]
        fn parts_of_a_file_give_the_one_process_answer(seed: u64) {
            let text = random_text(seed);
            let format = if seed % 5 == 0 { Format::Edges } else { Format::Rg };
            let opts = ParseOptions {
                vertices: (seed % 7 == 0).then_some(90),
                ..ParseOptions::default()
            };
            let one = parse(text.as_bytes(), format, &opts);
            let no_move = [Primitive::Loss, Primitive::Win, Primitive::Tie][(seed % 3) as usize];
            let rules = Rules { no_move };
            let want = one.as_ref().ok().map(|g| crate::solve(g, &rules));
            for k in 1..=4 {
                let got = run_local(k, |ex| {
                    let g = share(text.as_bytes(), format, seed, ex)
                        .finish(&opts, ex)
                        .and_then(|c| c.layout(ex))?;
                    let s = solve_distributed(&g, &rules, true, ex).unwrap().into_part();
                    let counts = s.counts_across(ex);
                    Ok::<_, ParseError>((crate::testing::gather(&s, g.is_scored(), ex), counts, g.vertex_count(), g.edge_count()))
                });
                match (&one, &want) {
                    (Err(e), _) => {
                        for r in &got {
                            prop_assert_eq!(r.as_ref().err().map(|e| e.to_string()), Some(e.to_string()), "{} ranks", k);
                        }
                    }
                    (Ok(g), Some(want)) => {
                        let (s, counts, n, m) = got.into_iter().next().unwrap().unwrap();
                        prop_assert_eq!((n, m), (g.vertex_count(), g.edge_count() as u64));
                        prop_assert_eq!(s.as_ref(), Some(want), "{} ranks", k);
                        prop_assert_eq!(counts, want.counts());
                    }
                    _ => unreachable!(),
                }
            }
        }
    }
}

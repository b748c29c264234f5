//! Reading graph files: the only place that touches the file system for graphs.
//!
//! Text formats are streamed in blocks into the library's [`TextParser`], so a big edge list is
//! never held in memory whole; GRF and JSON files are small by nature and read whole. Every
//! error names the file (and the line, when there is one).

use crate::flags::{FormatArg, GraphArgs, NoMove};
use anyhow::{anyhow, bail, Context, Result};
use retrograde_graph::format::{self, Format, ParseError, ParseOptions, TextParser};
use retrograde_graph::{Graph, GraphBuilder, Primitive};
use retrograde_solve::exchange::{Exchange, Solo};
use retrograde_solve::{DistGraph, Rules, Share};
use std::fs::File;
use std::io::{self, BufRead, IsTerminal, Read};
use std::path::Path;
use std::time::{Duration, Instant};

const BLOCK: usize = 16 << 20;

/// A graph read from a file (the whole graph, or an MPI rank's share of it:
/// [`load_share`]), and how long reading and laying it out took.
pub struct Loaded<G = Graph> {
    pub graph: G,
    /// The name used in messages: the path, or `<stdin>`.
    pub name: String,
    pub parse: Duration,
    pub build: Duration,
}

/// The display name of an input path.
pub fn display_name(path: Option<&Path>) -> String {
    match path {
        None => "<stdin>".into(),
        Some(p) if p == Path::new("-") => "<stdin>".into(),
        Some(p) => p.display().to_string(),
    }
}

/// Opens a file or standard input for reading, with clear errors.
pub fn open(path: Option<&Path>) -> Result<Box<dyn Read + Send>> {
    match path {
        None if io::stdin().is_terminal() => {
            bail!("no graph given: name a FILE, or pipe a graph into standard input (see --help)")
        }
        None => Ok(Box::new(io::stdin())),
        Some(p) if p == Path::new("-") => Ok(Box::new(io::stdin())),
        Some(p) => {
            if p.is_dir() {
                bail!("{}: is a directory, expected a graph file", p.display());
            }
            let f = File::open(p).with_context(|| format!("{}: cannot open", p.display()))?;
            Ok(Box::new(f))
        }
    }
}

/// Fills `buf` from `r` up to its capacity or the end of input; returns bytes read.
fn fill(r: &mut dyn Read, buf: &mut Vec<u8>, name: &str) -> Result<usize> {
    buf.clear();
    let want = buf.capacity();
    let got = r
        .take(want as u64)
        .read_to_end(buf)
        .with_context(|| format!("{name}: cannot read"))?;
    Ok(got)
}

pub fn rules(no_move: NoMove) -> Rules {
    Rules {
        no_move: match no_move {
            NoMove::Loss => Primitive::Loss,
            NoMove::Win => Primitive::Win,
            NoMove::Tie => Primitive::Tie,
        },
    }
}

pub(crate) fn located(name: &str, e: ParseError) -> anyhow::Error {
    match e.line {
        Some(l) => anyhow!("{name}:{l}: {}", e.message),
        None => anyhow!("{name}: {}", e.message),
    }
}

/// The memory a graph of `n` vertices and `m` edges needs while it is read and laid out:
/// the layout and the solve ([`retrograde_mem::graph_bytes`]) and the two blocks of text in
/// flight.
fn reading_bytes(n: u64, m: u64) -> u64 {
    retrograde_mem::graph_bytes(n, m).saturating_add(2 * BLOCK as u64)
}

/// Refuses a file before it is read when the limit cannot even hold its blocks of text in
/// flight (the smaller of two blocks and the file).
fn check_before_reading(path: Option<&Path>, name: &str) -> Result<()> {
    let size = path
        .filter(|p| *p != Path::new("-"))
        .and_then(|p| std::fs::metadata(p).ok())
        .map_or(2 * BLOCK as u64, |m| m.len().min(2 * BLOCK as u64));
    crate::mem::check(&format!("{name}: reading it"), size)
}

/// Reads and lays out the graph named by `args`.
pub fn load(path: Option<&Path>, args: &GraphArgs) -> Result<Loaded> {
    load_refusing_scores(path, args, None)
}

/// [`load`] for a command whose values have no scores: with `no_scores`, a scored graph is
/// an error naming the file and its first `score` line, then this reason
/// ([`ParseOptions::no_scores`]).
pub fn load_refusing_scores(
    path: Option<&Path>,
    args: &GraphArgs,
    no_scores: Option<&'static str>,
) -> Result<Loaded> {
    let name = display_name(path);
    let started = Instant::now();
    check_before_reading(path, &name)?;
    let mut reader = open(path)?;
    let mut block = Vec::with_capacity(BLOCK);
    fill(&mut *reader, &mut block, &name)?;
    // A UTF-8 byte order mark (editors on Windows write one) is not part of the graph.
    if block.starts_with(b"\xEF\xBB\xBF") {
        block.drain(..3);
    }

    let format = format_of(args.format, path, &block);
    let opts = ParseOptions {
        vertices: args.vertices,
        no_scores,
    };
    let builder: GraphBuilder = match format {
        Format::Grf | Format::Json => {
            reader
                .read_to_end(&mut block)
                .with_context(|| format!("{name}: cannot read"))?;
            whole(&block, format, &name, &opts)?
        }
        _ => {
            let mut parser = TextParser::new(format);
            let name = name.as_str();
            blocks(reader, block, name, |b| {
                parser.feed(b).map_err(|e| located(name, e))?;
                // The graph so far already needs this much: stop as soon as it is over the
                // limit, not once the whole file is read.
                let (n, m, lines) = parser.read_so_far();
                crate::mem::check(
                    &format!(
                        "{name}: {n} vertices and {m} edges by line {lines} ({})",
                        retrograde_mem::VERTEX_COUNT_OF_A_FILE
                    ),
                    reading_bytes(n, m),
                )
            })?;
            parser.finish(&opts).map_err(|e| located(name, e))?
        }
    };
    build(builder, name, started)
}

/// The format `arg` names, or (`auto`) the one the file's extension or its first bytes
/// `head` show.
fn format_of(arg: FormatArg, path: Option<&Path>, head: &[u8]) -> Format {
    match arg {
        FormatArg::Edges => Format::Edges,
        FormatArg::Rg => Format::Rg,
        FormatArg::Grf => Format::Grf,
        FormatArg::Json => Format::Json,
        FormatArg::Auto => {
            let ext = path
                .and_then(|p| p.extension())
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase);
            match ext.as_deref() {
                Some("grf") => Format::Grf,
                Some("json") => Format::Json,
                _ => format::detect(head),
            }
        }
    }
}

/// A GRF or JSON file, read whole, parsed.
fn whole(text: &[u8], format: Format, name: &str, opts: &ParseOptions) -> Result<GraphBuilder> {
    if format == Format::Json && text.is_empty() {
        bail!("{name}: expected a JSON graph object, found an empty file");
    }
    format::parse_builder(text, format, opts).map_err(|e| located(name, e))
}

/// The graph laid out, once its size is checked against the memory limit (a huge id or
/// `vertices` line must be an error, not an out-of-memory kill); `started` when reading did.
fn build(builder: GraphBuilder, name: String, started: Instant) -> Result<Loaded> {
    let (n, m) = (builder.vertex_count(), builder.edge_count() as u64);
    crate::mem::check(
        &format!(
            "{name}: {n} vertices and {m} edges ({})",
            retrograde_mem::VERTEX_COUNT_OF_A_FILE
        ),
        reading_bytes(n, m),
    )?;
    let parse = started.elapsed();
    let started = Instant::now();
    let graph = builder.build().map_err(|e| anyhow!("{name}: {e}"))?;
    Ok(Loaded {
        graph,
        name,
        parse,
        build: started.elapsed(),
    })
}

/// A rank's share of a whole graph every rank has read (GRF, JSON): the same timings.
fn share_of(loaded: Loaded, ex: &dyn Exchange) -> Result<Loaded<DistGraph>> {
    let graph = DistGraph::from_graph(&loaded.graph, ex)
        .map_err(|e| agreed(anyhow!("{}: {e}", loaded.name)))?;
    Ok(Loaded {
        graph,
        name: loaded.name,
        parse: loaded.parse,
        build: loaded.build,
    })
}

/// Hands `first` and then every further block of `reader` to `each`, reading the next block
/// on another thread while `each` works on the current one (two 16 MiB buffers circulate).
fn blocks(
    mut reader: Box<dyn Read + Send>,
    first: Vec<u8>,
    name: &str,
    mut each: impl FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    use std::sync::mpsc::sync_channel;
    let (full_tx, full_rx) = sync_channel::<Result<Vec<u8>>>(1);
    let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(2);
    empty_tx
        .send(Vec::with_capacity(BLOCK))
        .expect("the channel is open");
    // The closure owns the channel ends and drops them before the scope joins the reader, so
    // a parse error ends the reader too (it sees a closed channel) instead of deadlocking.
    std::thread::scope(move |scope| {
        scope.spawn(move || {
            // Stops when the input ends, on a read error, or when the consumer hangs up.
            while let Ok(mut buf) = empty_rx.recv() {
                let got = fill(&mut *reader, &mut buf, name).map(|n| (n, buf));
                let done = !matches!(got, Ok((n, _)) if n > 0);
                if full_tx.send(got.map(|(_, b)| b)).is_err() || done {
                    break;
                }
            }
        });
        let consume = || -> Result<()> {
            let mut block = first;
            while !block.is_empty() {
                each(&block)?;
                // Give the buffer back for reading and take the next full one.
                let _ = empty_tx.send(block);
                block = full_rx.recv().unwrap_or_else(|_| Ok(Vec::new()))?;
            }
            Ok(())
        };
        let result = consume();
        drop(empty_tx);
        drop(full_rx);
        result
    })
}

/// Finds a vertex by id or by name.
pub fn vertex(g: &Graph, text: &str) -> Result<u32> {
    vertex_of(g, text, &Solo)
}

/// [`vertex`] in a graph held by the ranks of `ex`, each holding its share `g` (a
/// collective): names are looked up by every rank among its own vertices, the smallest id
/// found is every rank's answer. The error is [`Agreed`].
pub fn vertex_of<G: Share>(g: &G, text: &str, ex: &dyn Exchange) -> Result<u32> {
    let n = g.vertex_count() as u64;
    if let Ok(id) = text.parse::<u64>() {
        if id < n {
            return Ok(id as u32);
        }
        if n == 0 {
            return Err(agreed(anyhow!(
                "vertex {id} does not exist (the graph has no vertices)"
            )));
        }
        return Err(agreed(anyhow!(
            "vertex {id} does not exist (the graph has {n} vertices, ids 0 to {})",
            n - 1
        )));
    }
    if g.has_names() {
        let found = (0..g.len() as u32).find(|&l| g.name_at(l) == Some(text));
        let mut w = [found.map_or(0, |l| u64::MAX - u64::from(g.global(l)))];
        ex.max(&mut w);
        if w[0] != 0 {
            return Ok((u64::MAX - w[0]) as u32);
        }
        return Err(agreed(anyhow!(
            "no vertex is named {text:?} (expected a vertex id or a name from the file)"
        )));
    }
    Err(agreed(anyhow!("expected a vertex id, found {text:?}")))
}

/// An error every rank of a distributed solve meets alike (same input, same collective
/// steps): rank 0 prints it as one process would, and no rank needs to end the others.
#[derive(Debug)]
pub struct Agreed(pub String);

impl std::fmt::Display for Agreed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Agreed {}

/// `e` as an error every rank has alike.
pub fn agreed(e: anyhow::Error) -> anyhow::Error {
    anyhow::Error::new(Agreed(format!("{e:#}")))
}

/// Reads this rank's share of the graph file `path` (a collective over `ex`): for the text
/// formats (edges, rg) only the rank's byte range of the file, cut at line starts
/// ([`retrograde_solve::dgraph::byte_range`]), then the edges go to the ranks that own their
/// ends; GRF and JSON files (small by nature) are read whole by every rank, which keeps its
/// share and drops the rest; standard input is read by rank 0 and dealt (see
/// `load_share_stdin`). Errors in the file are [`Agreed`]: every rank has the same one, the
/// one one process gives.
pub fn load_share(
    path: Option<&Path>,
    args: &GraphArgs,
    ex: &dyn Exchange,
) -> Result<Loaded<DistGraph>> {
    use retrograde_solve::dgraph::{byte_range, TextShare};
    use std::io::{Seek, SeekFrom};
    let name = display_name(path);
    let Some(path) = path.filter(|p| *p != Path::new("-")) else {
        return load_share_stdin(args, ex);
    };
    let started = Instant::now();
    // A file one rank cannot open or read the start of: the first such rank's error, at
    // every rank (a missing file is then one message, as from one process).
    let opened = (|| -> Result<_> {
        drop(open(Some(path))?);
        let mut file = File::open(path).with_context(|| format!("{name}: cannot open"))?;
        let len = file
            .metadata()
            .with_context(|| format!("{name}: cannot read"))?
            .len();
        let mut head = Vec::with_capacity(1 << 16);
        (&mut file)
            .take(1 << 16)
            .read_to_end(&mut head)
            .with_context(|| format!("{name}: cannot read"))?;
        Ok((file, len, head))
    })();
    let (mut file, len, head) = agree(opened, ex)?;
    let bom: u64 = if head.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let format = format_of(args.format, Some(path), &head[bom as usize..]);
    drop(head);
    if matches!(format, Format::Grf | Format::Json) {
        return share_of(load(Some(path), args).map_err(agreed)?, ex);
    }
    let (k, me) = (ex.size(), ex.rank());
    let mut buf = vec![0u8; 1 << 16];
    let range = byte_range(len, k, me, |p| -> Result<Option<u64>> {
        file.seek(SeekFrom::Start(p))
            .with_context(|| format!("{name}: cannot read"))?;
        let mut at = p;
        loop {
            let got = file
                .read(&mut buf)
                .with_context(|| format!("{name}: cannot read"))?;
            if got == 0 {
                return Ok(None);
            }
            if let Some(i) = memchr_newline(&buf[..got]) {
                return Ok(Some(at + i as u64));
            }
            at += got as u64;
        }
    });
    let range = agree(range, ex)?;
    // The byte order mark is not part of the graph (whichever rank's range starts at 0).
    let from = range.start.max(bom);
    let mut share = TextShare::new(format);
    file.seek(SeekFrom::Start(from))
        .with_context(|| format!("{name}: cannot read"))?;
    let mut left = range.end.saturating_sub(from);
    let mut block = Vec::with_capacity(BLOCK);
    while left > 0 {
        block.clear();
        let got = (&mut file)
            .take(left.min(BLOCK as u64))
            .read_to_end(&mut block)
            .with_context(|| format!("{name}: cannot read"))?;
        if got == 0 {
            bail!("{name}: cannot read: the file became shorter while being read");
        }
        left -= got as u64;
        share.feed(&block);
        if share.failed() {
            break;
        }
    }
    drop(block);
    finish_share(share, name, args, started, ex)
}

/// The end of reading a text graph across ranks: each rank's part parsed, the edges sent to
/// the ranks that own their ends, every rank's share laid out.
fn finish_share(
    share: retrograde_solve::dgraph::TextShare,
    name: String,
    args: &GraphArgs,
    started: Instant,
    ex: &dyn Exchange,
) -> Result<Loaded<DistGraph>> {
    let k = ex.size();
    let opts = ParseOptions {
        vertices: args.vertices,
        ..ParseOptions::default()
    };
    let counted = share
        .finish(&opts, ex)
        .map_err(|e| agreed(located(&name, e)))?;
    // Each rank holds about a K-th of the vertices and edges (every rank checks the same
    // figure, so all refuse alike).
    let (n, m) = (counted.vertex_count(), counted.edge_count());
    crate::mem::check(
        &format!("{name}: {n} vertices and {m} edges over {k} ranks (the largest vertex id or `vertices` line sets the vertex count), each rank"),
        retrograde_mem::graph_bytes(n.div_ceil(k as u64), m.div_ceil(k as u64)),
    )
    .map_err(agreed)?;
    let parse = started.elapsed();
    let started = Instant::now();
    let graph = counted.layout(ex).map_err(|e| agreed(located(&name, e)))?;
    Ok(Loaded {
        graph,
        name,
        parse,
        build: started.elapsed(),
    })
}

/// [`load_share`] from standard input, which the ranks cannot each read a part of: rank 0
/// reads it whole and deals the text, cut at line starts as a file is
/// ([`retrograde_solve::dgraph::byte_range`]), one part to each rank; GRF and JSON go whole
/// to every rank. Rank 0 holds the text (about twice, while dealing it), then its share.
fn load_share_stdin(args: &GraphArgs, ex: &dyn Exchange) -> Result<Loaded<DistGraph>> {
    use retrograde_solve::dgraph::{byte_range, TextShare};
    let name = display_name(None);
    let started = Instant::now();
    let (k, me) = (ex.size(), ex.rank());
    let read = if me == 0 {
        (|| -> Result<Vec<u8>> {
            let mut text = Vec::new();
            open(None)?
                .read_to_end(&mut text)
                .with_context(|| format!("{name}: cannot read"))?;
            Ok(text)
        })()
    } else {
        Ok(Vec::new())
    };
    let mut text = agree(read, ex)?;
    // A UTF-8 byte order mark is not part of the graph.
    if text.starts_with(b"\xEF\xBB\xBF") {
        text.drain(..3);
    }
    // Rank 0's start of the text decides the format everywhere.
    let mut head = text[..text.len().min(1 << 16)].to_vec();
    ex.broadcast(&mut head);
    let format = format_of(args.format, None, &head);
    if matches!(format, Format::Grf | Format::Json) {
        ex.broadcast(&mut text);
        let opts = ParseOptions {
            vertices: args.vertices,
            ..ParseOptions::default()
        };
        let builder = whole(&text, format, &name, &opts).map_err(agreed)?;
        drop(text);
        return share_of(build(builder, name, started).map_err(agreed)?, ex);
    }
    // Each rank's part, from the end (no copy of what stays).
    let mut send = vec![Vec::new(); k];
    if me == 0 {
        let len = text.len() as u64;
        let starts: Vec<usize> = (0..k)
            .map(|r| {
                let range = byte_range(len, k, r, |p| {
                    Ok::<_, std::convert::Infallible>(
                        memchr_newline(&text[p as usize..]).map(|i| p + i as u64),
                    )
                })
                .unwrap_or_else(|never| match never {});
                range.start as usize
            })
            .collect();
        for r in (1..k).rev() {
            send[r] = text.split_off(starts[r].min(text.len()));
        }
        send[0] = text;
    }
    let mine = ex.all_to_all(send).swap_remove(0);
    let mut share = TextShare::new(format);
    for block in mine.chunks(BLOCK) {
        share.feed(block);
        if share.failed() {
            break;
        }
    }
    drop(mine);
    finish_share(share, name, args, started, ex)
}

fn memchr_newline(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

/// `r` if it is `Ok` on every rank; else the error of the first rank with one, at every rank
/// (as an [`Agreed`] error). A collective.
pub fn agree<T>(r: Result<T>, ex: &dyn Exchange) -> Result<T> {
    let (k, me) = (ex.size(), ex.rank());
    let mut failed = vec![0u64; k];
    failed[me] = u64::from(r.is_err());
    ex.sum(&mut failed);
    let Some(first) = failed.iter().position(|&f| f == 1) else {
        return r;
    };
    let mut send = vec![Vec::new(); k];
    if me == first {
        if let Err(e) = &r {
            send = vec![format!("{e:#}").into_bytes(); k];
        }
    }
    let got = ex.all_to_all(send);
    Err(anyhow::Error::new(Agreed(
        String::from_utf8_lossy(&got[first]).into_owned(),
    )))
}

pub use retrograde_graph::format::{read_line, Line};

/// The longest command line read from standard input (`play`, the IOI protocol).
pub const MAX_COMMAND: usize = 64 << 10;

/// Reads line `number` of standard input into `line` (cleared first), at most [`MAX_COMMAND`]
/// bytes; returns the bytes read, 0 at the end of the input.
///
/// # Errors
/// A read error, or a longer line (which is neither kept whole nor echoed).
pub fn read_command(input: &mut impl BufRead, line: &mut Vec<u8>, number: u64) -> Result<usize> {
    line.clear();
    let n = Read::take(&mut *input, MAX_COMMAND as u64 + 1)
        .read_until(b'\n', line)
        .context("<stdin>: cannot read")?;
    if n > MAX_COMMAND && line.last() != Some(&b'\n') {
        let start = String::from_utf8_lossy(&line[..40]).into_owned();
        bail!(
            "<stdin>:{number}: a line longer than {} KiB (starting {start:?}…); commands are short",
            MAX_COMMAND >> 10
        );
    }
    Ok(n)
}

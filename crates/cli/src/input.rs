//! Reading graph files: the only place that touches the file system for graphs.
//!
//! Text formats are streamed in blocks into the library's [`TextParser`], so a big edge list is
//! never held in memory whole; GRF and JSON files are small by nature and read whole. Every
//! error names the file (and the line, when there is one).

use crate::cli::{FormatArg, GraphArgs, NoMove};
use anyhow::{anyhow, bail, Context, Result};
use retrograde_graph::format::{self, Format, ParseError, ParseOptions, TextParser};
use retrograde_graph::{Graph, GraphBuilder, Primitive};
use retrograde_solve::Rules;
use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::path::Path;
use std::time::{Duration, Instant};

const BLOCK: usize = 16 << 20;

/// A graph read from a file, and how long reading and laying it out took.
pub struct Loaded {
    pub graph: Graph,
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

/// Reads and lays out the graph named by `args`.
pub fn load(path: Option<&Path>, args: &GraphArgs) -> Result<Loaded> {
    let name = display_name(path);
    let started = Instant::now();
    let mut reader = open(path)?;
    let mut block = Vec::with_capacity(BLOCK);
    fill(&mut *reader, &mut block, &name)?;
    // A UTF-8 byte order mark (editors on Windows write one) is not part of the graph.
    if block.starts_with(b"\xEF\xBB\xBF") {
        block.drain(..3);
    }

    let format = match args.format {
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
                _ => format::detect(&block),
            }
        }
    };
    let opts = ParseOptions {
        vertices: args.vertices,
    };
    let builder: GraphBuilder = match format {
        Format::Grf | Format::Json => {
            reader
                .read_to_end(&mut block)
                .with_context(|| format!("{name}: cannot read"))?;
            if format == Format::Json && block.is_empty() {
                bail!("{name}: expected a JSON graph object, found an empty file");
            }
            format::parse_builder(&block, format, &opts).map_err(|e| located(&name, e))?
        }
        _ => {
            let mut parser = TextParser::new(format);
            let name = name.as_str();
            blocks(reader, block, name, |b| {
                parser.feed(b).map_err(|e| located(name, e))
            })?;
            parser.finish(&opts).map_err(|e| located(name, e))?
        }
    };
    // A huge id or `vertices` line must be an error, not an out-of-memory kill.
    let (n, m) = (builder.vertex_count(), builder.edge_count() as u64);
    crate::mem::check(
        &format!("{name}: {n} vertices and {m} edges (the largest vertex id or `vertices` line sets the vertex count)"),
        crate::mem::solve_estimate(n, m),
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
    if let Ok(id) = text.parse::<u64>() {
        if id < g.vertex_count() as u64 {
            return Ok(id as u32);
        }
        if g.vertex_count() == 0 {
            bail!("vertex {id} does not exist (the graph has no vertices)");
        }
        bail!(
            "vertex {id} does not exist (the graph has {} vertices, ids 0 to {})",
            g.vertex_count(),
            g.vertex_count() - 1
        );
    }
    if g.has_names() {
        if let Some(v) = (0..g.vertex_count() as u32).find(|&v| g.name(v) == Some(text)) {
            return Ok(v);
        }
        bail!("no vertex is named {text:?} (expected a vertex id or a name from the file)");
    }
    bail!("expected a vertex id, found {text:?}")
}

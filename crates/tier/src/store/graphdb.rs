//! A solved graph as a database: `retrograde solve FILE --db DIR`, queried later without the
//! file and without solving.
//!
//! Files (every one a checksummed tier file, read a block at a time):
//!
//! | file | elements |
//! |---|---|
//! | `graph.values` | per vertex, a `u32`: tag in the top two bits (0 draw, 1 loss, 2 win, 3 tie), remoteness below |
//! | `graph.best` | per vertex, the best move's target (`u32::MAX`: none) |
//! | `graph.offsets` | per vertex and one more, where its moves start in `graph.targets` (`u64`) |
//! | `graph.targets` | per move, its target vertex (`u32`), sorted per vertex (moves to one target: by turn below); a terminal's moves (remoteness 0) are kept as the file gave them, and readers give it none |
//! | `graph.turn` | per move, 1 when the same player moves next (go-again, or the same owner in an arena) |
//! | `graph.names` | the names: `id TAB name` lines, the name escaped (`\\` for a backslash, `\n` and `\r` for line breaks), so that any name reads back exactly |
//! | `graph.scores` | a scored graph's only: per vertex, its score for the player to move (`i64`; 0 for ties and draws) |
//!
//! and `database.json`, whose `params` say `{"game": "graph", ...}` and whose `layout` is
//! `graph`, or `graph-scored` for a scored graph (then `graph.scores` must be there).

use crate::error::Error;
use crate::stats::{merge_stats, Stats};
use crate::store::identity::{Facts, Identified, Identity};
use crate::store::meta::{header, read_meta, write_meta, Meta, META};
use crate::store::storage::Storage;
use crate::store::tierfile::{self, Codec, Kind, Reader};
use retrograde_graph::TurnRule;
use retrograde_solve::exchange::Exchange;
use retrograde_solve::place::Placement;
use retrograde_solve::share::ask_about;
use retrograde_solve::{Outcome, Scored, Share, Solution, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

const GAME: &str = "graph";
const VALUES: &str = "graph.values";
const BEST: &str = "graph.best";
const OFFSETS: &str = "graph.offsets";
const TARGETS: &str = "graph.targets";
const TURN: &str = "graph.turn";
const NAMES: &str = "graph.names";
const SCORES: &str = "graph.scores";
/// `layout` in `database.json`: an unscored graph's, and a scored graph's (with [`SCORES`]).
const LAYOUT: &str = "graph";
const LAYOUT_SCORED: &str = "graph-scored";
/// `cell_bytes` in `database.json`: a value is a `u32`.
const CELL_BYTES: u32 = 4;
const NONE: u32 = u32::MAX;

fn code(v: Value) -> Option<u32> {
    let (tag, r) = match v {
        Value::Draw => return Some(0),
        Value::Loss(r) => (1, r),
        Value::Win(r) => (2, r),
        Value::Tie(r) => (3, r),
    };
    (r < 1 << 30).then_some(tag << 30 | r)
}

fn decode(c: u32) -> Value {
    let r = c & ((1 << 30) - 1);
    match c >> 30 {
        1 => Value::Loss(r),
        2 => Value::Win(r),
        3 => Value::Tie(r),
        _ => Value::Draw,
    }
}

fn array_header(name: &str, elem: u32) -> tierfile::Header {
    header(GAME, name, Kind::Keys, elem)
}

/// Writes a solved graph (with its best moves) as a database; `params` are recorded (the
/// file it came from, the rules).
///
/// One path for one process and for ranks: `g` is this process's [`Share`] of the graph (a
/// whole [`Graph`](retrograde_graph::Graph) with [`Solo`](retrograde_solve::exchange::Solo), or a rank's
/// [`DistGraph`](retrograde_solve::DistGraph)) and `s` its part of the solution, by place
/// (as [`retrograde_solve::solve_share`] gives it). Rank 0 writes the files, one batch of
/// blocks at a time, every rank sending its elements of the batch (each array is the
/// ranks' parts in rank order: placements of graphs deal ascending ranges of vertices), so
/// that any number of ranks writes one process's bytes. In an arena, whether a move keeps
/// the turn needs the owner of its target, asked of the target's rank in one exchange. A
/// collective; `storage` is used at rank 0 only.
///
/// # Errors
/// A storage that fails, a part that is not one value per vertex held, or a remoteness past
/// 2^30 (found by every rank alike).
pub fn write<G: Share + ?Sized>(
    storage: &dyn Storage,
    g: &G,
    s: &Solution,
    stats: &Stats,
    params: serde_json::Value,
    ex: &dyn Exchange,
) -> Result<(), Error> {
    let (k, me) = (ex.size(), ex.rank());
    let n = g.len() as u32;
    if s.len() != g.len() {
        let (part, held) = (s.len(), g.len());
        let e = retrograde_solve::Error::Part { part, held };
        return Err(Error::Unsupported(format!("{GAME}: {e}")));
    }
    let values: Vec<u32> = (0..n).filter_map(|l| code(s.value(l))).collect();
    if ex.any(values.len() != g.len()) {
        return Err(Error::Remoteness {
            tier: GAME.into(),
            max: (1 << 30) - 1,
        });
    }
    let best: Vec<u32> = (0..n).map(|l| s.best_move(l).unwrap_or(NONE)).collect();
    // Per vertex its moves sorted by (target, turn), whoever holds the vertex.
    let (off, to) = (g.forward_offsets(), g.forward_targets());
    let owners = remote_owners(g, ex)?;
    let keeps = |l: u32, e: usize| -> u8 {
        u8::from(match g.turn_rule() {
            TurnRule::Alternate => false,
            TurnRule::GoAgain { forward, .. } => forward.get(e),
            TurnRule::Arena { .. } => {
                let v = to[e];
                let owner = g
                    .held(v)
                    .map_or_else(|| owners.get(&v).copied().unwrap_or(0), |m| g.owner_at(m));
                owner == g.owner_at(l)
            }
        })
    };
    // A whole graph's targets are sorted per vertex already: only a rank's are copied.
    let copy = !G::Place::ALONE;
    let mut targets = Vec::with_capacity(if copy { to.len() } else { 0 });
    let mut turn = Vec::with_capacity(to.len());
    let mut moves = Vec::new();
    for l in 0..n {
        moves.clear();
        let (a, b) = (off[l as usize] as usize, off[l as usize + 1] as usize);
        moves.extend((a..b).map(|e| (to[e], keeps(l, e))));
        moves.sort_unstable();
        if copy {
            targets.extend(moves.iter().map(|m| m.0));
        }
        turn.extend(moves.iter().map(|m| m.1));
    }
    let targets = if copy { &targets[..] } else { to };
    // Where this rank's moves start among all ranks'; the last rank adds the end.
    let mut counts = vec![0u64; k];
    counts[me] = to.len() as u64;
    ex.sum(&mut counts);
    let base: u64 = counts[..me].iter().sum();
    let offsets: Cow<[u64]> = if k == 1 {
        Cow::Borrowed(off)
    } else {
        let mine = &off[..n as usize + usize::from(me + 1 == k)];
        Cow::Owned(mine.iter().map(|&o| o + base).collect())
    };
    let mut names = String::new();
    for l in 0..n {
        if let Some(name) = g.name_at(l) {
            name_line(&mut names, g.global(l), name);
        }
    }
    // Scored at every rank or at none (every rank has every directive).
    let scores: Option<Vec<i64>> = g
        .is_scored()
        .then(|| (0..n).map(|l| s.scored(l).score).collect());
    if me == 0 {
        storage
            .remove(META)
            .map_err(|e| Error::io(storage.describe(META), "remove", e))?;
    }
    // A new database: rank 0 makes its identity (only rank 0 writes, but every rank knows).
    let mut id = Identity::random().0.to_vec();
    ex.broadcast(&mut id);
    let id = Identity(id.try_into().expect("16 bytes"));
    let layout = if scores.is_some() {
        LAYOUT_SCORED
    } else {
        LAYOUT
    };
    let facts = Facts::new(layout, CELL_BYTES, &params);
    let storage = &Identified::borrowed(storage, id, facts);
    let put = |file: &str, elem: u32, data: &[u8]| {
        let h = &array_header(file, elem);
        tierfile::write_spread(storage, file, h, data, Codec::Zstd(3), ex)
    };
    put(VALUES, 4, &tierfile::le_bytes(&values))?;
    put(BEST, 4, &tierfile::le_bytes(&best))?;
    put(OFFSETS, 8, &tierfile::le_bytes(&offsets))?;
    put(TARGETS, 4, &tierfile::le_bytes(targets))?;
    put(TURN, 1, &turn)?;
    put(NAMES, 1, names.as_bytes())?;
    if let Some(scores) = &scores {
        put(SCORES, 8, &tierfile::le_bytes(scores))?;
    }
    let stats = merge_stats(ex, vec![stats.clone()])?.pop().expect("one");
    // The start's value, from the rank that holds it.
    let start = g.start().map(|v| {
        let mine = g.held(v).map(|l| s.value(l).to_string());
        let all = ex.gather(mine.unwrap_or_default().as_bytes());
        let b = all.and_then(|a| a.into_iter().find(|x| !x.is_empty()));
        String::from_utf8_lossy(&b.unwrap_or_default()).into_owned()
    });
    if me != 0 {
        return Ok(());
    }
    let n = g.vertex_count() as u64;
    write_meta(storage, meta(id, params, n, start, stats, layout))
}

/// Appends the line of `graph.names` that names `v`: `v TAB name`, the name escaped so
/// that a line break in it stays inside the line.
fn name_line(out: &mut String, v: u32, name: &str) {
    out.push_str(&v.to_string());
    out.push('\t');
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('\n');
}

/// The name a line of `graph.names` escaped (`None`: a bad escape).
fn unescape(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '\\' => '\\',
            'n' => '\n',
            'r' => '\r',
            _ => return None,
        });
    }
    Some(out)
}

/// The description (`database.json`) of a graph database of `n` vertices.
fn meta(
    id: Identity,
    params: serde_json::Value,
    n: u64,
    start: Option<String>,
    stats: Stats,
    layout: &str,
) -> Meta {
    Meta {
        format: crate::store::meta::FORMAT.into(),
        version: crate::store::meta::META_VERSION,
        id: id.to_hex(),
        game: GAME.into(),
        params,
        layout: layout.into(),
        cell_bytes: CELL_BYTES,
        tiers: vec![(GAME.into(), n)],
        start,
        stats,
        tier_stats: vec![],
        checksum: String::new(),
    }
}

/// In an arena, the owners (players) of the targets of this share's moves that other ranks
/// hold, asked of their holders in one exchange (nothing is asked outside an arena, nor of
/// a whole graph).
///
/// # Errors
/// [`Error::Exchange`]: a rank's questions or answers that do not read.
fn remote_owners<G: Share + ?Sized>(g: &G, ex: &dyn Exchange) -> Result<HashMap<u32, u8>, Error> {
    // One process holds every target.
    if G::Place::ALONE || !ex.any(g.is_arena()) {
        return Ok(HashMap::new());
    }
    let remote = g.forward_targets().iter().filter(|&&v| g.held(v).is_none());
    let step = "owners of arena vertices";
    let got = ask_about(g, ex, step, remote.copied(), Some(1), |l, r| {
        r.push(g.owner_at(l))
    })
    .map_err(|e| Error::Exchange(e.to_string()))?;
    let owners = got.into_iter().flat_map(|(vs, b)| vs.into_iter().zip(b));
    Ok(owners.collect())
}

/// One array of a graph database, read a block at a time through a small cache.
#[derive(Debug)]
struct Array {
    r: Reader,
    cache: Mutex<Vec<(usize, Arc<Vec<u8>>)>>,
}

impl Array {
    fn open(storage: &dyn Storage, file: &str, elem: u32) -> Result<Array, Error> {
        Ok(Array {
            r: Reader::open(storage, file, &array_header(file, elem))?,
            cache: Mutex::new(Vec::new()),
        })
    }

    fn block(&self, storage: &dyn Storage, b: usize) -> Result<Arc<Vec<u8>>, Error> {
        let mut c = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, d)) = c.iter().find(|(k, _)| *k == b) {
            return Ok(d.clone());
        }
        drop(c);
        let d = Arc::new(self.r.block(storage, b)?);
        c = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if c.len() >= 16 {
            c.remove(0);
        }
        c.push((b, d.clone()));
        Ok(d)
    }

    /// Element `i` as a u64.
    fn get(&self, storage: &dyn Storage, i: u64) -> Result<u64, Error> {
        if i >= self.r.count() {
            return Err(Error::damaged(
                self.r.name().to_string(),
                format!("element {i} past its {}", self.r.count()),
            ));
        }
        let per = u64::from(self.r.block_elems());
        let block = self.block(storage, (i / per) as usize)?;
        let e = self.r.elem() as usize;
        let at = (i % per) as usize * e;
        let mut b = [0u8; 8];
        b[..e].copy_from_slice(&block[at..at + e]);
        Ok(u64::from_le_bytes(b))
    }
}

/// Reads elements of one array in order, keeping the block it is in: a scan over many
/// elements touches each block once.
struct Cursor<'a> {
    array: &'a Array,
    at: Option<(usize, Arc<Vec<u8>>)>,
}

impl<'a> Cursor<'a> {
    fn new(array: &'a Array) -> Cursor<'a> {
        Cursor { array, at: None }
    }

    fn get(&mut self, storage: &dyn Storage, i: u64) -> Result<u64, Error> {
        let r = &self.array.r;
        if i >= r.count() {
            return Err(Error::damaged(
                r.name().to_string(),
                format!("element {i} past its {}", r.count()),
            ));
        }
        let per = u64::from(r.block_elems());
        let b = (i / per) as usize;
        if self.at.as_ref().is_none_or(|(k, _)| *k != b) {
            self.at = Some((b, self.array.block(storage, b)?));
        }
        let data = &self.at.as_ref().expect("just read").1;
        let e = r.elem() as usize;
        let at = (i % per) as usize * e;
        let mut w = [0u8; 8];
        w[..e].copy_from_slice(&data[at..at + e]);
        Ok(u64::from_le_bytes(w))
    }
}

/// A solved graph read from a database.
#[derive(Debug)]
pub struct GraphDb {
    storage: Arc<dyn Storage>,
    meta: Meta,
    values: Array,
    best: Array,
    offsets: Array,
    targets: Array,
    turn: Array,
    /// A scored graph's scores.
    scores: Option<Array>,
    vertices: u64,
    start: Option<u32>,
    names: HashMap<u32, String>,
    by_name: HashMap<String, u32>,
}

impl GraphDb {
    /// Opens the graph database in `storage`; `Ok(None)` when it holds no finished
    /// database of a graph.
    ///
    /// # Errors
    /// A damaged, truncated or missing file, named.
    pub fn open(storage: Arc<dyn Storage>) -> Result<Option<GraphDb>, Error> {
        let Some(meta) = read_meta(&*storage)? else {
            return Ok(None);
        };
        if meta.game != GAME {
            return Ok(None);
        }
        let described = || storage.describe(META);
        let n = meta.tiers.first().map_or(0, |t| t.1);
        if n >= u64::from(NONE) {
            return Err(Error::damaged(
                described(),
                format!("{n} vertices, more than a vertex id can number"),
            ));
        }
        let start = match meta.params.get("start") {
            None | Some(serde_json::Value::Null) => None,
            Some(v) => match v.as_u64() {
                Some(s) if s < n => Some(s as u32),
                _ => {
                    return Err(Error::damaged(
                        described(),
                        format!("start vertex {v}, but the graph has {n} vertices"),
                    ))
                }
            },
        };
        // Every file must be of this database.
        let id = meta.identity().expect("read_meta checked it");
        let storage = Identified::wrap(storage, id, Facts::of(&meta));
        let st = &*storage;
        let values = Array::open(st, VALUES, 4)?;
        let best = Array::open(st, BEST, 4)?;
        let offsets = Array::open(st, OFFSETS, 8)?;
        let targets = Array::open(st, TARGETS, 4)?;
        let turn = Array::open(st, TURN, 1)?;
        let names_file = Array::open(st, NAMES, 1)?;
        let scores = match meta.layout.as_str() {
            LAYOUT => {
                // Files before version 6 do not say their layout: scores of this database
                // that the description leaves out are a contradiction all the same.
                if Array::open(st, SCORES, 8).is_ok() {
                    return Err(Error::damaged(
                        st.describe(SCORES),
                        format!(
                            "the scores of this database, but {} says layout {LAYOUT:?}, without scores",
                            st.describe(META)
                        ),
                    ));
                }
                None
            }
            LAYOUT_SCORED => Some(Array::open(st, SCORES, 8)?),
            other => {
                return Err(Error::damaged(
                    st.describe(META),
                    format!("layout {other:?}, expected {LAYOUT:?} or {LAYOUT_SCORED:?}"),
                ))
            }
        };
        let counted = [(&values, n), (&best, n), (&offsets, n + 1)]
            .into_iter()
            .chain(scores.as_ref().map(|a| (a, n)));
        for (a, want) in counted {
            if a.r.count() != want {
                return Err(Error::damaged(
                    a.r.name().to_string(),
                    format!("{} elements, the graph has {want}", a.r.count()),
                ));
            }
        }
        if turn.r.count() != targets.r.count() {
            return Err(Error::damaged(
                turn.r.name().to_string(),
                "not one flag per move".to_string(),
            ));
        }
        let mut text = Vec::new();
        names_file.r.read_all(st, &mut text)?;
        let text = String::from_utf8(text)
            .map_err(|_| Error::damaged(names_file.r.name().to_string(), "not UTF-8"))?;
        let mut names = HashMap::new();
        let mut by_name = HashMap::new();
        for line in text.split_terminator('\n') {
            let parsed = line
                .split_once('\t')
                .and_then(|(id, name)| Some((id.parse::<u32>().ok()?, unescape(name)?)));
            match parsed {
                Some((v, name)) if u64::from(v) < n => {
                    by_name.entry(name.clone()).or_insert(v);
                    names.insert(v, name);
                }
                _ => {
                    return Err(Error::damaged(
                        names_file.r.name().to_string(),
                        format!("a bad line {:?}", line.chars().take(40).collect::<String>()),
                    ))
                }
            }
        }
        Ok(Some(GraphDb {
            storage,
            meta,
            values,
            best,
            offsets,
            targets,
            turn,
            scores,
            vertices: n,
            start,
            names,
            by_name,
        }))
    }

    /// The database's description.
    pub fn meta(&self) -> &Meta {
        &self.meta
    }

    /// The number of vertices.
    pub fn vertices(&self) -> u64 {
        self.vertices
    }

    /// The totals.
    pub fn stats(&self) -> &Stats {
        &self.meta.stats
    }

    /// The start vertex, if the graph gives one.
    pub fn start(&self) -> Option<u32> {
        self.start
    }

    /// A vertex by id or name.
    pub fn vertex(&self, text: &str) -> Option<u32> {
        match text.trim().parse::<u64>() {
            Ok(v) if v < self.vertices() => Some(v as u32),
            _ => self.by_name.get(text.trim()).copied(),
        }
    }

    /// A vertex's name, if it has one.
    pub fn name(&self, v: u32) -> Option<&str> {
        self.names.get(&v).map(String::as_str)
    }

    /// The value of vertex `v` for the player to move.
    ///
    /// # Errors
    /// A damaged file.
    pub fn value(&self, v: u32) -> Result<Value, Error> {
        Ok(decode(self.values.get(&*self.storage, u64::from(v))? as u32))
    }

    /// Whether the graph is scored: [`GraphDb::scored`] then says by how much.
    pub fn is_scored(&self) -> bool {
        self.scores.is_some()
    }

    /// The value of vertex `v` with its score, for the player to move: in an unscored
    /// graph the outcome as +1, -1 or 0 ([`Scored::from`] a [`Value`]).
    ///
    /// # Errors
    /// A damaged file (also a score whose sign is not the outcome's).
    pub fn scored(&self, v: u32) -> Result<Scored, Error> {
        let value = self.value(v)?;
        let Some(scores) = &self.scores else {
            return Ok(Scored::from(value));
        };
        scored_of(scores, value, scores.get(&*self.storage, u64::from(v))?, v)
    }

    /// The best move from `v`, if it has one.
    ///
    /// # Errors
    /// A damaged file.
    pub fn best_move(&self, v: u32) -> Result<Option<u32>, Error> {
        let b = self.best.get(&*self.storage, u64::from(v))? as u32;
        Ok((b != NONE).then_some(b))
    }

    /// The moves from `v`: (target, whether the same player moves next).
    ///
    /// # Errors
    /// A damaged file.
    pub fn moves(&self, v: u32) -> Result<Vec<(u32, bool)>, Error> {
        let mut out = Vec::new();
        self.each_move(v, &mut |t, keeps| {
            out.push((t, keeps));
            true
        })?;
        Ok(out)
    }

    /// Where the moves of `v` are among all moves: none for a terminal, whose value has
    /// remoteness 0 (a dead end, a `terminal` label or a score: the game is over there, and
    /// the moves its file gave are not moves of the game, as the solver ignored them).
    fn move_range(&self, v: u32) -> Result<std::ops::Range<u64>, Error> {
        let st = &*self.storage;
        if self.value(v)?.remoteness() == Some(0) {
            return Ok(0..0);
        }
        let (a, b) = (
            self.offsets.get(st, u64::from(v))?,
            self.offsets.get(st, u64::from(v) + 1)?,
        );
        if a > b || b > self.targets.r.count() {
            return Err(Error::damaged(
                self.offsets.r.name().to_string(),
                format!("the moves of vertex {v} are out of place"),
            ));
        }
        Ok(a..b)
    }

    /// The number of moves from `v`.
    ///
    /// # Errors
    /// A damaged file.
    pub fn move_count(&self, v: u32) -> Result<u64, Error> {
        Ok(self.move_range(v)?.count() as u64)
    }

    /// Calls `f(target, keeps turn)` for the moves from `v` in order (by target), a block
    /// of the files at a time, until `f` returns `false`; returns whether it went through.
    ///
    /// # Errors
    /// A damaged file.
    pub fn each_move(&self, v: u32, f: &mut dyn FnMut(u32, bool) -> bool) -> Result<bool, Error> {
        let st = &*self.storage;
        let (mut targets, mut turn) = (Cursor::new(&self.targets), Cursor::new(&self.turn));
        for e in self.move_range(v)? {
            if !f(targets.get(st, e)? as u32, turn.get(st, e)? == 1) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether `v` has a move to `to`, and if so whether it keeps the turn (the first such
    /// move): a binary search among its moves, which are sorted by target.
    ///
    /// # Errors
    /// A damaged file.
    pub fn find_move(&self, v: u32, to: u32) -> Result<Option<bool>, Error> {
        let st = &*self.storage;
        let range = self.move_range(v)?;
        let (mut lo, mut hi) = (range.start, range.end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if (self.targets.get(st, mid)? as u32) < to {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo < range.end && self.targets.get(st, lo)? as u32 == to {
            return Ok(Some(self.turn.get(st, lo)? == 1));
        }
        Ok(None)
    }

    /// A reader of vertices' values (`read(v)`) that keeps the last block it read: fast
    /// for vertices in increasing order, such as the targets of one vertex's moves.
    pub fn value_reader(&self) -> impl FnMut(u32) -> Result<Value, Error> + '_ {
        let mut c = Cursor::new(&self.values);
        move |v| Ok(decode(c.get(&*self.storage, u64::from(v))? as u32))
    }

    /// [`GraphDb::value_reader`] for values with their scores ([`GraphDb::scored`]).
    pub fn scored_reader(&self) -> impl FnMut(u32) -> Result<Scored, Error> + '_ {
        let mut values = self.value_reader();
        let mut scores = self.scores.as_ref().map(|a| (a, Cursor::new(a)));
        move |v| {
            let value = values(v)?;
            match &mut scores {
                None => Ok(Scored::from(value)),
                Some((a, c)) => scored_of(a, value, c.get(&*self.storage, u64::from(v))?, v),
            }
        }
    }
}

/// The value with its score of vertex `v`, from its value and the element of `graph.scores`
/// (`scores`, named if the two disagree: a win's score is positive, a loss's negative, the
/// others' 0).
fn scored_of(scores: &Array, value: Value, raw: u64, v: u32) -> Result<Scored, Error> {
    let score = raw as i64;
    let fits = match value.outcome() {
        Outcome::Win => score > 0,
        Outcome::Loss => (-Scored::MAX_SCORE..0).contains(&score),
        Outcome::Tie | Outcome::Draw => score == 0,
    };
    if !fits {
        return Err(Error::damaged(
            scores.r.name().to_string(),
            format!("vertex {v}: score {score} for a {}", value.outcome()),
        ));
    }
    Ok(Scored::new(score, value.remoteness()))
}

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
//! | `graph.targets` | per move, its target vertex (`u32`), sorted per vertex |
//! | `graph.turn` | per move, 1 when the same player moves next (go-again, or the same owner in an arena) |
//! | `graph.names` | the names: `id TAB name` lines |
//!
//! and `database.json`, whose `params` say `{"game": "graph", ...}`.

use crate::engine::{header, read_meta, write_meta, Meta, META};
use crate::error::Error;
use crate::stats::Stats;
use crate::storage::Storage;
use crate::tierfile::{self, Codec, Kind, Reader};
use retrograde_graph::Graph;
use retrograde_solve::{Solution, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

const GAME: &str = "graph";
const VALUES: &str = "graph.values";
const BEST: &str = "graph.best";
const OFFSETS: &str = "graph.offsets";
const TARGETS: &str = "graph.targets";
const TURN: &str = "graph.turn";
const NAMES: &str = "graph.names";
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
/// # Errors
/// A storage that fails, or a remoteness past 2^30.
pub fn write(
    storage: &dyn Storage,
    g: &Graph,
    s: &Solution,
    stats: &Stats,
    params: serde_json::Value,
) -> Result<(), Error> {
    storage
        .remove(META)
        .map_err(|e| Error::io(storage.describe(META), "remove", e))?;
    let n = g.vertex_count();
    let mut values = Vec::with_capacity(n);
    for v in 0..n as u32 {
        values.push(code(s.value(v)).ok_or_else(|| Error::Remoteness {
            tier: GAME.into(),
            max: (1 << 30) - 1,
        })?);
    }
    let best: Vec<u32> = (0..n as u32)
        .map(|v| s.best_move(v).unwrap_or(NONE))
        .collect();
    let turn: Vec<u8> = (0..n as u32)
        .flat_map(|u| {
            g.successor_range(u)
                .zip(g.successors(u))
                .map(move |(e, &v)| u8::from(g.forward_keeps_turn(e, u, v)))
        })
        .collect();
    let mut names = String::new();
    for v in 0..n as u32 {
        if let Some(name) = g.name(v) {
            names.push_str(&format!("{v}\t{name}\n"));
        }
    }
    let z = Codec::Zstd(3);
    let put = |file: &str, elem: u32, data: &[u8]| {
        tierfile::write(
            storage,
            file,
            &array_header(file, elem),
            data,
            z,
            tierfile::BLOCK_ELEMS,
        )
    };
    put(VALUES, 4, &tierfile::le_bytes(&values))?;
    put(BEST, 4, &tierfile::le_bytes(&best))?;
    put(OFFSETS, 8, &tierfile::le_bytes(g.forward_offsets()))?;
    put(TARGETS, 4, &tierfile::le_bytes(g.forward_targets()))?;
    put(TURN, 1, &turn)?;
    put(NAMES, 1, names.as_bytes())?;
    let start = g.start().map(|v| s.value(v).to_string());
    write_meta(
        storage,
        Meta {
            format: "retrograde tier database".into(),
            version: 1,
            game: GAME.into(),
            params,
            layout: "graph".into(),
            cell_bytes: 4,
            tiers: vec![(GAME.into(), n as u64)],
            start,
            stats: stats.clone(),
            tier_stats: vec![],
            checksum: String::new(),
        },
    )
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
    names: Vec<Option<String>>,
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
        let n = meta.tiers.first().map_or(0, |t| t.1);
        let st = &*storage;
        let values = Array::open(st, VALUES, 4)?;
        let best = Array::open(st, BEST, 4)?;
        let offsets = Array::open(st, OFFSETS, 8)?;
        let targets = Array::open(st, TARGETS, 4)?;
        let turn = Array::open(st, TURN, 1)?;
        let names_file = Array::open(st, NAMES, 1)?;
        for (a, want) in [(&values, n), (&best, n), (&offsets, n + 1)] {
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
        let mut names = vec![None; n as usize];
        let mut by_name = HashMap::new();
        for line in text.lines() {
            let parsed = line
                .split_once('\t')
                .and_then(|(id, name)| Some((id.parse::<u32>().ok()?, name)));
            match parsed {
                Some((v, name)) if (v as u64) < n => {
                    names[v as usize] = Some(name.to_string());
                    by_name.entry(name.to_string()).or_insert(v);
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
        self.names.len() as u64
    }

    /// The totals.
    pub fn stats(&self) -> &Stats {
        &self.meta.stats
    }

    /// The start vertex, if the graph gives one.
    pub fn start(&self) -> Option<u32> {
        self.meta.params.get("start")?.as_u64().map(|v| v as u32)
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
        self.names.get(v as usize)?.as_deref()
    }

    /// The value of vertex `v` for the player to move.
    ///
    /// # Errors
    /// A damaged file.
    pub fn value(&self, v: u32) -> Result<Value, Error> {
        Ok(decode(self.values.get(&*self.storage, u64::from(v))? as u32))
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
        let st = &*self.storage;
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
        (a..b)
            .map(|e| Ok((self.targets.get(st, e)? as u32, self.turn.get(st, e)? == 1)))
            .collect()
    }
}

//! The benchmark inputs: uniform random edge lists, generated at bench time and cached.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The fixed seed of every generated graph, so that a file name determines its content.
pub const SEED: u64 = 42;

/// A benchmark size: `n` vertices, `m` edges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Size {
    /// The name it was given (`1m`, `10m`, …).
    pub label: String,
    /// Vertices.
    pub n: u64,
    /// Edges.
    pub m: u64,
    /// A random DAG (every edge `u -> v` has `v < u`, so every vertex is decided and the
    /// propagation looks at every edge) instead of a uniform random graph.
    pub dag: bool,
}

impl Size {
    /// Parses `1m`, `10m`, `100k` or a plain number as the vertex count; edges are 4 per
    /// vertex; a `-dag` suffix (`10m-dag`) asks for a random DAG.
    pub fn parse(label: &str) -> Result<Size, String> {
        let full = label.trim().to_ascii_lowercase();
        let (s, dag) = match full.strip_suffix("-dag") {
            Some(s) => (s.to_string(), true),
            None => (full.clone(), false),
        };
        let (digits, scale) = match s.as_bytes().last() {
            Some(b'k') => (&s[..s.len() - 1], 1_000),
            Some(b'm') => (&s[..s.len() - 1], 1_000_000),
            _ => (s.as_str(), 1),
        };
        let n = digits
            .parse::<u64>()
            .ok()
            .and_then(|d| d.checked_mul(scale))
            .filter(|&n| n > 0 && n <= u64::from(u32::MAX))
            .ok_or_else(|| format!("bad size {label:?} (expected e.g. 1m, 10m, 100k)"))?;
        if dag && n < 2 {
            return Err(format!(
                "bad size {label:?}: a DAG needs at least 2 vertices"
            ));
        }
        Ok(Size {
            label: full,
            n,
            m: 4 * n,
            dag,
        })
    }
}

/// The path of the graph file for `size` in `dir`, written first if absent: `m` lines `u v`
/// with `u` and `v` uniform in `0..n`, drawn from `SmallRng::seed_from_u64(SEED)` (`u` then
/// `v`). Returns the path and the time spent writing (`None` when the file was reused). The
/// file is written under a temporary name and renamed, so an interrupted run never leaves a
/// truncated file behind under the real name.
pub fn ensure_graph(dir: &Path, size: &Size) -> Result<(PathBuf, Option<Duration>), String> {
    let kind = if size.dag { "dag" } else { "uniform" };
    let path = dir.join(format!("{kind}-n{}-m{}-seed{SEED}.edges", size.n, size.m));
    if path.is_file() {
        return Ok((path, None));
    }
    let start = Instant::now();
    let tmp = path.with_extension("edges.tmp");
    write_graph(&tmp, size).map_err(|e| format!("writing {}: {e}", tmp.display()))?;
    fs::rename(&tmp, &path).map_err(|e| format!("renaming {}: {e}", tmp.display()))?;
    Ok((path, Some(start.elapsed())))
}

fn write_graph(path: &Path, size: &Size) -> std::io::Result<()> {
    let n = u32::try_from(size.n).expect("Size::parse keeps n within u32");
    let mut rng = SmallRng::seed_from_u64(SEED);
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let (mut a, mut b) = (itoa::Buffer::new(), itoa::Buffer::new());
    let mut line = Vec::with_capacity(32);
    for _ in 0..size.m {
        let (u, v): (u32, u32) = if size.dag {
            let u = rng.gen_range(1..n);
            (u, rng.gen_range(0..u))
        } else {
            (rng.gen_range(0..n), rng.gen_range(0..n))
        };
        line.clear();
        line.extend_from_slice(a.format(u).as_bytes());
        line.push(b' ');
        line.extend_from_slice(b.format(v).as_bytes());
        line.push(b'\n');
        out.write_all(&line)?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes() {
        assert_eq!(Size::parse("1m").unwrap().n, 1_000_000);
        assert_eq!(Size::parse("10M").unwrap().m, 40_000_000);
        assert_eq!(Size::parse("100k").unwrap().n, 100_000);
        assert_eq!(Size::parse("12").unwrap().m, 48);
        assert!(Size::parse("0").is_err());
        assert!(Size::parse("x").is_err());
        assert!(Size::parse("5000m").is_err());
        let d = Size::parse("1m-dag").unwrap();
        assert!(d.dag && d.n == 1_000_000 && d.label == "1m-dag");
        assert!(!Size::parse("1m").unwrap().dag);
    }
}

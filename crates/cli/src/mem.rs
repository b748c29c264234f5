//! Peak memory of this process, for summaries and benchmarks.

/// The peak resident set size in bytes (Linux `VmHWM`), when the system tells it.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Memory the system can still give (Linux `MemAvailable`), when it tells.
pub fn available_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Bytes needed to lay out and solve a graph of `n` vertices and `m` edges: 16 per edge at the
/// layout's peak (grouping buffer, forward and reverse targets), 41 per vertex (offsets,
/// solver state, counters, queue, best moves).
pub fn solve_estimate(n: u64, m: u64) -> u64 {
    n.saturating_mul(41).saturating_add(m.saturating_mul(16))
}

/// `12.3 GiB`.
pub fn human(bytes: u64) -> String {
    let gib = bytes as f64 / (1u64 << 30) as f64;
    if gib >= 1.0 {
        format!("{gib:.1} GiB")
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

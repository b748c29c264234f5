//! A plain aligned text table, and the number formats the report uses.

use std::time::Duration;

/// Rows of cells printed in aligned columns: the first column left-aligned (labels), the
/// others right-aligned (figures).
#[derive(Debug, Default)]
pub struct Table {
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table whose first row is `header`.
    pub fn new(header: &[&str]) -> Self {
        Table {
            rows: vec![header.iter().map(|s| s.to_string()).collect()],
        }
    }

    /// Appends a row.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table as text: the header, a rule, the rows; every line ends with a newline.
    pub fn render(&self) -> String {
        let cols = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        let mut width = vec![0; cols];
        for row in &self.rows {
            for (w, cell) in width.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let mut out = String::new();
        for (i, row) in self.rows.iter().enumerate() {
            let mut line = String::new();
            for (j, w) in width.iter().enumerate() {
                let cell = row.get(j).map_or("", String::as_str);
                if j == 0 {
                    line.push_str(&format!("{cell:<w$}"));
                } else {
                    line.push_str(&format!("  {cell:>w$}"));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
            if i == 0 {
                let total = width.iter().sum::<usize>() + 2 * cols.saturating_sub(1);
                out.push_str(&"-".repeat(total));
                out.push('\n');
            }
        }
        out
    }
}

/// `1234567` as `1,234,567`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Seconds with three decimals.
pub fn secs(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

/// Milliseconds with one decimal.
pub fn millis(ms: f64) -> String {
    format!("{ms:.1}")
}

/// Millions of `items` per second of `d`.
pub fn mega_rate(items: u64, d: Duration) -> String {
    let s = d.as_secs_f64();
    if s > 0.0 {
        format!("{:.1}", items as f64 / s / 1e6)
    } else {
        "-".to_string()
    }
}

/// `num / den` as a ratio like `2.35x`.
pub fn ratio(num: f64, den: f64) -> String {
    if den > 0.0 {
        format!("{:.2}x", num / den)
    } else {
        "-".to_string()
    }
}

/// Bytes in MiB with one decimal.
pub fn mib(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / (1u64 << 20) as f64)
}

/// p50, p99 and max of `xs`, in microseconds.
pub fn percentiles(mut xs: Vec<Duration>) -> [f64; 3] {
    xs.sort();
    let at = |q: f64| xs[((xs.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e6;
    [at(0.5), at(0.99), at(1.0)]
}

/// A latency row: `db`, `what`, the count, p50/p99/max in microseconds, and the rate over
/// `total`.
pub fn latency_row(
    table: &mut Table,
    db: &str,
    what: &str,
    n: usize,
    p: [f64; 3],
    total: Duration,
) {
    table.row(vec![
        db.into(),
        what.into(),
        n.to_string(),
        format!("{:.1}", p[0]),
        format!("{:.1}", p[1]),
        format!("{:.1}", p[2]),
        format!("{:.0}", n as f64 / total.as_secs_f64()),
    ]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(40_000_000), "40,000,000");
    }

    #[test]
    fn aligns_columns() {
        let mut t = Table::new(&["phase", "ms"]);
        t.row(vec!["parse".into(), "12.5".into()]);
        t.row(vec!["build time".into(), "3.0".into()]);
        assert_eq!(
            t.render(),
            "phase         ms\n----------------\nparse       12.5\nbuild time   3.0\n"
        );
    }
}

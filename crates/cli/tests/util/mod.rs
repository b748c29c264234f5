//! Helpers for the `retrograde` integration tests (in the style of ripgrep's `tests/util.rs`):
//! a temporary directory to write graph files into, a command runner that checks exit codes
//! and streams, a small CSV reader for solutions, a deterministic random number generator and
//! a naive reference solver to compare the real one against.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Declares a test that gets a fresh temporary directory and a `retrograde` command whose
/// working directory is that directory.
macro_rules! rtest {
    ($(#[$meta:meta])* $name:ident, |$dir:ident, $cmd:ident| $body:block) => {
        $(#[$meta])*
        #[test]
        fn $name() {
            let $dir = $crate::util::Dir::new();
            #[allow(unused_mut)]
            let mut $cmd = $dir.command();
            $body
        }
    };
}

/// The bundled examples directory.
pub fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// One bundled example file, by name.
pub fn example(name: &str) -> String {
    examples().join(name).display().to_string()
}

/// A temporary directory, removed when dropped.
pub struct Dir {
    tmp: tempfile::TempDir,
}

impl Dir {
    pub fn new() -> Dir {
        Dir {
            tmp: tempfile::Builder::new()
                .prefix("retrograde-cli-test")
                .tempdir()
                .expect("a temporary directory"),
        }
    }

    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    /// Writes `contents` to `name` inside the directory; returns the full path.
    pub fn create(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path().join(name);
        std::fs::write(&p, contents).expect("write a test file");
        p
    }

    /// A `retrograde` command running inside the directory.
    pub fn command(&self) -> TestCommand {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_retrograde"));
        cmd.current_dir(self.path());
        TestCommand { cmd, stdin: None }
    }
}

/// A `retrograde` invocation.
pub struct TestCommand {
    cmd: Command,
    stdin: Option<Vec<u8>>,
}

/// What a finished command produced.
#[derive(Debug)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl TestCommand {
    pub fn arg(&mut self, a: impl AsRef<std::ffi::OsStr>) -> &mut Self {
        self.cmd.arg(a);
        self
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.cmd.args(args);
        self
    }

    /// Feeds these bytes on standard input (otherwise standard input is empty).
    pub fn stdin(&mut self, data: impl Into<Vec<u8>>) -> &mut Self {
        self.stdin = Some(data.into());
        self
    }

    /// Runs the command to the end.
    pub fn output(&mut self) -> Output {
        self.cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = self.cmd.spawn().expect("start retrograde");
        let mut input = child.stdin.take().expect("piped stdin");
        let data = self.stdin.clone().unwrap_or_default();
        // Write from a thread so that a big input cannot deadlock against a big output; an
        // early exit of the child (closed pipe) is fine.
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(&data);
        });
        let out = child.wait_with_output().expect("wait for retrograde");
        writer.join().expect("stdin writer");
        let o = Output {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        assert!(
            !o.stderr.contains("panicked") && !o.stderr.contains("RUST_BACKTRACE"),
            "{:?} panicked:\n{}",
            self.cmd,
            o.stderr
        );
        o
    }

    /// Runs the command, expects exit status 0 and an empty stderr; returns stdout.
    pub fn stdout(&mut self) -> String {
        let o = self.output();
        assert_eq!(
            o.code, 0,
            "{:?} failed\nstdout:\n{}\nstderr:\n{}",
            self.cmd, o.stdout, o.stderr
        );
        assert_eq!(o.stderr, "", "{:?}: unexpected stderr", self.cmd);
        o.stdout
    }

    /// Runs the command, expects an error: exit status 2, nothing on stdout and one message
    /// on stderr. Returns stderr.
    pub fn error(&mut self) -> String {
        let o = self.output();
        assert_eq!(
            o.code, 2,
            "{:?}: expected exit status 2\nstdout:\n{}\nstderr:\n{}",
            self.cmd, o.stdout, o.stderr
        );
        assert_eq!(
            o.stdout, "",
            "{:?}: an error must print nothing on stdout",
            self.cmd
        );
        assert!(!o.stderr.trim().is_empty(), "{:?}: no message", self.cmd);
        o.stderr
    }

    /// Runs the command, expects an error from retrograde itself (not clap): exactly one line
    /// `retrograde: MESSAGE`. Returns MESSAGE.
    pub fn message(&mut self) -> String {
        let e = self.error();
        let msg = e
            .strip_prefix("retrograde: ")
            .unwrap_or_else(|| panic!("message without the program name: {e:?}"));
        let msg = msg
            .strip_suffix('\n')
            .unwrap_or_else(|| panic!("message without a final newline: {e:?}"));
        assert!(!msg.contains('\n'), "a one-line message expected: {e:?}");
        msg.to_string()
    }
}

/// One row of `solve --output csv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub vertex: u32,
    pub outcome: String,
    pub remoteness: Option<u32>,
    pub best: Option<u32>,
}

impl Row {
    /// `W7`, `L0`, `T2`, `D`: short forms for assertions.
    pub fn short(&self) -> String {
        let letter = match self.outcome.as_str() {
            "win" => "W",
            "loss" => "L",
            "tie" => "T",
            "draw" => "D",
            o => panic!("unknown outcome {o:?}"),
        };
        match self.remoteness {
            Some(r) => format!("{letter}{r}"),
            None => letter.to_string(),
        }
    }
}

/// Parses `solve --output csv` (any extra columns are ignored); checks the header, the field
/// rules of the contract, and that rows come in vertex order.
pub fn parse_csv(text: &str) -> Vec<Row> {
    let mut lines = text.lines();
    let header = lines.next().expect("a header");
    assert!(
        header.starts_with("vertex,outcome,remoteness,best_move"),
        "header {header:?}"
    );
    let width = header.split(',').count();
    let rows: Vec<Row> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), width, "row {l:?} under header {header:?}");
            let opt = |s: &str| -> Option<u32> {
                (!s.is_empty()).then(|| s.parse().unwrap_or_else(|_| panic!("number in {l:?}")))
            };
            let row = Row {
                vertex: f[0].parse().expect("vertex id"),
                outcome: f[1].to_string(),
                remoteness: opt(f[2]),
                best: opt(f[3]),
            };
            assert_eq!(
                row.outcome == "draw",
                row.remoteness.is_none(),
                "remoteness is empty exactly for a draw: {l:?}"
            );
            row
        })
        .collect();
    rows
}

/// The short values (`W7`, `D`, …) of all rows, in order.
pub fn shorts(text: &str) -> Vec<String> {
    let rows = parse_csv(text);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.vertex as usize, i, "rows in id order");
    }
    rows.iter().map(Row::short).collect()
}

/// Parses JSON, with the text in the failure message.
pub fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("invalid JSON ({e}):\n{text}"))
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// A game graph described independently of the crates under test.
#[derive(Clone, Debug, Default)]
pub struct Game {
    pub n: u32,
    /// (from, to, go-again)
    pub edges: Vec<(u32, u32, bool)>,
    /// Primitive labels: `'w'`, `'l'` or `'t'`.
    pub terminal: Vec<(u32, char)>,
    /// Owners, when the graph is an arena.
    pub owners: Option<Vec<u8>>,
}

/// A value in the reference solver.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Val {
    W(u32),
    L(u32),
    T(u32),
    D,
}

impl Val {
    /// As seen one move earlier; `keeps` when the same player moves again.
    fn through(self, keeps: bool) -> Val {
        match (self, keeps) {
            (Val::W(r), false) => Val::L(r + 1),
            (Val::L(r), false) => Val::W(r + 1),
            (Val::W(r), true) => Val::W(r + 1),
            (Val::L(r), true) => Val::L(r + 1),
            (Val::T(r), _) => Val::T(r + 1),
            (Val::D, _) => Val::D,
        }
    }
}

impl Game {
    /// A random game: `n` vertices, about `m` edges (with parallel edges and self-loops),
    /// `again_pct` percent go-again edges (unless an arena), some primitive labels.
    pub fn random(rng: &mut Rng, n: u32, m: usize, again_pct: u64, arena: bool) -> Game {
        let mut g = Game {
            n,
            ..Game::default()
        };
        for _ in 0..m {
            let u = rng.below(n as u64) as u32;
            // Mostly short hops, so that games end and remoteness varies.
            let v = if rng.chance(70) {
                (u as u64 + 1 + rng.below(3)).min(n as u64 - 1) as u32
            } else {
                rng.below(n as u64) as u32
            };
            let again = !arena && rng.chance(again_pct);
            g.edges.push((u, v, again));
        }
        for v in 0..n {
            if rng.chance(5) {
                let p = ['w', 'l', 't'][rng.below(3) as usize];
                g.terminal.push((v, p));
            }
        }
        if arena {
            g.owners = Some((0..n).map(|_| rng.below(2) as u8).collect());
        }
        g
    }

    fn keeps(&self, u: u32, v: u32, again: bool) -> bool {
        match &self.owners {
            Some(o) => o[u as usize] == o[v as usize],
            None => again,
        }
    }

    /// The contract's values and best moves, by a naive level-by-level fixpoint.
    pub fn solve(&self, no_move: char) -> Vec<(Val, Option<u32>)> {
        let n = self.n as usize;
        let mut out: Vec<Vec<(u32, bool)>> = vec![Vec::new(); n];
        for &(u, v, again) in &self.edges {
            out[u as usize].push((v, self.keeps(u, v, again)));
        }
        let mut label: Vec<Option<char>> = vec![None; n];
        for &(v, p) in &self.terminal {
            label[v as usize] = Some(p);
        }
        let fixed = |v: usize| -> Option<Val> {
            let p = label[v].or_else(|| out[v].is_empty().then_some(no_move))?;
            Some(match p {
                'w' => Val::W(0),
                'l' => Val::L(0),
                _ => Val::T(0),
            })
        };
        let mut val: Vec<Option<Val>> = (0..n).map(fixed).collect();
        // Wins and losses, one remoteness level at a time.
        for r in 1.. {
            let before = val.clone();
            let mut changed = false;
            for u in 0..n {
                if before[u].is_some() {
                    continue;
                }
                let seen: Vec<Option<Val>> = out[u]
                    .iter()
                    .map(|&(v, k)| before[v as usize].map(|x| x.through(k)))
                    .collect();
                if seen.contains(&Some(Val::W(r))) {
                    val[u] = Some(Val::W(r));
                    changed = true;
                } else if seen.iter().all(|s| matches!(s, Some(Val::L(_))))
                    && seen.contains(&Some(Val::L(r)))
                {
                    val[u] = Some(Val::L(r));
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        // Ties, one level at a time, among the rest.
        for r in 1.. {
            let before = val.clone();
            let mut changed = false;
            for u in 0..n {
                if before[u].is_none()
                    && out[u]
                        .iter()
                        .any(|&(v, _)| before[v as usize] == Some(Val::T(r - 1)))
                {
                    val[u] = Some(Val::T(r));
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let val: Vec<Val> = val.into_iter().map(|v| v.unwrap_or(Val::D)).collect();
        (0..n)
            .map(|u| {
                let best = if fixed(u).is_some() {
                    None
                } else {
                    let b = out[u]
                        .iter()
                        .filter(|&&(v, k)| val[v as usize].through(k) == val[u])
                        .map(|&(v, _)| v)
                        .min();
                    assert!(b.is_some(), "reference: no best move at {u}");
                    b
                };
                (val[u], best)
            })
            .collect()
    }

    /// The expected CSV of `solve --output csv` (arenas get owner,winner columns).
    pub fn expected_csv(&self, no_move: char) -> String {
        let mut s = String::from("vertex,outcome,remoteness,best_move");
        if self.owners.is_some() {
            s.push_str(",owner,winner");
        }
        s.push('\n');
        for (v, (val, best)) in self.solve(no_move).into_iter().enumerate() {
            let (o, r) = match val {
                Val::W(r) => ("win", r.to_string()),
                Val::L(r) => ("loss", r.to_string()),
                Val::T(r) => ("tie", r.to_string()),
                Val::D => ("draw", String::new()),
            };
            let b = best.map_or(String::new(), |b| b.to_string());
            write!(s, "{v},{o},{r},{b}").unwrap();
            if let Some(owners) = &self.owners {
                let owner = owners[v];
                let winner = match val {
                    Val::W(_) => owner.to_string(),
                    Val::L(_) => (1 - owner).to_string(),
                    _ => String::new(),
                };
                write!(s, ",{owner},{winner}").unwrap();
            }
            s.push('\n');
        }
        s
    }

    /// The game in the `rg` format.
    pub fn to_rg(&self) -> String {
        let mut s = format!("# a random game\nvertices {}\n", self.n);
        for &(u, v, again) in &self.edges {
            if again {
                writeln!(s, "{u} {v} again").unwrap();
            } else {
                writeln!(s, "{u}\t{v}").unwrap();
            }
        }
        for &(v, p) in &self.terminal {
            let word = match p {
                'w' => "win",
                'l' => "loss",
                _ => "tie",
            };
            writeln!(s, "terminal {v} {word}").unwrap();
        }
        if let Some(owners) = &self.owners {
            for (v, &o) in owners.iter().enumerate() {
                if o == 1 {
                    writeln!(s, "owner {v} 1").unwrap();
                }
            }
        }
        s
    }

    /// The game in the JSON format.
    pub fn to_json(&self) -> String {
        let edges: Vec<serde_json::Value> = self
            .edges
            .iter()
            .map(|&(u, v, again)| {
                if again {
                    serde_json::json!([u, v, "again"])
                } else {
                    serde_json::json!([u, v])
                }
            })
            .collect();
        let terminal: Vec<serde_json::Value> = self
            .terminal
            .iter()
            .map(|&(v, p)| {
                let word = match p {
                    'w' => "win",
                    'l' => "loss",
                    _ => "tie",
                };
                serde_json::json!([v, word])
            })
            .collect();
        let mut obj = serde_json::json!({
            "vertices": self.n,
            "edges": edges,
            "terminal": terminal,
        });
        if let Some(o) = &self.owners {
            obj["owners"] = serde_json::json!(o);
        }
        serde_json::to_string_pretty(&obj).unwrap()
    }

    /// The game in GamesmanClassic's `.grf` format (no arenas): one record per vertex.
    pub fn to_grf(&self) -> String {
        assert!(self.owners.is_none(), "grf has no owners");
        let mut label: Vec<char> = vec!['u'; self.n as usize];
        for &(v, p) in &self.terminal {
            label[v as usize] = p;
        }
        let mut children: Vec<Vec<String>> = vec![Vec::new(); self.n as usize];
        for &(u, v, again) in &self.edges {
            children[u as usize].push(if again {
                format!("{v}g")
            } else {
                v.to_string()
            });
        }
        let mut s = format!("{}\n", self.n);
        // Records in reverse order: the format allows any order.
        for v in (0..self.n as usize).rev() {
            writeln!(s, "{v} {} {}", label[v], children[v].len()).unwrap();
            writeln!(s, "{}", children[v].join(" ")).unwrap();
        }
        s.push_str("notes after the last record are ignored\n");
        s
    }
}

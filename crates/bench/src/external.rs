//! Running the external programs: the `retrograde` CLI and the C++ seed baseline, timed from
//! spawn to exit, optionally under GNU `time` for their peak resident set size.

use serde_json::Value as Json;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Where GNU `time` is looked for.
const GNU_TIME: &str = "/usr/bin/time";

/// One finished run of a program.
#[derive(Debug)]
pub struct ProcRun {
    /// From spawn to exit, as seen by this process.
    pub wall: Duration,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
    /// Its peak resident set size, when it ran under GNU `time`.
    pub max_rss_bytes: Option<u64>,
}

/// Runs programs, under GNU `time -f %M` when that works here (the report of `time` goes to
/// a scratch file, so the program's own output is untouched).
#[derive(Debug)]
pub struct Runner {
    /// The scratch file GNU `time` writes to; `None` when GNU `time` is unusable.
    rss_file: Option<PathBuf>,
}

impl Runner {
    /// A runner using `scratch` (a file path) for GNU `time`'s report, if `time` works.
    pub fn new(scratch: PathBuf) -> Runner {
        let works = Command::new(GNU_TIME)
            .args([OsStr::new("-f"), OsStr::new("%M"), OsStr::new("-o")])
            .arg(&scratch)
            .arg("true")
            .output()
            .is_ok_and(|o| o.status.success())
            && read_rss(&scratch).is_some();
        Runner {
            rss_file: works.then_some(scratch),
        }
    }

    /// Whether peak RSS is measured.
    pub fn measures_rss(&self) -> bool {
        self.rss_file.is_some()
    }

    /// Runs `program args…` to completion.
    ///
    /// # Errors
    /// When it cannot start or exits unsuccessfully (with its standard error).
    pub fn run(&self, program: &Path, args: &[&OsStr]) -> Result<ProcRun, String> {
        let mut cmd = match &self.rss_file {
            Some(f) => {
                let mut c = Command::new(GNU_TIME);
                c.args([OsStr::new("-f"), OsStr::new("%M"), OsStr::new("-o")])
                    .arg(f)
                    .arg(program);
                c
            }
            None => Command::new(program),
        };
        cmd.args(args);
        let start = Instant::now();
        let out = cmd
            .output()
            .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
        let wall = start.elapsed();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if !out.status.success() {
            return Err(format!(
                "{} {} failed ({}):\n{}",
                program.display(),
                args.iter()
                    .map(|a| a.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join(" "),
                out.status,
                stderr.trim_end()
            ));
        }
        let max_rss_bytes = self.rss_file.as_deref().and_then(read_rss);
        Ok(ProcRun {
            wall,
            stdout,
            stderr,
            max_rss_bytes,
        })
    }
}

/// GNU `time`'s `%M` (KiB) from its report file, in bytes: the last line (a failed command
/// adds a status line before it).
fn read_rss(path: &Path) -> Option<u64> {
    let text = fs::read_to_string(path).ok()?;
    let kib: u64 = text.lines().last()?.trim().parse().ok()?;
    Some(kib * 1024)
}

/// The first line of `g++ --version`, or `None` when there is no working `g++`.
pub fn gxx_version() -> Option<String> {
    let out = Command::new("g++").arg("--version").output().ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("g++")
            .to_string()
    })
}

/// The flags the baseline is compiled with.
pub const CXX_FLAGS: [&str; 3] = ["-O2", "-std=c++17", "-pthread"];

/// Compiles `src` into `exe` with `g++` and [`CXX_FLAGS`], unless `exe` is newer than `src`.
///
/// # Errors
/// When the compiler fails.
pub fn compile_cpp(src: &Path, exe: &Path) -> Result<(), String> {
    let modified = |p: &Path| fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(s), Some(e)) = (modified(src), modified(exe)) {
        if e > s {
            return Ok(());
        }
    }
    let out = Command::new("g++")
        .args(CXX_FLAGS)
        .arg("-o")
        .arg(exe)
        .arg(src)
        .output()
        .map_err(|e| format!("cannot run g++: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "g++ failed on {}:\n{}",
            src.display(),
            String::from_utf8_lossy(&out.stderr).trim_end()
        ));
    }
    Ok(())
}

/// The counts the C++ baseline prints: `win W loss L draw D`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CppCounts {
    /// Won positions.
    pub win: u64,
    /// Lost positions.
    pub loss: u64,
    /// Neither (the baseline has no ties).
    pub draw: u64,
}

/// Parses the baseline's standard output.
///
/// # Errors
/// When it is not `win W loss L draw D`.
pub fn parse_cpp_counts(stdout: &str) -> Result<CppCounts, String> {
    let words: Vec<&str> = stdout.split_whitespace().collect();
    let num = |i: usize| words.get(i).and_then(|w| w.parse::<u64>().ok());
    match (words.as_slice(), num(1), num(3), num(5)) {
        (["win", _, "loss", _, "draw", _], Some(win), Some(loss), Some(draw)) => {
            Ok(CppCounts { win, loss, draw })
        }
        _ => Err(format!(
            "unexpected C++ output {:?} (expected \"win W loss L draw D\")",
            stdout.trim()
        )),
    }
}

/// The baseline's phase times in milliseconds, `[parse, build, solve]`, from its standard
/// error line `cpp_ms parse=.. build=.. solve=..`.
///
/// # Errors
/// When there is no such line.
pub fn parse_cpp_phases(stderr: &str) -> Result<[f64; 3], String> {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("cpp_ms "))
        .ok_or_else(|| format!("no \"cpp_ms\" line in C++ stderr {:?}", stderr.trim()))?;
    let mut ms = [f64::NAN; 3];
    for field in line.split_whitespace().skip(1) {
        let (key, value) = field.split_once('=').unwrap_or((field, ""));
        let slot = match key {
            "parse" => 0,
            "build" => 1,
            "solve" => 2,
            _ => continue,
        };
        ms[slot] = value
            .parse()
            .map_err(|_| format!("bad C++ phase time {field:?}"))?;
    }
    if ms.iter().any(|t| t.is_nan()) {
        return Err(format!("incomplete C++ phase line {line:?}"));
    }
    Ok(ms)
}

/// What `retrograde solve FILE --summary --output json` reports (the fields used here).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliSummary {
    /// Vertices.
    pub vertices: u64,
    /// Edges.
    pub edges: u64,
    /// Won positions.
    pub win: u64,
    /// Lost positions.
    pub loss: u64,
    /// Tied positions.
    pub tie: u64,
    /// Drawn positions.
    pub draw: u64,
    /// The longest remoteness (`null` when no position has one).
    pub max_remoteness: Option<u64>,
    /// The CLI's own peak RSS.
    pub peak_rss_bytes: u64,
}

/// Parses the CLI's JSON summary.
///
/// # Errors
/// When it is not a JSON object with the expected fields.
pub fn parse_cli_summary(stdout: &str) -> Result<CliSummary, String> {
    let json: Json = serde_json::from_str(stdout.trim())
        .map_err(|e| format!("CLI output is not JSON ({e}): {:?}", stdout.trim()))?;
    let field = |name: &str| {
        json.get(name)
            .and_then(Json::as_u64)
            .ok_or_else(|| format!("CLI JSON has no integer field {name:?}: {json}"))
    };
    let max_remoteness = match json.get("max_remoteness") {
        None | Some(Json::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or_else(|| format!("CLI JSON max_remoteness is not an integer: {v}"))?,
        ),
    };
    Ok(CliSummary {
        vertices: field("vertices")?,
        edges: field("edges")?,
        win: field("win")?,
        loss: field("loss")?,
        tie: field("tie")?,
        draw: field("draw")?,
        max_remoteness,
        peak_rss_bytes: field("peak_rss_bytes")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cpp_output() {
        assert_eq!(
            parse_cpp_counts("win 5 loss 3 draw 2\n").unwrap(),
            CppCounts {
                win: 5,
                loss: 3,
                draw: 2
            }
        );
        assert!(parse_cpp_counts("win 5 loss 3\n").is_err());
        assert_eq!(
            parse_cpp_phases("cpp_ms parse=1.500 build=2.000 solve=0.250\n").unwrap(),
            [1.5, 2.0, 0.25]
        );
        assert!(parse_cpp_phases("cpp_ms parse=1.5\n").is_err());
    }

    #[test]
    fn parses_cli_summary() {
        let s = parse_cli_summary(
            r#"{"vertices":4,"edges":5,"win":2,"loss":2,"tie":0,"draw":0,
                "max_remoteness":3,"seconds":0.01,"peak_rss_bytes":4096}"#,
        )
        .unwrap();
        assert_eq!((s.vertices, s.edges, s.max_remoteness), (4, 5, Some(3)));
        assert_eq!(s.peak_rss_bytes, 4096);
        assert!(parse_cli_summary(r#"{"vertices":4}"#).is_err());
    }
}

//! End-to-end tests of `retrograde serve`: the real binary on databases made here, its URL
//! read from what it prints; the API compared byte for byte with `retrograde query --output
//! json`; bad requests; a bounded load test on loopback; and the page in a real browser
//! (Debian's Chromium over WebDriver, with `chromedriver`).
//!
//! The HTTP and WebDriver clients are a few lines over `std::net` (loopback only), so the
//! tests need no client crates.

#[macro_use]
#[allow(dead_code)] // the helpers shared with cli.rs are not all used here
mod util;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use util::{example, Dir};

/// A test of the page in a real browser. Built as ignored, with the reason, when Chromium
/// or chromedriver is missing (`build.rs` looks), so that `cargo test` counts it as ignored
/// rather than as passed without running; under CI (`CI=true`) always built to run.
macro_rules! browser_test {
    ($name:ident, |$dir:ident, $cmd:ident| $body:block) => {
        rtest!(
            #[cfg_attr(
                no_browser,
                ignore = "needs chromium and chromedriver (apt-get install chromium chromium-driver)"
            )]
            $name,
            |$dir, $cmd| $body
        );
    };
}

/// A running `retrograde serve`, stopped when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    /// Starts `retrograde serve DBS --port 0` in `dir` and reads the URL it prints.
    fn start(dir: &Dir, dbs: &[&str]) -> Server {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_retrograde"));
        cmd.arg("serve").args(dbs).args(["--port", "0"]);
        Server::spawn(dir, cmd)
    }

    /// [`Server::start`] with at most `files` open files (`ulimit -n`).
    fn start_with_files(dir: &Dir, dbs: &[&str], files: u32) -> Server {
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(format!(
            "ulimit -n {files} && exec '{}' serve {} --port 0",
            env!("CARGO_BIN_EXE_retrograde"),
            dbs.join(" ")
        ));
        Server::spawn(dir, cmd)
    }

    fn spawn(dir: &Dir, mut cmd: Command) -> Server {
        let mut child = cmd
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start retrograde serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut line)
            .expect("read the first line");
        let url = line
            .trim()
            .strip_prefix("listening on http://")
            .and_then(|u| u.strip_suffix('/'))
            .unwrap_or_else(|| panic!("no URL printed: {line:?}"));
        let addr: SocketAddr = url.parse().expect("an address");
        assert!(addr.ip().is_loopback(), "serves on {addr} by default");
        Server { child, addr }
    }

    fn get(&self, path: &str) -> Reply {
        request(self.addr, "GET", path, None)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP reply.
#[derive(Debug)]
struct Reply {
    status: u16,
    content_type: String,
    body: String,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }

    /// The message of a JSON error with this status.
    fn error(&self, status: u16) -> String {
        assert_eq!(self.status, status, "{self:?}");
        assert_eq!(self.content_type, "application/json", "{self:?}");
        let j = self.json();
        j["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no \"error\" in {j}"))
            .to_string()
    }
}

/// One HTTP/1.1 request on a fresh connection (`Connection: close`), to loopback only.
fn request(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> Reply {
    request_to(addr, &addr.to_string(), method, path, body)
}

/// [`request`] with this `Host` header.
fn request_to(addr: SocketAddr, host: &str, method: &str, path: &str, body: Option<&str>) -> Reply {
    assert!(addr.ip().is_loopback(), "tests only talk to this machine");
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(10)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let body = body.unwrap_or("");
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    // Headers, then the body: Content-Length bytes, chunks, or up to the close.
    let mut r = BufReader::new(s);
    let mut line = String::new();
    r.read_line(&mut line).expect("a status line");
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {line:?}"));
    let (mut content_type, mut length, mut chunked) = (String::new(), None, false);
    loop {
        line.clear();
        r.read_line(&mut line).expect("a header");
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (k, v) = l.split_once(':').expect("a header");
        match k.to_ascii_lowercase().as_str() {
            "content-type" => content_type = v.trim().to_string(),
            "content-length" => length = v.trim().parse::<usize>().ok(),
            "transfer-encoding" => chunked = v.trim().eq_ignore_ascii_case("chunked"),
            _ => {}
        }
    }
    let mut raw = Vec::new();
    if chunked {
        loop {
            line.clear();
            r.read_line(&mut line).expect("a chunk size");
            let n = usize::from_str_radix(line.trim(), 16).expect("hex chunk size");
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk).expect("a chunk");
            if n == 0 {
                break;
            }
            raw.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(n) = length {
        raw.resize(n, 0);
        r.read_exact(&mut raw).expect("the body");
    } else {
        r.read_to_end(&mut raw).expect("the body");
    }
    let body = String::from_utf8(raw).expect("a UTF-8 body");
    Reply {
        status,
        content_type,
        body,
    }
}

/// Percent-encodes a query parameter's value.
fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~,".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The databases of these tests: connect4 4x4, tic-tac-toe, quixo 3x3 and a graph.
fn databases(dir: &Dir) {
    let game = |args: &[&str]| {
        dir.command().args(["game"]).args(args).arg("-q").stdout();
    };
    game(&["connect4", "--width", "4", "--height", "4", "--db", "c4"]);
    game(&["tictactoe", "--db", "t3"]);
    game(&["quixo", "--size", "3", "--db", "q3"]);
    dir.command()
        .args(["solve", &example("loopy.rg"), "--db", "g", "-q"])
        .stdout();
}

/// `retrograde query DB ARGS --output json`.
fn query(dir: &Dir, db: &str, args: &[&str]) -> String {
    dir.command()
        .args(["query", db, "--output", "json"])
        .args(args)
        .stdout()
}

/// Move sequences from the start of `db`, walking the answers with a fixed generator:
/// (moves, the answer after them).
fn walks(server: &Server, db: &str, count: usize, seed: u64) -> Vec<(Vec<String>, String)> {
    let mut rng = util::Rng::new(seed);
    let mut out = Vec::new();
    for _ in 0..count {
        let mut moves: Vec<String> = Vec::new();
        let steps = rng.below(12);
        loop {
            let path = format!("/api/query?db={db}&moves={}", enc(&moves.join(",")));
            let r = server.get(&path);
            assert_eq!(r.status, 200, "{path}: {r:?}");
            let j = r.json();
            let legal = j["moves"].as_array().unwrap();
            if moves.len() as u64 >= steps || legal.is_empty() {
                out.push((moves, r.body));
                break;
            }
            let pick = &legal[rng.below(legal.len() as u64) as usize];
            moves.push(pick["move"].as_str().unwrap().to_string());
        }
    }
    out
}

rtest!(
    serve_answers_games_with_scores_as_query_does,
    |dir, _cmd| {
        // Dots and Boxes and Kalah databases, and a scored graph's: every answer carries the
        // score, the same bytes as `query`'s.
        let game = |args: &[&str]| {
            dir.command().args(["game"]).args(args).arg("-q").stdout();
        };
        game(&["dots-and-boxes", "--rows", "1", "--cols", "2", "--db", "db"]);
        game(&["kalah", "--pits", "2", "--seeds", "2", "--db", "k"]);
        dir.command()
            .args(["solve", &util::example("scored.rg"), "--db", "gs", "-q"])
            .stdout();
        let server = Server::start(&dir, &["db", "k", "gs"]);
        for (db, seed) in [("db", 4), ("k", 5)] {
            for (moves, body) in walks(&server, db, 6, seed) {
                let want = query(&dir, db, &["--moves", &moves.join(",")]);
                assert_eq!(format!("{body}\n"), want, "{db} after {moves:?}");
                let j: Value = serde_json::from_str(&body).unwrap();
                assert!(j["score"].is_i64(), "{db}: {body}");
                assert!(
                    j["moves"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .all(|m| m["score"].is_i64()),
                    "{db}: {body}"
                );
            }
        }
        for v in ["0", "4", "7", "12"] {
            let r = server.get(&format!("/api/query?db=gs&position={v}"));
            assert_eq!(
                format!("{}\n", r.body),
                query(&dir, "gs", &["--position", v])
            );
            assert!(r.json()["score"].is_i64(), "{}", r.body);
        }
    }
);

rtest!(serve_answers_as_query_does_byte_for_byte, |dir, cmd| {
    databases(&dir);
    let server = Server::start(&dir, &["c4", "t3", "q3", "g"]);
    let list = server.get("/api/databases").json();
    let games: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["game"].as_str().unwrap())
        .collect();
    assert_eq!(games, ["connect4", "tictactoe", "quixo", "graph"]);
    assert_eq!(list[0]["id"], "c4");
    assert_eq!(list[0]["name"], "connect4 4x4");

    for (db, seed) in [("c4", 1), ("t3", 2), ("q3", 3)] {
        for (moves, body) in walks(&server, db, 6, seed) {
            let want = query(&dir, db, &["--moves", &moves.join(",")]);
            assert_eq!(format!("{body}\n"), want, "{db} after {moves:?}");
            // The same position by its notation.
            let position = serde_json::from_str::<Value>(&body).unwrap()["position"]
                .as_str()
                .unwrap()
                .to_string();
            let by_position =
                server.get(&format!("/api/query?db={db}&position={}", enc(&position)));
            assert_eq!(by_position.status, 200);
            assert_eq!(
                format!("{}\n", by_position.body),
                query(&dir, db, &["--position", &position])
            );
        }
    }
    // The start, with no parameter; a board for grid games, none for graphs.
    let start = server.get("/api/query?db=c4");
    assert_eq!(start.content_type, "application/json");
    assert_eq!(format!("{}\n", start.body), query(&dir, "c4", &[]));
    let board = &start.json()["board"];
    assert_eq!(board["rows"], 4);
    assert_eq!(board["cols"], 4);
    assert_eq!(board["cells"], json!(["....", "....", "....", "...."]));
    for v in ["0", "5", "7", "8", "level end"] {
        let r = server.get(&format!("/api/query?db=g&position={}", enc(v)));
        assert_eq!(
            format!("{}\n", r.body),
            query(&dir, "g", &["--position", v])
        );
        assert!(r.json().get("board").is_none());
    }
    // One database served: no db= needed.
    drop(server);
    let one = Server::start(&dir, &["t3"]);
    assert_eq!(
        format!("{}\n", one.get("/api/query?moves=b2,a1").body),
        query(&dir, "t3", &["--moves", "b2,a1"])
    );
    let _ = cmd;
});

rtest!(serve_bad_requests_are_400_with_a_json_error, |dir, cmd| {
    databases(&dir);
    let server = Server::start(&dir, &["c4", "g"]);
    let e = server.get("/api/query?db=c4&moves=1,2,9").error(400);
    assert!(e.contains("move 3") && e.contains("\"9\""), "{e}");
    assert!(e.contains("columns are 1 to 4"), "{e}");
    let e = server.get("/api/query?db=c4&moves=1,1,1,1,1").error(400);
    assert!(e.contains("move 5"), "{e}");
    let e = server.get("/api/query?moves=1").error(400);
    assert!(e.contains("c4, g"), "which database: {e}");
    let e = server.get("/api/query?db=nope").error(400);
    assert!(e.contains("\"nope\""), "{e}");
    // A position and moves: the moves are played from the position, as `query` does.
    let after = server.get("/api/query?db=c4&moves=1,2&position=....%2F....%2F....%2F....");
    assert_eq!(after.status, 200, "{}", after.body);
    assert_eq!(
        format!("{}\n", after.body),
        query(
            &dir,
            "c4",
            &["--position", "..../..../..../....", "--moves", "1,2"]
        )
    );
    let e = server
        .get("/api/query?db=c4&moves=1,9&position=....%2F....%2F....%2F....")
        .error(400);
    assert!(e.contains("move 2"), "{e}");
    let e = server.get("/api/query?db=g&moves=1&position=0").error(400);
    assert!(e.contains("not both"), "{e}");
    let e = server.get("/api/query?db=c4&position=xx").error(400);
    assert!(e.contains("position \"xx\""), "{e}");
    let e = server.get("/api/query?db=c4&colour=red").error(400);
    assert!(e.contains("\"colour\""), "{e}");
    let e = server.get("/api/query?db=g&moves=").error(400);
    assert!(e.contains("no start vertex"), "{e}");
    let e = server.get("/api/query?db=g&position=99").error(400);
    assert!(e.contains("neither a vertex id"), "{e}");
    // Bytes that are not UTF-8, stray percent signs, far too many moves, a huge position.
    server.get("/api/query?db=c4&moves=%FF%FE").error(400);
    server.get("/api/query?db=c4&moves=%").error(400);
    let many = vec!["1"; 1_001].join(",");
    let e = server
        .get(&format!("/api/query?db=c4&moves={many}"))
        .error(400);
    assert!(e.contains("at most 1000"), "{e}");
    // Issue 25: a parameter given twice is refused, not the last one taken.
    let e = server.get("/api/query?db=c4&db=g").error(400);
    assert!(e.contains("db is given twice"), "{e}");
    let e = server.get("/api/query?db=c4&moves=1&moves=2").error(400);
    assert!(e.contains("moves is given twice"), "{e}");
    let long = "x".repeat(20_000);
    server
        .get(&format!("/api/query?db=c4&position={long}"))
        .error(400);
    // Unknown pages and methods.
    server.get("/nothing/here").error(404);
    assert_eq!(
        request(server.addr, "POST", "/api/query", Some("{}")).status,
        405
    );
    // The server is still well after all that.
    assert_eq!(server.get("/api/query?db=c4&moves=2").status, 200);
    let _ = cmd;
});

/// Flips bytes of `file` in place, from a quarter of the way in to its end: every block
/// there fails its checksum (the header may be whole).
fn damage(file: &std::path::Path) {
    let mut bytes = std::fs::read(file).unwrap();
    let n = bytes.len();
    for i in (n / 4..n).step_by(61) {
        bytes[i] ^= 0x5a;
    }
    let mut f = std::fs::OpenOptions::new().write(true).open(file).unwrap();
    f.write_all(&bytes).unwrap();
}

/// The command in backquotes in a message (the repair a 500 names).
fn quoted_command(message: &str) -> String {
    let mut parts = message.split('`');
    parts.next();
    parts
        .next()
        .unwrap_or_else(|| panic!("no command in {message:?}"))
        .to_string()
}

/// Runs a command line as a shell would, with this build's `retrograde` first on the PATH.
fn run_shell(dir: &Dir, line: &str) -> std::process::Output {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_retrograde"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .args(["-c", &format!("{line} -q")])
        .env("PATH", path)
        .current_dir(dir.path())
        .output()
        .unwrap()
}

/// Asks `server` every path of `asked`: (path, status, body).
fn ask_all(server: &Server, asked: &[(String, String)]) -> Vec<(u16, String)> {
    asked
        .iter()
        .map(|(path, _)| {
            let r = server.get(path);
            (r.status, r.body)
        })
        .collect()
}

rtest!(
    a_running_server_answers_from_a_repaired_database,
    |dir, cmd| {
        // A running server kept failing after a repair: it read the damaged file it had first
        // opened until it was restarted. For a tier game (sorted keys), a chess set and a graph:
        // reference answers from one server; a second server started, a file damaged under it
        // (its answers that read the file are 500s naming the file and the repair), the repair
        // command that message names run, and then every answer of the same server right.
        let game = |args: &[&str]| {
            dir.command().args(["game"]).args(args).arg("-q").stdout();
        };
        game(&["connect4", "--width", "4", "--height", "4", "--db", "c4"]);
        game(&["chess", "--up-to", "3", "--db", "cs"]);
        let loopy = example("loopy.rg");
        dir.command()
            .args(["solve", &loopy, "--db", "g", "-q"])
            .stdout();
        let fen = "8/8/8/4k3/8/8/8/4KQ2 w - - 0 1";
        // What is asked: walks from the start, from a chess position, and every vertex.
        let asked: Vec<(String, String)> = {
            let reference = Server::start(&dir, &["c4", "cs", "g"]);
            let mut asked = Vec::new();
            for (moves, body) in walks(&reference, "c4", 40, 7) {
                let path = format!("/api/query?db=c4&moves={}", enc(&moves.join(",")));
                asked.push((path, body));
            }
            let mut rng = util::Rng::new(8);
            for _ in 0..30 {
                let mut moves: Vec<String> = Vec::new();
                for _ in 0..rng.below(6) {
                    let path = format!(
                        "/api/query?db=cs&position={}&moves={}",
                        enc(fen),
                        enc(&moves.join(","))
                    );
                    let j = reference.get(&path).json();
                    let legal = j["moves"].as_array().unwrap();
                    if legal.is_empty() {
                        break;
                    }
                    let pick = &legal[rng.below(legal.len() as u64) as usize];
                    moves.push(pick["move"].as_str().unwrap().to_string());
                }
                let path = format!(
                    "/api/query?db=cs&position={}&moves={}",
                    enc(fen),
                    enc(&moves.join(","))
                );
                let body = reference.get(&path).body;
                asked.push((path, body));
            }
            for v in 0..9 {
                let path = format!("/api/query?db=g&position={v}");
                let body = reference.get(&path).body;
                asked.push((path, body));
            }
            asked
        };
        for (path, body) in &asked {
            assert!(body.starts_with("{\"position\""), "{path}: {body}");
        }
        let server = Server::start(&dir, &["c4", "cs", "g"]);
        // At work before anything is damaged (the start reads the first tiers only).
        assert_eq!(server.get("/api/query?db=c4").status, 200);
        // A values file the walks read (Connect-4's after 8 moves, the chess position's
        // table), and the graph's values.
        let damaged =
            ["c4/08.values", "cs/KQvK.values", "g/graph.values"].map(|f| dir.path().join(f));
        for f in &damaged {
            damage(f);
        }
        let during = ask_all(&server, &asked);
        let mut repairs = std::collections::BTreeSet::new();
        for ((path, want), (status, body)) in asked.iter().zip(&during) {
            if *status == 200 {
                assert_eq!(body, want, "{path}: a damaged file is never a wrong answer");
                continue;
            }
            assert_eq!(*status, 500, "{path}: {body}");
            let e: Value = serde_json::from_str(body).unwrap();
            let e = e["error"].as_str().unwrap();
            let named = damaged.iter().find(|f| {
                let name = f.file_name().unwrap().to_str().unwrap();
                let db = f.parent().unwrap().file_name().unwrap().to_str().unwrap();
                e.contains(&format!("{db}/{name}"))
            });
            assert!(named.is_some(), "{path}: the damaged file is named: {e}");
            assert!(e.contains("to repair it"), "{path}: {e}");
            repairs.insert(quoted_command(e));
        }
        for db in ["c4", "cs", "g"] {
            let failed = (asked.iter().zip(&during))
                .filter(|((path, _), (status, _))| {
                    path.contains(&format!("db={db}&")) && *status == 500
                })
                .count();
            assert!(failed > 0, "{db}: no answer read the damaged file");
        }
        // The commands the errors name, run as written.
        let want: std::collections::BTreeSet<String> = [
            "retrograde game connect4 --width 4 --height 4 --db c4 --resume".to_string(),
            "retrograde game chess --up-to 3 --db cs --resume".to_string(),
            format!("retrograde solve {loopy} --db g"),
        ]
        .into();
        assert_eq!(repairs, want);
        for line in &repairs {
            let o = run_shell(&dir, line);
            assert!(
                o.status.success(),
                "{line}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        let after = ask_all(&server, &asked);
        for ((path, want), (status, body)) in asked.iter().zip(&after) {
            assert_eq!((*status, body), (200, want), "{path}, after the repair");
        }
        // Another graph solved into the served directory: its answers at the next request,
        // though the old files would still read.
        let other = dir.create("other.rg", "0 1\n1 2\n2 0\n0 3\nscore 3 5\n");
        dir.command()
            .args(["solve", other.to_str().unwrap(), "--db", "g", "-q"])
            .stdout();
        for v in ["0", "3"] {
            let r = server.get(&format!("/api/query?db=g&position={v}"));
            assert_eq!(
                format!("{}\n", r.body),
                query(&dir, "g", &["--position", v])
            );
            assert!(r.json()["score"].is_i64(), "{}", r.body);
        }
        drop(server);
        // A file put back by hand (renamed into place, the description untouched), under a
        // server that read the damaged one: the failed lookup finds the file changed, and the
        // same request is answered from the file there now.
        let f = &damaged[0];
        let kept = dir.path().join("kept.values");
        std::fs::copy(f, &kept).unwrap();
        damage(f);
        let server = Server::start(&dir, &["c4"]);
        let c4: Vec<(String, String)> = (asked.iter())
            .filter(|(path, _)| path.contains("db=c4&"))
            .cloned()
            .collect();
        let during = ask_all(&server, &c4);
        assert!(during.iter().any(|(status, _)| *status == 500));
        std::fs::rename(&kept, f).unwrap();
        let after = ask_all(&server, &c4);
        for ((path, want), (status, body)) in c4.iter().zip(&after) {
            assert_eq!(
                (*status, body),
                (200, want),
                "{path}, after the file was put back"
            );
        }
        let _ = cmd;
    }
);

/// What the page at `path` carries for its first paint (its `#initial` JSON).
fn embedded(server: &Server, path: &str) -> Value {
    let r = server.get(path);
    assert_eq!(r.status, 200, "{path}: {r:?}");
    assert!(r.content_type.starts_with("text/html"), "{r:?}");
    let open = r#"<script id="initial" type="application/json">"#;
    let at = r.body.find(open).expect("the initial data") + open.len();
    let end = at + r.body[at..].find("</script>").expect("its end");
    serde_json::from_str(&r.body[at..end]).unwrap()
}

rtest!(the_page_carries_its_first_position, |dir, cmd| {
    databases(&dir);
    let server = Server::start(&dir, &["c4", "g"]);
    // The start, then a ply per move, each `query`'s answer.
    let page = embedded(&server, "/?db=c4&moves=1,2");
    assert_eq!(page["db"], "c4");
    assert_eq!(page["dbs"], server.get("/api/databases").json());
    let plies = page["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 3);
    for (i, moves) in ["", "1", "1,2"].into_iter().enumerate() {
        let want: Value = serde_json::from_str(&query(&dir, "c4", &["--moves", moves])).unwrap();
        assert_eq!(plies[i]["answer"], want, "ply {i}");
        let listed: Vec<&str> = moves.split(',').filter(|m| !m.is_empty()).collect();
        assert_eq!(plies[i]["query"], json!({ "moves": listed }), "ply {i}");
    }
    assert_eq!(page["error"], Value::Null);
    // A graph without a start vertex: its first vertex, with no error.
    let page = embedded(&server, "/?db=g");
    assert_eq!(page["plies"][0]["query"], json!({"position": "0"}));
    assert_eq!(page["plies"][0]["example"], true);
    assert_eq!(page["error"], Value::Null);
    // A move that fails: the plies before it, and the API's message.
    let page = embedded(&server, "/?db=c4&moves=1,9");
    assert_eq!(page["plies"].as_array().unwrap().len(), 2);
    let e = page["error"].as_str().unwrap();
    assert!(e.contains("move 2") && e.contains("\"9\""), "{e}");
    // Whatever the URL says cannot end the script that carries it.
    let r = server.get("/?db=c4&position=%3C%2Fscript%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E");
    assert!(!r.body.contains("<script>alert"), "{}", r.body);
    let page = embedded(&server, "/?db=c4&position=%3C%2Fscript%3E");
    assert!(page["error"].as_str().unwrap().contains("</script>"));
    let _ = cmd;
});

rtest!(serve_answers_only_to_its_own_address, |dir, cmd| {
    // Issue 25: any Host header was answered, so a page of another site could reach the
    // server by pointing a name of its own at 127.0.0.1 (DNS rebinding).
    databases(&dir);
    let server = Server::start(&dir, &["c4"]);
    let (addr, port) = (server.addr, server.addr.port());
    for good in [
        addr.to_string(),
        format!("localhost:{port}"),
        format!("LocalHost:{port}"),
        format!("[::1]:{port}"),
    ] {
        let r = request_to(addr, &good, "GET", "/api/query?moves=1", None);
        assert_eq!(r.status, 200, "{good}: {r:?}");
    }
    for bad in [
        format!("evil.example:{port}"),
        "evil.example".to_string(),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        format!("192.168.1.1:{port}"),
        format!("localhost.evil.example:{port}"),
        "127.0.0.1".to_string(),
    ] {
        for path in ["/api/query?moves=1", "/", "/api/databases"] {
            let e = request_to(addr, &bad, "GET", path, None).error(403);
            assert!(e.contains("does not name the address"), "{bad}: {e}");
        }
    }
    let _ = cmd;
});

/// How long `GET path` took to answer (with 200).
fn answered_in(addr: SocketAddr, path: &str) -> Duration {
    let t = Instant::now();
    let r = request(addr, "GET", path, None);
    assert_eq!(r.status, 200, "{path}: {r:?}");
    t.elapsed()
}

/// A graph whose vertex 0 has `n` moves (to 1..=n), vertex 1 a move back to 0: a huge
/// answer, and replays that cross it again and again.
fn hub(dir: &Dir, n: u32) {
    let mut text = format!("vertices {}\nstart 0\n1 0\n", n + 1);
    for v in 1..=n {
        text.push_str(&format!("0 {v}\n"));
    }
    dir.create("hub.rg", text);
    dir.command()
        .args(["solve", "hub.rg", "--db", "hub", "-q", "--summary"])
        .stdout();
}

rtest!(
    serve_cuts_a_huge_answer_and_keeps_answering_others,
    |dir, cmd| {
        // Issue 25: a vertex with 10M moves made a 499 MB answer and killed the server; a
        // replay across a 1M-move vertex took a minute. Here 200,000 moves (a test's size).
        hub(&dir, 200_000);
        databases(&dir);
        let server = Server::start(&dir, &["hub", "c4"]);
        let big = server.get("/api/query?db=hub&moves=");
        assert_eq!(big.status, 200, "{big:?}");
        let j = big.json();
        assert_eq!(j["moves"].as_array().unwrap().len(), 1000);
        assert_eq!(j["more"], 199_000);
        // The best come first, ties in the order of the moves (the same as `query`).
        assert_eq!(format!("{}\n", big.body), query(&dir, "hub", &[]));
        let text = dir.command().args(["query", "hub"]).stdout();
        assert!(
            text.contains("\n  and 199000 more\n"),
            "{}",
            &text[text.len() - 100..]
        );
        // A replay of 1000 moves back and forth across the hub.
        let replay = ["1", "0"].repeat(500).join(",");
        let t = Instant::now();
        let r = server.get(&format!("/api/query?db=hub&moves={replay}"));
        assert_eq!(r.status, 200, "{r:?}");
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        // One client hammers the hub while another asks small questions: every one of its
        // answers comes within a second.
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
        let addr = server.addr;
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let big_ones = std::sync::Arc::new(AtomicUsize::new(0));
        let hammer = {
            let (stop, big_ones) = (stop.clone(), big_ones.clone());
            std::thread::spawn(move || {
                while !stop.load(Relaxed) {
                    let r = request(addr, "GET", "/api/query?db=hub&moves=", None);
                    assert!(r.status == 200 || r.status == 503, "{r:?}");
                    big_ones.fetch_add(1, Relaxed);
                }
            })
        };
        let mut worst = Duration::ZERO;
        let t0 = Instant::now();
        let mut i = 0;
        while (i < 40 || big_ones.load(Relaxed) < 4) && t0.elapsed() < Duration::from_secs(30) {
            worst = worst.max(answered_in(
                addr,
                &format!("/api/query?db=c4&moves={}", i % 4 + 1),
            ));
            i += 1;
        }
        stop.store(true, Relaxed);
        hammer.join().unwrap();
        let hammered = big_ones.load(Relaxed);
        assert!(hammered >= 4, "the hub was asked {hammered} times");
        eprintln!("slowest small answer beside a hammered hub ({hammered} big answers): {worst:?}");
        assert!(worst < Duration::from_secs(1), "{worst:?}");
        let _ = cmd;
    }
);

rtest!(
    serve_closes_idle_connections_and_answers_others,
    |dir, cmd| {
        // Issue 25: 300 connections that sent nothing stayed open for good, and with the
        // server's file limit at 256 nobody else was answered until they went away.
        databases(&dir);
        let server = Server::start_with_files(&dir, &["c4"], 256);
        let addr = server.addr;
        let mut idle = Vec::new();
        for i in 0..300 {
            let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).expect("connect");
            if i % 3 == 0 {
                // Half a request (a slow client), the rest never comes.
                s.write_all(b"GET /api/query?moves=1 HTTP/1.1\r\nHost: ")
                    .unwrap();
            }
            idle.push(s);
        }
        let mut worst = Duration::ZERO;
        let started = Instant::now();
        for i in 0..30 {
            worst = worst.max(answered_in(
                addr,
                &format!("/api/query?moves={}", i % 4 + 1),
            ));
        }
        eprintln!("slowest answer beside 300 idle connections: {worst:?}");
        assert!(worst < Duration::from_secs(1), "{worst:?}");
        // Those still open when the others came are closed after 10 s of nothing.
        std::thread::sleep(Duration::from_secs(12).saturating_sub(started.elapsed()));
        for mut s in idle {
            s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            let mut buf = [0u8; 512];
            // Closed: the end of the stream (a refusal or a timeout's 408 may come first).
            loop {
                match s.read(&mut buf) {
                    Ok(0) => break,
                    Ok(_) => continue,
                    Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
                    Err(e) => panic!("an idle connection is still open after 12 s: {e}"),
                }
            }
        }
        assert_eq!(server.get("/api/query?moves=1").status, 200);
        let _ = cmd;
    }
);

rtest!(serve_command_errors_are_exit_2, |dir, cmd| {
    let e = cmd.args(["serve", "missing"]).message();
    assert!(e.contains("missing: not a directory"), "{e}");
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let e = dir.command().args(["serve", "empty"]).message();
    assert!(e.contains("empty"), "{e}");
    dir.command()
        .args(["game", "tictactoe", "--db", "t3", "-q"])
        .stdout();
    let e = dir
        .command()
        .args(["serve", "t3", "--host", "no such host.invalid"])
        .message();
    assert!(e.contains("--host"), "{e}");
    // A port already taken.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let e = dir
        .command()
        .args(["serve", "t3", "--port", &port])
        .message();
    assert!(e.contains("cannot listen"), "{e}");
});

rtest!(serve_keeps_answering_under_load, |dir, cmd| {
    databases(&dir);
    let server = Server::start(&dir, &["c4", "t3", "q3", "g"]);
    // Requests and their answers, asked once alone.
    let mut cases: Vec<(String, u16, String)> = Vec::new();
    for (db, seed) in [("c4", 11), ("t3", 12), ("q3", 13)] {
        for (moves, body) in walks(&server, db, 8, seed) {
            cases.push((
                format!("/api/query?db={db}&moves={}", enc(&moves.join(","))),
                200,
                body,
            ));
        }
    }
    for path in [
        "/api/query?db=c4&moves=1,1,1,1,1",
        "/api/query?db=g&position=x",
    ] {
        let r = server.get(path);
        cases.push((path.to_string(), r.status, r.body));
    }
    let cases = std::sync::Arc::new(cases);
    let addr = server.addr;
    let started = Instant::now();
    let clients: Vec<_> = (0..16u64)
        .map(|c| {
            let cases = cases.clone();
            std::thread::spawn(move || {
                let mut rng = util::Rng::new(100 + c);
                let mut worst = Duration::ZERO;
                for _ in 0..50 {
                    let (path, status, body) = &cases[rng.below(cases.len() as u64) as usize];
                    let t = Instant::now();
                    let r = request(addr, "GET", path, None);
                    worst = worst.max(t.elapsed());
                    assert_eq!((r.status, &r.body), (*status, body), "{path}");
                }
                worst
            })
        })
        .collect();
    let worst = clients
        .into_iter()
        .map(|t| t.join().expect("a client"))
        .max()
        .unwrap();
    eprintln!(
        "800 requests from 16 clients in {:?}, slowest {worst:?}",
        started.elapsed()
    );
    let _ = cmd;
});

// ---------------------------------------------------------------- the page in a browser

/// A WebDriver session on Debian's Chromium, ended when dropped.
struct Browser {
    driver: Child,
    addr: SocketAddr,
    session: String,
    /// Chromium's profile, fresh for each session.
    _profile: tempfile::TempDir,
}

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

impl Browser {
    /// Starts `chromedriver` and a headless Chromium. The tests that call this are built
    /// as ignored when the two programs are missing (`build.rs` looks, so that `cargo test`
    /// counts them as ignored, with the reason): here they must be there.
    fn start() -> Browser {
        let have = |p: &str| std::path::Path::new(p).exists();
        // Debian's paths, unless told otherwise (as `build.rs` reads them).
        let var = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
        let chromium = &var("RETRO_CHROMIUM", "/usr/bin/chromium");
        let driver = &var("RETRO_CHROMEDRIVER", "/usr/bin/chromedriver");
        if !have(chromium) || !have(driver) {
            panic!("{chromium} and {driver} are needed for the browser tests (apt-get install chromium chromium-driver; .ci/run installs them)");
        }
        let profile = tempfile::tempdir().expect("a profile directory");
        let mut driver = Command::new(driver)
            .arg("--port=0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let mut out = BufReader::new(driver.stdout.take().unwrap());
        let mut port = None;
        let mut line = String::new();
        while port.is_none() && out.read_line(&mut line).unwrap_or(0) > 0 {
            port = line
                .split("started successfully on port ")
                .nth(1)
                .and_then(|p| p.trim().trim_end_matches('.').parse::<u16>().ok());
            line.clear();
        }
        // Keep reading its output so that it never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
        let addr = SocketAddr::from(([127, 0, 0, 1], port.expect("chromedriver's port")));
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                    "--hide-scrollbars", "--window-size=1280,900",
                    format!("--user-data-dir={}", profile.path().display())]
            }
        }}});
        let mut b = Browser {
            driver,
            addr,
            session: String::new(),
            _profile: profile,
        };
        let r = b.call("POST", "/session", Some(caps));
        b.session = r["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {r}"))
            .to_string();
        b
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let body = body.map(|b| b.to_string());
        let r = request(self.addr, method, path, body.as_deref());
        let j = r.json();
        assert_eq!(r.status, 200, "WebDriver {method} {path}: {j}");
        j["value"].clone()
    }

    fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.call(method, &format!("/session/{}{path}", self.session), body)
    }

    fn goto(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })));
    }

    /// Sets the window's size (the page's width is the window's, scroll bars hidden).
    fn resize(&self, width: u32, height: u32) {
        self.cmd(
            "POST",
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        );
    }

    /// A PNG of the whole page at `width`, to `$RETRO_SCREENSHOTS/NAME-WIDTH.png` when that
    /// variable names a directory (to look at the pages; CI does not set it).
    fn screenshot(&self, name: &str, width: u32) {
        let Some(dir) = std::env::var_os("RETRO_SCREENSHOTS") else {
            return;
        };
        let height = self
            .eval("return document.documentElement.scrollHeight")
            .as_u64()
            .unwrap_or(900) as u32;
        self.resize(width, (height + 140).min(4000));
        let png = self.cmd("GET", "/screenshot", None);
        let bytes = decode_base64(png.as_str().expect("a screenshot"));
        let path = std::path::Path::new(&dir).join(format!("{name}-{width}.png"));
        std::fs::write(&path, bytes).expect("write the screenshot");
        self.resize(width, 900);
    }

    /// The element `css` selects, as WebDriver names it.
    fn element(&self, css: &str) -> String {
        let e = self.cmd(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        e[ELEMENT]
            .as_str()
            .unwrap_or_else(|| panic!("no element {css}: {e}"))
            .to_string()
    }

    /// Drags the element `from` onto the element `to` with the mouse, as a person would.
    fn drag(&self, from: &str, to: &str) {
        let (a, b) = (self.element(from), self.element(to));
        let at = |id: &str| json!({"type": "pointerMove", "duration": 50, "origin": {ELEMENT: id}, "x": 0, "y": 0});
        self.cmd(
            "POST",
            "/actions",
            Some(json!({"actions": [{"type": "pointer", "id": "mouse",
                "parameters": {"pointerType": "mouse"},
                "actions": [at(&a), {"type": "pointerDown", "button": 0}, at(&b),
                    {"type": "pointerUp", "button": 0}]}]})),
        );
        self.cmd("DELETE", "/actions", None);
    }

    /// Runs `script` in the page (its last statement returns); the value it returns.
    fn eval(&self, script: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// Waits until `script` returns true.
    fn wait(&self, what: &str, script: &str) {
        let until = Instant::now() + Duration::from_secs(20);
        while self.eval(script) != json!(true) {
            assert!(Instant::now() < until, "waited in vain for {what}");
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Clicks the element `css` selects, as a person would (WebDriver's click).
    fn click(&self, css: &str) {
        let id = self.element(css);
        self.cmd("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    fn text(&self, css: &str) -> String {
        let v = self.eval(&format!(
            "return document.querySelector({}).textContent",
            json!(css)
        ));
        v.as_str().unwrap_or_default().to_string()
    }

    /// What the page shows: ply, the value of the position, every move with its value.
    fn shown(&self) -> Value {
        self.eval(
            "const v = document.getElementById('value');
             return {ply: Number(document.getElementById('ply').textContent),
               outcome: v.dataset.outcome, remoteness: v.dataset.remoteness,
               moves: [...document.querySelectorAll('#moves button')].map(b =>
                 [b.dataset.move, b.dataset.outcome, b.dataset.remoteness, b.className]),
               history: document.querySelectorAll('#history circle.hpt').length};",
        )
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = request(
                self.addr,
                "DELETE",
                &format!("/session/{}", self.session),
                None,
            );
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Standard base64 (WebDriver's screenshots), decoded.
fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let digits: Vec<u8> = text
        .bytes()
        .filter(|c| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/')
        .map(value)
        .collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &d)| n | u32::from(d) << (18 - 6 * i));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// What the page should show for a query's JSON answer at ply `ply`.
fn expected(answer: &str, ply: usize) -> Value {
    let a: Value = serde_json::from_str(answer).unwrap();
    let r = |v: &Value| v.as_u64().map(|r| r.to_string()).unwrap_or_default();
    let moves: Vec<Value> = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let o = m["outcome"].as_str().unwrap();
            json!([m["move"], o, r(&m["remoteness"]), format!("mv {o}")])
        })
        .collect();
    json!({"ply": ply, "outcome": a["outcome"], "remoteness": r(&a["remoteness"]),
        "moves": moves, "history": ply + 1})
}

// The page in a real browser: it loads, shows the start value and every move's value as
// the API gives them, plays moves clicked on the board and in the list, undoes, and keeps
// a history chart; for connect4, tic-tac-toe, quixo (two-cell moves) and a graph.
browser_test!(serve_page_in_a_real_browser, |dir, cmd| {
    let browser = Browser::start();
    databases(&dir);
    let server = Server::start(&dir, &["c4", "t3", "q3", "g"]);
    let base = format!("http://{}/", server.addr);
    let ready = "return document.body.dataset.ready === '1'";
    let at_ply = |n: usize| format!("return document.getElementById('ply').textContent === '{n}'");

    // Connect-4: the start, a column clicked on the board, a move clicked in the list, undo.
    browser.goto(&format!("{base}?db=c4"));
    browser.wait("the page", ready);
    let start = query(&dir, "c4", &[]);
    assert_eq!(browser.shown(), expected(&start, 0));
    let words = browser.text("#start");
    // The start value in words: `Start: X ties in 16`.
    let s: Value = serde_json::from_str(&start).unwrap();
    let verb = match s["outcome"].as_str().unwrap() {
        "win" => "wins in",
        "loss" => "loses in",
        "tie" => "ties in",
        o => panic!("connect4 4x4 starts with a {o}"),
    };
    assert_eq!(words, format!("Start: X {verb} {}", s["remoteness"]));
    browser.click("#board g.move[data-move='2']");
    browser.wait("ply 1", &at_ply(1));
    assert_eq!(
        browser.shown(),
        expected(&query(&dir, "c4", &["--moves", "2"]), 1)
    );
    browser.click("#moves button[data-move='3']");
    browser.wait("ply 2", &at_ply(2));
    assert_eq!(
        browser.shown(),
        expected(&query(&dir, "c4", &["--moves", "2,3"]), 2)
    );
    assert_eq!(browser.text("#path"), "2, 3");
    browser.click("#undo");
    browser.wait("undo", &at_ply(1));
    assert_eq!(
        browser.shown(),
        expected(&query(&dir, "c4", &["--moves", "2"]), 1)
    );
    // The board shows the stone, the value history a point for each ply.
    assert_eq!(
        browser.eval("return document.querySelectorAll('#board circle.stone.p0').length"),
        json!(1)
    );

    // Tic-tac-toe: cells clicked; an illegal move in the URL is an error shown, not a crash.
    browser.goto(&format!("{base}?db=t3&moves=b2"));
    browser.wait("the page", ready);
    assert_eq!(
        browser.shown(),
        expected(&query(&dir, "t3", &["--moves", "b2"]), 1)
    );
    browser.click("#board g.move[data-move='a1']");
    browser.wait("ply 2", &at_ply(2));
    assert_eq!(
        browser.shown(),
        expected(&query(&dir, "t3", &["--moves", "b2,a1"]), 2)
    );
    // A position in the game's notation, then moves played from it (click, then the URL).
    let b2 = serde_json::from_str::<Value>(&query(&dir, "t3", &["--moves", "b2"])).unwrap()
        ["position"]
        .as_str()
        .unwrap()
        .to_string();
    browser.goto(&format!("{base}?db=t3&position={}", enc(&b2)));
    browser.wait("the page", ready);
    assert_eq!(
        browser.shown()["outcome"],
        expected(&query(&dir, "t3", &["--position", &b2]), 0)["outcome"]
    );
    browser.click("#board g.move[data-move='c3']");
    browser.wait("ply 1", &at_ply(1));
    assert_eq!(
        browser.eval("return document.getElementById('error').hidden"),
        json!(true)
    );
    assert_eq!(
        browser.shown(),
        expected(&query(&dir, "t3", &["--position", &b2, "--moves", "c3"]), 1)
    );
    let url = browser.eval("return location.search");
    assert!(url.as_str().unwrap().contains("moves=c3"), "{url}");
    browser.goto(&format!("{base}?db=t3&position={}&moves=c3,a1", enc(&b2)));
    browser.wait("the page", ready);
    browser.wait("ply 2", &at_ply(2));
    assert_eq!(
        browser.shown(),
        expected(
            &query(&dir, "t3", &["--position", &b2, "--moves", "c3,a1"]),
            2
        )
    );
    // The same position typed into the page's position box.
    browser.goto(&format!("{base}?db=t3"));
    browser.wait("the page", ready);
    browser.eval(&format!(
        "document.getElementById('gotov').value = {}; return true",
        json!(b2)
    ));
    browser.click("#goto button");
    browser.wait(
        "the typed position",
        "return document.getElementById('start').textContent.startsWith('Position')",
    );
    assert_eq!(
        browser.shown(),
        expected(&query(&dir, "t3", &["--position", &b2]), 0)
    );
    browser.goto(&format!("{base}?db=t3&moves=b2,b2"));
    browser.wait("the page", ready);
    let e = browser.text("#error");
    assert!(e.contains("move 2") && e.contains("b2"), "{e}");
    assert_eq!(browser.shown()["ply"], 1);

    // Quixo: a cube chosen, then where it goes.
    browser.goto(&format!("{base}?db=q3"));
    browser.wait("the page", ready);
    let start = query(&dir, "q3", &[]);
    assert_eq!(browser.shown(), expected(&start, 0));
    let first = serde_json::from_str::<Value>(&start).unwrap()["moves"][0]["move"]
        .as_str()
        .unwrap()
        .to_string();
    let from = first.split(' ').next().unwrap();
    browser.click(&format!("#board g.source[data-source='{from}']"));
    browser.click(&format!("#board g.move[data-move='{first}']"));
    browser.wait("ply 1", &at_ply(1));
    assert_eq!(
        browser.shown(),
        expected(&query(&dir, "q3", &["--moves", &first]), 1)
    );

    // A graph without a start: vertex 0, then its successor.
    browser.goto(&format!("{base}?db=g"));
    browser.wait("the page", ready);
    assert_eq!(
        browser.shown(),
        expected(&query(&dir, "g", &["--position", "0"]), 0)
    );
    browser.click("#board g.move[data-move='1']");
    browser.wait("ply 1", &at_ply(1));
    assert_eq!(
        browser.shown(),
        expected(&query(&dir, "g", &["--position", "1"]), 1)
    );
    let _ = cmd;
});

/// The page's width fits the window's (no sideways scroll) and its controls are inside it.
fn fits(browser: &Browser, what: &str) {
    let j = browser.eval(
        "const w = window.innerWidth, de = document.documentElement;
         const right = (s) => { const e = document.querySelector(s); return e ? e.getBoundingClientRect().right : 0; };
         return {w, scroll: de.scrollWidth, go: right('#goto button'), board: right('#board svg'),
           history: right('#history'), undo: right('#undo')};",
    );
    let w = j["w"].as_f64().unwrap();
    assert!(
        j["scroll"].as_f64().unwrap() <= w,
        "{what}: scrolls sideways: {j}"
    );
    for k in ["go", "board", "history", "undo"] {
        assert!(j[k].as_f64().unwrap() <= w, "{what}: {k} is cut off: {j}");
    }
}

// A game with scores in the explorer: the value and the moves read with their margins,
// the same as `query`'s scores.
browser_test!(serve_page_shows_margins, |dir, cmd| {
    let browser = Browser::start();
    cmd.args([
        "game",
        "dots-and-boxes",
        "--rows",
        "1",
        "--cols",
        "2",
        "--db",
        "db",
        "-q",
    ])
    .stdout();
    let server = Server::start(&dir, &["db"]);
    let want: Value = serde_json::from_str(&query(&dir, "db", &["--moves", "a1-b1"])).unwrap();
    browser.goto(&format!("http://{}/?db=db&moves=a1-b1", server.addr));
    browser.wait("the page", "return document.body.dataset.ready === '1'");
    let score = want["score"].as_i64().unwrap();
    let verb = if score > 0 { "wins" } else { "loses" };
    assert_eq!(
        browser.text("#value"),
        format!(
            "{verb} by {} in {} ({}{score})",
            score.abs(),
            want["remoteness"],
            if score > 0 { "+" } else { "" }
        )
    );
    let tags = browser.eval(
        "return [...document.querySelectorAll('#moves button')].map(b => b.textContent).join(' ')",
    );
    let first = &want["moves"][0];
    let shown = format!(
        "{}{} by {} in {}",
        first["move"].as_str().unwrap(),
        first["outcome"].as_str().unwrap(),
        first["score"].as_i64().unwrap().abs(),
        first["remoteness"]
    );
    assert!(
        tags.as_str().unwrap().contains(&shown),
        "{tags} lacks {shown}"
    );
    // A game played to its end by best moves: the winner by the start's margin, counted
    // from the boxes taken on the way (the last position is worth 0).
    let start: Value = serde_json::from_str(&query(&dir, "db", &[])).unwrap();
    let mut line: Vec<String> = Vec::new();
    loop {
        let here: Value =
            serde_json::from_str(&query(&dir, "db", &["--moves", &line.join(",")])).unwrap();
        match here["moves"].as_array().unwrap().first() {
            Some(m) => line.push(m["move"].as_str().unwrap().to_string()),
            None => break,
        }
    }
    browser.goto(&format!(
        "http://{}/?db=db&moves={}",
        server.addr,
        line.join(",")
    ));
    browser.wait(
        "the end",
        "return document.getElementById('tomove').textContent === 'Game over:'",
    );
    let margin = start["score"].as_i64().unwrap();
    let verdict = match margin.signum() {
        1 => format!("first player wins by {margin}"),
        -1 => format!("second player wins by {}", -margin),
        _ => "a tie".to_string(),
    };
    assert_eq!(browser.text("#value"), verdict);
});

// The explorer's chessboard (issue 26): a chess database opened without a FEN shows a
// position of the ending and the FEN box; a piece clicked, then a square, plays the move;
// a promotion asks which piece (each coloured by its value); a piece dragged plays too;
// the board turns round; the values shown are `query`'s.
browser_test!(serve_page_draws_a_chessboard, |dir, cmd| {
    let browser = Browser::start();
    cmd.args(["game", "chess", "KPvK", "--db", "kpk", "-q"])
        .stdout();
    let server = Server::start(&dir, &["kpk"]);
    let base = format!("http://{}/", server.addr);
    let ready = "return document.body.dataset.ready === '1'";
    let at_ply = |n: usize| format!("return document.getElementById('ply').textContent === '{n}'");
    let example = server.get("/api/databases").json()[0]["example"]
        .as_str()
        .expect("a chess database names an example position")
        .to_string();

    // No FEN: the example position (white's longest win), the board, the FEN box.
    browser.goto(&format!("{base}?db=kpk"));
    browser.wait("the page", ready);
    assert_eq!(
        browser.eval("return document.getElementById('error').hidden"),
        json!(true)
    );
    assert_eq!(
        browser.shown(),
        expected(&query(&dir, "kpk", &["--position", &example]), 0)
    );
    assert!(
        browser.text("#start").starts_with("An example position"),
        "{}",
        browser.text("#start")
    );
    assert_eq!(
        browser.eval("return document.getElementById('gotov').value"),
        json!(example)
    );
    let board = browser.eval(
        "return {squares: document.querySelectorAll('#board rect.sq').length,
           pieces: [...document.querySelectorAll('#board g.piece')].map(p => p.dataset.piece).sort().join(''),
           glyphs: document.querySelectorAll('#board text.chesspiece').length,
           flip: !document.getElementById('flip').hidden,
           players: [...document.querySelectorAll('#players .player b')].map(b => b.textContent)}",
    );
    assert_eq!(
        board,
        json!({"squares": 64, "pieces": "KPk", "glyphs": 3, "flip": true, "players": ["white", "black"]})
    );
    browser.screenshot("chess-example", 1280);

    // A FEN typed into the box: a pawn about to promote.
    let fen = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1";
    browser.eval(&format!(
        "document.getElementById('gotov').value = {}; return true",
        json!(fen)
    ));
    browser.click("#goto button");
    browser.wait(
        "the FEN",
        "return document.getElementById('start').textContent.startsWith('Position')",
    );
    let before = query(&dir, "kpk", &["--position", fen]);
    assert_eq!(browser.shown(), expected(&before, 0));
    // The pawn chosen: one target square, e8, in the colour of its best promotion.
    browser.click("#board g.source[data-source='e7']");
    let targets = browser.eval(
        "return [...document.querySelectorAll('#board g.move.target')].map(g => [g.dataset.target, g.classList[2]])",
    );
    assert_eq!(targets, json!([["e8", "win"]]));
    browser.click("#board g.move[data-target='e8']");
    browser.wait(
        "the promotion",
        "return !document.getElementById('promo').hidden",
    );
    let offered = browser.eval(
        "return [...document.querySelectorAll('#promo button.mv')].map(b => [b.dataset.move, b.classList[1], b.textContent])",
    );
    let want: Vec<Value> = serde_json::from_str::<Value>(&before).unwrap()["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["move"].as_str().unwrap().starts_with("e7e8"))
        .map(|m| {
            let (o, r) = (m["outcome"].as_str().unwrap(), &m["remoteness"]);
            let glyph = match m["move"].as_str().unwrap().chars().last().unwrap() {
                'q' => "\u{265B}",
                'r' => "\u{265C}",
                'b' => "\u{265D}",
                _ => "\u{265E}",
            };
            let tag = format!("{}{}", &o[..1].to_uppercase(), r.as_u64().unwrap());
            json!([m["move"], o, format!("{glyph}{tag}")])
        })
        .collect();
    assert_eq!(offered, json!(want));
    browser.screenshot("chess-promotion", 1280);
    browser.click("#promo button[data-move='e7e8q']");
    browser.wait("ply 1", &at_ply(1));
    let after = query(&dir, "kpk", &["--position", fen, "--moves", "e7e8q"]);
    assert_eq!(browser.shown(), expected(&after, 1));
    assert_eq!(
        browser.eval("return document.querySelector(\"#board g.cellg[data-cell='e8'] g.piece\").dataset.piece"),
        json!("Q")
    );
    assert_eq!(browser.text("#tomove"), "black to move:");

    // Black's best move, by dragging the king.
    let reply = serde_json::from_str::<Value>(&after).unwrap()["moves"][0]["move"]
        .as_str()
        .unwrap()
        .to_string();
    let (from, to) = reply.split_at(2);
    browser.drag(
        &format!("#board g.source[data-source='{from}']"),
        &format!("#board g.cellg[data-cell='{to}']"),
    );
    browser.wait("ply 2", &at_ply(2));
    let moves = format!("e7e8q,{reply}");
    assert_eq!(
        browser.shown(),
        expected(
            &query(&dir, "kpk", &["--position", fen, "--moves", &moves]),
            2
        )
    );

    // The board turned round: a1 goes to the top right.
    let a1 = "return Number(document.querySelector(\"#board g.cellg[data-cell='a1'] rect\").getAttribute('x'))";
    let x = browser.eval(a1).as_f64().unwrap();
    browser.click("#flip");
    assert!(browser.eval(a1).as_f64().unwrap() > x + 300.0);
    // The history: a row a ply; a click on one goes back there.
    assert_eq!(
        browser.eval("return document.querySelectorAll('#history g.hrow').length"),
        json!(3)
    );
    browser.click("#history g.hrow[data-ply='1'] rect");
    browser.wait("back to ply 1", &at_ply(1));
    assert_eq!(browser.shown(), expected(&after, 1));
    browser.screenshot("chess", 1280);
    browser.resize(420, 900);
    fits(&browser, "chess at 420 px");
    browser.screenshot("chess", 420);
    let _ = cmd;
});

// The players' legend, the winning line, value letters and the value history, and every
// game's page at 420 px wide (issue 26: stones were value colours, with no legend; the
// winning line was not marked; the page scrolled sideways on a phone).
browser_test!(
    serve_page_marks_the_players_and_the_winning_line,
    |dir, cmd| {
        let browser = Browser::start();
        databases(&dir);
        cmd.args([
            "game", "teeko", "--size", "4", "--pieces", "3", "--db", "teeko", "-q",
        ])
        .stdout();
        let server = Server::start(&dir, &["c4", "t3", "q3", "teeko", "g"]);
        let base = format!("http://{}/", server.addr);
        let ready = "return document.body.dataset.ready === '1'";

        browser.goto(&format!("{base}?db=c4"));
        browser.wait("the page", ready);
        let players = browser.eval(
            "return [...document.querySelectorAll('#players .player')].map(p =>
           [p.querySelector('b').textContent, p.textContent.trim(),
            p.querySelector('circle.stone').classList[1]])",
        );
        assert_eq!(
            players,
            json!([["X", "X moves first", "p0"], ["O", "O second", "p1"]])
        );
        // Stones are not in value colours: black and white.
        let fills = browser.eval(
        "const f = (c) => getComputedStyle(document.querySelector(`#players circle.stone.${c}`)).fill;
         return [f('p0'), f('p1')]",
    );
        assert_eq!(fills, json!(["rgb(20, 23, 27)", "rgb(251, 250, 245)"]));
        // Every move on the board carries its value's letter.
        let labels = browser.eval(
        "return [...document.querySelectorAll('#board g.move text.mlabel')].map(t => t.textContent)",
    );
        let labels = labels.as_array().unwrap();
        assert_eq!(labels.len(), 4);
        for l in labels {
            let l = l.as_str().unwrap();
            assert!(
                l == "D" || (["W", "L", "T"].contains(&&l[..1]) && l[1..].parse::<u32>().is_ok()),
                "{l}"
            );
        }
        // X wins in column 1: the line is marked.
        browser.goto(&format!("{base}?db=c4&moves=1,2,1,2,1,2,1"));
        browser.wait("the page", ready);
        assert_eq!(browser.shown()["ply"], 7);
        let line = browser.eval(
        "return {cells: [...document.querySelectorAll('#board .winring')].map(c => c.dataset.cell).sort(),
           strokes: document.querySelectorAll('#board .winstroke').length,
           status: document.getElementById('status').textContent}",
    );
        assert_eq!(
            line,
            json!({"cells": ["a1", "a2", "a3", "a4"], "strokes": 1, "status": "Game over: X wins"})
        );
        // The value history: a row a ply; X's wins on the left, O's on the right.
        let rows = browser.eval(
        "const c = (i) => Number(document.querySelector(`#history circle.hpt[data-ply='${i}']`).getAttribute('cx'));
         const band = document.querySelector('#history rect.band');
         const mid = Number(band.getAttribute('x')) + Number(band.getAttribute('width')) / 2;
         return {rows: document.querySelectorAll('#history g.hrow').length,
           last: Math.sign(c(7) - mid)}",
    );
        // The last position, X's win in 0, is on X's side (the left).
        assert_eq!(rows["rows"], 8);
        assert_eq!(rows["last"], -1);
        browser.screenshot("connect4-win", 1280);
        browser.click("#history g.hrow[data-ply='3'] rect");
        browser.wait(
            "ply 3",
            "return document.getElementById('ply').textContent === '3'",
        );

        // Every game at 1280 and 420 px: nothing wider than the window.
        for (db, moves) in [
            ("c4", "2,3"),
            ("t3", "b2,a1"),
            ("q3", ""),
            ("teeko", "b3,a4,c3,b4,a3"),
            ("g", ""),
        ] {
            browser.resize(1280, 900);
            browser.goto(&format!("{base}?db={db}&moves={moves}"));
            browser.wait("the page", ready);
            assert_eq!(
                browser.eval("return document.getElementById('error').hidden"),
                json!(true),
                "{db}"
            );
            fits(&browser, db);
            browser.screenshot(db, 1280);
            browser.resize(420, 900);
            fits(&browser, &format!("{db} at 420 px"));
            browser.screenshot(db, 420);
        }
        let _ = cmd;
    }
);

/// The relative luminance of a CSS colour `rgb(r, g, b)` (WCAG 2).
fn luminance(css: &str) -> f64 {
    let inside = css
        .trim()
        .strip_prefix("rgb(")
        .and_then(|c| c.strip_suffix(')'))
        .unwrap_or_else(|| panic!("not rgb(...): {css}"));
    let c: Vec<f64> = inside
        .split(',')
        .map(|x| {
            let v = x.trim().parse::<f64>().unwrap() / 255.0;
            if v <= 0.039_28 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        })
        .collect();
    0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
}

/// The contrast ratio of two CSS colours (WCAG 2: 1 to 21).
fn contrast(a: &str, b: &str) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

// Three blemishes a newcomer met: X's near-black Connect-4 stones could hardly be told from
// the empty holes; a graph without a start vertex answered the page's first request with
// "the graph has no start vertex"; and the page drew its data after the first paint, so a
// headless screenshot taken at once showed an empty board.
browser_test!(
    serve_page_is_drawn_at_once_with_stones_that_stand_out,
    |dir, cmd| {
        let browser = Browser::start();
        databases(&dir);
        let server = Server::start(&dir, &["c4", "g"]);
        let base = format!("http://{}/", server.addr);
        // Drawn by the time the page has loaded (WebDriver's navigation returns then):
        // nothing waited for.
        let moves = "1,2,1";
        browser.goto(&format!("{base}?db=c4&moves={moves}"));
        assert_eq!(browser.eval("return document.body.dataset.ready"), "1");
        assert_eq!(
            browser.shown(),
            expected(&query(&dir, "c4", &["--moves", moves]), 3)
        );
        assert_eq!(
            browser.eval("return document.querySelectorAll('#board circle.stone').length"),
            3
        );
        // Each stone, and the two, tell apart at 3:1 or more (WCAG's least for shapes).
        let fills = browser.eval(
            "const f = (s) => getComputedStyle(document.querySelector(`#board ${s}`)).fill;
             return [f('circle.hole'), f('circle.stone.p0'), f('circle.stone.p1')]",
        );
        let f: Vec<&str> = fills
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for (a, b, what) in [
            (f[1], f[0], "X's stone and an empty hole"),
            (f[2], f[0], "O's stone and an empty hole"),
            (f[1], f[2], "X's stone and O's"),
        ] {
            let c = contrast(a, b);
            assert!(c >= 3.0, "{what}: {a} on {b}, contrast {c:.2}");
        }
        // A graph without a start vertex opens at its first vertex, at once...
        browser.goto(&format!("{base}?db=g"));
        assert_eq!(browser.eval("return document.body.dataset.ready"), "1");
        assert_eq!(
            browser.shown(),
            expected(&query(&dir, "g", &["--position", "0"]), 0)
        );
        assert!(
            browser.text("#start").starts_with("The first vertex"),
            "{}",
            browser.text("#start")
        );
        assert_eq!(
            browser.eval("return document.getElementById('error').hidden"),
            true
        );
        // ...and when chosen in the list, without a request that fails.
        browser.goto(&format!("{base}?db=c4"));
        browser.eval(
            "const s = document.getElementById('db'); s.value = 'g';
             s.dispatchEvent(new Event('change')); return true",
        );
        browser.wait(
            "vertex 0",
            "return document.getElementById('position').textContent === '0'",
        );
        let asked = browser.eval(
            "return performance.getEntriesByType('resource')
               .filter(e => e.name.includes('/api/'))
               .map(e => [e.name.replace(location.origin, ''), e.responseStatus])",
        );
        assert_eq!(asked, json!([["/api/query?db=g&position=0", 200]]));
        assert_eq!(
            browser.eval("return document.getElementById('error').hidden"),
            true
        );
        let _ = cmd;
    }
);

rtest!(serve_lists_no_moves_at_a_terminal, |dir, cmd| {
    // 0 -> 1 -> 2 -> 3, 1 scored (worth 3 to its mover): the game is over at 1, whatever
    // moves the file gives it.
    dir.create("t.rg", "0 1\n1 2\n2 3\nscore 1 3\nstart 0\n");
    cmd.args(["solve", "t.rg", "--db", "t", "-q"]).stdout();
    let server = Server::start(&dir, &["t"]);
    for (path, args) in [
        ("/api/query?position=1", vec!["--position", "1"]),
        ("/api/query?moves=1", vec!["--moves", "1"]),
    ] {
        let r = server.get(path);
        assert_eq!(format!("{}\n", r.body), query(&dir, "t", &args), "{path}");
        assert_eq!(r.json()["moves"], json!([]), "{path}");
    }
    let e = server.get("/api/query?moves=1,2").error(400);
    assert_eq!(e, "move 2 (\"2\") is not legal here (the game is over)");
});

rtest!(serve_reads_a_fen_exactly, |dir, cmd| {
    // A board of 7 ranks was answered for another position (the ranks shifted); the API
    // refuses it as `query` does, naming what is wrong.
    cmd.args(["game", "chess", "KRvK", "--db", "krk", "-q"])
        .stdout();
    let server = Server::start(&dir, &["krk"]);
    let good = "k7/8/1K6/8/8/8/8/7R w - - 0 1";
    let r = server.get(&format!("/api/query?position={}", enc(good)));
    assert_eq!(
        format!("{}\n", r.body),
        query(&dir, "krk", &["--position", good])
    );
    for (bad, want) in [
        ("k7/1K6/8/8/8/8/7R w - - 0 1", "has 7 ranks, expected 8"),
        (
            "k7/8/1K5/8/8/8/8/7R w - - 0 1",
            "rank 6 is \"1K5\": 7 squares, expected 8",
        ),
        (
            "k7/8/1K6/8/8/8/8/7R w - e4 0 1",
            "the en-passant square is \"e4\"",
        ),
    ] {
        let e = server
            .get(&format!("/api/query?position={}", enc(bad)))
            .error(400);
        assert!(e.contains(want), "{bad}: {e}");
    }
});

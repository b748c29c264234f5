//! The web explorer: a small HTTP server over solved databases.
//!
//! - `GET /`: the explorer page. Its script and style sheet (`/app.js`, `/style.css`) are
//!   compiled into the binary, so the page needs no internet.
//! - `GET /api/databases`: what is served, `[{"id", "game", "name", "title", "drawing",
//!   "sides", "example"}]`: `game` is the command name (`connect4`, `graph`…); `drawing`
//!   how the page draws its positions (the registry's [`Drawing`]: `holes`, `marks`,
//!   `cubes`, `stones`, `chess`, or `none` for a position and its moves); `sides` the names
//!   of the players, the first mover's first (the legend; the value history's two sides);
//!   `example` a position to open with when the game has no start (a chess ending), or
//!   null.
//! - `GET /api/query?db=ID&moves=M1,M2` or `?db=ID&position=P`: exactly the JSON line of
//!   `retrograde query --output json` for that position (both come from
//!   [`QueryAnswer::to_json`]): `{"position", "to_move", "outcome", "remoteness", "moves":
//!   [{"move", "outcome", "remoteness"}], "board"}`, each move's value for the player who
//!   makes it, best first, and `board` (rows, columns, cells) for games drawn on a grid.
//!   `db` may be left out when one database is served; no `moves` and no `position` is the
//!   start; `?position=P&moves=M1,M2` is the position after those moves played from `P`
//!   (what `query --position P --moves M1,M2` answers).
//! - A bad request is `400` with `{"error": "..."}` saying what is wrong (which move and
//!   why, a parameter given twice); a database file that cannot be read (damaged, cut
//!   short, missing) is `500` with `{"error"}` naming the file and the command that
//!   repairs the database ([`Served::repair`]); an unknown path is `404` with
//!   `{"error"}`; a `Host` header that does not name the address the server listens on is
//!   `403`; an overloaded server answers `503` (with `Retry-After`).
//! - `GET /` is the page with what it shows first (the database list, and the answers of
//!   the position its URL names: `?db=ID&moves=...` or `&position=...`, else the start)
//!   embedded, so that it is drawn before the page has loaded.
//!
//! # Files that change
//! The server answers from the files on disk now. Before each request it asks the
//! database's [`Source`] whether its files are still those it opened (a repair, or a solve
//! again, writes them anew), and after a lookup that failed whether any file it read has
//! changed since; when they have, it opens the database again and answers from the new
//! files. A failure is never kept: a damaged file repaired while the server runs answers
//! correctly at the next request.
//!
//! # Limits
//! No client can make the server stop answering others ([`serve`] applies them):
//! - an answer lists at most [`MAX_LISTED`] moves, the best, and says how many more
//!   there are (`"more"`); a query replays at most [`MAX_MOVES`] moves;
//! - a lookup that runs past [`LOOKUP_TIME`] is given up (`503`); at most [`IN_FLIGHT`]
//!   run at once, more are refused at once (`503`);
//! - a connection with no request in flight for [`IDLE_TIME`] (one that sends nothing,
//!   or half a request) is closed; at most [`Limits::connections`] are open, and when a
//!   new one comes (or the process runs out of file descriptors), the longest idle one is
//!   closed to make room;
//! - the `Host` header must name the address listened on (on loopback, a loopback
//!   address or `localhost`; on every interface, any address literal or `localhost`):
//!   a page of another site that renames itself to this machine (DNS rebinding) gets
//!   `403`.
//!
//! Lookups read files, so they run on tokio's blocking threads; a lookup that panicked
//! would be a `500`, never a dead server.
//!
//! ```no_run
//! # async fn doc(dbs: Vec<retrograde_serve::Served>) -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! println!("listening on http://{}/", listener.local_addr()?);
//! retrograde_serve::serve(listener, dbs).await
//! # }
//! ```
#![warn(missing_docs)]

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query as UrlQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use retrograde_registry::{Answer, Drawing, Query, QueryError};
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

/// The most moves one query may replay.
pub const MAX_MOVES: usize = 1_000;
/// The most lookups in flight at once; one more is refused at once with `503`.
pub const IN_FLIGHT: usize = 32;
/// How long a lookup may run before it is given up with `503`.
pub const LOOKUP_TIME: Duration = Duration::from_secs(5);
/// How long a connection may stay open with no request in flight.
pub const IDLE_TIME: Duration = Duration::from_secs(10);
pub use retrograde_registry::MAX_LISTED;

/// What [`serve_with`] allows.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Limits {
    /// The most connections open at once (keep it under the process's file descriptors).
    pub connections: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { connections: 512 }
    }
}

/// One database served, as it was opened from its files.
pub struct Served {
    /// Its id in the API (the directory's name, made unique).
    pub id: String,
    /// The game's command name (`connect4`, `graph`), which tells the page how to draw it.
    pub game: String,
    /// The game and its parameters (`connect4 4x4`).
    pub name: String,
    /// The game and its rules in a few lines.
    pub title: String,
    /// How the page draws its positions.
    pub drawing: Drawing,
    /// The names of the sides, the first mover's first.
    pub sides: [String; 2],
    /// A position to open with, for a game without a start.
    pub example: Option<String>,
    /// The answers.
    pub answer: Box<dyn Answer>,
    /// How to repair the database when a file of it turns out damaged, said after the
    /// error (`` run `retrograde game connect4 --db c4 --resume` ``): "…; REPAIR to repair
    /// it".
    pub repair: String,
    /// Where it was opened from: whether its files changed, and how to open it again.
    pub source: Box<dyn Source>,
}

/// Where a served database was opened from, so that the server follows its files.
pub trait Source: Send + Sync {
    /// Whether the files the database was opened from are still those on disk. Asked
    /// before every request (`thorough` false: a cheap look, at the description a solve
    /// writes last, say) and after a lookup that failed (`thorough`: every file read).
    fn unchanged(&self, thorough: bool) -> bool;

    /// The database opened again from the files on disk now.
    ///
    /// # Errors
    /// Why it cannot be opened (a message naming the file), answered as a `500`; the next
    /// request tries again.
    fn reopen(&self) -> Result<Served, String>;
}

/// A database the server serves: as it was last opened, opened again when its files
/// change.
struct Slot {
    /// Its id in the API (the first opening's: the same for the life of the server).
    id: String,
    now: RwLock<Arc<Served>>,
    /// Held while it is opened again, so that one request does that and the others wait.
    opening: Mutex<()>,
}

impl Slot {
    fn new(served: Served) -> Slot {
        Slot {
            id: served.id.clone(),
            now: RwLock::new(Arc::new(served)),
            opening: Mutex::new(()),
        }
    }

    /// The database as last opened.
    fn get(&self) -> Arc<Served> {
        self.now.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The database as on disk now: as last opened when its [`Source`] says its files are
    /// unchanged (`thorough`: every file read), else opened again (blocking: run it on a
    /// blocking thread). A failure to open it is returned, and not kept.
    fn current(&self, thorough: bool) -> Result<Arc<Served>, String> {
        let was = self.get();
        if was.source.unchanged(thorough) {
            return Ok(was);
        }
        let _one = self.opening.lock().unwrap_or_else(|e| e.into_inner());
        let now = self.get();
        if !Arc::ptr_eq(&was, &now) {
            // Opened again while this request waited.
            return Ok(now);
        }
        let mut again = now.source.reopen()?;
        again.id = self.id.clone();
        let again = Arc::new(again);
        *self.now.write().unwrap_or_else(|e| e.into_inner()) = again.clone();
        Ok(again)
    }
}

/// What the routes share: the databases, and the lookups allowed in flight.
struct State_ {
    dbs: Vec<Slot>,
    lookups: Arc<tokio::sync::Semaphore>,
}

type Shared = Arc<State_>;

const PAGE: &str = include_str!("../web/index.html");
/// Where the page takes what it shows first ([`page`]).
const INITIAL: &str = "INITIAL";
const SCRIPT: &str = include_str!("../web/app.js");
const STYLE: &str = include_str!("../web/style.css");

/// The routes over `dbs`.
pub fn router(dbs: Vec<Served>) -> Router {
    Router::new()
        .route("/", get(page))
        .route(
            "/app.js",
            get(|| async { asset(SCRIPT, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/style.css",
            get(|| async { asset(STYLE, "text/css; charset=utf-8") }),
        )
        .route("/api/databases", get(databases))
        .route("/api/query", get(query))
        .fallback(|| async {
            error(
                StatusCode::NOT_FOUND,
                "no such page: try / or /api/query".into(),
            )
        })
        .with_state(Arc::new(State_ {
            dbs: dbs.into_iter().map(Slot::new).collect(),
            lookups: Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT)),
        }))
}

/// Serves `dbs` on `listener` until the process ends, within the [limits](crate#limits)
/// and the default [`Limits`].
///
/// # Errors
/// When the listener's address cannot be read.
pub async fn serve(listener: tokio::net::TcpListener, dbs: Vec<Served>) -> std::io::Result<()> {
    serve_with(listener, dbs, Limits::default()).await
}

/// [`serve`] with these `limits`.
///
/// # Errors
/// When the listener's address cannot be read.
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    dbs: Vec<Served>,
    limits: Limits,
) -> std::io::Result<()> {
    let hosts = Arc::new(Hosts::of(listener.local_addr()?));
    let app = router(dbs);
    let conns = Arc::new(Conns::default());
    tokio::spawn(sweep(conns.clone()));
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(e) => {
                // Out of file descriptors (idle connections hold them): make room. Any
                // other error of one connection is that connection's.
                // (EMFILE, ENFILE on Linux.)
                if matches!(e.raw_os_error(), Some(24 | 23)) {
                    conns.close_idlest();
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        if conns.len() >= limits.connections.max(1) && !conns.close_idlest() {
            // Every connection is at work: this one is told so and closed.
            tokio::spawn(refuse(stream));
            continue;
        }
        let (id, conn) = conns.add();
        let service = Tracked {
            app: app.clone(),
            conn: conn.clone(),
            hosts: hosts.clone(),
        };
        let conns = conns.clone();
        tokio::spawn(async move {
            let mut b = hyper::server::conn::http1::Builder::new();
            b.timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(IDLE_TIME)
                .keep_alive(true);
            let served = b.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            tokio::select! {
                _ = served => {}
                _ = conn.close.notified() => {}
            }
            conns.remove(id);
        });
    }
}

/// Tells a connection there is no room (`503`) and closes it.
async fn refuse(mut stream: tokio::net::TcpStream) {
    use tokio::io::AsyncWriteExt;
    let body =
        r#"{"error":"the server has as many connections as it takes, all at work: try again"}"#;
    let reply = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(reply.as_bytes())).await;
}

/// The open connections: whether each has a request in flight, and since when it has not.
#[derive(Default)]
struct Conns {
    next: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Conn>>>,
}

struct Conn {
    /// Requests in flight.
    busy: AtomicUsize,
    /// When it last had none.
    idle_since: Mutex<Instant>,
    /// Closes it.
    close: tokio::sync::Notify,
}

impl Conns {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Conn>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn len(&self) -> usize {
        self.lock().len()
    }

    fn add(&self) -> (u64, Arc<Conn>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let c = Arc::new(Conn {
            busy: AtomicUsize::new(0),
            idle_since: Mutex::new(Instant::now()),
            close: tokio::sync::Notify::new(),
        });
        self.lock().insert(id, c.clone());
        (id, c)
    }

    fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }

    /// Closes the connection idle the longest, if one is idle; whether one was.
    fn close_idlest(&self) -> bool {
        let mut open = self.lock();
        let idlest = open
            .iter()
            .filter(|(_, c)| c.busy.load(Ordering::Relaxed) == 0)
            .min_by_key(|(_, c)| *c.idle_since.lock().unwrap_or_else(|e| e.into_inner()))
            .map(|(&id, c)| (id, c.clone()));
        match idlest {
            Some((id, c)) => {
                open.remove(&id);
                c.close.notify_one();
                true
            }
            None => false,
        }
    }
}

/// Closes the connections idle for longer than [`IDLE_TIME`], every second.
async fn sweep(conns: Arc<Conns>) {
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        for c in conns.lock().values() {
            let since = *c.idle_since.lock().unwrap_or_else(|e| e.into_inner());
            if c.busy.load(Ordering::Relaxed) == 0 && since.elapsed() > IDLE_TIME {
                c.close.notify_one();
            }
        }
    }
}

/// The names a `Host` header may give for a server listening on one address.
struct Hosts {
    addr: SocketAddr,
}

impl Hosts {
    fn of(addr: SocketAddr) -> Hosts {
        Hosts { addr }
    }

    /// Whether `host` (`name`, `name:port`, `[v6]:port`) names this server.
    fn allows(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let (name, port) = if let Some(rest) = host.strip_prefix('[') {
            match rest.split_once(']') {
                Some((n, "")) => (n.to_string(), None),
                Some((n, p)) => match p.strip_prefix(':') {
                    Some(p) => (n.to_string(), Some(p.to_string())),
                    None => return false,
                },
                None => return false,
            }
        } else {
            match host.rsplit_once(':') {
                Some((n, p)) => (n.to_string(), Some(p.to_string())),
                None => (host.clone(), None),
            }
        };
        let port_ok = match port {
            Some(p) => p.parse::<u16>().ok() == Some(self.addr.port()),
            None => self.addr.port() == 80,
        };
        let bound = self.addr.ip();
        let name_ok = match name.parse::<std::net::IpAddr>() {
            Ok(ip) => {
                ip == bound || bound.is_unspecified() || (bound.is_loopback() && ip.is_loopback())
            }
            Err(_) => name == "localhost" && (bound.is_loopback() || bound.is_unspecified()),
        };
        port_ok && name_ok
    }

    /// What a `Host` header may say, for a message.
    fn examples(&self) -> String {
        let (ip, port) = (self.addr.ip(), self.addr.port());
        let lit = match ip {
            std::net::IpAddr::V6(v6) => format!("[{v6}]:{port}"),
            v4 => format!("{v4}:{port}"),
        };
        if ip.is_loopback() || ip.is_unspecified() {
            format!("{lit} or localhost:{port}")
        } else {
            lit
        }
    }
}

/// The routes behind the checks every request passes: its `Host`, and the connection's
/// idle time (it is at work from the request until its answer).
#[derive(Clone)]
struct Tracked {
    app: Router,
    conn: Arc<Conn>,
    hosts: Arc<Hosts>,
}

impl hyper::service::Service<axum::http::Request<hyper::body::Incoming>> for Tracked {
    type Response = Response;
    type Error = std::convert::Infallible;
    type Future =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<Response, Self::Error>> + Send>>;

    fn call(&self, req: axum::http::Request<hyper::body::Incoming>) -> Self::Future {
        let t = self.clone();
        t.conn.busy.fetch_add(1, Ordering::Relaxed);
        Box::pin(async move {
            let host = req
                .headers()
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .map(str::to_string)
                .or_else(|| req.uri().authority().map(|a| a.to_string()));
            let response = match host {
                None => error(
                    StatusCode::BAD_REQUEST,
                    "no Host header: say which address you asked".into(),
                ),
                Some(h) if !t.hosts.allows(&h) => error(
                    StatusCode::FORBIDDEN,
                    format!(
                        "Host {:?} does not name the address this server listens on ({}): refused, so that a page of another site cannot reach it under a name of its own",
                        h.chars().take(100).collect::<String>(),
                        t.hosts.examples()
                    ),
                ),
                Some(_) => {
                    use tower::ServiceExt;
                    let req = req.map(axum::body::Body::new);
                    match t.app.clone().oneshot(req).await {
                        Ok(r) => r,
                        Err(e) => match e {},
                    }
                }
            };
            *t.conn.idle_since.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
            t.conn.busy.fetch_sub(1, Ordering::Relaxed);
            Ok(response)
        })
    }
}

fn asset(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

fn error(status: StatusCode, message: String) -> Response {
    (status, Json(serde_json::json!({ "error": message }))).into_response()
}

/// `503` with a JSON error, and when to try again.
fn busy(message: String) -> Response {
    let mut r = error(StatusCode::SERVICE_UNAVAILABLE, message);
    r.headers_mut().insert(
        header::RETRY_AFTER,
        axum::http::HeaderValue::from_static("1"),
    );
    r
}

#[derive(serde::Serialize)]
struct Listed<'a> {
    id: &'a str,
    game: &'a str,
    name: &'a str,
    title: &'a str,
    drawing: Drawing,
    sides: &'a [String; 2],
    example: Option<&'a str>,
}

impl<'a> Listed<'a> {
    fn of(id: &'a str, d: &'a Served) -> Listed<'a> {
        Listed {
            id,
            game: &d.game,
            name: &d.name,
            title: &d.title,
            drawing: d.drawing,
            sides: &d.sides,
            example: d.example.as_deref(),
        }
    }
}

/// Every database as on disk now (one whose files changed is opened again; one that
/// cannot be is listed as it was, and its queries say why).
fn listing(slots: &[Slot]) -> Vec<(&str, Arc<Served>)> {
    (slots.iter())
        .map(|slot| {
            let now = slot.current(false).unwrap_or_else(|_| slot.get());
            (slot.id.as_str(), now)
        })
        .collect()
}

async fn databases(State(shared): State<Shared>) -> Response {
    let listed = tokio::task::spawn_blocking(move || {
        let now = listing(&shared.dbs);
        let list: Vec<Listed> = now.iter().map(|(id, d)| Listed::of(id, d)).collect();
        serde_json::to_string(&list)
    })
    .await;
    match listed {
        Ok(Ok(body)) => ([(header::CONTENT_TYPE, "application/json")], body).into_response(),
        _ => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the list of databases failed".into(),
        ),
    }
}

/// The page, with what it shows first embedded as JSON (`<script id="initial">`): the
/// databases, and the plies of the position its URL names, answered as the page itself
/// would ask them (`begin` and `play` in `app.js`), so that the board is drawn before the
/// page has loaded (a screenshot taken at once shows it). With no lookup free, nothing is
/// embedded (`null`) and the page asks the API as it loads.
async fn page(
    State(shared): State<Shared>,
    q: Result<UrlQuery<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    let pairs = q.map(|UrlQuery(q)| q).unwrap_or_default();
    let mut embedded = "null".to_string();
    if let Ok(permit) = shared.lookups.clone().try_acquire_owned() {
        let deadline = Instant::now() + LOOKUP_TIME;
        let first = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            initial(&shared.dbs, &pairs, deadline)
        })
        .await;
        if let Ok(Some(json)) = first {
            // Nothing in it can end the script element: `<` only occurs in strings.
            embedded = json.replace('<', "\\u003c");
        }
    }
    let html = PAGE.replacen(INITIAL, &embedded, 1);
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

/// What the page shows first, for the URL's parameters `pairs` (`db`, `position`,
/// `moves`): `{"dbs": [...as /api/databases], "db": ID, "plies": [{"move", "query",
/// "answer", "example"}], "error"}`: the first ply the start (or the position asked, or for
/// a game without a start its example), then a ply per move asked (a graph: the one query
/// asked), up to the first that fails, whose message is `error`. Blocking.
fn initial(dbs: &[Slot], pairs: &[(String, String)], deadline: Instant) -> Option<String> {
    use serde_json::{json, Value};
    let now = listing(dbs);
    let get = |k: &str| {
        pairs
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    let k = get("db")
        .and_then(|id| now.iter().position(|(i, _)| *i == id))
        .unwrap_or(0);
    let (id, served) = now.get(k)?;
    let position = get("position").map(str::to_string);
    let moves: Vec<String> = (get("moves").unwrap_or_default().split(','))
        .map(|m| m.trim().to_string())
        .filter(|m| !m.is_empty())
        .collect();
    // Each ply: its move, its query, and that query as the page keeps it.
    let mut asks: Vec<(Option<&str>, Query, Value)> = Vec::new();
    let mut error = None;
    let asked = |p: &Option<String>, m: &[String]| match (p, m.is_empty()) {
        (Some(p), true) => (Query::Position(p.clone()), json!({ "position": p })),
        (Some(p), false) => (
            Query::After(p.clone(), m.to_vec()),
            json!({ "position": p, "moves": m }),
        ),
        (None, _) => (Query::Moves(m.to_vec()), json!({ "moves": m })),
    };
    let mut example = false;
    if moves.len() > MAX_MOVES {
        error = Some(format!(
            "{} moves: at most {MAX_MOVES} are replayed",
            moves.len()
        ));
    } else if !moves.is_empty() && served.game != "graph" {
        // The position, then the moves played one by one, so that the history shows them.
        let (q, j) = asked(&position, &[]);
        asks.push((None, q, j));
        for (i, m) in moves.iter().enumerate() {
            let (q, j) = asked(&position, &moves[..=i]);
            asks.push((Some(m.as_str()), q, j));
        }
    } else if position.is_some() || !moves.is_empty() {
        let (q, j) = asked(&position, &moves);
        asks.push((None, q, j));
    } else {
        let (q, j) = asked(&served.example, &[]);
        example = served.example.is_some();
        asks.push((None, q, j));
    }
    let mut plies = Vec::new();
    for (mv, q, j) in asks {
        match answer(&dbs[k], &q, deadline) {
            Ok(body) => plies.push(json!({
                "move": mv,
                "query": j,
                "answer": serde_json::from_str::<Value>(&body).ok()?,
                "example": example,
            })),
            Err(f) => {
                error = Some(f.message());
                break;
            }
        }
    }
    let listed: Vec<Listed> = now.iter().map(|(id, d)| Listed::of(id, d)).collect();
    let page = json!({ "dbs": listed, "db": id, "plies": plies, "error": error });
    Some(page.to_string())
}

/// What a request asks: the database and the query, or why it cannot be answered.
fn request(dbs: &[Slot], pairs: &[(String, String)]) -> Result<(usize, Query), String> {
    let mut q = BTreeMap::new();
    for (k, v) in pairs {
        if !matches!(k.as_str(), "db" | "moves" | "position") {
            return Err(format!(
                "unknown parameter {:?}: expected moves, position or db",
                k.chars().take(40).collect::<String>()
            ));
        }
        if q.insert(k.clone(), v.clone()).is_some() {
            return Err(format!("{k} is given twice: give it once"));
        }
    }
    let ids = || {
        dbs.iter()
            .map(|d| d.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let db = match q.get("db") {
        Some(id) => dbs
            .iter()
            .position(|d| &d.id == id)
            .ok_or_else(|| format!("db: no database {id:?} is served; try one of {}", ids()))?,
        None if dbs.len() == 1 => 0,
        None => return Err(format!("db: say which database, one of {}", ids())),
    };
    let moves = match q.get("moves") {
        Some(m) => {
            let moves: Vec<String> = m
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
            if moves.len() > MAX_MOVES {
                return Err(format!(
                    "{} moves: at most {MAX_MOVES} are replayed",
                    moves.len()
                ));
            }
            Some(moves)
        }
        None => None,
    };
    let query = match (moves, q.get("position")) {
        (Some(m), Some(p)) if !m.is_empty() => Query::After(p.clone(), m),
        (_, Some(p)) => Query::Position(p.clone()),
        (Some(m), None) => Query::Moves(m),
        (None, None) => Query::Moves(Vec::new()),
    };
    Ok((db, query))
}

async fn query(
    State(shared): State<Shared>,
    q: Result<UrlQuery<Vec<(String, String)>>, QueryRejection>,
) -> Response {
    let q = match q {
        Ok(UrlQuery(q)) => q,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.body_text()),
    };
    let (db, query) = match request(&shared.dbs, &q) {
        Ok(r) => r,
        Err(m) => return error(StatusCode::BAD_REQUEST, m),
    };
    // The permit goes with the lookup: a lookup given up on still counts until it ends.
    let Ok(permit) = shared.lookups.clone().try_acquire_owned() else {
        return busy(format!(
            "the server is busy ({IN_FLIGHT} lookups in flight): try again"
        ));
    };
    let deadline = Instant::now() + LOOKUP_TIME;
    let answered = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        answer(&shared.dbs[db], &query, deadline)
    })
    .await;
    match answered {
        Ok(Ok(body)) => ([(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Ok(Err(f)) => f.response(),
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the lookup failed: {e}"),
        ),
    }
}

/// Why a query was not answered.
enum Failed {
    /// The question is at fault: a position, a move (`400`).
    Question(QueryError),
    /// Past the deadline (`503`).
    Late(String),
    /// A file that cannot be read, or a database that cannot be opened again (`500`).
    Files(String),
}

impl Failed {
    fn message(&self) -> String {
        match self {
            Failed::Question(e) => e.to_string(),
            Failed::Late(m) | Failed::Files(m) => m.clone(),
        }
    }

    fn response(&self) -> Response {
        match self {
            Failed::Question(_) => error(StatusCode::BAD_REQUEST, self.message()),
            Failed::Late(m) => busy(m.clone()),
            Failed::Files(m) => error(StatusCode::INTERNAL_SERVER_ERROR, m.clone()),
        }
    }
}

/// The answer to `query` from the database in `slot` as on disk now (its JSON line), asked
/// again of the database opened again when a lookup failed and its files have changed since
/// they were opened (a repair): a failure is not kept. Blocking.
fn answer(slot: &Slot, query: &Query, deadline: Instant) -> Result<String, Failed> {
    let opened =
        |r: Result<Arc<Served>, String>| r.map_err(|m| Failed::Files(format!("{}: {m}", slot.id)));
    let mut d = opened(slot.current(false))?;
    let mut again = true;
    loop {
        match d.answer.query_until(query, deadline) {
            Ok(a) => return Ok(a.to_json()),
            Err(QueryError::Lookup(e)) => {
                if again {
                    again = false;
                    let now = opened(slot.current(true))?;
                    if !Arc::ptr_eq(&now, &d) {
                        d = now;
                        continue;
                    }
                }
                let name = &d.name;
                return Err(Failed::Files(match e.is_damage() {
                    true => format!("{name}: {e}; {} to repair it", d.repair),
                    false => format!("{name}: {e}"),
                }));
            }
            Err(QueryError::TooLong(m)) => {
                let name = &d.name;
                let s = LOOKUP_TIME.as_secs();
                return Err(Failed::Late(format!("{name}: {m}: given up after {s} s")));
            }
            Err(e) => return Err(Failed::Question(e)),
        }
    }
}

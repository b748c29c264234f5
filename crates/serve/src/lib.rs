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
//!   why); a database file that cannot be read is `500` with `{"error"}` naming it; an
//!   unknown path is `404` with `{"error"}`.
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
use std::collections::BTreeMap;
use std::sync::Arc;

/// The most moves one query may replay.
pub const MAX_MOVES: usize = 10_000;

/// One database served.
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
}

type Shared = Arc<Vec<Served>>;

const PAGE: &str = include_str!("../web/index.html");
const SCRIPT: &str = include_str!("../web/app.js");
const STYLE: &str = include_str!("../web/style.css");

/// The routes over `dbs`.
pub fn router(dbs: Vec<Served>) -> Router {
    Router::new()
        .route(
            "/",
            get(|| async { asset(PAGE, "text/html; charset=utf-8") }),
        )
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
        .with_state(Arc::new(dbs))
}

/// Serves `dbs` on `listener` until the process ends.
///
/// # Errors
/// When the listener fails.
pub async fn serve(listener: tokio::net::TcpListener, dbs: Vec<Served>) -> std::io::Result<()> {
    axum::serve(listener, router(dbs)).await
}

fn asset(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

fn error(status: StatusCode, message: String) -> Response {
    (status, Json(serde_json::json!({ "error": message }))).into_response()
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

async fn databases(State(dbs): State<Shared>) -> Response {
    let list: Vec<Listed> = dbs
        .iter()
        .map(|d| Listed {
            id: &d.id,
            game: &d.game,
            name: &d.name,
            title: &d.title,
            drawing: d.drawing,
            sides: &d.sides,
            example: d.example.as_deref(),
        })
        .collect();
    Json(list).into_response()
}

/// What a request asks: the database and the query, or why it cannot be answered.
fn request(dbs: &[Served], q: &BTreeMap<String, String>) -> Result<(usize, Query), String> {
    if let Some(k) = q
        .keys()
        .find(|k| !matches!(k.as_str(), "db" | "moves" | "position"))
    {
        return Err(format!(
            "unknown parameter {k:?}: expected moves, position or db"
        ));
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
    State(dbs): State<Shared>,
    q: Result<UrlQuery<BTreeMap<String, String>>, QueryRejection>,
) -> Response {
    let q = match q {
        Ok(UrlQuery(q)) => q,
        Err(e) => return error(StatusCode::BAD_REQUEST, e.body_text()),
    };
    let (db, query) = match request(&dbs, &q) {
        Ok(r) => r,
        Err(m) => return error(StatusCode::BAD_REQUEST, m),
    };
    let answered = tokio::task::spawn_blocking(move || {
        let d = &dbs[db];
        d.answer
            .query(&query)
            .map(|a| a.to_json())
            .map_err(|e| (d.name.clone(), e))
    })
    .await;
    match answered {
        Ok(Ok(body)) => ([(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Ok(Err((_, QueryError::Bad(m)))) => error(StatusCode::BAD_REQUEST, m),
        Ok(Err((name, QueryError::Lookup(e)))) => {
            error(StatusCode::INTERNAL_SERVER_ERROR, format!("{name}: {e}"))
        }
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the lookup failed: {e}"),
        ),
    }
}

//! The server's routes: the JSON API (tables, book, positions, health, its OpenAPI
//! description) and the explorer page. Probes run on the blocking pool, off the threads
//! that read requests. Errors are JSON `{"error": "..."}`: 400 for what the request got
//! wrong, 404 for what is not served, 500 for a damaged table (never a wrong value).

use super::responses::{
    BatchAnswer, ErrorResponse, HealthResponse, MainlineResponse, PositionMove, PositionResponse,
    StandardResponse,
};
use super::{assets, standard, Shared};
use crate::shown::{book_json, BookResponse, Shown};
use crate::xiangqi_answer::XiangqiAnswer;
use axum::extract::rejection::BytesRejection;
use axum::extract::DefaultBodyLimit;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use retrobook::book::evals::Evals;
use retrobook::book::rules::{Chess, Xiangqi};
use retrobook::book::Book;
use retrobook::chess::{MoveList, Position};
use retrobook::probe::{ProbeError, Tablebase};
use retrobook::xiangqi::Script;
use retrobook::Game;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;

type Params = Query<HashMap<String, String>>;

/// Every route, sharing `shared`.
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(|| async { assets::INDEX }))
        .route("/explorer.js", get(|| async { assets::SCRIPT }))
        .route("/explorer.css", get(|| async { assets::STYLE }))
        .route("/openapi.json", get(|| async { assets::OPENAPI }))
        .route("/health", get(health))
        .route("/position", get(position))
        .route("/standard", get(standard))
        .route("/standard/mainline", get(mainline))
        .route(
            "/standard/batch",
            post(batch).layer(DefaultBodyLimit::max(BATCH_READ_BYTES)),
        )
        .route("/xiangqi", get(xiangqi))
        .route("/book", get(book))
        .fallback(|| async { ApiError::not_found("no such route (see /openapi.json)") })
        .method_not_allowed_fallback(
            |method: axum::http::Method, uri: axum::http::Uri| async move {
                let allow = if uri.path() == "/standard/batch" {
                    "POST"
                } else {
                    "GET, HEAD"
                };
                let e = ApiError {
                    status: StatusCode::METHOD_NOT_ALLOWED,
                    message: format!(
                        "{method} is not served at {}: it answers {allow}",
                        uri.path()
                    ),
                };
                ([(axum::http::header::ALLOW, allow)], e)
            },
        )
        .with_state(shared)
        .layer(axum::middleware::from_fn(cross_origin))
}

/// Calls from pages of any origin, as the Lichess API takes them: every answer allows any
/// origin, and a preflight (`OPTIONS` with the method and headers a page would send) is
/// answered here, before any route.
async fn cross_origin(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    use axum::http::{header, HeaderValue, Method};
    let any = HeaderValue::from_static("*");
    if request.method() == Method::OPTIONS {
        let asked = request
            .headers()
            .get(header::ACCESS_CONTROL_REQUEST_HEADERS);
        let headers = asked.cloned().unwrap_or_else(|| any.clone());
        return (
            StatusCode::NO_CONTENT,
            [
                (header::ACCESS_CONTROL_ALLOW_ORIGIN, any),
                (
                    header::ACCESS_CONTROL_ALLOW_METHODS,
                    HeaderValue::from_static("GET, HEAD, POST, OPTIONS"),
                ),
                (header::ACCESS_CONTROL_ALLOW_HEADERS, headers),
                (
                    header::ACCESS_CONTROL_MAX_AGE,
                    HeaderValue::from_static("86400"),
                ),
            ],
        )
            .into_response();
    }
    let mut response = next.run(request).await;
    (response.headers_mut()).insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, any);
    response
}

/// An error answer: its status and what went wrong.
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn bad(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::NOT_FOUND,
            message: message.into(),
        }
    }

    fn internal(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: message.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorResponse {
            error: self.message,
        };
        (self.status, Json(body)).into_response()
    }
}

impl From<ProbeError> for ApiError {
    /// What the position is at fault for is the client's error; a table that cannot be
    /// read or disagrees with another is the server's.
    fn from(e: ProbeError) -> ApiError {
        match e {
            ProbeError::Table(_)
            | ProbeError::Inconsistent { .. }
            | ProbeError::NotLoaded { .. } => ApiError::internal(e.to_string()),
            _ => ApiError::bad(e.to_string()),
        }
    }
}

/// The parameter `name`, or a 400 naming it.
fn param<'a>(params: &'a HashMap<String, String>, name: &str) -> Result<&'a str, ApiError> {
    params
        .get(name)
        .map(String::as_str)
        .ok_or_else(|| ApiError::bad(format!("missing parameter {name:?}")))
}

/// The chess position of the `fen` parameter, read as leniently as Lichess reads it
/// (`Position::from_fen_lenient`).
fn chess_position(params: &HashMap<String, String>) -> Result<Position, ApiError> {
    let fen = param(params, "fen")?;
    Position::from_fen_lenient(fen).map_err(|e| ApiError::bad(format!("{fen:?}: {e}")))
}

/// Runs a probe on the blocking pool.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::internal(format!("the probe failed: {e}")))?
}

async fn health(State(s): State<Arc<Shared>>) -> Json<HealthResponse> {
    let (tables, max_pieces) = match s.tables() {
        Ok(tb) => (tb.materials().count(), tb.max_pieces()),
        Err(_) => (0, 0),
    };
    let xiangqi = s.xiangqi().ok();
    Json(HealthResponse {
        status: "ok",
        tables,
        max_pieces,
        xiangqi_tables: xiangqi.map_or(0, |tb| tb.keys().count()),
        xiangqi_max_pieces: (xiangqi.into_iter().flat_map(|tb| tb.keys()))
            .map(|sig| sig.pieces())
            .max()
            .unwrap_or(0),
        book: s.book_path().map(|p| p.display().to_string()),
        book_game: s.book().ok().map(|b| b.info().game.name()),
    })
}

/// `/position`: the position read back as FEN, and its legal moves with the FEN each
/// leads to (what the explorer page needs to play moves and write the line's PGN); with
/// `game=xiangqi`, a Chinese chess position, its moves named in WXF notation.
async fn position(Query(params): Params) -> Result<Json<PositionResponse>, ApiError> {
    let game = params.get("game").map(|g| g.parse::<Game>());
    match game.transpose().map_err(|e| ApiError::bad(e.to_string()))? {
        None | Some(Game::Chess) => {}
        Some(Game::Xiangqi) => return xiangqi_position(param(&params, "fen")?).map(Json),
    }
    let pos = chess_position(&params)?;
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let moves = (list.as_slice().iter())
        .map(|m| PositionMove {
            uci: m.to_string(),
            san: pos.san(m),
            fen: pos.play(m).to_string(),
        })
        .collect();
    Ok(Json(PositionResponse {
        fen: pos.to_string(),
        turn: pos.turn().fen_char().to_string(),
        check: pos.is_check(),
        pieces: pos.occupied().count(),
        moves,
    }))
}

/// A Chinese chess FEN read as `/position?game=xiangqi` answers it; a chess FEN is a 400
/// that says so.
fn xiangqi_position(fen: &str) -> Result<PositionResponse, ApiError> {
    let pos = xiangqi_fen(fen)?;
    let moves = (pos.legal_moves().iter())
        .map(|m| PositionMove {
            uci: m.to_string(),
            san: pos.wxf(m, Script::Ascii),
            fen: pos.play(m).to_fen(),
        })
        .collect();
    Ok(PositionResponse {
        fen: pos.to_fen(),
        turn: pos.turn().fen_char().to_string(),
        check: pos.in_check(pos.turn()),
        pieces: pos.occupied_squares().count() as u32,
        moves,
    })
}

/// A Chinese chess position from its FEN, or a 400 that names a chess FEN as such.
fn xiangqi_fen(fen: &str) -> Result<retrobook::xiangqi::Position, ApiError> {
    retrobook::xiangqi::Position::from_fen(fen).map_err(|e| {
        let chess = Position::from_fen_lenient(fen).is_ok();
        let hint = if chess {
            " (a chess FEN: ask /standard)"
        } else {
            ""
        };
        ApiError::bad(format!("{fen:?} is not a Chinese chess FEN: {e}{hint}"))
    })
}

async fn standard(
    State(s): State<Arc<Shared>>,
    Query(params): Params,
) -> Result<Json<StandardResponse>, ApiError> {
    from_tables(s, &params, |tb, pos| Ok(standard::position(tb, pos)?)).await
}

/// Lichess's line by default, the line to mate with `line=dtm` (`standard::mainline`,
/// `mainline_to_mate`). Outside the tables (castling rights, too many pieces, a table not
/// built) a line is not found: a 404, as Lichess answers.
async fn mainline(
    State(s): State<Arc<Shared>>,
    Query(params): Params,
) -> Result<Json<MainlineResponse>, ApiError> {
    type Line = fn(&Tablebase, &Position) -> Result<MainlineResponse, ProbeError>;
    fn found(r: Result<MainlineResponse, ProbeError>) -> Result<MainlineResponse, ApiError> {
        match r {
            Err(e) if e.is_outside_the_tables() => Err(ApiError::not_found(e.to_string())),
            r => Ok(r?),
        }
    }
    let line: Line = match params.get("line").map(String::as_str) {
        None | Some("lichess") => standard::mainline,
        Some("dtm") => standard::mainline_to_mate,
        Some(other) => {
            let message = format!("line {other:?}: lichess (the default) or dtm");
            return Err(ApiError::bad(message));
        }
    };
    from_tables(s, &params, move |tb, pos| found(line(tb, pos))).await
}

/// Most positions one batch request may ask for.
pub const BATCH_POSITIONS: usize = 1000;

/// Most bytes of a batch request's body: room for `BATCH_POSITIONS` FENs of 100 bytes.
const BATCH_BYTES: usize = 128 << 10;

/// Most bytes of a batch request's body read before it is refused: a body refused
/// unread closes the connection while the client may still be sending it, which then
/// sees a broken pipe instead of the 413. Beyond this the body goes unread.
const BATCH_READ_BYTES: usize = 1 << 20;

/// Batch positions answered per turn on the blocking pool: a chunk of the answer's bytes
/// (a few tens of KiB), so that an answer the client does not read costs no more.
const BATCH_CHUNK: usize = 16;

/// `POST /standard/batch`: a JSON array of FENs in, an array of as many `/standard` answers
/// out, in order; a position that cannot be answered (a bad FEN, no table) gets
/// `{"fen": ..., "error": ...}` in its place and the others are answered still. At most
/// `BATCH_POSITIONS` FENs (413 beyond, as for a body over `BATCH_BYTES`). The answer is
/// streamed (`batch_answers`).
async fn batch(
    State(s): State<Arc<Shared>>,
    body: Result<axum::body::Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let too_large = || ApiError {
        status: StatusCode::PAYLOAD_TOO_LARGE,
        message: format!(
            "a batch holds at most {BATCH_POSITIONS} FENs in {} KiB",
            BATCH_BYTES >> 10
        ),
    };
    let body = body.map_err(|e| match e.status() {
        StatusCode::PAYLOAD_TOO_LARGE => too_large(),
        _ if super::connections::BodyTooLate::caused(&e) => ApiError {
            status: StatusCode::REQUEST_TIMEOUT,
            message: super::connections::BodyTooLate.to_string(),
        },
        _ => ApiError::bad(e.body_text()),
    })?;
    if body.len() > BATCH_BYTES {
        return Err(too_large());
    }
    let fens: Vec<String> = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad(format!("the body is not a JSON array of FENs: {e}")))?;
    if fens.len() > BATCH_POSITIONS {
        return Err(too_large());
    }
    s.tables().map_err(ApiError::not_found)?;
    let json = [(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    )];
    Ok((json, axum::body::Body::from_stream(batch_answers(s, fens))).into_response())
}

/// The batch's answer, `BATCH_CHUNK` positions at a time, each chunk worked out only when
/// the connection asks for more: a client that stops reading stops the work (once the
/// buffers between are full), one that leaves drops the stream and ends it. A chunk that
/// fails (a probe that panicked) ends the answer unfinished, so that the client sees a
/// broken answer, never a wrong one.
fn batch_answers(
    s: Arc<Shared>,
    fens: Vec<String>,
) -> impl futures_util::Stream<Item = std::io::Result<axum::body::Bytes>> {
    let fens = Arc::new(fens);
    futures_util::stream::unfold(Some(0), move |next| {
        let (s, fens) = (s.clone(), fens.clone());
        async move {
            let start = next?;
            let end = (start + BATCH_CHUNK).min(fens.len());
            let last = end == fens.len();
            let chunk = {
                let _permit = s.batch_work.acquire().await.ok()?;
                let s = s.clone();
                tokio::task::spawn_blocking(move || {
                    let tb = s.tables().expect("tables checked before the answer began");
                    batch_chunk(tb, &fens, start, end)
                })
                .await
            };
            let chunk = chunk.map_err(std::io::Error::other);
            let next = (!last && chunk.is_ok()).then_some(end);
            Some((chunk.map(axum::body::Bytes::from), next))
        }
    })
}

/// The bytes of the batch's answers `start..end` of `fens`: each with the comma before it,
/// the array's `[` before the first and its `]` after the last.
fn batch_chunk(tb: &Tablebase, fens: &[String], start: usize, end: usize) -> Vec<u8> {
    let mut out = Vec::new();
    if start == 0 {
        out.push(b'[');
    }
    for (i, fen) in fens.iter().enumerate().take(end).skip(start) {
        if i > 0 {
            out.push(b',');
        }
        let answer = Position::from_fen_lenient(fen)
            .map_err(|e| format!("{fen:?}: {e}"))
            .and_then(|pos| standard::position(tb, &pos).map_err(|e| e.to_string()));
        let answer = match answer {
            Ok(answer) => BatchAnswer::Answered(answer),
            Err(error) => BatchAnswer::Failed {
                fen: fen.clone(),
                error,
            },
        };
        serde_json::to_writer(&mut out, &answer).expect("an answer serializes");
    }
    if end == fens.len() {
        out.push(b']');
    }
    out
}

/// The answer `answer` makes from the tables for the position of the `fen` parameter.
async fn from_tables<T: Serialize + Send + 'static>(
    s: Arc<Shared>,
    params: &HashMap<String, String>,
    answer: impl FnOnce(&Tablebase, &Position) -> Result<T, ApiError> + Send + 'static,
) -> Result<Json<T>, ApiError> {
    let pos = chess_position(params)?;
    blocking(move || {
        let tb = s.tables().map_err(ApiError::not_found)?;
        Ok(Json(answer(tb, &pos)?))
    })
    .await
}

/// `/xiangqi`: a Chinese chess position from the tables, as `probe --game xiangqi --json`
/// answers it (`crate::xiangqi_answer`). A chess FEN is a 400 that says so.
async fn xiangqi(
    State(s): State<Arc<Shared>>,
    Query(params): Params,
) -> Result<Json<serde_json::Value>, ApiError> {
    let fen = param(&params, "fen")?.to_string();
    let pos = xiangqi_fen(&fen)?;
    blocking(move || {
        let tb = s.xiangqi().map_err(ApiError::not_found)?;
        Ok(Json(XiangqiAnswer::probe(tb, &pos)?.json(&fen, &pos)))
    })
    .await
}

/// `/book`: as `book probe --json`, by the rules of the book's game.
async fn book(
    State(s): State<Arc<Shared>>,
    Query(params): Params,
) -> Result<Json<BookResponse>, ApiError> {
    let fen = param(&params, "fen")?.to_string();
    blocking(move || {
        let book = s.book().map_err(ApiError::not_found)?;
        match book.info().game {
            Game::Chess => book_answer::<Chess>(book, s.evals(), &fen),
            Game::Xiangqi => book_answer::<Xiangqi>(book, s.evals(), &fen),
        }
    })
    .await
}

fn book_answer<R: Shown>(
    book: &Book,
    evals: Option<&Evals>,
    fen: &str,
) -> Result<Json<BookResponse>, ApiError> {
    let pos = R::read(fen).map_err(|e| ApiError::bad(format!("{fen:?}: {e}")))?;
    let answer = book.probe_by::<R>(&pos);
    Ok(Json(book_json::<R>(fen, &pos, &answer, evals)))
}

//! `puzzlebase serve`: the database over HTTP, read-only, as a JSON API and one page
//! embedded in the binary. This is a thin adapter: every answer is built by
//! [`puzzlebase::json`] from [`puzzlebase::Database`], the same code as `query --json`.
//!
//! A SQLite connection is not `Sync`, so each lookup borrows a read-only [`Database`]
//! from a small pool and returns it afterwards: position lookups (short and bounded) on
//! the worker thread itself, the larger puzzle pages on tokio's blocking threads. The
//! move puzzles' position tables are copied into memory ([`Resident`]) on a puzzle's
//! first position lookup, on a blocking thread; the pooled connections then read them
//! from there, so that a lookup costs microseconds rather than dozens of SQLite reads.

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::net::TcpListener;
use tower_http::cors::{AllowOrigin, CorsLayer};

use puzzlebase::json;
use puzzlebase::{Database, FileState, QueryError, Resident, StateError, Stop};

/// The page and its script and style, compiled in: the page works without a network.
const INDEX_HTML: &str = include_str!("../web/index.html");
const APP_JS: &str = include_str!("../web/app.js");
const APP_CSS: &str = include_str!("../web/app.css");
/// The API described for machines (OpenAPI 3.1), served at `/api/openapi.json`; a test
/// holds every path it names to the routes below.
const OPENAPI: &str = include_str!("../web/openapi.json");

/// How long a cache may keep an API answer before asking again with `If-None-Match`:
/// an answer never changes for a given file, but a nightly run replaces the file at the
/// same address.
pub const API_CACHE: &str = "public, max-age=300";

/// Longest request target accepted (a position of the largest board is 64 characters;
/// a tour is under 200). Longer ones get a JSON 414 rather than reaching a handler.
const MAX_URI: usize = 4096;

/// hyper answers a request line above 64 KiB itself, with an empty 414. To give such a
/// request (a 1 MB URL) a JSON answer too, the start of each connection is peeked at
/// before hyper reads it: a first line with no end within this many bytes is answered
/// here. (Later requests on a kept-alive connection get hyper's answer at 64 KiB.)
const MAX_REQUEST_LINE: usize = 8192;

/// How long a connection may take to send its first request line, and a request's
/// head: a connection that sends nothing, or trickles (slowloris), is closed after it,
/// and so is a kept-alive connection idle for as long.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether the first request line on `stream` runs past [`MAX_REQUEST_LINE`] bytes,
/// looking without consuming; `None` when no line end or full buffer came within
/// `timeout` (the connection is then closed).
async fn oversized_request_line(stream: &tokio::net::TcpStream, timeout: Duration) -> Option<bool> {
    let mut buf = vec![0u8; MAX_REQUEST_LINE];
    let mut seen = 0;
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let n = match tokio::time::timeout_at(deadline, stream.peek(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(false),
            Ok(Ok(n)) => n,
        };
        if buf[..n].contains(&b'\n') {
            return Some(false);
        }
        if n == buf.len() {
            return Some(true);
        }
        if tokio::time::Instant::now() > deadline {
            return None;
        }
        // `peek` returns at once while anything is buffered: wait for more to arrive.
        if n == seen {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        seen = n;
    }
}

async fn reply_uri_too_long(mut stream: tokio::net::TcpStream) -> std::io::Result<()> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let body = json!({
        "error": format!("the request line is longer than {MAX_REQUEST_LINE} bytes"),
        "status": 414,
    })
    .to_string();
    let head = format!(
        "HTTP/1.1 414 URI Too Long\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.shutdown().await?;
    // Read (and drop) what the client is still sending, for a while, before closing:
    // closing with unread data would reset the connection and could destroy the answer
    // before the client reads it.
    let mut sink = [0u8; 16384];
    let mut left = 4usize << 20;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    while left > 0 {
        match tokio::time::timeout_at(deadline, stream.read(&mut sink)).await {
            Ok(Ok(n)) if n > 0 => left = left.saturating_sub(n),
            _ => break,
        }
    }
    Ok(())
}

/// Which web pages may read the API from a browser (CORS). The API is read-only and
/// public, so by default any page may.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cors {
    /// No CORS headers: only the server's own page can read the answers in a browser.
    Off,
    /// `Access-Control-Allow-Origin: *`.
    Any,
    /// Only these origins (`https://example.org`).
    Origins(Vec<String>),
}

/// A `--cors` value that is neither `*`, `off` nor a list of origins: the first entry
/// that is not an origin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0:?} is not an origin: give `*`, `off`, or origins such as https://example.org, comma-separated"
)]
pub struct NotAnOrigin(pub String);

impl std::str::FromStr for Cors {
    type Err = NotAnOrigin;
    /// `*`, `off`, or a comma-separated list of origins.
    fn from_str(s: &str) -> Result<Cors, NotAnOrigin> {
        match s.trim() {
            "*" => Ok(Cors::Any),
            "off" | "none" => Ok(Cors::Off),
            list => {
                let origins: Vec<String> = list
                    .split(',')
                    .map(|o| o.trim().trim_end_matches('/').to_string())
                    .collect();
                for o in &origins {
                    let ok = (o.starts_with("http://") || o.starts_with("https://"))
                        && HeaderValue::from_str(o).is_ok()
                        && !o.contains(['*', ' ']);
                    if !ok {
                        return Err(NotAnOrigin(o.clone()));
                    }
                }
                Ok(Cors::Origins(origins))
            }
        }
    }
}

/// How much work the server takes on, and who may read it.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// How long one search (a `fifteen` position) may run before it is refused.
    pub search_timeout: Duration,
    /// Searches running at once; a request for another is refused at once with 503
    /// and `Retry-After`, so that the other routes keep their threads.
    pub max_searches: usize,
    /// Which browser pages may read the API.
    pub cors: Cors,
    /// A minisign public key, and the signature file (`None`: `<db>.minisig`): the
    /// server starts only if the file is the one signed, and after any change to it
    /// answers again only once the file is found signed again.
    pub key: Option<(PathBuf, Option<PathBuf>)>,
}

impl Default for ServeOptions {
    /// Ten seconds per search, as many searches as the machine has cores, and the API
    /// readable from any page.
    fn default() -> Self {
        ServeOptions {
            search_timeout: Duration::from_secs(10),
            max_searches: std::thread::available_parallelism().map_or(2, |n| n.get()),
            cors: Cors::Any,
            key: None,
        }
    }
}

/// The entity tags of what the server sends: the API's answers depend on the file
/// (its puzzles' checksums and definitions) and on this build's answer format; the
/// page on the assets compiled in.
struct Tags {
    /// The API's tag: the puzzles' names, checksums and definitions, so that it changes
    /// with the file.
    api: Mutex<HeaderValue>,
    assets: HeaderValue,
}

impl Tags {
    fn api(&self) -> HeaderValue {
        self.api
            .lock()
            .map(|t| t.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }

    fn set_api(&self, tag: HeaderValue) {
        if let Ok(mut t) = self.api.lock() {
            *t = tag;
        }
    }
}

/// The API's tag for the file at `path` as it is now (a file that cannot be opened has
/// a tag of its own: its answers are refusals, never cached as 200s).
fn api_tag(path: &Path) -> HeaderValue {
    match Database::open(path).and_then(|db| db.puzzles()) {
        Ok(infos) => api_tag_of(&infos),
        Err(e) => tag(&[e.to_string().as_bytes()]),
    }
}

/// The API's tag for a file holding `infos`.
fn api_tag_of(infos: &[puzzlebase::PuzzleInfo]) -> HeaderValue {
    let described: Vec<String> = (infos.iter())
        .map(|i| format!("{}\n{}\n{}", i.name, i.checksum, i.definition_hash))
        .collect();
    tag(&[described.join("\n").as_bytes(), OPENAPI.as_bytes()])
}

fn tag(parts: &[&[u8]]) -> HeaderValue {
    let mut h = Sha256::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    let digits: String = h.finalize()[..10]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    HeaderValue::from_str(&format!("\"pb-{digits}\"")).expect("hex is a valid header")
}

/// Whether an `If-None-Match` header names `tag` (or is `*`); weak tags compare too.
fn names_tag(if_none_match: &HeaderValue, tag: &HeaderValue) -> bool {
    let Ok(list) = if_none_match.to_str() else {
        return false;
    };
    let want = tag.to_str().unwrap_or_default();
    list.split(',')
        .map(|t| t.trim())
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t) == want)
}

/// Conditional GETs: a request naming the current tag gets 304 and no body, without a
/// lookup; every 200 answer carries the tag and how long it may be cached.
async fn conditional(State(tags): State<Arc<Tags>>, req: Request, next: Next) -> Response {
    if !matches!(*req.method(), Method::GET | Method::HEAD) {
        return next.run(req).await;
    }
    let (tag, cache) = if req.uri().path().starts_with("/api/") {
        (&tags.api(), API_CACHE)
    } else {
        (&tags.assets, "no-cache")
    };
    let headers = [
        (header::ETAG, tag.clone()),
        (header::CACHE_CONTROL, HeaderValue::from_static(cache)),
    ];
    if (req.headers().get(header::IF_NONE_MATCH)).is_some_and(|v| names_tag(v, tag)) {
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    let mut resp = next.run(req).await;
    if resp.status() == StatusCode::OK {
        resp.headers_mut().extend(headers);
    }
    resp
}

/// The CORS layer of `cors`: GET and HEAD from the allowed origins, with
/// `If-None-Match` allowed and the `ETag` readable, preflights cached for a day.
fn cors_layer(cors: &Cors) -> Option<CorsLayer> {
    let origin = match cors {
        Cors::Off => return None,
        Cors::Any => AllowOrigin::any(),
        Cors::Origins(list) => AllowOrigin::list(
            list.iter()
                .filter_map(|o| HeaderValue::from_str(o).ok())
                .collect::<Vec<_>>(),
        ),
    };
    Some(
        CorsLayer::new()
            .allow_origin(origin)
            .allow_methods([Method::GET, Method::HEAD])
            .allow_headers([header::IF_NONE_MATCH])
            .expose_headers([header::ETAG])
            .max_age(Duration::from_secs(86400)),
    )
}

/// Connections kept open between lookups, most recently used last.
struct Pool {
    path: PathBuf,
    /// The idle connections, and the state of the file and its companions they were
    /// opened (and checked) against.
    idle: Mutex<Idle>,
    /// The tables every connection of the pool reads from memory, taken from the file as
    /// `idle.state` describes it.
    resident: Mutex<Arc<Resident>>,
    /// The entity tags, re-derived when the file changes.
    tags: Arc<Tags>,
    /// The key the file must be signed with ([`ServeOptions::key`]).
    key: Option<(PathBuf, Option<PathBuf>)>,
    /// One permit per search that may run.
    searches: Arc<tokio::sync::Semaphore>,
    max_searches: usize,
    search_timeout: Duration,
}

/// The pool's idle connections, opened while the file was as `state` says.
struct Idle {
    state: FileState,
    /// Advanced on every change, so that a connection lent out before a change is not
    /// taken back after it.
    generation: u64,
    /// Why the file as it is now is not answered from: its signature failed.
    refused: Option<String>,
    connections: Vec<Database>,
}

/// Cancels a search when the request that started it goes away: hyper drops a
/// request's handler when its client closes the connection.
struct CancelOnDrop(Arc<Stop>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

impl Pool {
    fn with<T>(&self, f: impl FnOnce(&Database) -> T) -> Result<T, QueryError> {
        let (generation, refused) = self.follow_changes();
        if let Some(why) = refused {
            return Err(QueryError::NotStored(why));
        }
        let db = self
            .idle
            .lock()
            .map(|mut v| v.connections.pop())
            .unwrap_or(None);
        let db = match db {
            Some(db) => db,
            None => {
                let mut db = Database::open_for_serving(&self.path)?;
                db.share_resident(self.resident());
                db
            }
        };
        let out = f(&db);
        if let Ok(mut v) = self.idle.lock()
            && v.generation == generation
        {
            v.connections.push(db);
        }
        Ok(out)
    }

    /// The tables in memory for the file as it is now.
    fn resident(&self) -> Arc<Resident> {
        self.resident
            .lock()
            .map(|r| r.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }

    /// Drops every connection and table taken from the file if it or a journal beside
    /// it changed since they were ([`FileState`]); returns the generation that
    /// connections opened now belong to.
    fn follow_changes(&self) -> (u64, Option<String>) {
        let now = FileState::of(&self.path);
        let Ok(mut idle) = self.idle.lock() else {
            return (u64::MAX, Some("the server's connections failed".into()));
        };
        if idle.state != now {
            idle.state = now;
            idle.generation += 1;
            idle.connections.clear();
            if let Ok(mut r) = self.resident.lock() {
                *r = Resident::new();
            }
            self.tags.set_api(api_tag(&self.path));
            // The signature is checked once per state of the file, not per lookup.
            idle.refused = match &self.key {
                Some((key, sig)) => Database::open_signed(&self.path, key, sig.as_deref())
                    .err()
                    .map(|e| crate::hints::query(&e)),
                None => None,
            };
        }
        (idle.generation, idle.refused.clone())
    }
}

/// An API failure: a status and the one-line reason, sent as `{"error": ..., "status": ...}`.
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError {
            status,
            message: message.into(),
        }
    }
}

impl From<QueryError> for ApiError {
    fn from(e: QueryError) -> Self {
        let status = match &e {
            QueryError::UnknownPuzzle(_) | QueryError::NotGenerated(_) => StatusCode::NOT_FOUND,
            QueryError::State(StateError::Malformed { .. } | StateError::RankOutside { .. })
            | QueryError::NotApplicable { .. }
            | QueryError::NoFullTable { .. } => StatusCode::BAD_REQUEST,
            QueryError::State(StateError::Unsolvable { .. })
            | QueryError::Unreachable(_)
            | QueryError::NotStored(_)
            | QueryError::NoPartition { .. }
            | QueryError::Contradicted { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            QueryError::Stale(_) => StatusCode::CONFLICT,
            QueryError::Store(_) | QueryError::Inconsistent { .. } | QueryError::Signature(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
            QueryError::Stopped { .. } => StatusCode::SERVICE_UNAVAILABLE,
            // A failure the library adds later (its errors are non-exhaustive) is the
            // server's until it is sorted here.
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        ApiError::new(status, crate::hints::query(&e))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({ "error": self.message, "status": self.status.as_u16() });
        (self.status, json_body(&body)).into_response()
    }
}

fn json_body(v: &Value) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        v.to_string(),
    )
        .into_response()
}

type Shared = Arc<Pool>;

/// Runs `f` on a blocking thread with a pooled connection.
async fn lookup(
    pool: Shared,
    f: impl FnOnce(&Database) -> Result<Value, QueryError> + Send + 'static,
) -> Result<Value, ApiError> {
    let answer = tokio::task::spawn_blocking(move || pool.with(f))
        .await
        .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "the lookup failed"))?;
    Ok(answer??)
}

/// Runs `f` with a pooled connection on the current worker thread. Position lookups
/// are bounded (a path of at most a few dozen indexed reads, about 0.1-0.3 ms), and the
/// hand-off to a blocking thread cost a quarter of the throughput in `benches/serve.rs`
/// (5,800 against 7,300 lookups/s on `eight`, p99 24 ms against 16 ms).
fn lookup_now(
    pool: &Pool,
    f: impl FnOnce(&Database) -> Result<Value, QueryError>,
) -> Result<Value, ApiError> {
    Ok(pool.with(f)??)
}

/// A path segment that could not be read (bad percent-encoding, invalid UTF-8).
fn bad_path(r: PathRejection) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, r.body_text())
}

async fn puzzles(State(pool): State<Shared>) -> Result<Response, ApiError> {
    let list = lookup(pool, |db| {
        Ok(Value::Array(db.listing()?.iter().map(json::info).collect()))
    })
    .await?;
    Ok(json_body(&list))
}

async fn puzzle(
    State(pool): State<Shared>,
    name: Result<UrlPath<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let UrlPath(name) = name.map_err(bad_path)?;
    let page = lookup(pool, move |db| db.snapshot(|db| json::puzzle(db, &name))).await?;
    Ok(json_body(&page))
}

async fn position(
    State(pool): State<Shared>,
    args: Result<UrlPath<(String, String)>, PathRejection>,
) -> Result<Response, ApiError> {
    let UrlPath((name, state)) = args.map_err(bad_path)?;
    let by_search = pool.with(|db| db.answers_by_search(&name))?;
    let answer = if by_search {
        let Ok(permit) = pool.searches.clone().try_acquire_owned() else {
            return Ok(busy(pool.max_searches));
        };
        let stop = Arc::new(Stop::new(Some(Instant::now() + pool.search_timeout)));
        let _cancel = CancelOnDrop(stop.clone());
        lookup(pool.clone(), move |db| {
            let _permit = permit;
            // The pattern tables, read once and kept for every later search.
            let _ = db.load_resident(&name);
            db.snapshot(|db| json::position_until(db, &name, &state, &stop))
        })
        .await?
    } else if pool.resident().settled(&name) {
        lookup_now(&pool, |db| {
            db.snapshot(|db| json::position(db, &name, &state))
        })?
    } else {
        // The puzzle's first lookup: copy its tables into memory (up to a second for
        // eleven's 120 MB) away from the workers, then answer.
        lookup(pool.clone(), move |db| {
            let _ = db.load_resident(&name);
            db.snapshot(|db| json::position(db, &name, &state))
        })
        .await?
    };
    // A position from which the goal cannot be reached is refused like any unsolvable
    // state, but its answer still carries the board and its legal moves, so that a
    // client which played into a dead end can show it and step back.
    if let Some(why) = answer["unsolvable"].as_str() {
        let mut body = answer.clone();
        body["error"] = why.into();
        body["status"] = StatusCode::UNPROCESSABLE_ENTITY.as_u16().into();
        return Ok((StatusCode::UNPROCESSABLE_ENTITY, json_body(&body)).into_response());
    }
    Ok(json_body(&answer))
}

/// 503 with `Retry-After`: every search permit is taken.
fn busy(limit: usize) -> Response {
    let body = json!({
        "error": format!("the server is running {limit} searches already; try again shortly"),
        "status": 503,
    });
    (
        StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, HeaderValue::from_static("1"))],
        json_body(&body),
    )
        .into_response()
}

/// A file compiled in; its `ETag` and `Cache-Control` are [`conditional`]'s to add.
fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [(header::CONTENT_TYPE, HeaderValue::from_static(content_type))],
        body,
    )
        .into_response()
}

async fn not_found(req: Request) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        format!("nothing at {}", req.uri().path()),
    )
}

async fn method_not_allowed(req: Request) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{} is not allowed here: the API is read-only", req.method()),
    )
}

/// The first `%` of `path` not followed by two hex digits, with what follows it.
fn bad_escape(path: &str) -> Option<&str> {
    let b = path.as_bytes();
    (0..b.len())
        .find(|&i| {
            b[i] == b'%'
                && !(i + 2 < b.len()
                    && b[i + 1].is_ascii_hexdigit()
                    && b[i + 2].is_ascii_hexdigit())
        })
        .map(|i| &path[i..(i + 3).min(path.len())])
}

/// Rejects over-long request targets and malformed percent-escapes before routing (an
/// escape such as `%zz` would otherwise reach a handler as three literal characters).
async fn limit_uri(req: Request, next: Next) -> Response {
    if let Some(bad) = bad_escape(req.uri().path()) {
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            format!("the address has a malformed percent-escape {bad:?}"),
        )
        .into_response();
    }
    let len = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if len > MAX_URI {
        return ApiError::new(
            StatusCode::URI_TOO_LONG,
            format!("the address is {len} bytes long; at most {MAX_URI} are accepted"),
        )
        .into_response();
    }
    next.run(req).await
}

/// The application: the page, its assets and the JSON API over the file at `db`,
/// which is opened read-only (once here, so a missing or foreign file fails at once).
pub fn router(db: &Path) -> Result<Router, QueryError> {
    router_with(db, ServeOptions::default())
}

/// [`router`] with chosen limits.
pub fn router_with(db: &Path, opts: ServeOptions) -> Result<Router, QueryError> {
    let max_searches = opts.max_searches.max(1);
    let resident = Resident::new();
    let state = FileState::of(db);
    if let Some((key, sig)) = &opts.key {
        Database::open_signed(db, key, sig.as_deref())?;
    }
    let mut first = Database::open_for_serving(db)?;
    first.share_resident(resident.clone());
    let tags = Arc::new(Tags {
        api: Mutex::new(api_tag_of(&first.puzzles()?)),
        assets: tag(&[INDEX_HTML.as_bytes(), APP_JS.as_bytes(), APP_CSS.as_bytes()]),
    });
    let pool = Arc::new(Pool {
        path: db.to_path_buf(),
        idle: Mutex::new(Idle {
            state,
            generation: 0,
            refused: None,
            connections: vec![first],
        }),
        resident: Mutex::new(resident),
        tags: tags.clone(),
        key: opts.key.clone(),
        searches: Arc::new(tokio::sync::Semaphore::new(max_searches)),
        max_searches,
        search_timeout: opts.search_timeout,
    });
    let app = Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/app.css",
            get(|| async { asset("text/css; charset=utf-8", APP_CSS) }),
        )
        .route(
            "/api/openapi.json",
            get(|| async { asset("application/json", OPENAPI) }),
        )
        .route("/api/puzzles", get(puzzles))
        .route("/api/puzzles/{name}", get(puzzle))
        .route("/api/puzzles/{name}/positions/{state}", get(position))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(tags, conditional))
        .layer(middleware::from_fn(limit_uri))
        .with_state(pool);
    // Outermost, so that a preflight is answered before routing (the API has no
    // OPTIONS routes) and every answer, refusals included, carries the headers.
    Ok(match cors_layer(&opts.cors) {
        Some(layer) => app.layer(layer),
        None => app,
    })
}

/// Serves `app` on `listener` until `shutdown` completes, then lets requests in flight
/// finish (for at most five seconds).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    serve_with(listener, app, shutdown, HEADER_TIMEOUT).await
}

/// [`serve`] with a chosen [`HEADER_TIMEOUT`].
pub async fn serve_with(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()>,
    header_timeout: Duration,
) -> std::io::Result<()> {
    use hyper_util::rt::TokioIo;
    use hyper_util::server::graceful::GracefulShutdown;
    use hyper_util::service::TowerToHyperService;

    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, _) = tokio::select! {
            conn = listener.accept() => match conn {
                Ok(c) => c,
                // Out of file descriptors and the like: wait and go on serving.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let watcher = graceful.watcher();
        tokio::spawn(async move {
            match oversized_request_line(&stream, header_timeout).await {
                Some(true) => {
                    let _ = reply_uri_too_long(stream).await;
                    return;
                }
                // Nothing usable within the timeout: close.
                None => return,
                Some(false) => {}
            }
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(TokioIo::new(stream), service);
            let _ = watcher.watch(conn).await;
        });
    }
    tokio::select! {
        _ = graceful.shutdown() => {},
        _ = tokio::time::sleep(Duration::from_secs(5)) => {},
    }
    Ok(())
}

/// Why [`run`] could not serve: the file refused, the address taken, or the socket failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The file at `db` cannot be served (missing, damaged, refused by its key).
    #[error(transparent)]
    Open(#[from] QueryError),
    /// The address could not be bound (in use, not this machine's, no permission).
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address asked for.
        addr: SocketAddr,
        /// The system's reason.
        source: std::io::Error,
    },
    /// Accepting or serving connections failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Binds `addr` and serves the file at `db` until Ctrl-C. Returns the bound address
/// through `ready` before serving (for a caller that asked for port 0).
pub async fn run(
    db: &Path,
    addr: SocketAddr,
    opts: ServeOptions,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServeError> {
    let app = router_with(db, opts)?;
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Listen { addr, source })?;
    ready(listener.local_addr()?);
    serve(listener, app, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    Ok(())
}

//! HTTP for browser apps and caches: CORS on the read-only API (configurable), an
//! `ETag` from the file with `Cache-Control`, 304 on a matching `If-None-Match`, and the
//! OpenAPI description at `/api/openapi.json` held to the routes it names.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::OnceLock;

use puzzlebase_cli::server::{Cors, ServeOptions};
use serde_json::Value;

use crate::serve::{start_server, start_server_with};
use crate::util::shared_db;

/// A response: status, header lines (lower-cased names), body.
pub(crate) struct Reply {
    pub(crate) status: u16,
    headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        (self.headers.iter())
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

pub(crate) fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
    for (n, v) in headers {
        req += &format!("{n}: {v}\r\n");
    }
    req += "\r\n";
    s.write_all(req.as_bytes()).unwrap();
    let mut resp = Vec::new();
    s.read_to_end(&mut resp).unwrap();
    let end = resp.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&resp[..end]).to_string();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let headers = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Reply {
        status,
        headers,
        body: resp[end + 4..].to_vec(),
    }
}

fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| start_server(shared_db()))
}

fn with_cors(cors: Cors) -> SocketAddr {
    start_server_with(
        shared_db(),
        puzzlebase_cli::server::HEADER_TIMEOUT,
        ServeOptions {
            cors,
            ..ServeOptions::default()
        },
    )
}

#[test]
fn any_page_may_read_the_api_unless_told_otherwise() {
    let origin = ("Origin", "https://example.org");
    let r = request(server(), "GET", "/api/puzzles/eight", &[origin]);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    assert!(
        r.header("access-control-expose-headers")
            .is_some_and(|h| h.to_ascii_lowercase().contains("etag"))
    );
    // A refusal is readable too (the page's script shows its reason).
    let r = request(server(), "GET", "/api/puzzles/nothing", &[origin]);
    assert_eq!(r.status, 404);
    assert_eq!(r.header("access-control-allow-origin"), Some("*"));
    // A preflight for a conditional GET.
    let r = request(
        server(),
        "OPTIONS",
        "/api/puzzles/eight",
        &[
            origin,
            ("Access-Control-Request-Method", "GET"),
            ("Access-Control-Request-Headers", "if-none-match"),
        ],
    );
    assert!(r.status == 200 || r.status == 204, "{}", r.status);
    assert!(
        r.header("access-control-allow-methods")
            .unwrap()
            .contains("GET")
    );
    assert!(
        r.header("access-control-allow-headers")
            .unwrap()
            .to_ascii_lowercase()
            .contains("if-none-match")
    );

    let off = with_cors(Cors::Off);
    let r = request(off, "GET", "/api/puzzles/eight", &[origin]);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("access-control-allow-origin"), None);

    let one = with_cors("https://puzzles.example.org".parse().unwrap());
    let r = request(
        one,
        "GET",
        "/api/puzzles",
        &[("Origin", "https://puzzles.example.org")],
    );
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://puzzles.example.org")
    );
    let r = request(one, "GET", "/api/puzzles", &[origin]);
    assert_eq!(r.header("access-control-allow-origin"), None);
    assert!("ftp://x".parse::<Cors>().is_err());
}

#[test]
fn answers_carry_an_etag_and_a_matching_request_gets_304() {
    let r = request(
        server(),
        "GET",
        "/api/puzzles/eight/positions/867254301",
        &[],
    );
    assert_eq!(r.status, 200);
    let tag = r.header("etag").expect("an ETag").to_string();
    assert!(tag.starts_with('"') && tag.ends_with('"'), "{tag}");
    assert_eq!(
        r.header("cache-control"),
        Some(puzzlebase_cli::server::API_CACHE)
    );
    // The tag is the file's: the same on every answer from it.
    let other = request(server(), "GET", "/api/puzzles", &[]);
    assert_eq!(other.header("etag"), Some(tag.as_str()));

    for sent in [
        tag.clone(),
        format!("W/{tag}"),
        format!("\"x\", {tag}"),
        "*".into(),
    ] {
        let r = request(
            server(),
            "GET",
            "/api/puzzles/eight/positions/867254301",
            &[("If-None-Match", &sent)],
        );
        assert_eq!(r.status, 304, "{sent}");
        assert!(r.body.is_empty());
        assert_eq!(r.header("etag"), Some(tag.as_str()));
    }
    let r = request(
        server(),
        "GET",
        "/api/puzzles/eight/positions/867254301",
        &[("If-None-Match", "\"pb-0000\"")],
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["distance"], 31);
    // Refusals are not cached.
    let r = request(server(), "GET", "/api/puzzles/eight/positions/1", &[]);
    assert_eq!(r.status, 400);
    assert_eq!(r.header("etag"), None);
    // The page has a tag of its own (its assets), and is revalidated each time.
    let page = request(server(), "GET", "/", &[]);
    let page_tag = page.header("etag").unwrap().to_string();
    assert_ne!(page_tag, tag);
    assert_eq!(page.header("cache-control"), Some("no-cache"));
    let r = request(server(), "GET", "/", &[("If-None-Match", &page_tag)]);
    assert_eq!(r.status, 304);
}

/// A schema's `required` properties, following one `$ref` into the components.
fn required(doc: &Value, schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.rsplit('/').next().unwrap();
        out.extend(required(doc, &doc["components"]["schemas"][name]));
    }
    for part in schema["allOf"].as_array().into_iter().flatten() {
        out.extend(required(doc, part));
    }
    for r in schema["required"].as_array().into_iter().flatten() {
        out.push(r.as_str().unwrap().to_string());
    }
    out
}

#[test]
fn the_openapi_description_names_exactly_the_routes_there_are() {
    let r = request(server(), "GET", "/api/openapi.json", &[]);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let doc = r.json();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    let paths = doc["paths"].as_object().unwrap();
    let mut names: Vec<&str> = paths.keys().map(String::as_str).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "/api/openapi.json",
            "/api/puzzles",
            "/api/puzzles/{name}",
            "/api/puzzles/{name}/positions/{state}"
        ]
    );
    for (path, item) in paths {
        let get = &item["get"];
        assert!(get.is_object(), "{path}: GET");
        // Each parameter's example fills it in; the route answers 200 with the
        // documented fields.
        let mut url = path.clone();
        for p in get["parameters"].as_array().into_iter().flatten() {
            let p = match p["$ref"].as_str() {
                Some(r) => &doc["components"]["parameters"][r.rsplit('/').next().unwrap()],
                None => p,
            };
            let name = p["name"].as_str().unwrap();
            let example = p["example"].as_str().unwrap();
            url = url.replace(&format!("{{{name}}}"), example);
        }
        assert!(!url.contains('{'), "{path}: every parameter has an example");
        let r = request(server(), "GET", &url, &[]);
        assert_eq!(r.status, 200, "{url}");
        let ok = &get["responses"]["200"];
        assert!(
            ok["content"]["application/json"].is_object(),
            "{path}: a JSON answer"
        );
        let answer = r.json();
        let schema = &ok["content"]["application/json"]["schema"];
        let item = if schema["type"] == "array" {
            answer[0].clone()
        } else {
            answer.clone()
        };
        let schema = if schema["type"] == "array" {
            &schema["items"]
        } else {
            schema
        };
        for field in required(&doc, schema) {
            assert!(item.get(&field).is_some(), "{path}: {field} in {item}");
        }
        // Every status the route can answer with is described.
        for status in ["200", "304"] {
            if path != "/api/openapi.json" || status == "200" {
                assert!(get["responses"][status].is_object(), "{path}: {status}");
            }
        }
    }
    // A route that is not described does not exist.
    assert_eq!(request(server(), "GET", "/api/positions", &[]).status, 404);
}

#[test]
fn a_malformed_percent_escape_is_a_bad_request() {
    for path in [
        "/api/puzzles/%zz",
        "/api/puzzles/eight/positions/8672%5",
        "/api/%",
    ] {
        let r = request(server(), "GET", path, &[]);
        assert_eq!(r.status, 400, "{path}");
        let v = r.json();
        assert!(
            v["error"].as_str().unwrap().contains("percent-escape"),
            "{v}"
        );
        assert_eq!(v["status"], 400);
    }
    // Well-formed escapes still reach their routes.
    let r = request(server(), "GET", "/api/puzzles/%65ight", &[]);
    assert_eq!(r.status, 200);
}

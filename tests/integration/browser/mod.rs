//! The page in a real browser: headless Chromium driven over WebDriver (Debian's
//! `chromium` and `chromium-driver`). These tests are `#[ignore]`d, so the plain
//! `cargo test` needs only Cargo; `.ci/run` installs the browser and runs them with
//! `cargo test --test integration browser -- --ignored`. Without chromedriver they say
//! so and pass. Screenshots of each board go to `target/screenshots/`.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

use crate::serve::start_server;
use crate::util::{generate_into, query_json_in, shared_db};

const CHROMIUM: &str = "/usr/bin/chromium";

fn find_program(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// A chromedriver on a free port, stopped when dropped.
struct Driver {
    child: Child,
    port: u16,
    _profile: tempfile::TempDir,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts chromedriver, or says why the browser tests are skipped.
fn driver() -> Option<Driver> {
    let Some(exe) = find_program("chromedriver") else {
        eprintln!(
            "browser test skipped: chromedriver is not installed (apt-get install chromium chromium-driver)"
        );
        return None;
    };
    if !Path::new(CHROMIUM).is_file() {
        eprintln!("browser test skipped: {CHROMIUM} is not installed");
        return None;
    }
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(exe)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "chromedriver listens"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(Driver {
        child,
        port,
        _profile: tempfile::tempdir().unwrap(),
    })
}

async fn session(d: &Driver) -> Client {
    let profile = d._profile.path().display().to_string();
    let caps = json!({
        "goog:chromeOptions": {
            "binary": CHROMIUM,
            "args": [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                format!("--user-data-dir={profile}"), "--window-size=1280,1000",
            ],
        }
    });
    let serde_json::Value::Object(caps) = caps else {
        unreachable!()
    };
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{}", d.port))
        .await
        .expect("a WebDriver session")
}

/// Runs `body` in a browser session that is closed even when `body` fails, so that no
/// browser outlives the test.
fn with_session<F, Fut>(d: &Driver, body: F)
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    runtime().block_on(async {
        let c = session(d).await;
        let outcome = tokio::spawn(body(c.clone())).await;
        let _ = c.close().await;
        if let Err(e) = outcome {
            if e.is_panic() {
                std::panic::resume_unwind(e.into_panic());
            }
            panic!("the browser test was cancelled");
        }
    });
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.unwrap()
}

/// The distance the page shows (null when none is shown).
async fn distance(c: &Client) -> Value {
    js(
        c,
        "const d = document.getElementById('distance').getAttribute('data-distance');
         return d === null || d === '' ? null : Number(d);",
    )
    .await
}

async fn position(c: &Client) -> String {
    js(c, "return document.getElementById('position').value;")
        .await
        .as_str()
        .unwrap()
        .to_string()
}

/// Polls `cond` until it holds (10 s at most).
async fn wait_until<F, Fut>(what: &str, mut cond: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !cond().await {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

async fn open(c: &Client, addr: SocketAddr, hash: &str) {
    c.goto(&format!("http://{addr}/{hash}")).await.unwrap();
    wait_until("the page", || async {
        js(
            c,
            "return document.body.getAttribute('data-ready') === '1';",
        )
        .await
            == json!(true)
    })
    .await;
}

async fn wait_distance(c: &Client, d: u64) {
    wait_until(&format!("distance {d}"), || async {
        distance(c).await == json!(d)
    })
    .await;
}

/// Clicks the element with this id.
async fn click_id(c: &Client, id: &str) {
    c.find(Locator::Id(id))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

async fn click_cell(c: &Client, cell: usize) {
    c.find(Locator::Css(&format!("#board g[data-cell='{cell}']")))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

fn screenshot_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn screenshot_board(c: &Client, name: &str) {
    let png = c
        .find(Locator::Id("board"))
        .await
        .unwrap()
        .screenshot()
        .await
        .unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    std::fs::write(screenshot_dir().join(format!("{name}.png")), png).unwrap();
}

/// The window sizes every page is checked at: a phone held upright and a desktop.
const SIZES: [(u32, u32); 2] = [(390, 844), (1280, 1000)];

/// Makes the page's viewport `w` x `h` CSS pixels: the window is sized, and sized again
/// by the difference when the browser's frame takes some of it. Checks that
/// `window.innerWidth` is the width asked for (within two pixels).
async fn set_viewport(c: &Client, w: u32, h: u32) {
    c.set_window_size(w, h).await.unwrap();
    let inner = js(c, "return [window.innerWidth, window.innerHeight];").await;
    let (iw, ih) = (inner[0].as_i64().unwrap(), inner[1].as_i64().unwrap());
    if iw != w as i64 || ih != h as i64 {
        let grow = |want: u32, got: i64| (2 * want as i64 - got).max(want as i64) as u32;
        c.set_window_size(grow(w, iw), grow(h, ih)).await.unwrap();
    }
    let start = Instant::now();
    loop {
        let got = js(c, "return window.innerWidth;").await.as_i64().unwrap();
        if (got - w as i64).abs() <= 2 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "the viewport is {got} px wide, not the {w} px asked for"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// A script's shared part: `describe(e)` names an element (tag, id, classes and the
/// start of its text), and `visible(e, r, upTo)` is the part of the box `r` of `e` (or of
/// one of its text nodes) that the ancestors of `e` below `upTo` which clip their
/// overflow leave on screen, or null when nothing of it is.
const DESCRIBE: &str = r#"
    const describe = (e) => {
        let s = e.tagName.toLowerCase();
        if (e.id) s += '#' + e.id;
        if (e.classList && e.classList.length) s += '.' + [...e.classList].join('.');
        const t = (e.textContent || '').trim().replace(/\s+/g, ' ');
        return t ? `${s} "${t.length > 40 ? t.slice(0, 40) + '...' : t}"` : s;
    };
    const visible = (e, r, upTo) => {
        let left = r.left, right = r.right, top = r.top, bottom = r.bottom;
        for (let a = e; a && a !== upTo && a !== document.body; a = a.parentElement) {
            if (getComputedStyle(a).overflowX === 'visible') continue;
            const b = a.getBoundingClientRect();
            left = Math.max(left, b.left); right = Math.min(right, b.right);
            top = Math.max(top, b.top); bottom = Math.min(bottom, b.bottom);
        }
        return right > left && bottom > top ? { left, right, top, bottom } : null;
    };
"#;

/// Whatever of the page shown lies right (or left) of the viewport: the document wider
/// than the window, or a visible element whose box, as far as its ancestors let it show,
/// reaches past either edge. One line per offender.
async fn overflow(c: &Client) -> Vec<String> {
    let script = format!(
        "{DESCRIBE}
        const W = window.innerWidth, doc = document.documentElement, out = [], wide = new Set();
        if (doc.scrollWidth > W) out.push(`the document is ${{doc.scrollWidth}} px wide`);
        for (const e of document.body.querySelectorAll('*')) {{
            const cs = getComputedStyle(e);
            if (cs.display === 'none' || cs.visibility === 'hidden') continue;
            const r = e.getBoundingClientRect();
            if (r.width === 0 && r.height === 0) continue;
            const v = visible(e, r, null);
            if (v && (v.right > W + 0.5 || v.left < -0.5)) {{
                wide.add(e);
                // The outermost offenders only (what is inside them is named by them).
                if (!wide.has(e.parentElement)) {{
                    out.push(`${{describe(e)}} spans ${{Math.round(v.left)}}..${{Math.round(v.right)}} px`);
                }}
            }}
        }}
        return out;"
    );
    serde_json::from_value(js(c, &script).await).unwrap()
}

/// Entries of the move list that overlap: two entries' boxes that intersect, an entry
/// whose text, as far as it is not clipped inside the entry, runs out of its box (into
/// its neighbour's), or one with a list marker drawn outside its box. One line per
/// offence.
async fn overlapping_moves(c: &Client) -> Vec<String> {
    let script = format!(
        "{DESCRIBE}
        const lis = [...document.querySelectorAll('#moves li')], out = [];
        const boxes = lis.map((l) => l.getBoundingClientRect());
        lis.forEach((l, i) => {{
            const b = boxes[i], cs = getComputedStyle(l);
            // A number drawn outside the entry's box lands on whatever is left of it.
            if (cs.display === 'list-item' && cs.listStyleType !== 'none' &&
                cs.listStylePosition === 'outside') {{
                out.push(`${{describe(l)}}: its marker is drawn outside its box`);
            }}
            const walker = document.createTreeWalker(l, NodeFilter.SHOW_TEXT);
            for (let t = walker.nextNode(); t; t = walker.nextNode()) {{
                const range = document.createRange();
                range.selectNodeContents(t);
                for (const r of range.getClientRects()) {{
                    const v = visible(t.parentElement, r, l);
                    if (v && (v.left < b.left - 1 || v.right > b.right + 1 ||
                              v.top < b.top - 1 || v.bottom > b.bottom + 1)) {{
                        out.push(`${{describe(l)}}: its text runs out of its box`);
                    }}
                }}
            }}
            for (let j = i + 1; j < lis.length; j++) {{
                const o = boxes[j];
                if (b.left < o.right - 0.5 && o.left < b.right - 0.5 &&
                    b.top < o.bottom - 0.5 && o.top < b.bottom - 0.5) {{
                    out.push(`${{describe(l)}} overlaps ${{describe(lis[j])}}`);
                }}
            }}
        }});
        return [...new Set(out)];"
    );
    serde_json::from_value(js(c, &script).await).unwrap()
}

/// A screenshot of the whole page at width `w`, kept as `target/screenshots/LABEL.png`:
/// the window is made as tall as the page (at most 4,000 px) for it, then `w` x `h`
/// again. (The checks are made at `w` x `h`, where a page taller than the window has a
/// scroll bar that takes 15 px of a phone's 390.)
async fn screenshot_page(c: &Client, label: &str, w: u32, h: u32) {
    // With a little to spare: without its scroll bar the page is a little wider, and
    // what scales with the width (the board, the histogram) a little taller.
    let tall = js(c, "return document.documentElement.scrollHeight;")
        .await
        .as_u64()
        .unwrap() as u32;
    set_viewport(c, w, (tall + 40).clamp(h, 4000)).await;
    let png = c.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    std::fs::write(screenshot_dir().join(format!("{label}.png")), png).unwrap();
    set_viewport(c, w, h).await;
}

/// Checks the page shown (puzzle `name`, in `state` words for the messages) at every
/// size of [`SIZES`]: nothing wider than the screen, move entries that do not overlap,
/// and a screenshot of each (`NAME-WxH.png`, or `NAME-STATE-WxH.png`). Leaves the
/// window at the last size, the desktop's. Returns what is wrong, one line per puzzle,
/// size and kind of fault, naming the offending elements.
async fn page_faults(c: &Client, name: &str, state: &str) -> Vec<String> {
    let mut faults = Vec::new();
    for (w, h) in SIZES {
        set_viewport(c, w, h).await;
        let size = format!("{w}x{h}");
        let what = if state.is_empty() {
            format!("{name} at {size}")
        } else {
            format!("{name} ({state}) at {size}")
        };
        let wide = overflow(c).await;
        if !wide.is_empty() {
            faults.push(format!(
                "{what}: wider than the screen: {}",
                wide.join("; ")
            ));
        }
        let overlaps = overlapping_moves(c).await;
        if !overlaps.is_empty() {
            faults.push(format!(
                "{what}: move entries overlap: {}",
                overlaps.join("; ")
            ));
        }
        let label = if state.is_empty() {
            format!("{name}-{size}")
        } else {
            format!("{name}-{state}-{size}")
        };
        screenshot_page(c, &label, w, h).await;
    }
    faults
}

/// [`page_faults`], which must find none.
async fn assert_page_fits(c: &Client, name: &str, state: &str) {
    let faults = page_faults(c, name, state).await;
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// Waits until the page shows a position of puzzle `name` (the page marks the body with
/// the puzzle whose position it has drawn).
async fn wait_shown(c: &Client, name: &str) {
    wait_until(&format!("{name}'s position"), || async {
        js(c, "return document.body.getAttribute('data-shown');").await == json!(name)
    })
    .await;
}

mod play;

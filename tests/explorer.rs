//! The explorer page (`retrobook serve`'s `/`) in a real browser: Debian's headless chromium,
//! driven through chromedriver over the W3C WebDriver protocol (a small client below, on
//! the tests' plain HTTP client). A line of three book moves from the initial position, then a line of three table
//! moves from a KPvK position to KQvK, are played by clicking the page's move rows; at every
//! position the book's moves and the tables' verdicts the page shows equal the command line's
//! (`book probe --json`, `probe --json`), and the FEN and PGN it shows equal shakmaty's. Then
//! back and forward (buttons and arrow keys), a move played from inside the line, a FEN the
//! server refuses, and the copy buttons. Leaves a screenshot in target/explorer.png.
//!
//! chromium and chromedriver come from Debian's chromium and chromium-driver packages, which
//! scripts/install-browser installs (scripts/test runs it); without them this test fails.

mod common;

use common::{http, run_ok};
use serde_json::{json, Value};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const INITIAL: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// How long to wait for the browser or the page before giving up (never a measured time).
const PATIENCE: Duration = Duration::from_secs(120);
/// The key W3C WebDriver names element references with.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";
const ARROW_LEFT: &str = "\u{E012}";
const ARROW_RIGHT: &str = "\u{E014}";
const ENTER: &str = "\u{E007}";

/// Whether `program` is on PATH.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// A child process, killed by its PID and reaped when dropped (when the test fails too).
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `retrobook serve` on a free port of 127.0.0.1, run in `dir` on its `tables/` and
/// `books/book.rbb` (named so, as the defaults are, in what the page shows).
fn serve(dir: &Path) -> (Process, String) {
    let args = ["--tables", "tables", "--book", "books/book.rbb"];
    let (child, url) = common::serve(&args, dir, Stdio::inherit());
    (Process(child), url)
}

/// A free TCP port on 127.0.0.1 (free when asked: chromedriver takes it right after).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Polls `probe` until it gives a value, for at most `PATIENCE`; panics naming `what`.
fn wait_for<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(t) = probe() {
            return t;
        }
        assert!(start.elapsed() < PATIENCE, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// A chromedriver process and a client of its WebDriver API.
struct Driver {
    _process: Process,
    url: String,
}

impl Driver {
    /// Starts chromedriver on a free port and waits until it is ready. The browser keeps its
    /// temporary files in `tmp` (which the test removes), not in the system's.
    fn start(tmp: &Path) -> Driver {
        let missing: Vec<&str> = ["chromium", "chromedriver"]
            .into_iter()
            .filter(|p| !on_path(p))
            .collect();
        assert!(
            missing.is_empty(),
            "{} not found on PATH: scripts/install-browser installs Debian's chromium and \
             chromium-driver (scripts/test runs it first)",
            missing.join(" and ")
        );
        let port = free_port();
        std::fs::create_dir_all(tmp).unwrap();
        let child = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .env("TMPDIR", tmp)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let driver = Driver {
            _process: Process(child),
            url: format!("http://127.0.0.1:{port}"),
        };
        wait_for("chromedriver to be ready", || {
            let status = http::get(&format!("{}/status", driver.url));
            let ready = status.ok()?.json().ok()?["value"]["ready"].as_bool();
            ready.filter(|&r| r)
        });
        driver
    }

    /// A WebDriver command: its value, or the error's status and value.
    fn try_call(
        &self,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, (u16, Value)> {
        let body = body.map(|b| b.to_string());
        let url = format!("{}{path}", self.url);
        let r = http::request(method, &url, body.as_deref())
            .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"));
        match r.status {
            200..=299 => Ok(r.json().expect("JSON from chromedriver")["value"].take()),
            status => Err((status, r.json().unwrap_or_default()["value"].take())),
        }
    }

    /// A WebDriver command that must succeed.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.try_call(method, path, body)
            .unwrap_or_else(|(status, v)| panic!("WebDriver {method} {path}: {status} {v}"))
    }

    /// A new headless chromium session.
    fn session(&self) -> Session<'_> {
        let args = [
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--window-size=1280,1060",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
        ];
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"args": args},
        }}});
        let value = self.call("POST", "/session", Some(capabilities));
        let id = value["sessionId"]
            .as_str()
            .expect("a session id")
            .to_string();
        Session { driver: self, id }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // chromedriver's own way out, closing any browser left; then `_process` is killed.
        let _ = http::get(&format!("{}/shutdown", self.url));
    }
}

/// A browser session, closed (with its browser) when dropped.
struct Session<'a> {
    driver: &'a Driver,
    id: String,
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let _ = self
            .driver
            .try_call("DELETE", &format!("/session/{}", self.id), None);
    }
}

impl Session<'_> {
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}{path}", self.id);
        self.driver.call(method, &path, body)
    }

    fn goto(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    /// Runs `script` (a function's body) in the page: what it returns.
    fn script(&self, script: &str) -> Value {
        let body = json!({"script": script, "args": []});
        self.call("POST", "/execute/sync", Some(body))
    }

    /// The element `css` selects, waiting for it to be there.
    fn element(&self, css: &str) -> String {
        wait_for(&format!("an element {css}"), || {
            let path = format!("/session/{}/element", self.id);
            let found = self.driver.try_call(
                "POST",
                &path,
                Some(json!({"using": "css selector", "value": css})),
            );
            found.ok().map(|v| v[ELEMENT].as_str().unwrap().to_string())
        })
    }

    fn click(&self, css: &str) {
        let id = self.element(css);
        self.call("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    /// The text `css`'s element shows.
    fn text(&self, css: &str) -> String {
        let id = self.element(css);
        let text = self.call("GET", &format!("/element/{id}/text"), None);
        text.as_str().unwrap().to_string()
    }

    /// Types `text` into the field `css`, after emptying it.
    fn type_into(&self, css: &str, text: &str) {
        let id = self.element(css);
        self.call("POST", &format!("/element/{id}/clear"), Some(json!({})));
        self.call(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        );
    }

    /// Presses and releases `key` (a WebDriver key code) on whatever has the focus.
    fn press(&self, key: &str) {
        let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]}]});
        self.call("POST", "/actions", Some(actions));
    }

    /// Moves the mouse over the middle of `css`'s element.
    fn hover(&self, css: &str) {
        let id = self.element(css);
        let actions = json!({"actions": [{"type": "pointer", "id": "mouse",
            "parameters": {"pointerType": "mouse"}, "actions": [
            {"type": "pointerMove", "duration": 0, "origin": {ELEMENT: id}, "x": 0, "y": 0}]}]});
        self.call("POST", "/actions", Some(actions));
    }

    /// The page's screenshot, as PNG.
    fn screenshot(&self) -> Vec<u8> {
        let text = self.call("GET", "/screenshot", None);
        base64(text.as_str().expect("base64 text"))
    }

    /// Waits until the page shows `fen` with every answer in.
    fn wait_shown(&self, fen: &str) {
        let start = Instant::now();
        loop {
            let app = self.script(
                "const a = document.getElementById('app'); \
                 return [a.dataset.state, a.dataset.fen];",
            );
            if app[0] == "ready" && app[1] == fen {
                return;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "gave up waiting for the page to show {fen}: it shows {app}"
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// What the page shows: its move tables' rows, the tables' verdict, the FEN and the PGN.
    fn shown(&self) -> Shown {
        let v = self.script(
            "const rows = (id) => document.getElementById(id).hidden ? [] :
                [...document.querySelectorAll(`#${id} tbody tr`)].map((tr) => ({
                    uci: tr.dataset.uci,
                    data: Object.assign({}, tr.dataset),
                    cells: [...tr.cells].map((c) => c.innerText.trim()),
                    bar: [...tr.querySelectorAll('.bar span')].map((s) => Number(s.dataset.count)),
                }));
             const text = (id) => document.getElementById(id).innerText.trim();
             const verdict = document.getElementById('tb-position').hidden ? null : {
                category: document.getElementById('verdict').dataset.category,
                text: text('verdict'), dtm: text('dtm'), dtz: text('dtz'), mate: text('mate') };
             return { book: rows('book-moves'), tables: rows('tb-moves'), verdict,
                bookGames: text('book-games'), bookNote: text('book-note'),
                bookEval: text('book-eval'),
                bookCaption: text('book-caption'),
                tbNote: text('tb-note'), turn: text('turn'), bestLine: text('tb-line'),
                fen: document.getElementById('fen').value, pgn: text('pgn') };",
        );
        serde_json::from_value(v).expect("the page's state")
    }
}

#[derive(serde::Deserialize, Debug)]
#[serde(rename_all = "camelCase")]
struct Shown {
    book: Vec<Row>,
    tables: Vec<Row>,
    verdict: Option<Verdict>,
    book_games: String,
    book_note: String,
    book_eval: String,
    book_caption: String,
    tb_note: String,
    turn: String,
    best_line: String,
    fen: String,
    pgn: String,
}

#[derive(serde::Deserialize, Debug)]
struct Row {
    uci: String,
    data: std::collections::HashMap<String, String>,
    cells: Vec<String>,
    bar: Vec<u64>,
}

#[derive(serde::Deserialize, Debug)]
struct Verdict {
    category: String,
    text: String,
    dtm: String,
    dtz: String,
    mate: String,
}

/// Decodes standard base64 (padded), as WebDriver's screenshots come.
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {:?}", c as char),
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let bits = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &d)| acc | u32::from(d) << (18 - 6 * i));
        out.extend_from_slice(&bits.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// `n` with thousands separated by commas, as the page writes counts.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A signed number as the page writes it (a true minus sign).
fn signed(n: i64) -> String {
    if n < 0 {
        format!("\u{2212}{}", -n)
    } else {
        n.to_string()
    }
}

/// The category as the page names it.
fn category_name(category: &str) -> &'static str {
    match category {
        "win" => "Win",
        "cursed-win" => "Cursed win",
        "draw" => "Draw",
        "blessed-loss" => "Blessed loss",
        "loss" => "Loss",
        other => panic!("category {other:?}"),
    }
}

/// shakmaty's FEN and SAN for the moves `ucis` played from `fen`: the FEN after each, and
/// the SAN of each.
fn played(fen: &str, ucis: &[&str]) -> Vec<(String, String)> {
    let setup: Fen = fen.parse().unwrap();
    let mut pos: Chess = setup.into_position(CastlingMode::Standard).unwrap();
    ucis.iter()
        .map(|uci| {
            let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            let san = SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string();
            let fen = Fen::from_position(&pos, EnPassantMode::Always).to_string();
            (fen, san)
        })
        .collect()
}

/// The PGN the page should show for `sans` played from `start`.
fn pgn(start: &str, sans: &[String]) -> String {
    let fields: Vec<&str> = start.split(' ').collect();
    let mut white = fields[1] == "w";
    let mut number: u32 = fields[5].parse().unwrap();
    let mut words = Vec::new();
    for (i, san) in sans.iter().enumerate() {
        if white {
            words.push(format!("{number}."));
        } else if i == 0 {
            words.push(format!("{number}..."));
        }
        words.push(san.clone());
        if !white {
            number += 1;
        }
        white = !white;
    }
    words.push("*".into());
    let tags = if start == INITIAL {
        String::new()
    } else {
        format!("[SetUp \"1\"]\n[FEN \"{start}\"]\n\n")
    };
    tags + &words.join(" ")
}

/// The book rows the page shows for `fen` equal `book probe FEN --json`: the same moves,
/// most played first (the CLI's order on a tie: by goodness), with their SAN, games, wins,
/// draws, losses, score and goodness.
fn check_book(page: &Shown, fen: &str, book: &Path) {
    check_book_sorted(page, fen, book, "games");
}

/// `check_book`, the page's rows sorted by `by` (a key of the CLI's moves), most first.
fn check_book_sorted(page: &Shown, fen: &str, book: &Path, by: &str) {
    check_book_named(page, fen, book, by, "san");
}

/// `check_book_sorted`, each move named by the CLI's `name` (`san`, or `wxf_ascii` in a
/// Chinese chess book).
fn check_book_named(page: &Shown, fen: &str, book: &Path, by: &str, name: &str) {
    let cli: Value = serde_json::from_str(&run_ok(&[
        "book",
        "probe",
        fen,
        "--book",
        book.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    let games = cli["games"].as_u64().unwrap();
    assert_eq!(
        page.book_games,
        format!("{} games", thousands(games)),
        "{fen}"
    );
    assert_eq!(page.book_eval, eval_words(&cli["eval"], fen), "{fen}");
    let mut moves = cli["moves"].as_array().unwrap().clone();
    // A stable sort: ties keep the CLI's order.
    moves.sort_by(|a, b| b[by].as_f64().unwrap().total_cmp(&a[by].as_f64().unwrap()));
    assert_eq!(page.book.len(), moves.len(), "{fen}: {:?}", page.book);
    for (row, m) in page.book.iter().zip(&moves) {
        let count = |k: &str| m[k].as_u64().unwrap();
        assert_eq!(row.uci, m["uci"].as_str().unwrap(), "{fen}");
        assert_eq!(row.cells[0], m[name].as_str().unwrap(), "{fen}");
        let shown_games = row.cells[1].split_whitespace().next().unwrap();
        assert_eq!(shown_games, thousands(count("games")), "{fen} {}", row.uci);
        assert_eq!(
            row.bar,
            [count("win"), count("draw"), count("loss")],
            "{fen} {}",
            row.uci
        );
        for (cell, key) in [(3, "score"), (4, "goodness")] {
            let shown: f64 = row.cells[cell].trim_end_matches('%').parse().unwrap();
            let expected = 100.0 * m[key].as_f64().unwrap();
            assert!(
                (shown - expected).abs() <= 0.05 + 1e-9,
                "{fen} {}: {key} {shown} shown, {expected} by the CLI",
                row.uci
            );
        }
    }
    assert!(
        page.book_caption.contains(&format!("Sorted by {by}")),
        "{fen}: {:?}",
        page.book_caption
    );
    if moves.is_empty() {
        assert!(
            !page.book_note.is_empty(),
            "{fen}: no note for an empty book answer"
        );
    }
}

/// What the page says of a book position's engine value (`book probe --json`'s `eval` of
/// `fen`): nothing where there is none.
fn eval_words(eval: &Value, fen: &str) -> String {
    if eval.is_null() {
        return String::new();
    }
    let side = side_to_move(fen, "White");
    let score = match (eval["score"]["cp"].as_i64(), eval["score"]["mate"].as_i64()) {
        (Some(cp), _) => {
            let sign = match cp.signum() {
                1 => "+",
                -1 => "\u{2212}",
                _ => "",
            };
            format!("{sign}{}.{:02} for {side}", cp.abs() / 100, cp.abs() % 100)
        }
        (_, Some(n)) => {
            let whose = if n > 0 { "for" } else { "against" };
            format!("mate in {} {whose} {side}", n.abs())
        }
        _ => panic!("a score is cp or mate: {eval}"),
    };
    let line: Vec<&str> = eval["line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    format!(
        "{} at {}: {score}; best {}, line {}.",
        eval["engine"].as_str().unwrap(),
        eval["limit"].as_str().unwrap(),
        eval["best"].as_str().unwrap(),
        line.join(" ")
    )
}

/// What the page's sentence says after the mate in moves of a won or lost position
/// (`probe FEN --json` said as `cli`): the plies to a reset by `dtz`, "ply" for one, and
/// what the move count of `fen` leaves of them, or that the rule draws the position.
fn clock_words(cli: &Value, fen: &str) -> String {
    let dtz = cli["dtz"].as_i64().unwrap();
    if dtz == 0 || cli["checkmate"] == true {
        return String::new();
    }
    let clock: i64 = fen.split(' ').nth(4).map_or(0, |c| c.parse().unwrap());
    let plies = dtz.abs();
    let left = (100 - clock).max(0);
    let count = format!("{plies} {}", if plies == 1 { "ply" } else { "plies" });
    let reset = "to a capture, pawn move or mate";
    match cli["category"].as_str().unwrap() {
        "cursed-win" | "blessed-loss" if plies > 100 => " (drawn by the 50-move rule)".into(),
        "cursed-win" | "blessed-loss" => format!(
            " (drawn by the 50-move rule: {count} {reset}, only {left} left by the move count of {clock})"
        ),
        _ => format!("; {count} {reset}, {left} left by the move count"),
    }
}

/// The tables' verdict the page shows for `fen` equals `probe FEN --json`: the position's
/// category from its move count, DTM, DTZ and mate in moves, and every move's, in the same
/// order (each move valued for the side playing it: the position after it, seen from the
/// other side; its DTZ, the move counted, as the library's root ranking gives it).
fn check_tables(page: &Shown, fen: &str, tables: &Path) {
    let (cli, verdict, category) = probed(page, fen, tables, &[]);
    let category = category.as_str();
    let side = side_to_move(fen, "White");
    let dtz = match cli["dtz"].as_i64().unwrap() {
        0 => "\u{2014}".to_string(),
        d => signed(d),
    };
    assert_eq!(verdict.dtz, dtz, "{fen}");
    if category == "cursed-win" || category == "blessed-loss" {
        assert!(
            verdict.mate.contains("drawn by the 50-move rule"),
            "{fen}: {:?}",
            verdict.mate
        );
    }
    assert_eq!(verdict.text, category_name(category), "{fen}");
    let plies = cli["dtm_plies"].as_i64();
    let (dtm, mate) = match (cli["wdl"].as_str().unwrap(), plies) {
        ("win", Some(p)) => (signed(p), format!("{side} mates in {}", (p + 1) / 2)),
        ("loss", Some(0)) => ("0".into(), format!("{side} is checkmated")),
        ("loss", Some(p)) => (signed(-p), format!("{side} is mated in {}", (p + 1) / 2)),
        ("draw", None) => ("\u{2014}".into(), String::new()),
        other => panic!("{fen}: {other:?}"),
    };
    assert_eq!(verdict.dtm, dtm, "{fen}");
    if mate.is_empty() {
        assert!(!verdict.mate.is_empty(), "{fen}: a draw said why");
    } else {
        assert_eq!(verdict.mate, mate + &clock_words(&cli, fen), "{fen}");
    }
    let moves = cli["moves"].as_array().unwrap();
    let ucis: Vec<&str> = moves.iter().map(|m| m["uci"].as_str().unwrap()).collect();
    let shown: Vec<&str> = page.tables.iter().map(|r| r.uci.as_str()).collect();
    assert_eq!(shown, ucis, "{fen}: the moves, best first");
    let tb = retrobook::Tablebase::open(tables).unwrap();
    let ranked = tb.probe_root_clock(&fen.parse().unwrap(), false).unwrap();
    for ((row, m), r) in page.tables.iter().zip(moves).zip(&ranked) {
        assert_eq!(row.uci, r.mv.to_string(), "{fen}");
        let dtz = match r.root_dtz.0 {
            0 => "\u{2014}".to_string(),
            d => signed(d.into()),
        };
        assert_eq!(row.cells[3], dtz, "{fen} {}", row.uci);
        // The CLI and the page's data give the position after the move, for the side to
        // move there; the page shows the move's value for the side playing it.
        let (after, after_plies) = (m["wdl"].as_str().unwrap(), m["dtm_plies"].as_i64());
        let after_category = row.data["category"].as_str();
        let (mover_category, after_wdl) = match after_category {
            "win" => ("loss", "win"),
            "cursed-win" => ("blessed-loss", "win"),
            "draw" => ("draw", "draw"),
            "blessed-loss" => ("cursed-win", "loss"),
            "loss" => ("win", "loss"),
            other => panic!("{fen} {}: category {other:?}", row.uci),
        };
        assert_eq!(after_wdl, after, "{fen} {}", row.uci);
        assert_eq!(
            row.cells[1],
            category_name(mover_category),
            "{fen} {}",
            row.uci
        );
        // Mate in moves counts the move played; a draw may say why (stalemate, ...).
        let (dtm, mate) = match (after, after_plies) {
            ("loss", Some(0)) => (signed(1), Some("checkmate".to_string())),
            ("loss", Some(p)) => (signed(p + 1), Some(format!("mate in {}", (p + 2) / 2))),
            ("win", Some(p)) => (signed(-p - 1), Some(format!("mated in {}", (p + 2) / 2))),
            ("draw", None) => ("\u{2014}".to_string(), None),
            other => panic!("{fen} {}: {other:?}", row.uci),
        };
        assert_eq!(row.cells[2], dtm, "{fen} {}", row.uci);
        if let Some(mate) = mate {
            assert_eq!(row.cells[4], mate, "{fen} {}", row.uci);
        }
    }
}

/// `probe FEN --json` (with `game`'s arguments) on `tables`, the page's verdict, and the
/// category, which the two must share.
fn probed<'a>(
    page: &'a Shown,
    fen: &str,
    tables: &Path,
    game: &[&str],
) -> (Value, &'a Verdict, String) {
    let mut args = vec!["probe"];
    args.extend(game);
    args.extend([fen, "--tables", tables.to_str().unwrap(), "--json"]);
    let cli: Value = serde_json::from_str(&run_ok(&args)).unwrap();
    let verdict = page.verdict.as_ref().expect("a tables verdict");
    let category = cli["category"].as_str().unwrap().to_string();
    assert_eq!(verdict.category, category, "{fen}");
    (cli, verdict, category)
}

/// The side to move of `fen`: `first` (White, or Red) or Black.
fn side_to_move(fen: &str, first: &'static str) -> &'static str {
    match fen.split(' ').nth(1) {
        Some("w") => first,
        _ => "Black",
    }
}

/// In `dir`, the book `books/book.rbb` of `game` built from the sample archive `archive` (in
/// `books/` of the project) and the table `table` with its sub-tables in `tables/`, where
/// `serve` finds them; their paths.
fn book_and_tables(dir: &Path, game: &str, archive: &str, table: &str) -> (PathBuf, PathBuf) {
    let (tables, book) = (dir.join("tables"), dir.join("books/book.rbb"));
    let archive = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("books")
        .join(archive);
    let (archive, out) = (archive.to_str().unwrap(), book.to_str().unwrap());
    run_ok(&["book", "build", "--game", game, archive, "--out", out]);
    run_ok(&[
        "gen",
        "--game",
        game,
        table,
        "--tables",
        tables.to_str().unwrap(),
    ]);
    (tables, book)
}

/// Clicks the row of `uci` in the move table `table` and waits for the position it leads to.
fn play(session: &Session, table: &str, uci: &str, fen_after: &str) {
    session.click(&format!("#{table} tr[data-uci='{uci}']"));
    session.wait_shown(fen_after);
}

#[test]
fn explorer_page_plays_book_and_table_lines_as_the_command_line_values_them() {
    let dir = tempfile::tempdir().unwrap();
    let driver = Driver::start(&dir.path().join("browser"));
    // KPvK, and by its promotions KQvK, KRvK, KBvK and KNvK.
    let (tables, book) = book_and_tables(dir.path(), "chess", "masters-3000.pgn.zst", "KPvK");
    // Stockfish's values of the positions played in at least 300 games (the first plies of
    // the line below among them; `scripts/install-engines` installs it).
    let stockfish = ["/usr/games/stockfish", "stockfish"]
        .into_iter()
        .find(|p| Path::new(p).exists() || on_path(p))
        .expect("scripts/install-engines installs stockfish");
    run_ok(&[
        "book",
        "analyse",
        "--book",
        book.to_str().unwrap(),
        "--engine",
        stockfish,
        "--depth",
        "8",
        "--min-games",
        "300",
    ]);
    let (_server, url) = serve(dir.path());
    let session = driver.session();
    session.goto(&format!("{url}/"));

    // A book line from the initial position: each position's book rows, as the CLI's.
    session.wait_shown(INITIAL);
    assert_eq!(
        session.text("#status"),
        "Serving 5 tables of up to 3 pieces and the book books/book.rbb."
    );
    let line = ["e2e4", "c7c5", "g1f3"];
    let after = played(INITIAL, &line);
    let shown = session.shown();
    check_book(&shown, INITIAL, &book);
    assert!(
        shown.book_eval.starts_with("Stockfish"),
        "{:?}",
        shown.book_eval
    );
    assert_eq!((shown.fen.as_str(), shown.pgn.as_str()), (INITIAL, "*"));
    assert!(shown.tables.is_empty() && shown.verdict.is_none());
    assert!(
        shown.tb_note.contains("up to 3 pieces"),
        "{:?}",
        shown.tb_note
    );
    assert_eq!(shown.turn, "White to move");
    let mut sans = Vec::new();
    for (uci, (fen, san)) in line.iter().zip(&after) {
        play(&session, "book-moves", uci, fen);
        sans.push(san.clone());
        let shown = session.shown();
        check_book(&shown, fen, &book);
        assert_eq!(shown.fen, *fen);
        assert_eq!(shown.pgn, pgn(INITIAL, &sans));
        assert!(shown.verdict.is_none() && shown.tables.is_empty());
    }
    let book_pgn = pgn(INITIAL, &sans);
    assert_eq!(book_pgn, "1. e4 c5 2. Nf3 *");

    // Back and forward, by the buttons and by the arrow keys: the line stays, the FEN follows.
    let fen_at = |i: usize| {
        if i == 0 {
            INITIAL
        } else {
            after[i - 1].0.as_str()
        }
    };
    let steps: [(&str, Option<&str>, usize); 5] = [
        ("#back", None, 2),
        ("#back", None, 1),
        ("#forward", None, 2),
        ("", Some(ARROW_RIGHT), 3),
        ("", Some(ARROW_LEFT), 2),
    ];
    for (button, key, at) in steps {
        match key {
            Some(key) => session.press(key),
            None => session.click(button),
        }
        session.wait_shown(fen_at(at));
        let shown = session.shown();
        assert_eq!(shown.fen, fen_at(at));
        assert_eq!(
            shown.pgn, book_pgn,
            "the line stays while moving through it"
        );
        check_book(&shown, fen_at(at), &book);
        let current = session.text("#pgn [aria-current]");
        assert_eq!(current, sans[at - 1], "the move shown is marked");
    }
    // A screenshot for the README: the book after 1. e4 c5, in the line 1. e4 c5 2. Nf3, with
    // the arrow of the move played next (the mouse on its row).
    session.script("window.scrollTo(0, 0);");
    session.hover("#book-moves tr[data-uci='g1f3']");
    session.element("#arrows line");
    let png = session.screenshot();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    std::fs::write(target.join("explorer.png"), &png).unwrap();

    // Sorted by a heading chosen: by score, by goodness, by games again; the caption says
    // by what, the heading chosen is marked.
    session.click("#first");
    session.wait_shown(INITIAL);
    for by in ["score", "goodness", "games"] {
        session.click(&format!("#book-moves th[data-sort='{by}'] button"));
        check_book_sorted(&session.shown(), INITIAL, &book, by);
        let marked = session
            .script("return document.querySelector('#book-moves th[aria-sort]').dataset.sort;");
        assert_eq!(marked, by);
    }

    // A move other than the line's from inside it: the line ends there.
    assert!(session.text("#pgn").starts_with("1. e4 c5"));
    let d4 = &played(INITIAL, &["d2d4"])[0].0;
    play(&session, "book-moves", "d2d4", d4);
    assert_eq!(session.shown().pgn, "1. d4 *");

    // A FEN the server refuses: its error shown, the position kept.
    let bad = "8/8/8/8/8/8/k7/K7 w - - 0 1";
    session.type_into("#fen", &format!("{bad}{ENTER}"));
    let error = wait_for("the FEN's error", || {
        Some(session.text("#fen-error")).filter(|t| !t.is_empty())
    });
    let answer = http::get(&http::with_query(&format!("{url}/position"), "fen", bad)).unwrap();
    assert_eq!(answer.status, 400, "the server took {bad:?}");
    let message = answer.json().unwrap()["error"].take();
    assert_eq!(error, message.as_str().unwrap());
    session.wait_shown(d4);
    assert_eq!(session.shown().pgn, "1. d4 *");

    // A KQvK win from a move count that leaves too few plies: drawn by the rule, and said so.
    let late = "8/8/8/4k3/8/8/8/KQ6 w - - 95 1";
    session.type_into("#fen", &format!("{late}{ENTER}"));
    session.wait_shown(late);
    let shown = session.shown();
    check_tables(&shown, late, &tables);
    assert_eq!(shown.verdict.as_ref().unwrap().category, "cursed-win");

    // A table line from a KPvK position, loaded by its FEN: each position's verdict and
    // every move's, as the CLI's, through the promotion into KQvK.
    let start = "8/8/4P3/8/8/2k5/8/4K3 w - - 0 1";
    session.type_into("#fen", &format!("{start}{ENTER}"));
    session.wait_shown(start);
    assert_eq!(session.text("#fen-error"), "");
    let line = ["e6e7", "c3d4", "e7e8q"];
    let after = played(start, &line);
    let shown = session.shown();
    check_tables(&shown, start, &tables);
    assert_eq!(shown.pgn, pgn(start, &[]));
    check_book(&shown, start, &book);
    let mut sans = Vec::new();
    for (uci, (fen, san)) in line.iter().zip(&after) {
        play(&session, "tb-moves", uci, fen);
        sans.push(san.clone());
        let shown = session.shown();
        check_tables(&shown, fen, &tables);
        assert_eq!(shown.fen, *fen);
        assert_eq!(shown.pgn, pgn(start, &sans));
    }
    assert_eq!(
        pgn(start, &sans),
        format!("[SetUp \"1\"]\n[FEN \"{start}\"]\n\n1. e7 Kd4 2. e8=Q *")
    );
    assert_eq!(session.shown().turn, "Black to move");
    session.press(ARROW_LEFT);
    session.wait_shown(&after[1].0);
    session.click("#back");
    session.wait_shown(&after[0].0);
    check_tables(&session.shown(), &after[0].0, &tables);
    session.press(ARROW_RIGHT);
    session.wait_shown(&after[1].0);
    // One ply from the promotion, said as one.
    let sentence = session.shown().verdict.unwrap().mate;
    assert!(sentence.contains("; 1 ply to a capture"), "{sentence:?}");
    session.click("#last");
    session.wait_shown(&after[2].0);
    assert_eq!(session.shown().pgn, pgn(start, &sans));

    // The copy buttons put the FEN and the PGN on the clipboard.
    for name in ["clipboard-read", "clipboard-write"] {
        let grant = json!({"descriptor": {"name": name}, "state": "granted"});
        session.call("POST", "/permissions", Some(grant));
    }
    let read_clipboard = |button: &str| {
        session.click(button);
        wait_for("the copy button to say so", || {
            (session.text(button) == "Copied").then_some(())
        });
        let read = "navigator.clipboard.readText()\
            .then(arguments[0], (e) => arguments[0]('error: ' + e));";
        let body = json!({"script": read, "args": []});
        let text = session.call("POST", "/execute/async", Some(body));
        text.as_str().unwrap().to_string()
    };
    assert_eq!(read_clipboard("#copy-fen"), after[2].0);
    assert_eq!(read_clipboard("#copy-pgn"), pgn(start, &sans));

    // A link whose FEN the server refuses: the initial position, with the server's word.
    session.goto("about:blank");
    session.goto(&format!("{url}/#{}", bad.replace(' ', "_")));
    session.wait_shown(INITIAL);
    let error = wait_for("the link's FEN error", || {
        Some(session.text("#fen-error")).filter(|t| !t.is_empty())
    });
    assert_eq!(error, message.as_str().unwrap());
    assert_eq!(
        session.shown().fen,
        bad,
        "the FEN refused stays in the field"
    );
}

const XIANGQI_INITIAL: &str =
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// The FEN after the UCCI move `uci` from `fen`, by the library's Chinese chess rules, and
/// the move's WXF notation in Latin letters.
fn xiangqi_played(fen: &str, uci: &str) -> (String, String) {
    let pos = retrobook::xiangqi::Position::from_fen(fen).unwrap();
    let m = uci.parse().unwrap();
    assert!(pos.legal_moves().contains(&m), "{fen} {uci}");
    let wxf = pos.wxf(&m, retrobook::xiangqi::Script::Ascii);
    (pos.play(&m).to_fen(), wxf)
}

/// The Chinese chess tables' verdict and rows the page shows for `fen` equal `probe --game
/// xiangqi FEN --json`: the category, the distance to mate (signed for the side to move),
/// the sentence, and every move best first with its WXF name, its result and distance for
/// the side playing it, and what decides it (mate, no move left, or the rule).
fn check_xiangqi_tables(page: &Shown, fen: &str, tables: &Path) {
    let (cli, verdict, category) = probed(page, fen, tables, &["--game", "xiangqi"]);
    let category = category.as_str();
    let side = side_to_move(fen, "Red");
    assert_eq!(verdict.text, category_name(category), "{fen}");
    assert_eq!(
        verdict.dtz, "",
        "{fen}: no DTZ in Chinese chess, none shown"
    );
    let (dtm, mate) = match (category, cli["dtm_plies"].as_i64(), cli["rule"].as_str()) {
        (_, None, Some(rule)) => (
            "\u{2014}".to_string(),
            format!(
                "{side} {} by the {rule} rule",
                if category == "win" { "wins" } else { "loses" }
            ),
        ),
        ("win", Some(p), None) => (signed(p), format!("{side} mates in {}", (p + 1) / 2)),
        ("loss", Some(0), None) if cli["stalemate"] == true => {
            ("0".into(), format!("{side} has no move and loses"))
        }
        ("loss", Some(0), None) => ("0".into(), format!("{side} is checkmated")),
        ("loss", Some(p), None) => (signed(-p), format!("{side} is mated in {}", (p + 1) / 2)),
        ("draw", None, None) => ("\u{2014}".into(), "Drawn with best play".into()),
        other => panic!("{fen}: {other:?}"),
    };
    let mut mate = mate;
    if cli["path_dependent"] == true {
        mate += " (the value depends on the path)";
    }
    if cli["chases_judged"] == false {
        mate += " (chases not judged here: the check rule's value)";
    }
    assert_eq!(
        (verdict.dtm.as_str(), verdict.mate.as_str()),
        (dtm.as_str(), mate.as_str()),
        "{fen}"
    );
    let moves = cli["moves"].as_array().unwrap();
    let ucis: Vec<&str> = moves.iter().map(|m| m["uci"].as_str().unwrap()).collect();
    let shown: Vec<&str> = page.tables.iter().map(|r| r.uci.as_str()).collect();
    assert_eq!(shown, ucis, "{fen}: the moves, best first");
    for (row, m) in page.tables.iter().zip(moves) {
        let after = m["category"].as_str().unwrap();
        let mover = match after {
            "win" => "loss",
            "loss" => "win",
            other => other,
        };
        assert_eq!(row.cells[0], m["wxf_ascii"].as_str().unwrap(), "{fen}");
        assert_eq!(row.cells[1], category_name(mover), "{fen} {}", row.uci);
        let (dtm, mate) = match (after, m["dtm_plies"].as_i64(), m["rule"].as_str()) {
            (_, None, Some(rule)) => (
                "\u{2014}".to_string(),
                format!(
                    "{} by the {rule} rule",
                    if mover == "win" { "wins" } else { "loses" }
                ),
            ),
            ("loss", Some(0), None) if m["stalemate"] == true => (signed(1), "no move left".into()),
            ("loss", Some(0), None) => (signed(1), "checkmate".into()),
            ("loss", Some(p), None) => (signed(p + 1), format!("mate in {}", (p + 2) / 2)),
            ("win", Some(p), None) => (signed(-p - 1), format!("mated in {}", (p + 2) / 2)),
            ("draw", None, None) => ("\u{2014}".into(), String::new()),
            other => panic!("{fen} {}: {other:?}", row.uci),
        };
        assert_eq!(
            (row.cells[2].as_str(), row.cells[4].as_str()),
            (dtm.as_str(), mate.as_str()),
            "{fen} {}",
            row.uci
        );
    }
    // The best line: the command line's best move at each position, one after the other,
    // as many as its mainline holds (to mate for a win; none for a draw or the rule).
    let plies = cli["mainline"].as_array().unwrap().len();
    let (mut at, mut names) = (fen.to_string(), Vec::new());
    for _ in 0..plies {
        let here = xiangqi_probe(&at, tables);
        let best = &here["moves"][0];
        names.push(best["wxf_ascii"].as_str().unwrap().to_string());
        at = xiangqi_played(&at, best["uci"].as_str().unwrap()).0;
    }
    assert_eq!(cli["mainline_wxf"], serde_json::json!(names), "{fen}");
    let shown = page.best_line.replace('\u{a0}', " ");
    let expected = match plies {
        0 => String::new(),
        _ => {
            let pgn = pgn(fen, &names);
            let movetext = pgn.rsplit('\n').next().unwrap().trim_end_matches(" *");
            format!("Best line {movetext}")
        }
    };
    let shown: Vec<&str> = shown.split_whitespace().collect();
    assert_eq!(shown.join(" "), expected, "{fen}");
}

/// `probe --game xiangqi FEN --json` on `tables`.
fn xiangqi_probe(fen: &str, tables: &Path) -> Value {
    let tables = tables.to_str().unwrap();
    let args = [
        "probe", "--game", "xiangqi", fen, "--tables", tables, "--json",
    ];
    serde_json::from_str(&run_ok(&args)).unwrap()
}

/// The page's Chinese chess board: chosen beside New game, the book of Chinese chess games
/// played by clicking its rows and the board's points, the line written as PGN with WXF
/// moves; then a position of the tables, loaded by its FEN, and a line of the tables played
/// to mate, each position's verdict and rows as the command line's.
#[test]
fn explorer_page_plays_a_chinese_chess_line_by_clicks() {
    let dir = tempfile::tempdir().unwrap();
    let driver = Driver::start(&dir.path().join("browser"));
    let sample = "xiangqi-masters-2000.pgn.zst";
    let (tables, book) = book_and_tables(dir.path(), "xiangqi", sample, "KRvKN");
    let (_server, url) = serve(dir.path());
    let session = driver.session();
    session.goto(&format!("{url}/"));
    session.wait_shown(INITIAL);
    assert_eq!(
        session.text("#status"),
        "Serving no chess tables, 4 tables of Chinese chess of up to 4 and the book books/book.rbb."
    );
    assert_eq!(
        session.shown().book_note,
        "The book is a Chinese chess book: this position is chess."
    );

    // Chinese chess chosen: its start, the book's rows as the CLI's, two book moves played
    // by their rows, one by the board's points (the horse from b0 to c2).
    session.click("#game option[value='xiangqi']");
    session.wait_shown(XIANGQI_INITIAL);
    let shown = session.shown();
    assert_eq!(shown.turn, "Red to move");
    let mut fen = XIANGQI_INITIAL.to_string();
    let mut names = Vec::new();
    for _ in 0..2 {
        let shown = session.shown();
        check_book_named(&shown, &fen, &book, "games", "wxf_ascii");
        let uci = shown.book[0].uci.clone();
        let (next, wxf) = xiangqi_played(&fen, &uci);
        play(&session, "book-moves", &uci, &next);
        names.push(wxf);
        fen = next;
    }
    check_book_named(&session.shown(), &fen, &book, "games", "wxf_ascii");
    session.click("[data-square='b0']");
    session.click("[data-square='c2']");
    let (next, wxf) = xiangqi_played(&fen, "b0c2");
    session.wait_shown(&next);
    names.push(wxf);
    let shown = session.shown();
    assert_eq!(shown.fen, next);
    assert_eq!(
        shown.pgn,
        format!(
            "[Game \"Chinese Chess\"]\n\n1. {} {} 2. {} *",
            names[0], names[1], names[2]
        )
    );
    assert_eq!(shown.turn, "Black to move");
    assert!(shown.verdict.is_none() && shown.tables.is_empty());
    assert!(
        shown.tb_note.contains("up to 4 pieces"),
        "{:?}",
        shown.tb_note
    );

    // A position the perpetual-check rule decides, loaded by its FEN.
    let ruled = "9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1";
    session.type_into("#fen", ruled);
    session.press(ENTER);
    session.wait_shown(ruled);
    let shown = session.shown();
    check_xiangqi_tables(&shown, ruled, &tables);
    assert_eq!(shown.turn, "Red to move, in check");

    // A mate in three: the best row clicked at each position, down to the mate.
    let mut fen = "3k5/9/4n4/9/9/9/9/9/9/4K3R w - - 0 1".to_string();
    session.type_into("#fen", &fen);
    session.press(ENTER);
    session.wait_shown(&fen);
    for _ in 0..5 {
        let shown = session.shown();
        check_xiangqi_tables(&shown, &fen, &tables);
        let uci = shown.tables[0].uci.clone();
        let (next, _) = xiangqi_played(&fen, &uci);
        play(&session, "tb-moves", &uci, &next);
        fen = next;
    }
    // The line ends with Black to move and without a move: lost, in check or not.
    let shown = session.shown();
    check_xiangqi_tables(&shown, &fen, &tables);
    assert!(shown.tables.is_empty());
    let end = retrobook::xiangqi::Position::from_fen(&fen).unwrap();
    assert!(end.legal_moves().is_empty());
    let checked = end.in_check(end.turn());
    let turn = if checked { "Checkmate" } else { "No move left" };
    assert_eq!(shown.turn, format!("{turn}: Red wins"));
}

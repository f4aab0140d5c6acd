//! `retrobook serve` over loopback: the real binary on a free port, asked over HTTP. Its
//! answers equal the command line's (`probe --json`, `book probe --json`), lines to mate
//! end in mate at the distance announced, bad requests are 400s naming the fault, a
//! damaged table is a 500 and never a wrong value, and SIGTERM stops it cleanly.

use crate::common::{http, run_ok};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

/// The 3-piece tables (KPvK and its sub-tables) and the sample archive's book, built once.
fn data() -> (&'static Path, &'static Path) {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf, PathBuf)> = OnceLock::new();
    let (_, tables, book) = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (tables, book) = (dir.path().join("tables"), dir.path().join("book.rbb"));
        run_ok(&["gen", "KPvK", "--tables", tables.to_str().unwrap()]);
        let archive = Path::new(env!("CARGO_MANIFEST_DIR")).join("books/masters-3000.pgn.zst");
        run_ok(&[
            "book",
            "build",
            archive.to_str().unwrap(),
            "--out",
            book.to_str().unwrap(),
        ]);
        (dir, tables, book)
    });
    (tables, book)
}

/// A server process, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    /// Starts `retrobook serve ARGS --bind 127.0.0.1:0` in `cwd` and reads its address.
    fn start(args: &[&str], cwd: &Path) -> Server {
        let (child, url) = crate::common::serve(args, cwd, Stdio::piped());
        Server { child, url }
    }

    /// The standard server: the tables and the book of `data()`.
    fn standard() -> Server {
        let (tables, book) = data();
        Server::start(
            &[
                "--tables",
                tables.to_str().unwrap(),
                "--book",
                book.to_str().unwrap(),
            ],
            Path::new(env!("CARGO_MANIFEST_DIR")),
        )
    }

    /// A server over the tables of `data()`, with `extra` arguments.
    fn on_tables(extra: &[&str]) -> Server {
        let (tables, _) = data();
        let mut args = vec!["--tables", tables.to_str().unwrap()];
        args.extend_from_slice(extra);
        Server::start(&args, Path::new(env!("CARGO_MANIFEST_DIR")))
    }

    /// GET `path` with a `fen` parameter (if any): the status and the JSON answer.
    fn get(&self, path: &str, fen: Option<&str>) -> (u16, Value) {
        let mut url = format!("{}{path}", self.url);
        if let Some(fen) = fen {
            url = http::with_query(&url, "fen", fen);
        }
        let resp = http::get(&url).unwrap_or_else(|e| panic!("{path}: {e}"));
        (resp.status, resp.json().expect("a JSON answer"))
    }

    /// GET that must succeed.
    fn ok(&self, path: &str, fen: &str) -> Value {
        let (status, body) = self.get(path, Some(fen));
        assert_eq!(status, 200, "{path} {fen}: {body}");
        body
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Random legal positions of the given pieces (white king and black king first), each side
/// to move, as FEN.
fn positions(pieces: &str, count: usize, seed: u64) -> Vec<String> {
    use retrobook::chess::{Piece, Position, Role, Square};
    use retrobook::Side;
    let mut state = seed;
    let mut rng = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = Vec::new();
    while out.len() < count {
        let mut pos = Position::empty(Side::from_index((rng() % 2) as usize));
        for c in pieces.chars() {
            let color = if c.is_ascii_uppercase() {
                Side::White
            } else {
                Side::Black
            };
            let role = Role::from_char(c).unwrap();
            let mut sq = Square::from_index((rng() % 64) as u32);
            while pos.piece_at(sq).is_some() {
                sq = Square::from_index((rng() % 64) as u32);
            }
            pos.put(sq, Piece { color, role });
        }
        let pawn_on_back_rank = (pos.by_role(Role::Pawn).0 & 0xff00_0000_0000_00ff) != 0;
        if pos.validate().is_ok() && !pos.opponent_in_check() && !pawn_on_back_rank {
            out.push(pos.to_string());
        }
    }
    out
}

/// `fen` with its halfmove clock set to `clock`.
fn with_clock(fen: &str, clock: u32) -> String {
    let fields: Vec<&str> = fen.split_whitespace().take(4).collect();
    format!("{} {clock} 1", fields.join(" "))
}

/// A value as the command line gives it ({"wdl", "dtm_plies"}) in the server's signed plies.
fn signed(cli: &Value) -> Value {
    match (cli["wdl"].as_str().unwrap(), cli["dtm_plies"].as_i64()) {
        ("win", Some(p)) => Value::from(p),
        ("loss", Some(p)) => Value::from(-p),
        _ => Value::Null,
    }
}

/// The win/draw/loss part of a category.
fn wdl_of(category: &str) -> &str {
    match category {
        "cursed-win" => "win",
        "blessed-loss" => "loss",
        c => c,
    }
}

/// The server, the command line and the C API give one value under one name: on random
/// positions at random move counts, `/standard` equals `probe --json` (every name it shares,
/// the position's and each move's, a move's values those of the position it leads to), and
/// the C API's `rb_probe_*_fen` calls give the same values: `wdl`, `wdl50` (the class at a
/// count of zero), `dtz`, the class from the count (`category`), `dtm`; its root moves, in
/// the same order, the root's values through each move (`root_dtz`, `root_dtm`, `outcome`
/// and `category` for the side playing it).
#[test]
fn table_answers_equal_the_command_lines_and_the_c_api() {
    let server = Server::standard();
    let (tables, _) = data();
    let mut fens = positions("KkP", 60, 1);
    fens.extend(positions("KkQ", 30, 2));
    fens.extend(positions("KkR", 30, 3));
    // Random move counts, so that some wins no longer fit (and some counts are 100 or more).
    let fens: Vec<String> = fens
        .iter()
        .enumerate()
        .map(|(i, f)| with_clock(f, (i as u32 * 53) % 110))
        .collect();
    let mut args = vec!["probe", "--json", "--tables", tables.to_str().unwrap()];
    args.extend(fens.iter().map(String::as_str));
    let cli: Vec<Value> = run_ok(&args)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(cli.len(), fens.len());
    let path = std::ffi::CString::new(tables.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path; the tablebase is closed once below.
    let c_tb = unsafe { retrobook::capi::rb_open(path.as_ptr()) };
    assert!(!c_tb.is_null());
    let (mut wins, mut spoilt) = (0, 0);
    for (fen, want) in fens.iter().zip(&cli) {
        let got = server.ok("/standard", fen);
        assert_eq!(got["category"], want["category"], "{fen}");
        // Lichess's other metrics, which no table here holds: present, and null.
        for metric in ["dtw", "dtc"] {
            assert_eq!(got.get(metric), Some(&Value::Null), "{fen} {metric}");
        }
        assert_eq!(got["dtm"], signed(want), "{fen}");
        assert_eq!(got["dtz"], want["dtz"], "{fen}");
        assert_eq!(got["precise_dtz"], want["dtz"], "{fen}");
        let (moves, want_moves) = (
            got["moves"].as_array().unwrap(),
            want["moves"].as_array().unwrap(),
        );
        assert_eq!(moves.len(), want_moves.len(), "{fen}");
        for (m, w) in moves.iter().zip(want_moves) {
            assert_eq!(
                m["uci"], w["uci"],
                "{fen}: moves in the command line's order"
            );
            assert_eq!(m["dtm"], signed(w), "{fen} {}", w["uci"]);
            assert_eq!(m["dtz"], w["dtz"], "{fen} {}", w["uci"]);
            assert_eq!(m["category"], w["category"], "{fen} {}", w["uci"]);
            assert_eq!(
                wdl_of(m["category"].as_str().unwrap()),
                w["wdl"],
                "{fen} {}",
                w["uci"]
            );
            assert!(m["san"].as_str().is_some_and(|s| !s.is_empty()));
        }
        // SAFETY: open until closed after the loop.
        unsafe { c_api_agrees(c_tb, fen, want, moves) };
        wins += usize::from(want["wdl"] == "win");
        spoilt += usize::from(want["category"] == "cursed-win");
    }
    // SAFETY: opened above, closed once.
    unsafe { retrobook::capi::rb_close(c_tb) };
    assert!(wins > 20, "the sample holds wins ({wins})");
    assert!(
        spoilt > 5,
        "the sample holds wins the count spoils ({spoilt})"
    );
}

/// The C API's answers for `fen` equal `cli`'s (`probe --json`) and `moves`' (`/standard`,
/// for whether a move resets the count or mates).
///
/// # Safety
/// `tb` is an open tablebase.
unsafe fn c_api_agrees(
    tb: *const retrobook::capi::RbTablebase,
    fen: &str,
    cli: &Value,
    moves: &[Value],
) {
    use retrobook::capi::*;
    let wdl = |v: &Value| match v.as_str().unwrap() {
        "win" => RB_WIN,
        "draw" => RB_DRAW,
        "loss" => RB_LOSS,
        other => panic!("{other}"),
    };
    let class = |v: &Value| match v.as_str().unwrap() {
        "loss" => RB_WDL50_LOSS,
        "blessed-loss" => RB_WDL50_BLESSED_LOSS,
        "draw" => RB_WDL50_DRAW,
        "cursed-win" => RB_WDL50_CURSED_WIN,
        "win" => RB_WDL50_WIN,
        other => panic!("{other}"),
    };
    let dtm = |v: &Value| match v["wdl"].as_str() {
        Some("draw") => RB_NO_MATE,
        _ => v["dtm_plies"].as_i64().unwrap() as i32,
    };
    let c_fen = std::ffi::CString::new(fen).unwrap();
    // SAFETY: an open tablebase, a NUL-terminated FEN and a list of as many moves as its
    // capacity says.
    unsafe {
        assert_eq!(
            rb_probe_wdl_fen(tb, c_fen.as_ptr()),
            wdl(&cli["wdl"]),
            "{fen}"
        );
        assert_eq!(
            rb_probe_wdl50_fen(tb, c_fen.as_ptr()),
            class(&cli["wdl50"]),
            "{fen}"
        );
        assert_eq!(rb_probe_dtm_fen(tb, c_fen.as_ptr()), dtm(cli), "{fen}");
        let mut dtz = 12345;
        let category = rb_probe_dtz_fen(tb, c_fen.as_ptr(), &mut dtz);
        assert_eq!(category, class(&cli["category"]), "{fen}");
        assert_eq!(i64::from(dtz), cli["dtz"].as_i64().unwrap(), "{fen}");
        let mut root = [RbPlayMove::default(); 256];
        let n = rb_probe_root_clock_fen(tb, c_fen.as_ptr(), false, root.as_mut_ptr(), 256);
        let after = cli["moves"].as_array().unwrap();
        assert_eq!(n as usize, after.len(), "{fen}");
        for ((m, after), standard) in root.iter().zip(after).zip(moves) {
            let context = format!("{fen} {}", after["uci"]);
            let uci = retrobook::chess::Square::from_index(u32::from(m.from)).to_string()
                + &retrobook::chess::Square::from_index(u32::from(m.to)).to_string();
            assert!(
                after["uci"].as_str().unwrap().starts_with(&uci),
                "{context}"
            );
            // For the side playing the move: the position it leads to's, turned.
            assert_eq!(m.root_outcome, -wdl(&after["outcome"]), "{context}");
            assert_eq!(
                m.root_category,
                RB_WDL50_WIN - class(&after["category"]),
                "{context}"
            );
            let (d, mated) = (
                after["dtz"].as_i64().unwrap() as i32,
                after["checkmate"] == true,
            );
            let root_dtz = match () {
                _ if mated => 1,
                _ if d == 0 => 0,
                _ if standard["zeroing"] == true => -d.signum(),
                _ => -(d + d.signum()),
            };
            assert_eq!(m.root_dtz, root_dtz, "{context}");
            let root_dtm = match dtm(after) {
                RB_NO_MATE => RB_NO_MATE,
                p => p + 1,
            };
            assert_eq!(m.root_dtm, root_dtm, "{context}");
        }
    }
}

#[test]
fn facts_of_ended_and_dead_positions() {
    let server = Server::standard();
    // Mated: a loss at distance 0.
    let mate = server.ok("/standard", "7k/7Q/6K1/8/8/8/8/8 b - - 0 1");
    assert_eq!(mate["checkmate"], true);
    assert_eq!(mate["stalemate"], false);
    assert_eq!(mate["category"], "loss");
    assert_eq!(mate["dtm"], 0);
    assert_eq!(mate["moves"], Value::Array(vec![]));
    // Stalemated: a draw.
    let stale = server.ok("/standard", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert_eq!(stale["stalemate"], true);
    assert_eq!(stale["checkmate"], false);
    assert_eq!(stale["category"], "draw");
    assert_eq!(stale["dtm"], Value::Null);
    // A lone knight cannot mate; a capture of the last pawn leaves kings alone.
    let knight = server.ok("/standard", "8/8/8/4k3/8/8/2N5/4K3 w - - 0 1");
    assert_eq!(knight["insufficient_material"], true);
    let pawn = server.ok("/standard", "8/8/8/8/8/3k4/3P4/7K b - - 0 1");
    assert_eq!(pawn["insufficient_material"], false);
    let take = pawn["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["uci"] == "d3d2")
        .expect("Kxd2 is legal");
    assert_eq!(take["insufficient_material"], true);
    assert_eq!(take["zeroing"], true);
    assert_eq!(take["conversion"], true);
}

/// `/standard/mainline?line=dtm` from move counts up to 98: where the count leaves a win, a
/// line that mates before the count reaches 100 (the loser resisting by the winner's DTZ
/// first, so not always at the distance to mate), each step with the distances of the
/// position it leads to; where it leaves a draw (a win that no longer fits), no line and
/// no winner. (Lichess's line, the default, is held to lila-tablebase's in `lichess`.)
#[test]
fn lines_to_mate_end_in_mate_before_the_count_runs_out() {
    use retrobook::chess::{MoveList, Position};
    use retrobook::Dtm;
    let server = Server::standard();
    let tb = retrobook::Tablebase::open(data().0).unwrap();
    let (mut checked, mut spoilt) = (0, 0);
    let fens = positions("KkQ", 20, 7)
        .into_iter()
        .chain(positions("KkP", 60, 8))
        .enumerate()
        .map(|(i, f)| with_clock(&f, [0, 80, 92, 98][i % 4]));
    for fen in fens {
        let answer = server.ok("/standard/mainline?line=dtm", &fen);
        let table = server.ok("/standard", &fen);
        assert_eq!(answer["dtm"], table["dtm"], "{fen}");
        assert_eq!(answer["dtz"], table["dtz"], "{fen}");
        assert_eq!(answer["precise_dtz"], table["dtz"], "{fen}");
        let line = answer["mainline"].as_array().unwrap();
        let mut pos: Position = fen.parse().unwrap();
        let winner = match table["category"].as_str().unwrap() {
            "win" => pos.turn(),
            "loss" => !pos.turn(),
            _ => {
                assert!(line.is_empty() && answer["winner"].is_null(), "{fen}");
                spoilt += usize::from(table["dtm"].is_i64());
                continue;
            }
        };
        assert_eq!(answer["winner"], winner.fen_char().to_string(), "{fen}");
        assert!(!line.is_empty() || table["checkmate"] == true, "{fen}");
        for step in line {
            assert!(pos.halfmoves() < 100, "{fen}: the count ran out at {pos}");
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            let m = *list
                .as_slice()
                .iter()
                .find(|m| m.to_string() == step["uci"].as_str().unwrap())
                .expect("a legal move");
            assert_eq!(step["san"], pos.san(&m));
            pos = pos.play(&m);
            // The distances of the position the step leads to, for the side to move there.
            let value = match tb.probe_dtm(&pos).unwrap() {
                Dtm::Win(p) => p as i64,
                Dtm::Loss(p) => -(p as i64),
                Dtm::Draw => panic!("{fen}: a draw on the line at {pos}"),
            };
            assert_eq!(step["dtm"], value, "{fen} at {pos}");
            assert_eq!(step["dtz"], tb.probe_dtz(&pos).unwrap().0, "{fen} at {pos}");
            assert_eq!(step["precise_dtz"], step["dtz"], "{fen} at {pos}");
        }
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        assert!(
            list.is_empty() && pos.is_check() && pos.turn() != winner,
            "{fen}: the line ends in the loser's mate"
        );
        checked += 1;
    }
    assert!(checked > 20, "{checked} lines checked");
    assert!(spoilt > 5, "{spoilt} wins spoilt by the count");
}

/// `POST /standard/batch`: one `/standard` answer per FEN, in order, a bad FEN answered by
/// an error in its place (a position outside the tables by `unknown`, as `/standard`); more than 1000 FENs is a 413, a body that is not an array of
/// strings a 400, and GET a JSON 405.
#[test]
fn a_batch_answers_each_position_as_standard_does() {
    let server = Server::standard();
    let mut fens = positions("KkP", 30, 11);
    fens.insert(7, "not a fen".into());
    fens.insert(9, "4k3/8/8/8/8/8/8/QQQQK3 w - - 0 1".into());
    let url = format!("{}/standard/batch", server.url);
    let post = |body: &str| {
        let r = http::post(&url, body).unwrap();
        (r.status, r.json().unwrap())
    };
    let (status, answers) = post(&serde_json::to_string(&fens).unwrap());
    assert_eq!(status, 200, "{answers}");
    let answers = answers.as_array().unwrap();
    assert_eq!(answers.len(), fens.len());
    for (i, (fen, got)) in fens.iter().zip(answers).enumerate() {
        if i == 7 {
            assert_eq!(got["fen"], fen.as_str());
            assert!(
                got["error"].as_str().unwrap().contains("not a fen"),
                "{got}"
            );
        } else {
            assert_eq!(*got, server.ok("/standard", fen), "{fen}");
            // A material no table holds is answered as Lichess answers it.
            assert_eq!(i == 9, got["category"] == "unknown", "{got}");
        }
    }
    let many = vec![fens[0].clone(); 1001];
    let (status, body) = post(&serde_json::to_string(&many).unwrap());
    assert_eq!(status, 413, "{body}");
    assert!(body["error"].as_str().unwrap().contains("1000"), "{body}");
    // Read before it is refused, so that the client sees the 413 rather than a broken
    // pipe while it is still sending.
    let (status, body) = post(&format!("[\"{}\"]", "x".repeat(900 << 10)));
    assert_eq!(status, 413, "{body}");
    for bad in ["{\"fen\": 1}", "[1, 2]", "not json"] {
        let (status, body) = post(bad);
        assert_eq!(status, 400, "{bad}: {body}");
        assert!(
            body["error"].as_str().unwrap().contains("array of FENs"),
            "{body}"
        );
    }
    let (status, body) = server.get("/standard/batch", None);
    assert_eq!(status, 405, "{body}");
}

#[test]
fn book_answers_equal_the_command_lines() {
    let server = Server::standard();
    let (_, book) = data();
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
        "8/8/8/4k3/8/8/2N5/4K3 w - - 0 1",
    ] {
        let want: Value = serde_json::from_str(&run_ok(&[
            "book",
            "probe",
            "--json",
            "--book",
            book.to_str().unwrap(),
            fen,
        ]))
        .unwrap();
        assert_eq!(server.ok("/book", fen), want, "{fen}");
    }
    let start = server.ok(
        "/book",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    );
    assert_eq!(start["games"], 3000);
}

#[test]
fn positions_list_their_moves_with_the_fen_each_leads_to() {
    let server = Server::standard();
    let start = server.ok(
        "/position",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
    );
    assert_eq!(
        start["fen"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert_eq!(start["pieces"], 32);
    let moves = start["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 20);
    let e4 = moves.iter().find(|m| m["san"] == "e4").unwrap();
    assert_eq!(e4["uci"], "e2e4");
    assert_eq!(
        e4["fen"],
        // The en-passant square is written after every double step, as FEN defines it.
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    );
}

#[test]
fn bad_requests_are_400s_naming_the_fault() {
    let server = Server::standard();
    let cases: [(&str, Option<&str>, &str); 6] = [
        ("/standard", None, "missing parameter \"fen\""),
        ("/standard", Some("not a fen"), "not a fen"),
        (
            "/standard",
            Some("8/8/8/8/8/8/5pkP/4KQ2 w - - 0 1"),
            "in check",
        ),
        ("/book", Some("8/8/8/8 w"), "8/8/8/8 w"),
        ("/standard/mainline", None, "missing parameter"),
        (
            "/standard/mainline?line=best",
            Some("4k3/8/8/8/8/8/8/4KQ2 w - - 0 1"),
            "lichess (the default) or dtm",
        ),
    ];
    for (path, fen, needle) in cases {
        let (status, body) = server.get(path, fen);
        assert_eq!(status, 400, "{path} {fen:?}: {body}");
        let error = body["error"].as_str().expect("an error message");
        assert!(
            error.contains(needle),
            "{path} {fen:?}: {error:?} should name {needle:?}"
        );
    }
    let (status, body) = server.get("/no/such/route", None);
    assert_eq!(status, 404);
    assert!(body["error"].is_string());
    // No line outside the tables: not found, as Lichess says.
    for (fen, needle) in [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "castling",
        ),
        ("4k3/8/8/8/8/8/8/QQQQK3 w - - 0 1", "no table for"),
    ] {
        let (status, body) = server.get("/standard/mainline", Some(fen));
        assert_eq!(status, 404, "{fen}: {body}");
        assert!(body["error"].as_str().unwrap().contains(needle), "{body}");
    }
}

/// Outside the tables (castling rights, a table not built) `/standard` answers as Lichess
/// does: `unknown`, null metrics, and each move's values where it leads into the tables;
/// the position's value is then its best move's.
#[test]
fn positions_outside_the_tables_are_unknown_with_their_moves() {
    let server = Server::standard();
    let start = server.ok(
        "/standard",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    );
    assert_eq!(start["category"], "unknown", "{start}");
    for metric in ["dtz", "precise_dtz", "dtm"] {
        assert_eq!(start.get(metric), Some(&Value::Null), "{metric}: {start}");
    }
    let moves = start["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 20);
    assert!(moves.iter().all(|m| m["category"] == "unknown"), "{start}");
    // KQvK with a pawn more for black (no KQvKP here): the queen takes it and wins.
    let take = server.ok("/standard", "4k3/8/8/8/8/8/4p3/3QK3 w - - 0 1");
    let first = &take["moves"][0];
    assert!(
        ["d1e2", "e1e2"].contains(&first["uci"].as_str().unwrap()),
        "{take}"
    );
    assert_eq!(first["category"], "loss", "{take}");
    assert!(first["dtz"].is_i64(), "{take}");
    assert_eq!(take["category"], "win", "{take}");
    assert!(take["dtz"].is_null(), "{take}");
    let unknown = take["moves"].as_array().unwrap().iter();
    assert!(
        unknown.skip(1).any(|m| m["category"] == "unknown"),
        "{take}"
    );
}

#[test]
fn what_is_not_loaded_is_a_404_and_what_is_named_must_open() {
    let (tables, _) = data();
    let empty = tempfile::tempdir().unwrap();
    // Run where the default book does not exist: the server starts without one.
    let server = Server::start(&["--tables", tables.to_str().unwrap()], empty.path());
    let (status, body) = server.get("/book", Some("8/8/8/4k3/8/8/2N5/4K3 w - - 0 1"));
    assert_eq!(status, 404, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("no book loaded"),
        "{body}"
    );
    let (_, health) = server.get("/health", None);
    assert_eq!(health["book"], Value::Null);
    assert_eq!(health["max_pieces"], 3);
    drop(server);
    // A book named on the command line that does not open is an error at start.
    let out = Command::new(env!("CARGO_BIN_EXE_retrobook"))
        .args(["serve", "--book", "missing.rbb", "--bind", "127.0.0.1:0"])
        .current_dir(empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("missing.rbb") && !err.contains("panicked"),
        "{err}"
    );
    // As is a bind address that is not one.
    let out = Command::new(env!("CARGO_BIN_EXE_retrobook"))
        .args(["serve", "--bind", "localhost"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_damaged_table_is_a_500_never_a_wrong_value() {
    let (tables, _) = data();
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(tables).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    let fens = positions("KkP", 1500, 11);
    let pristine = Server::start(&["--tables", dir.path().to_str().unwrap()], dir.path());
    let want: Vec<Value> = fens.iter().map(|f| pristine.ok("/standard", f)).collect();
    drop(pristine);
    // Damage the middle of KPvK's file, where its compressed blocks are.
    let file = dir.path().join("KPvK.rbt");
    let mut bytes = std::fs::read(&file).unwrap();
    let mid = bytes.len() / 2;
    for b in &mut bytes[mid..mid + 64] {
        *b ^= 0x5a;
    }
    std::fs::write(&file, bytes).unwrap();
    let damaged = Server::start(&["--tables", dir.path().to_str().unwrap()], dir.path());
    let mut failed = 0;
    for (fen, want) in fens.iter().zip(&want) {
        let (status, body) = damaged.get("/standard", Some(fen));
        match status {
            200 => assert_eq!(&body, want, "{fen}: a damaged table gave another answer"),
            500 => {
                assert!(body["error"].as_str().unwrap().contains("KPvK"), "{body}");
                failed += 1;
            }
            s => panic!("{fen}: status {s}: {body}"),
        }
    }
    assert!(failed > 0, "the damage was seen");
}

#[test]
fn the_openapi_description_names_every_route_and_they_answer() {
    let server = Server::standard();
    let (status, doc) = server.get("/openapi.json", None);
    assert_eq!(status, 200);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    let paths = doc["paths"].as_object().unwrap();
    for route in [
        "/health",
        "/position",
        "/standard",
        "/standard/mainline",
        "/standard/batch",
        "/book",
        "/xiangqi",
    ] {
        assert!(paths.contains_key(route), "{route} is described");
    }
    let fen = "8/8/8/4k3/8/8/2N5/4K3 w - - 0 1";
    // These tables are chess's: the Chinese chess route says it serves none.
    let xiangqi = paths["/xiangqi"]["get"]["parameters"][0]["example"]
        .as_str()
        .unwrap();
    let (status, answer) = server.get("/xiangqi", Some(xiangqi));
    assert_eq!(status, 404);
    assert!(answer["error"]
        .as_str()
        .unwrap()
        .contains("no Chinese chess tables"));
    for (route, item) in paths.iter().filter(|(r, _)| *r != "/xiangqi") {
        let status = if item.get("post").is_some() {
            let body = serde_json::to_string(&[fen]).unwrap();
            let url = format!("{}{route}", server.url);
            http::post(&url, &body).unwrap().status
        } else {
            server.get(route, Some(fen)).0
        };
        assert_eq!(status, 200, "{route}");
    }
    for (path, kind) in [
        ("/", "text/html"),
        ("/explorer.js", "javascript"),
        ("/explorer.css", "text/css"),
    ] {
        let resp = http::get(&format!("{}{path}", server.url)).unwrap();
        let content_type = resp.header("content-type").unwrap_or_default();
        assert!(content_type.contains(kind), "{path}: {content_type}");
    }
}

#[cfg(unix)]
#[test]
fn sigterm_and_sigint_stop_the_server_cleanly() {
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let mut server = Server::standard();
        server.ok("/standard", "8/8/8/4k3/8/8/2N5/4K3 w - - 0 1");
        let pid = server.child.id() as i32;
        // SAFETY: sends a signal to the child this test started.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
        let status = server.child.wait().unwrap();
        assert!(status.success(), "signal {signal}: {status}");
        let mut err = String::new();
        std::io::Read::read_to_string(&mut server.child.stderr.take().unwrap(), &mut err).unwrap();
        assert!(err.contains("stopped"), "signal {signal}: {err}");
    }
}

/// A request held open (a batch whose body never comes, with a read timeout of a minute)
/// does not keep a stopping server alive: SIGTERM ends it within its grace of 5 seconds
/// (bounded here at 30, half the read timeout).
#[cfg(unix)]
#[test]
fn a_request_held_open_does_not_delay_the_stop() {
    use std::io::Write;
    use std::time::{Duration, Instant};
    let mut server = Server::on_tables(&["--read-timeout", "60"]);
    let addr = server.url.trim_start_matches("http://").to_string();
    let mut held = std::net::TcpStream::connect(&addr).unwrap();
    held.write_all(b"POST /standard/batch HTTP/1.1\r\nHost: x\r\ncontent-length: 50\r\n\r\n[")
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(health(&server.url), 200);
    let pid = server.child.id() as i32;
    // SAFETY: sends a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let sent = Instant::now();
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(sent.elapsed() < Duration::from_secs(30), "still running");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    drop(held);
}

/// Reads from `stream` until the server closes it, failing after `bound` (the bound of a
/// hang, not a measure); what was read.
fn read_until_closed(stream: &mut std::net::TcpStream, bound: std::time::Duration) -> Vec<u8> {
    use std::io::Read;
    stream.set_read_timeout(Some(bound)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return got,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return got,
            Err(e) => panic!("the server kept the connection open ({e})"),
        }
    }
}

/// `/health` on a connection of its own, with a bound on the wait.
fn health(url: &str) -> u16 {
    match http::get(&format!("{url}/health")) {
        Ok(r) => r.status,
        Err(e) => panic!("/health: {e}"),
    }
}

/// Idle and slow clients cannot keep others out: with room for 8 connections, 20 idle
/// ones and 10 that send a byte every 200 ms (a request takes them seconds) are held open
/// while other clients ask 20 times and are answered every time; every idle and slow
/// connection is closed by the server (given way, or timed out: a slow one never gets its
/// request in), and a kept-alive connection idle past `--idle-timeout` is closed too.
#[test]
fn idle_and_slow_clients_cannot_keep_others_out() {
    use std::io::Write;
    use std::net::TcpStream;
    use std::time::Duration;
    let server = Server::on_tables(&[
        "--max-connections",
        "8",
        "--read-timeout",
        "1",
        "--idle-timeout",
        "2",
    ]);
    let addr = server.url.trim_start_matches("http://").to_string();
    let mut idle: Vec<TcpStream> = (0..20)
        .map(|_| TcpStream::connect(&addr).unwrap())
        .collect();
    let slow: Vec<_> = (0..10)
        .map(|_| {
            let addr = addr.clone();
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(&addr).unwrap();
                let request = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
                for (i, b) in request.iter().enumerate() {
                    std::thread::sleep(Duration::from_millis(200));
                    if s.write_all(&[*b]).is_err() {
                        return (i, read_until_closed(&mut s, Duration::from_secs(20)));
                    }
                }
                (
                    request.len(),
                    read_until_closed(&mut s, Duration::from_secs(20)),
                )
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..20 {
        assert_eq!(health(&server.url), 200);
    }
    for s in &mut idle {
        let got = read_until_closed(s, Duration::from_secs(20));
        let text = String::from_utf8_lossy(&got);
        assert!(got.is_empty() || text.starts_with("HTTP/1.1 503"), "{text}");
    }
    for t in slow {
        let (sent, got) = t.join().unwrap();
        let text = String::from_utf8_lossy(&got);
        assert!(
            !text.contains("200 OK"),
            "a slow client got its answer: {text}"
        );
        assert!(
            sent < 36 || got.is_empty() || text.starts_with("HTTP/1.1 503"),
            "{text}"
        );
    }
    // Kept alive between two requests, then closed once idle too long.
    let mut s = TcpStream::connect(&addr).unwrap();
    let ask = b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
    for _ in 0..2 {
        s.write_all(ask).unwrap();
        let mut head = [0u8; 12];
        std::io::Read::read_exact(&mut s, &mut head).unwrap();
        assert_eq!(&head, b"HTTP/1.1 200");
        s.set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        let mut rest = [0u8; 4096];
        let _ = std::io::Read::read(&mut s, &mut rest);
    }
    let rest = read_until_closed(&mut s, Duration::from_secs(20));
    assert!(
        !String::from_utf8_lossy(&rest).contains("HTTP/1.1"),
        "closed, nothing more"
    );
    assert_eq!(health(&server.url), 200);
}

/// With only 64 descriptors and no `--max-connections`, 150 idle connections still leave
/// room for a client that asks: the default cap stays below the process's file limit.
#[cfg(target_os = "linux")]
#[test]
fn the_default_connection_cap_keeps_below_the_file_limit() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::CommandExt;
    let (tables, _) = data();
    let mut command = Command::new(env!("CARGO_BIN_EXE_retrobook"));
    command
        .args([
            "serve",
            "--tables",
            tables.to_str().unwrap(),
            "--bind",
            "127.0.0.1:0",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // SAFETY: setrlimit is async-signal-safe and only lowers this child's own limit.
    unsafe {
        command.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 64,
                rlim_max: 64,
            };
            match libc::setrlimit(libc::RLIMIT_NOFILE, &lim) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let mut child = command.spawn().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.split_whitespace().last().unwrap().to_string();
    let server = Server { child, url };
    let addr = server.url.trim_start_matches("http://");
    let _idle: Vec<std::net::TcpStream> = (0..150)
        .map(|_| std::net::TcpStream::connect(addr).unwrap())
        .collect();
    for _ in 0..5 {
        assert_eq!(health(&server.url), 200);
    }
}

/// Lichess's FENs with underscores for spaces are read; another method than GET is a 405
/// with a JSON error and the methods allowed.
#[test]
fn underscored_fens_are_read_and_other_methods_get_a_json_405() {
    let server = Server::standard();
    let fen = "8/8/8/4k3/8/8/2N5/4K3 w - - 0 1";
    let spaced = server.ok("/standard", fen);
    let underscored = server.ok("/standard", &fen.replace(' ', "_"));
    assert_eq!(spaced["category"], underscored["category"]);
    assert_eq!(spaced["moves"], underscored["moves"]);
    let book = server.ok(
        "/book",
        &"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".replace(' ', "_"),
    );
    assert!(book["games"].as_u64() > Some(1000), "{book}");
    for method in ["POST", "PUT", "DELETE"] {
        let resp = http::request(method, &format!("{}/standard", server.url), None).unwrap();
        assert_eq!(resp.status, 405, "{method}: {resp:?}");
        assert_eq!(resp.header("allow"), Some("GET, HEAD"));
        let body: Value = resp.json().unwrap();
        assert!(body["error"].as_str().unwrap().contains(method), "{body}");
    }
    for method in ["GET", "PUT"] {
        let resp = http::request(method, &format!("{}/standard/batch", server.url), None).unwrap();
        assert_eq!(resp.status, 405, "{method}: {resp:?}");
        assert_eq!(resp.header("allow"), Some("POST"));
        let body: Value = resp.json().unwrap();
        assert!(body["error"].as_str().unwrap().contains(method), "{body}");
    }
}

/// A page of another origin may call the API, as it may call Lichess's: every answer, an
/// error's too, allows any origin, and a preflight is answered with what may be sent.
#[test]
fn pages_of_any_origin_may_call_the_api() {
    let server = Server::standard();
    let fen = "8/8/8/4k3/8/8/2N5/4K3 w - - 0 1";
    for path in ["/standard", "/standard/mainline", "/book", "/position"] {
        let url = http::with_query(&format!("{}{path}", server.url), "fen", fen);
        let resp = http::get(&url).unwrap();
        assert_eq!(resp.status, 200, "{path}: {resp:?}");
        assert_eq!(
            resp.header("access-control-allow-origin"),
            Some("*"),
            "{path}"
        );
    }
    let batch = http::post(
        &format!("{}/standard/batch", server.url),
        &format!("[\"{fen}\"]"),
    );
    let batch = batch.unwrap();
    assert_eq!(batch.status, 200, "{batch:?}");
    assert_eq!(batch.header("access-control-allow-origin"), Some("*"));
    let bad = http::get(&http::with_query(
        &format!("{}/standard", server.url),
        "fen",
        "x",
    ))
    .unwrap();
    assert_eq!(bad.status, 400, "{bad:?}");
    assert_eq!(bad.header("access-control-allow-origin"), Some("*"));
    let preflight = http::request("OPTIONS", &format!("{}/standard/batch", server.url), None);
    let preflight = preflight.unwrap();
    assert_eq!(preflight.status, 204, "{preflight:?}");
    assert_eq!(preflight.header("access-control-allow-origin"), Some("*"));
    let methods = preflight.header("access-control-allow-methods").unwrap();
    assert!(
        methods.contains("POST") && methods.contains("GET"),
        "{methods}"
    );
    assert!(preflight.header("access-control-allow-headers").is_some());
}

/// The read timeout covers a request's body too, and a head begun: 1,100 clients that
/// send a batch's head and never its body, and 500 that send half a head, are each closed
/// (a body waited for with a 408, a client for whom no place was left with a 503, one
/// that gave way to another before its head was read with nothing), none held open;
/// meanwhile and after, a client that asks is answered.
#[test]
fn bodies_that_never_come_are_closed_by_the_read_timeout() {
    use std::io::Write;
    use std::net::TcpStream;
    use std::time::Duration;
    let server = Server::on_tables(&["--read-timeout", "1"]);
    let addr = server.url.trim_start_matches("http://").to_string();
    let head = b"POST /standard/batch HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n\
                 content-length: 100\r\n\r\n[\"8/8";
    let half = b"GET /standard?fen=8/8/8/4k3/8/8/2N5/4K3_w HTTP/1.1\r\nHo";
    let mut held: Vec<(bool, TcpStream)> = Vec::new();
    for i in 0..1600 {
        let mut s = TcpStream::connect(&addr).unwrap();
        let whole = i < 1100;
        s.write_all(if whole { head } else { half }).unwrap();
        held.push((whole, s));
    }
    // Answered while they wait (told to come back while every place is taken).
    let asked = std::time::Instant::now();
    let mut status = health(&server.url);
    while status == 503 && asked.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(100));
        status = health(&server.url);
    }
    assert_eq!(status, 200);
    let mut timed_out = 0;
    for (whole, s) in &mut held {
        let got = read_until_closed(s, Duration::from_secs(20));
        let text = String::from_utf8_lossy(&got);
        let refused = text.starts_with("HTTP/1.1 503");
        let late = text.starts_with("HTTP/1.1 408");
        // Closed unanswered: timed out, or given way before its head was read.
        assert!(refused || (*whole && late) || got.is_empty(), "{text}");
        timed_out += usize::from(late);
    }
    assert!(timed_out >= 500, "{timed_out} bodies timed out");
    // A batch that comes whole is answered as ever.
    let r = http::post(
        &format!("{}/standard/batch", server.url),
        r#"["8/8/8/4k3/8/8/2N5/4K3 w - - 0 1"]"#,
    )
    .unwrap();
    assert_eq!(r.status, 200);
}

/// The cap holds: 200 clients that connect at once and stay idle against a cap of 64
/// never leave the server holding more than 64 connections (its open descriptors counted
/// before, and looked at all along, from another thread), each place given way once, not
/// several newcomers let in for one.
#[cfg(target_os = "linux")]
#[test]
fn a_burst_of_clients_leaves_no_more_connections_than_the_cap() {
    use std::net::TcpStream;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
    use std::time::Duration;
    let server = Server::on_tables(&["--max-connections", "64"]);
    let fds = format!("/proc/{}/fd", server.child.id());
    let open = move || std::fs::read_dir(&fds).unwrap().count();
    assert_eq!(health(&server.url), 200);
    std::thread::sleep(Duration::from_millis(200));
    let before = open();
    let (most, done) = (AtomicUsize::new(0), AtomicBool::new(false));
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Relaxed) {
                most.fetch_max(open(), Relaxed);
            }
        });
        let addr = server.url.trim_start_matches("http://").to_string();
        let held: Vec<TcpStream> = (0..200)
            .map(|_| TcpStream::connect(&addr).unwrap())
            .collect();
        // Let the server take every one in (an idle connection gives way to each
        // newcomer).
        let mut last = 0;
        for _ in 0..50 {
            std::thread::sleep(Duration::from_millis(100));
            let now = open();
            if now == last {
                break;
            }
            last = now;
        }
        done.store(true, Relaxed);
        assert_eq!(health(&server.url), 200);
        drop(held);
    });
    let most = most.into_inner() - before;
    assert!(most <= 64, "{most} connections held at once");
}

/// The server's resident memory, in bytes.
#[cfg(target_os = "linux")]
fn resident(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib << 10
}

/// The server's CPU time so far, user and system, in seconds.
#[cfg(target_os = "linux")]
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command's closing parenthesis; utime and stime are 14 and 15.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // SAFETY: sysconf reads a constant of the system.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    ticks as f64 / per_second as f64
}

/// A batch answer is worked out only as its client reads it: 64 clients that send a batch
/// of 1,000 positions (3.4 MB of answer each) and never read keep the server within 48 MiB
/// of its memory before, and its work stops (the buffers between full) before it has done
/// a third of answering them; meanwhile it answers others. 64 that send one and leave at
/// once cost less than a quarter of the work of answering them.
#[cfg(target_os = "linux")]
#[test]
fn batch_clients_that_never_read_hold_little_memory_and_stop_their_work() {
    use std::io::Write;
    use std::net::TcpStream;
    use std::time::{Duration, Instant};
    let server = Server::on_tables(&["--idle-timeout", "120"]);
    let pid = server.child.id();
    let addr = server.url.trim_start_matches("http://").to_string();
    let fens = positions("KkQ", 1000, 5);
    let body = serde_json::to_string(&fens).unwrap();
    let request = format!(
        "POST /standard/batch HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    );
    let send = || {
        let mut s = TcpStream::connect(&addr).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        s
    };
    // The server's work over `window` ends below 0.2 s: none under way.
    let settle = || {
        let began = Instant::now();
        loop {
            let before = cpu_seconds(pid);
            std::thread::sleep(Duration::from_millis(500));
            if cpu_seconds(pid) - before < 0.1 {
                return;
            }
            assert!(
                began.elapsed() < Duration::from_secs(60),
                "the server works on unread answers for a minute"
            );
        }
    };

    // One batch read whole: its answer and the work it takes.
    let before = cpu_seconds(pid);
    let whole = http::post(&format!("{}/standard/batch", server.url), &body).unwrap();
    let one = cpu_seconds(pid) - before;
    assert_eq!(whole.status, 200);
    assert_eq!(whole.json().unwrap().as_array().unwrap().len(), 1000);

    let (idle, before) = (resident(pid), cpu_seconds(pid));
    let held: Vec<TcpStream> = (0..64).map(|_| send()).collect();
    settle();
    let spent = cpu_seconds(pid) - before;
    let grown = resident(pid).saturating_sub(idle);
    eprintln!(
        "answer {} bytes, {one:.3} s of work; 64 unread: {spent:.2} s of work, {} KiB more",
        whole.body.len(),
        grown >> 10
    );
    assert!(
        grown < 48 << 20,
        "64 unread batches took {} MiB",
        grown >> 20
    );
    assert!(
        spent < 64.0 * one / 3.0,
        "{spent} s of work for 64 unread batches, {one} s for one answered"
    );
    assert_eq!(health(&server.url), 200);
    drop(held);

    let before = cpu_seconds(pid);
    for _ in 0..64 {
        drop(send());
    }
    settle();
    let spent = cpu_seconds(pid) - before;
    eprintln!("64 batches left at once: {spent:.3} s of work");
    assert!(
        spent < 16.0 * one,
        "{spent} s of work for 64 batches left at once, {one} s for one answered"
    );
    assert_eq!(health(&server.url), 200);
}

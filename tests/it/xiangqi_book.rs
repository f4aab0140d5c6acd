//! Xiangqi books from the whole master archive (`tests/data/xiangqi-masters-big5.pgn.zst`,
//! 28,121 games in Big5, moves in Chinese WXF notation) against a recount made here: the
//! archive decoded whole, cut into games by its `[Game` lines, every game replayed to its
//! end, and every position and (position, move) of its first 40 plies counted once per game.
//! Every entry of the book, and only those, must carry the recounted games, wins, draws,
//! losses and repetitions.

use crate::book_backup::{Graph, Target};
use crate::common::{data, run, run_ok};
use retrobook::book::rules::{BookRules, Xiangqi};
use retrobook::book::Book;
use retrobook::referee::judge_archive;
use retrobook::xiangqi::{position_key, Loop, Move, Position, Ruling};
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

const MAX_PLY: usize = 40;

/// Counts of one book entry: games, wins, draws, losses (side to move), repetitions.
type Counts = [u32; 5];

/// What the recount found.
struct Recount {
    entries: HashMap<(u64, u16), Counts>,
    used: u64,
    illegal: u64,
    unfinished: u64,
}

/// The archive's text, decoded whole from Big5.
pub(crate) fn archive_text() -> String {
    let mut big5 = Vec::new();
    zstd::stream::read::Decoder::new(std::fs::File::open(archive()).unwrap())
        .unwrap()
        .read_to_end(&mut big5)
        .unwrap();
    let (text, _, errors) = encoding_rs::BIG5.decode(&big5);
    assert!(!errors, "the archive is Big5 throughout");
    text.into_owned()
}

fn archive() -> std::path::PathBuf {
    data("xiangqi-masters-big5.pgn.zst")
}

/// The value of tag `name` in a game's lines.
pub(crate) fn tag<'a>(game: &'a str, name: &str) -> Option<&'a str> {
    let head = format!("[{name} \"");
    game.lines()
        .find_map(|l| l.strip_prefix(&head))
        .map(|v| v.trim_end_matches("\"]"))
}

fn recount(text: &str) -> Recount {
    let mut r = Recount {
        entries: HashMap::new(),
        used: 0,
        illegal: 0,
        unfinished: 0,
    };
    for game in text.split("[Game ").skip(1) {
        let red = match tag(game, "Result") {
            Some("1-0") => 1,
            Some("0-1") => -1,
            Some("1/2-1/2") => 0,
            _ => {
                r.unfinished += 1;
                continue;
            }
        };
        let mut pos = Position::from_fen(tag(game, "FEN").unwrap()).unwrap();
        // (The first line is the rest of the `[Game` tag.)
        let tokens = game
            .lines()
            .skip(1)
            .filter(|l| !l.starts_with('['))
            .flat_map(str::split_whitespace)
            .filter(|t| !t.ends_with('.') && !["1-0", "0-1", "1/2-1/2", "*"].contains(t));
        // Keys of every position of the game, and codes of its moves.
        let (mut keys, mut moves) = (vec![position_key(&pos)], Vec::new());
        let mut legal = true;
        for token in tokens {
            let Ok(m) = pos.parse_move(token) else {
                legal = false;
                break;
            };
            moves.push(Xiangqi::encode(&m));
            pos = pos.play(&m);
            keys.push(position_key(&pos));
        }
        if !legal {
            r.illegal += 1;
            continue;
        }
        r.used += 1;
        let last = *keys.last().unwrap();
        let threefold = red == 0 && keys.iter().filter(|&&k| k == last).count() >= 3;
        let plies = moves.len().min(MAX_PLY);
        // Each entry of the game once: its column (win, draw, loss) and whether some visit
        // repeats.
        let mut game_entries: HashMap<(u64, u16), (usize, bool)> = HashMap::new();
        for ply in 0..=plies {
            let column = match if ply % 2 == 0 { red } else { -red } {
                1 => 1,
                0 => 2,
                _ => 3,
            };
            let mut count = |key: u64, mv: u16, repeats: bool| {
                game_entries.entry((key, mv)).or_insert((column, false)).1 |= repeats;
            };
            count(keys[ply], 0, threefold);
            if ply < plies {
                count(keys[ply], moves[ply], keys[..=ply].contains(&keys[ply + 1]));
            }
        }
        for (entry, (column, repeats)) in game_entries {
            let c = r.entries.entry(entry).or_default();
            c[0] += 1;
            c[column] += 1;
            c[4] += u32::from(repeats);
        }
    }
    r
}

#[test]
fn the_master_archive_replays_and_its_book_equals_a_recount() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("xiangqi.rbb");
    let summary: serde_json::Value = serde_json::from_str(&run_ok(&[
        "book",
        "build",
        "--game",
        "xiangqi",
        archive().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    let r = recount(&archive_text());
    assert_eq!(summary["games_read"], 28_121, "{summary}");
    assert_eq!(summary["games_used"], r.used, "{summary}");
    assert_eq!(r.unfinished, 141);
    let skipped = &summary["skipped"];
    assert_eq!(
        skipped["unfinished or no result (*)"]["games"], r.unfinished,
        "{summary}"
    );
    let illegal = skipped["illegal or unreadable move"]["games"]
        .as_u64()
        .unwrap_or(0);
    assert_eq!(illegal, r.illegal, "{summary}");
    // Every game of the archive that is legal replays: the recount and the builder agree on
    // which are not, and they are few.
    assert!(r.illegal * 1000 < r.used, "{} illegal games", r.illegal);

    let book = Book::open(&out).unwrap();
    assert_eq!(book.info().game, retrobook::Game::Xiangqi);
    assert_eq!(book.info().games, r.used);
    assert_eq!(book.len(), r.entries.len());
    let mut mismatches = Vec::new();
    for e in book.iter() {
        let got = [e.games, e.win, e.draw, e.loss, e.repeats];
        let want = r.entries.get(&(e.key, e.mv)).copied().unwrap_or_default();
        if got != want && mismatches.len() < 5 {
            mismatches.push(format!("{:016x} {:04x}: {got:?} != {want:?}", e.key, e.mv));
        }
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}

/// `book probe` shows a xiangqi book's moves in UCCI and both WXF forms, refuses a FEN of
/// the wrong game, and a book of the other game.
#[test]
fn probing_names_moves_in_ucci_and_wxf() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("xiangqi.rbb");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("books/xiangqi-masters-2000.pgn.zst");
    let summary: serde_json::Value = serde_json::from_str(&run_ok(&[
        "book",
        "build",
        "--game",
        "xiangqi",
        sample.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    assert_eq!(summary["games_read"], 2000, "{summary}");
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    let answer: serde_json::Value = serde_json::from_str(&run_ok(&[
        "book",
        "probe",
        start,
        "--book",
        out.to_str().unwrap(),
        "--json",
    ]))
    .unwrap();
    assert_eq!(answer["games"], summary["games_used"], "{answer}");
    let moves = answer["moves"].as_array().unwrap();
    // The central cannon opening is the most played in master games.
    let best = moves.iter().max_by_key(|m| m["games"].as_u64()).unwrap();
    assert_eq!(best["uci"], "h2e2", "{answer}");
    assert_eq!(best["wxf"], "炮二平五");
    assert_eq!(best["wxf_ascii"], "C2=5");
    let games: u64 = moves.iter().map(|m| m["games"].as_u64().unwrap()).sum();
    // Every game played a move from the start but one, which has no moves.
    assert_eq!(games + 1, answer["games"].as_u64().unwrap());
    // The text output names the moves the same way.
    let text = run_ok(&[
        "book",
        "probe",
        "--game",
        "xiangqi",
        start,
        "--book",
        out.to_str().unwrap(),
    ]);
    assert!(text.contains("炮二平五 C2=5 h2e2"), "{text}");
    // A chess FEN is not a xiangqi position; a chess book is not a xiangqi book.
    let o = run(&[
        "book",
        "probe",
        "8/8/8/8/8/8/8/K6k w - - 0 1",
        "--book",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let o = run(&[
        "book",
        "probe",
        "--game",
        "chess",
        start,
        "--book",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a chess book"));
}

/// Halves of the sample merge into the book of the whole; the back-up values a xiangqi book
/// from Red's start; books of two games neither merge nor export to Polyglot.
#[test]
fn xiangqi_books_merge_back_up_and_stay_apart_from_chess() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let s = |p: &std::path::PathBuf| p.to_str().unwrap().to_string();
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("books/xiangqi-masters-2000.pgn.zst");
    let mut big5 = Vec::new();
    zstd::stream::read::Decoder::new(std::fs::File::open(&sample).unwrap())
        .unwrap()
        .read_to_end(&mut big5)
        .unwrap();
    // Cut at a game's first line (ASCII, so the Big5 bytes around it stay whole).
    let starts: Vec<usize> = big5
        .windows(7)
        .enumerate()
        .filter(|(_, w)| w == b"\n[Game ")
        .map(|(i, _)| i + 1)
        .collect();
    let cut = starts[starts.len() / 2];
    std::fs::write(path("a.pgn"), &big5[..cut]).unwrap();
    std::fs::write(path("b.pgn"), &big5[cut..]).unwrap();
    let build = |archives: &[String], out: &str| {
        let mut args = vec!["book", "build", "--game", "xiangqi"];
        args.extend(archives.iter().map(String::as_str));
        args.extend(["--out", out]);
        run_ok(&args);
    };
    let (whole, a, b, merged) = (
        path("whole.rbb"),
        path("a.rbb"),
        path("b.rbb"),
        path("m.rbb"),
    );
    build(&[s(&sample)], &s(&whole));
    build(&[s(&path("a.pgn"))], &s(&a));
    build(&[s(&path("b.pgn"))], &s(&b));
    run_ok(&["book", "merge", &s(&a), &s(&b), "--out", &s(&merged)]);
    // The halves merged are the book of both halves read at once, byte for byte (the same
    // archives), and count what the whole archive does.
    let both = path("both.rbb");
    build(&[s(&path("a.pgn")), s(&path("b.pgn"))], &s(&both));
    assert_eq!(
        std::fs::read(&both).unwrap(),
        std::fs::read(&merged).unwrap()
    );
    let counts = |p: &std::path::PathBuf| {
        let book = Book::open(p).unwrap();
        (book.info(), book.iter().collect::<Vec<_>>())
    };
    assert!(counts(&whole) == counts(&merged));

    let summary: serde_json::Value =
        serde_json::from_str(&run_ok(&["book", "backup", "--book", &s(&whole), "--json"])).unwrap();
    assert!(summary["positions"].as_u64().unwrap() > 10_000, "{summary}");
    assert_eq!(summary["unreached"], 0, "{summary}");
    let start_value = summary["start_value"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&start_value), "{summary}");
    let book = Book::open(&whole).unwrap();
    assert!(book.backed_up());
    let start = book.probe_by::<Xiangqi>(&Position::start());
    assert_eq!(start.backup.map(|b| b.value()), Some(start_value));

    let chess = path("chess.rbb");
    let chess_games = Path::new(env!("CARGO_MANIFEST_DIR")).join("books/masters-3000.pgn.zst");
    run_ok(&["book", "build", &s(&chess_games), "--out", &s(&chess)]);
    let o = run(&[
        "book",
        "merge",
        &s(&chess),
        &s(&a),
        "--out",
        &s(&path("x.rbb")),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("a xiangqi book, not a chess book"));
    let o = run(&[
        "book",
        "export",
        "--format",
        "polyglot",
        "--book",
        &s(&a),
        "--out",
        &s(&path("x.bin")),
    ]);
    assert!(!o.status.success());
    assert!(!path("x.bin").exists());
}

/// Without `--out` or `--book`, a xiangqi book is `books/xiangqi.rbb`: building one leaves
/// the chess book `books/book.rbb` as it was, and probing with `--game xiangqi` reads it.
#[test]
fn a_xiangqi_book_has_a_default_file_of_its_own() {
    let cwd = tempfile::tempdir().unwrap();
    let in_cwd = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_retrobook"))
            .args(args)
            .current_dir(cwd.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let chess = manifest.join("books/masters-3000.pgn.zst");
    let xiangqi = manifest.join("books/xiangqi-masters-2000.pgn.zst");
    in_cwd(&["book", "build", "--max-ply", "4", chess.to_str().unwrap()]);
    let chess_book = std::fs::read(cwd.path().join("books/book.rbb")).unwrap();
    let said = in_cwd(&[
        "book",
        "build",
        "--game",
        "xiangqi",
        xiangqi.to_str().unwrap(),
    ]);
    assert!(said.starts_with("books/xiangqi.rbb: "), "{said}");
    assert!(std::fs::read(cwd.path().join("books/book.rbb")).unwrap() == chess_book);
    let book = Book::open(cwd.path().join("books/xiangqi.rbb")).unwrap();
    assert_eq!(book.info().game, retrobook::Game::Xiangqi);
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    let answer: serde_json::Value = serde_json::from_str(&in_cwd(&[
        "book", "probe", "--game", "xiangqi", "--json", start,
    ]))
    .unwrap();
    assert_eq!(answer["games"], 2000, "{answer}");
}

/// A chess FEN against a xiangqi book names the mismatch, not the board's ranks; xiangqi
/// FENs are read strictly (clocks, extra fields, pieces a side never has or never where
/// they stand), the same way by `book probe` and `perft`, a bad one exit 2.
#[test]
fn xiangqi_fens_are_read_strictly() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("x.rbb");
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("books/xiangqi-masters-2000.pgn.zst");
    let b = book.to_str().unwrap();
    run_ok(&[
        "book",
        "build",
        "--game",
        "xiangqi",
        "--max-ply",
        "2",
        sample.to_str().unwrap(),
        "--out",
        b,
    ]);
    let fails = |args: &[&str], needle: &str| {
        let out = run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(err.lines().all(|l| l.trim() != "retrobook:"), "{err}");
    };
    let chess = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    fails(
        &["book", "probe", "--book", b, chess],
        "a chess position, but",
    );
    let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";
    for (fen, needle) in [
        (format!("{start} w - - -5 1"), "halfmove clock \"-5\""),
        (
            format!("{start} w - - 0 1 x"),
            "a FEN has 6 fields, found 7",
        ),
        (format!("{start} w KQ - 0 1"), "xiangqi has no castling"),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4C4/RNBAKABNR w".to_string(),
            "3 Cannon pieces, more than the 2",
        ),
        (
            "4k4/9/9/9/9/9/9/9/A8/4K4 w".to_string(),
            "red's Advisor on a1 stands where it can never go",
        ),
        (
            "4k4/9/9/9/9/9/1P7/9/9/4K4 w".to_string(),
            "red's Soldier on b3 stands where it can never go",
        ),
    ] {
        fails(&["book", "probe", "--book", b, &fen], needle);
        fails(&["perft", "--game", "xiangqi", &fen, "1"], needle);
    }
    // Underscores for spaces, and the fields EPD-style tools leave out, are read.
    let out = run_ok(&[
        "perft",
        "--game",
        "xiangqi",
        &format!("{start}_w_-_-_0_1"),
        "1",
    ]);
    assert_eq!(out.trim(), "44");
    assert_eq!(
        run_ok(&["perft", "--game", "xiangqi", &format!("{start} w"), "1"]).trim(),
        "44"
    );
}

/// The book graph and the position of each node.
type XiangqiGraph = (Graph, Vec<Position>);

/// A xiangqi book as a back-up made here sees it: positions reached from the start by the
/// book's moves (codes `from | to << 7`, as the format says, each a legal move), with the
/// position of each node.
fn xiangqi_graph(book: &Book) -> XiangqiGraph {
    let play = |pos: &Position, code: u16| {
        let code_of = |m: &Move| (m.from.index() | m.to.index() << 7) as u16;
        let m = pos.legal_moves().into_iter().find(|m| code_of(m) == code);
        Some(pos.play(&m.expect("a book move is legal")))
    };
    crate::book_backup::walk(book, 1, Position::start(), position_key, play)
}

/// The value of `v` for its side to move with `path` as history, by negamax; a move back to
/// a position of the path scores as the loop judge rules the loop it closes (`asian`), or
/// a draw.
fn xiangqi_negamax(g: &XiangqiGraph, v: usize, path: &mut Vec<usize>, asian: bool) -> u16 {
    let (graph, positions) = g;
    if graph.moves[v].is_empty() {
        return crate::book_backup::score(&graph.own[v]);
    }
    path.push(v);
    let repeated = |path: &[usize], at: usize| {
        if !asian {
            return 500;
        }
        let cycle = &path[at..];
        let moves: Vec<Move> = (0..cycle.len())
            .map(|i| {
                let (from, to) = (cycle[i], cycle[(i + 1) % cycle.len()]);
                let next = position_key(&positions[to]);
                let pos = &positions[from];
                let m = pos.legal_moves().into_iter();
                m.into_iter()
                    .find(|m| position_key(&pos.play(m)) == next)
                    .unwrap()
            })
            .collect();
        let ruling = Loop::new(&positions[cycle[0]], &moves).unwrap().ruling();
        match ruling {
            Ruling::Draw => 500,
            Ruling::Loses { side, .. } if side == positions[v].turn() => 0,
            Ruling::Loses { .. } => 1000,
        }
    };
    let best = graph.moves[v]
        .iter()
        .map(|&(_, t)| match t {
            Target::Leaf(s) => s,
            Target::Node(w) => match path.iter().position(|&u| u == w) {
                Some(at) => repeated(path, at),
                None => 1000 - xiangqi_negamax(g, w, path, asian),
            },
        })
        .max()
        .unwrap();
    path.pop();
    best
}

/// Whether some simple path of the graph ending at `v` (v excluded), as history, changes
/// `v`'s value under the Asian rules.
fn xiangqi_dependent(g: &XiangqiGraph, v: usize, free: u16) -> bool {
    let preds = |at: usize| g.0.preds[at].clone();
    let mut value = |history: &mut Vec<usize>| xiangqi_negamax(g, v, history, true);
    crate::common::some_path_changes(v, &preds, &mut value, &free)
}

/// Master games whose repetitions the rules decide, whole in a book: `book backup` judges
/// each repetition by the Asian rules as a back-up made here does (negamax over every path,
/// each loop judged by `Loop`), path marks included, and values that a draw for every
/// repetition would give otherwise do change.
#[test]
fn xiangqi_book_backups_judge_repetitions_by_the_asian_rules() {
    let text = archive_text();
    let lines: Vec<&str> = text.lines().collect();
    // The first games whose first repetition is ruled against a side (check and chase),
    // and games whose repetitions all draw.
    let (mut ruled, mut drawn) = (Vec::new(), Vec::new());
    let mut rules_met = Vec::new();
    judge_archive(&archive(), |g| {
        let against = g.repetitions.iter().find_map(|r| match r.ruling {
            Ruling::Loses { rule, .. } => Some(rule),
            Ruling::Draw => None,
        });
        match against {
            Some(rule)
                if ruled.len() < 10 && rules_met.iter().filter(|&&r| r == rule).count() < 5 =>
            {
                rules_met.push(rule);
                ruled.push(g.line as usize);
            }
            None if drawn.len() < 4 => drawn.push(g.line as usize),
            _ => {}
        }
    })
    .unwrap();
    assert_eq!(ruled.len(), 10);
    let mut pgn = String::new();
    for &line in ruled.iter().chain(&drawn) {
        let first = (line.saturating_sub(2)..)
            .find(|&i| lines[i].starts_with("[Game "))
            .unwrap();
        let end = (first + 1..lines.len())
            .find(|&i| lines[i].starts_with("[Game "))
            .unwrap_or(lines.len());
        pgn += &lines[first..end].join("\n");
        pgn += "\n\n";
    }
    let dir = tempfile::tempdir().unwrap();
    let (archive, book_path) = (dir.path().join("loops.pgn"), dir.path().join("loops.rbb"));
    std::fs::write(&archive, pgn).unwrap();
    let s = |p: &std::path::PathBuf| p.to_str().unwrap().to_string();
    run_ok(&[
        "book",
        "build",
        "--game",
        "xiangqi",
        &s(&archive),
        "--out",
        &s(&book_path),
        "--max-ply",
        "600",
    ]);
    run_ok(&["book", "backup", "--book", &s(&book_path)]);
    let book = Book::open(&book_path).unwrap();
    let g = xiangqi_graph(&book);
    let values: Vec<u16> = (0..g.0.own.len())
        .map(|v| xiangqi_negamax(&g, v, &mut Vec::new(), true))
        .collect();
    let marks: Vec<bool> = (0..g.0.own.len())
        .map(|v| xiangqi_dependent(&g, v, values[v]))
        .collect();
    let mut checked = 0;
    for e in book.iter() {
        let expected =
            match g.0.node.get(&e.key) {
                None => None,
                Some(&v) if e.mv == 0 => Some((values[v], marks[v])),
                Some(&v) => g.0.moves[v]
                    .iter()
                    .find(|(code, _)| *code == e.mv)
                    .map(|&(_, t)| match t {
                        Target::Node(w) => (1000 - values[w], marks[w]),
                        Target::Leaf(s) => (s, false),
                    }),
            };
        let got = e.backup.map(|b| (b.value_permille, b.path_dependent));
        assert_eq!(got, expected, "entry {:016x} move {:#x}", e.key, e.mv);
        checked += 1;
    }
    let changed = (0..g.0.own.len())
        .filter(|&v| values[v] != xiangqi_negamax(&g, v, &mut Vec::new(), false))
        .count();
    let dependent = marks.iter().filter(|&&m| m).count();
    assert!(checked > 1000, "{checked} entries");
    assert!(changed > 0, "no value changed by the rule");
    assert!(dependent > 0, "no path-dependent position");
    eprintln!("{checked} entries, {changed} values changed by the rule, {dependent} marked");
}

//! `book backup` against an independent back-up made here: the book graph rebuilt with
//! shakmaty (its legal moves, its own Polyglot move codes and its Zobrist keys), every
//! position valued by plain recursive negamax over simple paths carrying the whole history
//! (a move back to a position on the path scores a draw, 500), and path-dependence found by
//! trying every simple path of the graph that ends at the position as history. Books are
//! built from PGN written here: a knight shuffle whose marks are worked out by hand, and
//! random knight-shuffle games full of cycles and transpositions. Then determinism, the
//! 3,000-game sample, damaged books, a failed rewrite, and the command line.

use crate::common::{run, run_ok};
use retrobook::book::{backup, build, Book, BookWriter, BuildOptions, Entry};
use retrobook::progress::Silent;
use shakmaty::san::San;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Move, Position, Role};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

const DRAW: u16 = 500;

/// Score of an entry for its side to move, per-mille rounded to nearest, as the book's
/// documentation defines it.
pub(crate) fn score(e: &Entry) -> u16 {
    if e.games == 0 {
        return DRAW;
    }
    let (points, twice) = (2 * e.win as u64 + e.draw as u64, 2 * e.games as u64);
    ((1000 * points + twice / 2) / twice) as u16
}

fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal).0
}

/// Polyglot's code of a shakmaty move (castling is the king taking its rook, as shakmaty's
/// `to()` already says).
fn polyglot_code(m: &Move) -> u16 {
    let sq = |s: shakmaty::Square| u32::from(s) as u16;
    let (from, to) = (sq(m.from().unwrap()), sq(m.to()));
    let promotion = match m.promotion() {
        None => 0,
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(_) => 4,
    };
    (to & 7) | (to >> 3) << 3 | (from & 7) << 6 | (from >> 3) << 9 | promotion << 12
}

/// Where a book move leads.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Target {
    /// A position with its own entry.
    Node(usize),
    /// A position without: scored by the move entry, for the mover.
    Leaf(u16),
}

/// The book graph as this test sees it.
pub(crate) struct Graph {
    /// Node of each position reached from the start.
    pub node: HashMap<u64, usize>,
    /// Own entry of each node.
    pub own: Vec<Entry>,
    /// Moves of each node: (move code, target).
    pub moves: Vec<Vec<(u16, Target)>>,
    /// Predecessors of each node.
    pub preds: Vec<Vec<usize>>,
}

/// The graph through moves of at least `min_games` games.
fn graph(book: &Book, min_games: u32) -> Graph {
    let play = |pos: &Chess, code: u16| {
        let legal = pos.legal_moves();
        let m = legal.iter().find(|m| polyglot_code(m) == code)?;
        Some(pos.clone().play(*m).unwrap())
    };
    walk(book, min_games, Chess::default(), key, play).0
}

/// The book graph through moves of at least `min_games` games, walked from `start` by a
/// game's rules: `key` a position's key, `play` the position after the move of a book code
/// (None where no legal move has it). With it, the position of each node.
pub(crate) fn walk<P: Clone>(
    book: &Book,
    min_games: u32,
    start: P,
    key: impl Fn(&P) -> u64,
    play: impl Fn(&P, u16) -> Option<P>,
) -> (Graph, Vec<P>) {
    let mut own: HashMap<u64, Entry> = HashMap::new();
    let mut move_entries: HashMap<u64, Vec<Entry>> = HashMap::new();
    for e in book.iter() {
        if e.mv == 0 {
            own.insert(e.key, e);
        } else {
            move_entries.entry(e.key).or_default().push(e);
        }
    }
    let mut g = Graph {
        node: HashMap::new(),
        own: Vec::new(),
        moves: Vec::new(),
        preds: Vec::new(),
    };
    let mut positions = Vec::new();
    let Some(&first) = own.get(&key(&start)) else {
        return (g, positions);
    };
    g.node.insert(key(&start), 0);
    g.own.push(first);
    g.moves.push(Vec::new());
    positions.push(start.clone());
    let mut stack = vec![start];
    while let Some(pos) = stack.pop() {
        let v = g.node[&key(&pos)];
        for e in move_entries.get(&key(&pos)).into_iter().flatten() {
            if e.games < min_games {
                continue;
            }
            let Some(next) = play(&pos, e.mv) else {
                continue;
            };
            let k = key(&next);
            let target = match own.get(&k) {
                None => Target::Leaf(score(e)),
                Some(o) => Target::Node(*g.node.entry(k).or_insert_with(|| {
                    g.own.push(*o);
                    g.moves.push(Vec::new());
                    positions.push(next.clone());
                    stack.push(next.clone());
                    g.own.len() - 1
                })),
            };
            g.moves[v].push((e.mv, target));
        }
    }
    g.preds = vec![Vec::new(); g.own.len()];
    for (v, ms) in g.moves.iter().enumerate() {
        for (_, t) in ms {
            if let Target::Node(w) = *t {
                g.preds[w].push(v);
            }
        }
    }
    (g, positions)
}

/// The value of `v` for its side to move with `path` as history: plain negamax.
fn negamax(g: &Graph, v: usize, path: &mut Vec<usize>) -> u16 {
    if g.moves[v].is_empty() {
        return score(&g.own[v]);
    }
    path.push(v);
    let best = g.moves[v]
        .iter()
        .map(|&(_, t)| match t {
            Target::Leaf(s) => s,
            Target::Node(w) if path.contains(&w) => DRAW,
            Target::Node(w) => 1000 - negamax(g, w, path),
        })
        .max()
        .unwrap();
    path.pop();
    best
}

/// Whether some simple path of the graph ending at `v` (v excluded), as history, changes
/// `v`'s value.
fn brute_dependent(g: &Graph, v: usize, free: u16) -> bool {
    let preds = |at: usize| g.preds[at].clone();
    crate::common::some_path_changes(v, &preds, &mut |history| negamax(g, v, history), &free)
}

/// Checks every entry of the backed-up `book` against the independent back-up; returns the
/// number of (path-dependent, independent) positions.
fn check_against_brute_force(book: &Book, min_games: u32) -> (usize, usize) {
    let g = graph(book, min_games);
    let values: Vec<u16> = (0..g.own.len())
        .map(|v| negamax(&g, v, &mut Vec::new()))
        .collect();
    let marks: Vec<bool> = (0..g.own.len())
        .map(|v| brute_dependent(&g, v, values[v]))
        .collect();
    let want = |t: Target| match t {
        Target::Node(w) => Some((1000 - values[w], marks[w])),
        Target::Leaf(s) => Some((s, false)),
    };
    for e in book.iter() {
        let expected = match g.node.get(&e.key) {
            None => None,
            Some(&v) if e.mv == 0 => Some((values[v], marks[v])),
            Some(&v) => g.moves[v]
                .iter()
                .find(|(code, _)| *code == e.mv)
                .and_then(|&(_, t)| want(t)),
        };
        let got = e.backup.map(|b| (b.value_permille, b.path_dependent));
        assert_eq!(got, expected, "entry {:016x} move {:#x}", e.key, e.mv);
    }
    assert!(book.backed_up());
    let dependent = marks.iter().filter(|&&m| m).count();
    (dependent, marks.len() - dependent)
}

fn build_book(dir: &Path, name: &str, pgn: &str) -> PathBuf {
    let archive = dir.join(format!("{name}.pgn"));
    std::fs::write(&archive, pgn).unwrap();
    let out = dir.join(format!("{name}.rbb"));
    build(&[archive], &out, &BuildOptions::default(), &Silent).unwrap();
    out
}

fn fen_of(moves: &str) -> Chess {
    let mut pos = Chess::default();
    for san in moves.split_whitespace() {
        let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
    }
    pos
}

fn probe(book: &Book, moves: &str) -> retrobook::book::BookAnswer {
    let fen = shakmaty::fen::Fen::from_position(&fen_of(moves), EnPassantMode::Legal);
    book.probe(&fen.to_string().parse().unwrap())
}

/// A knight shuffle from the start, S -Nf3-> A -Nf6-> B -Ng1-> C -Ng8-> S, with exits: e4
/// and d4 at S (white loses), d5 at A (white loses), e5 at C (white wins). From an empty
/// history white's best at S is 0, so black at C goes back to S for 0 for white, unless S
/// is on the path: then Ng8 repeats (a draw, 500), and C and B (which only goes to C) are
/// worth 500 for white. S itself is worth 500 after A, B, C: Nf3 repeats A. A keeps its
/// value whatever the path (d5 wins for black).
const SHUFFLE: &str = "\
[Event \"repetition\"]\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2\n\n\
[Event \"e4 loses\"]\n1. e4 0-1\n\n\
[Event \"d5 wins for black\"]\n1. Nf3 d5 0-1\n\n\
[Event \"e5 loses for black\"]\n1. Nf3 Nf6 2. Ng1 e5 1-0\n\n\
[Event \"transposition 1\"]\n1. d4 d5 2. Nf3 Nf6 1-0\n\n\
[Event \"transposition 2\"]\n1. Nf3 d5 2. d4 Nc6 0-1\n\n\
[Event \"from a FEN: never reached\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n1. e4 Kd7 1-0\n";

#[test]
fn a_knight_shuffle_is_marked_where_the_path_matters() {
    let dir = tempfile::tempdir().unwrap();
    let path = build_book(dir.path(), "shuffle", SHUFFLE);
    let summary = backup(&path, 1, &Silent).unwrap();
    let book = Book::open(&path).unwrap();
    let (dependent, independent) = check_against_brute_force(&book, 1);
    assert_eq!(dependent, 3, "S, B and C");
    assert!(independent > 5);
    assert_eq!(summary.path_dependent, 3);
    assert_eq!(summary.cyclic_components, 1);
    assert_eq!(summary.largest_component, 4);
    assert_eq!(summary.start_value, Some(0));
    assert!(summary.unreached >= 2, "{summary:?}");
    // By hand: the values for the side to move, and the marks.
    let value = |moves: &str| {
        let b = probe(&book, moves).backup.unwrap();
        (b.value_permille, b.path_dependent)
    };
    assert_eq!(value(""), (0, true));
    assert_eq!(value("Nf3"), (1000, false));
    assert_eq!(value("Nf3 Nf6"), (0, true));
    assert_eq!(value("Nf3 Nf6 Ng1"), (1000, true));
    // The move into C carries C's value for white and C's mark.
    let b = probe(&book, "Nf3 Nf6");
    assert_eq!(b.moves.len(), 1);
    let m = b.moves[0].entry.backup.unwrap();
    assert_eq!((m.value_permille, m.path_dependent), (0, true));
    // The transposition is one node: both move orders lead to the same valued entry.
    let t1 = probe(&book, "d4 d5 Nf3");
    let t2 = probe(&book, "Nf3 d5 d4");
    assert_eq!(t1.key, t2.key);
    assert!(t1.backup.is_some());
    // Positions of the FEN game are not reached from the start: no value.
    let fen_game: retrobook::chess::Position = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1".parse().unwrap();
    let a = book.probe(&fen_game);
    assert_eq!(a.games, 1);
    assert_eq!(a.backup, None);
    assert!(a.moves.iter().all(|m| m.entry.backup.is_none()));
}

/// Random games of knight moves (with an occasional pawn move out), many of them repeating
/// and transposing, with random results.
fn random_games(seed: u64, games: usize) -> String {
    let mut s = seed;
    let mut next = |m: usize| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s % m as u64) as usize
    };
    let mut pgn = String::new();
    for _ in 0..games {
        let mut pos = Chess::default();
        let mut text = String::new();
        for ply in 0..1 + next(14) {
            let legal = pos.legal_moves();
            let knights: Vec<&Move> = legal.iter().filter(|m| m.role() == Role::Knight).collect();
            let m = if next(12) == 0 || knights.is_empty() {
                legal[next(legal.len())]
            } else {
                *knights[next(knights.len())]
            };
            if ply % 2 == 0 {
                text += &format!("{}. ", ply / 2 + 1);
            }
            text += &format!("{} ", San::from_move(&pos, m));
            pos.play_unchecked(m);
        }
        let result = ["1-0", "0-1", "1/2-1/2"][next(3)];
        pgn += &format!("[Result \"{result}\"]\n{text}{result}\n\n");
    }
    pgn
}

#[test]
fn random_cyclic_books_match_the_independent_back_up() {
    let dir = tempfile::tempdir().unwrap();
    let (mut dependent, mut independent, mut cyclic, mut largest) = (0, 0, 0, 0);
    for seed in 1..=40u64 {
        let pgn = random_games(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15), 16);
        let path = build_book(dir.path(), &format!("random{seed}"), &pgn);
        let summary = backup(&path, 1, &Silent).unwrap();
        let book = Book::open(&path).unwrap();
        let (d, i) = check_against_brute_force(&book, 1);
        assert_eq!(summary.path_dependent, d as u64, "seed {seed}");
        assert_eq!(summary.positions, (d + i) as u64, "seed {seed}");
        dependent += d;
        independent += i;
        cyclic += summary.cyclic_components;
        largest = largest.max(summary.largest_component);
    }
    assert!(cyclic > 40, "{cyclic} cyclic components");
    // Following only moves of at least two games: other values, still exact.
    let (mut thinner, mut differ) = (0, 0);
    for seed in 1..=10u64 {
        let pgn = random_games(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15), 16);
        let path = build_book(dir.path(), &format!("random{seed}"), &pgn);
        backup(&path, 1, &Silent).unwrap();
        let all: Vec<Entry> = Book::open(&path).unwrap().iter().collect();
        let summary = backup(&path, 2, &Silent).unwrap();
        let book = Book::open(&path).unwrap();
        check_against_brute_force(&book, 2);
        thinner += summary.positions;
        differ += book
            .iter()
            .zip(&all)
            .filter(|(a, b)| a.backup != b.backup)
            .count();
    }
    assert!(
        thinner > 0 && differ > 100,
        "{thinner} positions, {differ} entries changed"
    );
    assert!(largest >= 6, "largest cyclic component {largest}");
    assert!(dependent > 50, "{dependent} path-dependent positions");
    assert!(independent > 3000, "{independent} others");
}

#[test]
fn a_move_to_a_position_without_its_own_entry_is_scored_by_the_move() {
    let dir = tempfile::tempdir().unwrap();
    let built = build_book(dir.path(), "built", SHUFFLE);
    // The same book without the own entry of the position after 1. Nf3 d5.
    let gone = key(&fen_of("Nf3 d5"));
    let path = dir.path().join("cut.rbb");
    let original = Book::open(&built).unwrap();
    let mut w = BookWriter::create(&path).unwrap();
    for e in original.iter().filter(|e| !(e.key == gone && e.mv == 0)) {
        w.push(&e).unwrap();
    }
    w.finish(original.info()).unwrap();
    backup(&path, 1, &Silent).unwrap();
    let book = Book::open(&path).unwrap();
    check_against_brute_force(&book, 1);
    // 1... d5: two games, black won both: 1000 for black, from the move's own counts.
    let a = probe(&book, "Nf3");
    let d5 = a.moves.iter().find(|m| m.mv.to_string() == "d7d5").unwrap();
    let b = d5.entry.backup.unwrap();
    assert_eq!(
        (d5.entry.games, b.value_permille, b.path_dependent),
        (2, 1000, false)
    );
    // Its own moves (2. d4) are entries of a position not in the book: no value.
    assert!(book.entries(gone).iter().all(|e| e.backup.is_none()));
}

#[test]
fn backups_are_deterministic_and_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let a = build_book(dir.path(), "a", &random_games(7, 30));
    let b = dir.path().join("b.rbb");
    std::fs::copy(&a, &b).unwrap();
    let before = std::fs::read(&a).unwrap();
    backup(&a, 1, &Silent).unwrap();
    backup(&b, 1, &Silent).unwrap();
    let once = std::fs::read(&a).unwrap();
    assert!(once == std::fs::read(&b).unwrap(), "two back-ups differ");
    assert!(once != before, "the back-up changed nothing");
    // Only the back-up bytes of the entries and the header's flag and checksums change.
    assert_eq!(once.len(), before.len());
    for (i, (x, y)) in before.chunks(32).zip(once.chunks(32)).enumerate().skip(2) {
        assert_eq!(
            (&x[..10], &x[12..]),
            (&y[..10], &y[12..]),
            "entry {}",
            i - 2
        );
    }
    backup(&a, 1, &Silent).unwrap();
    assert!(
        once == std::fs::read(&a).unwrap(),
        "a second back-up differs"
    );
    // Merging drops the values: a merged book's counts are new.
    let merged = dir.path().join("merged.rbb");
    retrobook::book::merge(std::slice::from_ref(&a), &merged).unwrap();
    let m = Book::open(&merged).unwrap();
    assert!(!m.backed_up());
    assert!(m.iter().all(|e| e.backup.is_none()));
}

#[test]
fn the_sample_archive_backs_up_in_range_and_consistently() {
    let dir = tempfile::tempdir().unwrap();
    let archive = Path::new(env!("CARGO_MANIFEST_DIR")).join("books/masters-3000.pgn.zst");
    let path = dir.path().join("sample.rbb");
    build(&[archive], &path, &BuildOptions::default(), &Silent).unwrap();
    let s = backup(&path, 1, &Silent).unwrap();
    let book = Book::open(&path).unwrap();
    assert!(book.backed_up());
    let positions = book.iter().filter(|e| e.mv == 0).count() as u64;
    assert_eq!(s.positions + s.unreached, positions, "{s:?}");
    assert!(s.positions > 80_000, "{s:?}");
    assert_eq!(
        s.entries_valued,
        book.len() as u64,
        "every entry reached: {s:?}"
    );
    assert!(s.edges > 80_000 && s.cyclic_components > 10, "{s:?}");
    assert!(s.path_dependent > 10, "{s:?}");
    // Values in range; a position's value is its best move's value wherever no move leads
    // to a path-dependent position (then the move values are the children's own values).
    let mut by_key: BTreeMap<u64, Vec<Entry>> = BTreeMap::new();
    for e in book.iter() {
        let b = e.backup.expect("every entry valued");
        assert!(b.value_permille <= 1000);
        by_key.entry(e.key).or_default().push(e);
    }
    let mut checked = 0;
    for entries in by_key.values() {
        let own = entries[0].backup.unwrap();
        let moves: Vec<_> = entries[1..].iter().map(|e| e.backup.unwrap()).collect();
        if moves.is_empty() || moves.iter().any(|m| m.path_dependent) {
            continue;
        }
        let best = moves.iter().map(|m| m.value_permille).max().unwrap();
        assert_eq!(own.value_permille, best, "{:016x}", entries[0].key);
        checked += 1;
    }
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn damaged_books_are_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let good = build_book(dir.path(), "good", SHUFFLE);
    let bytes = std::fs::read(&good).unwrap();
    for (name, damaged) in crate::common::damaged_books(&bytes) {
        let path = dir.path().join(format!("{name}.rbb"));
        std::fs::write(&path, &damaged).unwrap();
        let out = run(&["book", "backup", "--book", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains(&format!("{name}.rbb")) && !err.contains("panicked"),
            "{err}"
        );
        assert!(
            std::fs::read(&path).unwrap() == damaged,
            "{name} was changed"
        );
    }
    let out = run(&[
        "book",
        "backup",
        "--book",
        dir.path().join("none.rbb").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    // No temporary file is left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
}

#[test]
fn a_failed_rewrite_leaves_the_old_book() {
    let dir = tempfile::tempdir().unwrap();
    let path = build_book(dir.path(), "book", SHUFFLE);
    let before = std::fs::read(&path).unwrap();
    // A file-size limit of 512 bytes stands in for a full disk: the rewrite fails part way
    // (the shell ignores SIGXFSZ so that the write fails with an error, not a signal).
    let script = format!(
        "trap '' XFSZ; ulimit -f 1; exec '{}' book backup --book '{}'",
        env!("CARGO_BIN_EXE_retrobook"),
        path.display()
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &script])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write") && err.contains("book.rbb"),
        "{err}"
    );
    assert!(std::fs::read(&path).unwrap() == before);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
    backup(&path, 1, &Silent).unwrap();
    assert!(Book::open(&path).unwrap().backed_up());
}

#[test]
fn the_command_line_backs_up_and_probe_shows_values_marks_and_repetitions() {
    let dir = tempfile::tempdir().unwrap();
    let path = build_book(dir.path(), "cli", SHUFFLE);
    let p = path.to_str().unwrap();
    let fen_c =
        shakmaty::fen::Fen::from_position(&fen_of("Nf3 Nf6 Ng1"), EnPassantMode::Legal).to_string();
    // Before the back-up: nulls.
    let v: serde_json::Value =
        serde_json::from_str(&run_ok(&["book", "probe", "--book", p, "--json", &fen_c])).unwrap();
    assert_eq!(v["value"], serde_json::Value::Null);
    assert_eq!(v["moves"][0]["value"], serde_json::Value::Null);
    let text = run_ok(&["book", "backup", "--book", p]);
    assert_eq!(text.lines().count(), 1, "{text}");
    for needle in [
        "positions",
        "edges",
        "1 cyclic components (largest 4 positions)",
        "3 path-dependent positions",
        " s\n",
    ] {
        assert!(text.contains(needle), "{needle:?} not in {text}");
    }
    let s: serde_json::Value =
        serde_json::from_str(&run_ok(&["book", "backup", "--book", p, "--json"])).unwrap();
    assert_eq!(s["path_dependent"], 3, "{s}");
    assert_eq!(s["cyclic_components"], 1, "{s}");
    assert_eq!(s["start_value"], 0.0, "{s}");
    // C: black to move after 1. Nf3 Nf6 2. Ng1; worth 1000 for black, path-dependent.
    let v: serde_json::Value =
        serde_json::from_str(&run_ok(&["book", "probe", "--book", p, "--json", &fen_c])).unwrap();
    assert_eq!(v["value"], 1.0, "{v}");
    assert_eq!(v["path_dependent"], true, "{v}");
    // The shuffle game passed here and ended by threefold repetition of the start.
    assert_eq!(v["threefold"], 1, "{v}");
    let moves = v["moves"].as_array().unwrap();
    let ng8 = moves.iter().find(|m| m["san"] == "Ng8").unwrap();
    assert_eq!(ng8["value"], 1.0, "{v}");
    assert_eq!(ng8["path_dependent"], true, "S's mark: {v}");
    assert!(ng8["repetitions"].is_u64(), "{v}");
    let text = run_ok(&["book", "probe", "--book", p, &fen_c]);
    assert!(text.contains("value 100.0% (path-dependent)"), "{text}");
    assert!(text.contains("repetitions "), "{text}");
    assert!(text.contains("ended by threefold repetition"), "{text}");
    // Usage errors exit 2.
    let out = run(&["book", "backup", "--frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

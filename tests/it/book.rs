//! Books built from the sample archive (`books/masters-3000.pgn.zst`, 3,000 games cut from
//! a masters archive) against an independent count made here with pgn-reader and shakmaty:
//! the start position, every position after 1 and 2 plies, and a sample of deeper ones.

use crate::common::run_ok;
use pgn_reader::{Reader, SanPlus, Skip, Visitor};
use retrobook::book::Book;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{fen::Fen, CastlingMode, Chess, EnPassantMode, KnownOutcome, Outcome, Position};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

const MAX_PLY: usize = 40;

/// Games the independent count used.
static USED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("books/masters-3000.pgn.zst")
}

/// The archive of the independent-count test: the sample, or `RETROBOOK_BOOK_ARCHIVE` (a
/// `.pgn.zst`) to check a whole archive by hand, e.g. the full masters archive.
fn counted_archive() -> PathBuf {
    std::env::var_os("RETROBOOK_BOOK_ARCHIVE").map_or_else(sample, PathBuf::from)
}

/// Counts of one position: games, games ended by threefold repetition, and per move (UCI)
/// games, win, draw, loss, and games that played the move into a repeated position.
#[derive(Default, Debug, Clone, PartialEq)]
struct Counts {
    games: u32,
    threefold: u32,
    moves: BTreeMap<String, [u32; 5]>,
}

/// One game as pgn-reader sees it: the main line and the outcome.
#[derive(Default)]
struct Collect {
    result_tag: Option<String>,
}

impl Visitor for Collect {
    type Tags = Option<String>;
    type Movetext = (Vec<SanPlus>, Option<Outcome>);
    type Output = (Vec<SanPlus>, Option<Outcome>, Option<String>);

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(None)
    }
    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: pgn_reader::RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        if name == b"Result" {
            *tags = value.decode_utf8().ok().map(|v| v.into_owned());
        }
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        self.result_tag = tags;
        ControlFlow::Continue((Vec::new(), None))
    }
    fn begin_variation(&mut self, _: &mut Self::Movetext) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }
    fn san(&mut self, m: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        m.0.push(san);
        ControlFlow::Continue(())
    }
    fn outcome(&mut self, m: &mut Self::Movetext, outcome: Outcome) -> ControlFlow<Self::Output> {
        m.1 = Some(outcome);
        ControlFlow::Continue(())
    }
    fn end_game(&mut self, m: Self::Movetext) -> Self::Output {
        (m.0, m.1, self.result_tag.take())
    }
}

/// The independent count, keyed by FEN (with the en-passant square whenever a pawn could
/// take, as Polyglot keys count it).
fn independent_count() -> HashMap<String, (usize, Counts)> {
    let file = std::fs::File::open(counted_archive()).unwrap();
    let mut reader = Reader::new(zstd::stream::read::Decoder::new(file).unwrap());
    let mut visitor = Collect::default();
    let mut out: HashMap<String, (usize, Counts)> = HashMap::new();
    let mut used = 0u64;
    while let Some((sans, outcome, tag)) = reader.read_game(&mut visitor).unwrap() {
        let white = match (outcome, tag.as_deref()) {
            (Some(Outcome::Known(KnownOutcome::Decisive { winner })), _) => {
                if winner.is_white() {
                    1
                } else {
                    -1
                }
            }
            (Some(Outcome::Known(KnownOutcome::Draw)), _) => 0,
            (Some(Outcome::Unknown), _) => continue,
            (None, Some("1-0")) => 1,
            (None, Some("0-1")) => -1,
            (None, Some("1/2-1/2")) => 0,
            _ => continue,
        };
        // Replay first: a game with an illegal move is skipped whole.
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        let mut legal = true;
        for san in &sans {
            match san.san.to_move(&pos) {
                Ok(m) => {
                    moves.push(m);
                    pos.play_unchecked(m);
                }
                Err(_) => {
                    legal = false;
                    break;
                }
            }
        }
        if !legal {
            continue;
        }
        used += 1;
        // Positions as Polyglot keys tell them apart: FEN without the move clocks.
        let key_of = |pos: &Chess| {
            let full = Fen::from_position(pos, EnPassantMode::PseudoLegal).to_string();
            full.split(' ').take(4).collect::<Vec<_>>().join(" ")
        };
        // Every position of the game, for the repetition counts.
        let mut all = vec![key_of(&Chess::default())];
        let mut p = Chess::default();
        for &m in &moves {
            p.play_unchecked(m);
            all.push(key_of(&p));
        }
        let last = all.last().unwrap();
        let threefold = white == 0 && all.iter().filter(|k| *k == last).count() >= 3;
        let mut pos = Chess::default();
        let mut seen_pos = HashSet::new();
        let mut seen_move: HashMap<(String, String), bool> = HashMap::new();
        let plies = moves.len().min(MAX_PLY);
        for (ply, next) in moves
            .iter()
            .map(Some)
            .chain([None])
            .enumerate()
            .take(plies + 1)
        {
            let fen = all[ply].clone();
            let score = if pos.turn().is_white() { white } else { -white };
            let slot = match score {
                1 => 1,
                0 => 2,
                _ => 3,
            };
            let entry = out.entry(fen.clone()).or_insert((ply, Counts::default()));
            if seen_pos.insert(fen.clone()) {
                entry.1.games += 1;
                entry.1.threefold += threefold as u32;
            }
            if let Some(&m) = next.filter(|_| ply < plies) {
                let uci = m.to_uci(CastlingMode::Standard).to_string();
                let repeats = all[..=ply].contains(&all[ply + 1]);
                match seen_move.get_mut(&(fen.clone(), uci.clone())) {
                    Some(r) => *r |= repeats,
                    None => {
                        seen_move.insert((fen.clone(), uci.clone()), repeats);
                        let c = entry.1.moves.entry(uci).or_default();
                        c[0] += 1;
                        c[slot] += 1;
                    }
                }
                pos.play_unchecked(m);
            }
        }
        // A game counts once per (position, move) that it played into a repetition.
        for ((fen, uci), repeats) in seen_move {
            if repeats {
                out.get_mut(&fen).unwrap().1.moves.get_mut(&uci).unwrap()[4] += 1;
            }
        }
    }
    assert!(used > 2900, "{used} games used");
    USED.store(used, std::sync::atomic::Ordering::Relaxed);
    out
}

/// The book's counts for a FEN, in the same shape.
fn book_counts(book: &Book, fen: &str) -> Counts {
    let pos: retrobook::chess::Position = fen.parse().unwrap();
    let answer = book.probe(&pos);
    let own = book.entries(answer.key).into_iter().find(|e| e.mv == 0);
    Counts {
        games: answer.games,
        threefold: own.map_or(0, |e| e.repeats),
        moves: answer
            .moves
            .iter()
            .map(|m| {
                let e = &m.entry;
                (
                    m.mv.to_string(),
                    [e.games, e.win, e.draw, e.loss, e.repeats],
                )
            })
            .collect(),
    }
}

#[test]
fn book_counts_equal_an_independent_count() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sample.rbb");
    let summary = run_ok(&[
        "book",
        "build",
        counted_archive().to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    let summary: serde_json::Value = serde_json::from_str(&summary).unwrap();
    let book = Book::open(&out).unwrap();
    let expected = independent_count();
    assert_eq!(
        summary["games_used"].as_u64(),
        Some(USED.load(std::sync::atomic::Ordering::Relaxed)),
        "{summary}"
    );
    if std::env::var_os("RETROBOOK_BOOK_ARCHIVE").is_none() {
        assert_eq!(summary["games_read"], 3000, "{summary}");
    }

    // Keys agree too: shakmaty's Polyglot-compatible Zobrist hash of the start position.
    let start = Chess::default();
    let key = start.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal);
    assert_eq!(key.0, 0x463b96181691fc9c);

    let mut checked = 0;
    let mut deep: Vec<&String> = expected
        .iter()
        .filter(|(_, (ply, _))| *ply > 2)
        .map(|(fen, _)| fen)
        .collect();
    deep.sort();
    let deep: HashSet<&String> = deep.into_iter().step_by(97).collect();
    // Every position where a game repeated a position or ended by threefold repetition.
    let repeated: HashSet<&String> = expected
        .iter()
        .filter(|(_, (_, c))| c.threefold > 0 || c.moves.values().any(|m| m[4] > 0))
        .map(|(fen, _)| fen)
        .collect();
    let moves_into_repetition = expected
        .values()
        .filter(|(_, c)| c.moves.values().any(|m| m[4] > 0))
        .count();
    assert!(moves_into_repetition > 0 && repeated.len() > moves_into_repetition);
    for (fen, (ply, counts)) in &expected {
        if *ply <= 2 || deep.contains(fen) || repeated.contains(fen) {
            assert_eq!(&book_counts(&book, fen), counts, "{fen} (ply {ply})");
            checked += 1;
        }
    }
    assert!(checked > 800, "{checked} positions compared");
    // The start position's games equal the games used.
    assert_eq!(
        book_counts(
            &book,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        )
        .games,
        summary["games_used"].as_u64().unwrap() as u32
    );
}

/// Builds a book through the CLI; returns its JSON summary.
fn build(archives: &[&Path], out: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["book", "build"];
    args.extend(archives.iter().map(|a| a.to_str().unwrap()));
    args.extend(["--out", out.to_str().unwrap(), "--json"]);
    args.extend(extra);
    serde_json::from_str(&run_ok(&args)).unwrap()
}

/// The sample's PGN text cut in two at a game boundary.
fn halves(dir: &Path) -> (PathBuf, PathBuf) {
    let mut text = String::new();
    use std::io::Read;
    zstd::stream::read::Decoder::new(std::fs::File::open(sample()).unwrap())
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    let starts: Vec<usize> = text.match_indices("[Event ").map(|(i, _)| i).collect();
    let cut = starts[starts.len() / 2];
    let (a, b) = (dir.join("a.pgn"), dir.join("b.pgn"));
    std::fs::write(&a, &text[..cut]).unwrap();
    std::fs::write(&b, &text[cut..]).unwrap();
    (a, b)
}

#[test]
fn spilled_runs_and_merged_halves_equal_one_build() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let whole = d.join("whole.rbb");
    build(&[&sample()], &whole, &[]);
    // A memory budget far below the statistics' size forces several runs through disk.
    let spilled = d.join("spilled.rbb");
    let summary = build(&[&sample()], &spilled, &["--memory", "1"]);
    assert!(summary["runs_spilled"].as_u64().unwrap() >= 2, "{summary}");
    assert!(std::fs::read(&whole).unwrap() == std::fs::read(&spilled).unwrap());
    // Two halves built apart and merged, in either order, equal both halves given to one
    // build byte for byte (the same archives read), and count what the whole does.
    let (a, b) = halves(d);
    let (book_a, book_b) = (d.join("a.rbb"), d.join("b.rbb"));
    build(&[&a], &book_a, &[]);
    build(&[&b], &book_b, &[]);
    let both = d.join("both.rbb");
    build(&[&a, &b], &both, &[]);
    let counts = |p: &Path| {
        let book = Book::open(p).unwrap();
        (book.info(), book.iter().collect::<Vec<_>>())
    };
    assert!(counts(&whole) == counts(&both));
    for (i, order) in [[&book_a, &book_b], [&book_b, &book_a]].iter().enumerate() {
        let merged = d.join(format!("merged{i}.rbb"));
        run_ok(&[
            "book",
            "merge",
            order[0].to_str().unwrap(),
            order[1].to_str().unwrap(),
            "--out",
            merged.to_str().unwrap(),
        ]);
        assert!(
            std::fs::read(&both).unwrap() == std::fs::read(&merged).unwrap(),
            "merge order {i}"
        );
    }
    // What would count games twice is refused, and nothing written: the same book twice,
    // a copy of it, a book built again from the same archive beside one built from it and
    // another, a merged book beside one of its parts.
    let copy = d.join("copy.rbb");
    std::fs::copy(&book_a, &copy).unwrap();
    let merged = d.join("merged0.rbb");
    let twice = "the same book";
    let same_archive = "games of an archive of ";
    for (books, needle) in [
        ([&book_a, &book_a], twice),
        ([&book_a, &copy], twice),
        ([&book_a, &both], same_archive),
        ([&merged, &book_b], same_archive),
    ] {
        let out = d.join("refused.rbb");
        let o = crate::common::run(&[
            "book",
            "merge",
            books[0].to_str().unwrap(),
            books[1].to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{books:?}: {err}");
        assert!(
            err.contains(needle) && err.contains("count them twice"),
            "{err}"
        );
        assert!(!out.exists());
    }
}

#[test]
fn polyglot_export_round_trips_and_agrees_with_the_book() {
    use retrobook::book::polyglot::{position_entries, PolyglotBook};
    let dir = tempfile::tempdir().unwrap();
    let native = dir.path().join("sample.rbb");
    build(&[&sample()], &native, &[]);
    let bin = dir.path().join("sample.bin");
    run_ok(&[
        "book",
        "export",
        "--format",
        "polyglot",
        "--book",
        native.to_str().unwrap(),
        "--out",
        bin.to_str().unwrap(),
    ]);
    let book = Book::open(&native).unwrap();
    let poly = PolyglotBook::open(&bin).unwrap();
    assert_eq!(std::fs::metadata(&bin).unwrap().len() % 16, 0);
    // Entry by entry: every position's moves of positive weight, highest weight first.
    let mut keys: Vec<u64> = book.iter().map(|e| e.key).collect();
    keys.dedup();
    let mut total = 0;
    for key in keys {
        let moves: Vec<_> = book
            .entries(key)
            .into_iter()
            .filter(|e| e.mv != 0)
            .collect();
        let expected = position_entries(&moves);
        let got = poly.entries(key);
        assert_eq!(got, &expected[..], "key {key:016x}");
        assert!(got.windows(2).all(|w| w[0].weight >= w[1].weight));
        total += got.len();
    }
    assert_eq!(total, poly.len());
    // The start position, read back: e4 (1,616 games: +709 =406) weighs 2*709+406.
    let start = poly.entries(0x463b96181691fc9c);
    let e4 = 4 | 3 << 3 | 4 << 6 | 1 << 9;
    assert_eq!(start[0].mv, e4);
    assert_eq!(start[0].weight, 2 * 709 + 406);
}

#[test]
fn stdin_archives_build_the_same_book() {
    let dir = tempfile::tempdir().unwrap();
    let (a, _) = halves(dir.path());
    let from_file = dir.path().join("file.rbb");
    build(&[&a], &from_file, &[]);
    let from_stdin = dir.path().join("stdin.rbb");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_retrobook"))
        .args(["book", "build", "-", "--out", from_stdin.to_str().unwrap()])
        .stdin(std::fs::File::open(&a).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read(&from_file).unwrap() == std::fs::read(&from_stdin).unwrap());
}

#[test]
fn broken_archives_are_skipped_game_by_game_and_never_crash() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("broken.pgn");
    let mut text: Vec<u8> = b"[Event \"ok\"]\n1. e4 e5 1-0\n\
[Event \"illegal\"]\n1. e4 e4 1-0\n\
[Event \"unfinished\"]\n1. d4 *\n\
[Variant \"Atomic\"]\n1. e4 1-0\n\
[FEN \"8/8/8\"]\n1. e4 1-0\n\
{ an unclosed comment (runs to the end of the game) 1. c4 1-0\n\
[Event \"no result\"]\n1. Nf3\n"
        .to_vec();
    // Random bytes and a truncated game at the end.
    let mut seed = 12345u64;
    for _ in 0..20_000 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        text.push((seed >> 56) as u8);
    }
    text.extend_from_slice(b"\n[Event \"cut\"]\n1. e4 e5 2. Nf");
    std::fs::write(&pgn, &text).unwrap();
    let out = dir.path().join("b.rbb");
    let summary = build(&[&pgn], &out, &[]);
    assert_eq!(summary["games_used"], 1, "{summary}");
    let skipped = summary["skipped"].as_object().unwrap();
    for reason in [
        "illegal or unreadable move",
        "variant Atomic",
        "unreadable FEN tag",
    ] {
        assert!(skipped.contains_key(reason), "{reason}: {summary}");
    }
    assert!(skipped["illegal or unreadable move"]["first"]
        .as_str()
        .unwrap()
        .contains("broken.pgn:4"));
    // A truncated or damaged book is refused with its name.
    let book = std::fs::read(&out).unwrap();
    for (name, bytes) in crate::common::damaged_books(&book) {
        let path = dir.path().join(format!("{name}.rbb"));
        std::fs::write(&path, bytes).unwrap();
        let out = crate::common::run(&[
            "book",
            "probe",
            "--book",
            path.to_str().unwrap(),
            "8/8/8/8/8/8/8/K1k5 w - - 0 1",
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(
            err.contains(&format!("{name}.rbb")) && !err.contains("panicked"),
            "{err}"
        );
    }
}

#[test]
fn reads_a_real_third_party_polyglot_book() {
    use retrobook::book::polyglot::PolyglotBook;
    use retrobook::chess::Position as RbPosition;
    // Debian's gnuchess-book, fetched by scripts/test (the README's test command).
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-data/gnuchess-book.bin");
    assert!(
        path.is_file(),
        "{} is missing: run the suite with scripts/test, which fetches it",
        path.display()
    );
    let book = PolyglotBook::open(&path).unwrap();
    assert_eq!(book.len(), 180_358);
    let start = RbPosition::start();
    let moves: Vec<(String, u16)> = book
        .entries(retrobook::book::polyglot_key(&start))
        .iter()
        .map(|e| {
            let m = retrobook::book::decode_move(&start, e.mv).expect("a legal move");
            (start.san(&m), e.weight)
        })
        .collect();
    let expected = [("e4", 12135), ("d4", 11257), ("Nf3", 3745), ("c4", 3294)];
    // The four main moves and their weights, highest first; then 9 rarer ones.
    assert_eq!(
        moves[..4],
        expected.map(|(m, w)| (m.to_string(), w)),
        "start position of gnuchess-book"
    );
    assert_eq!(moves.len(), 13);
    assert!(moves.windows(2).all(|w| w[0].1 >= w[1].1));
    // Every entry of positions after one move decodes to a legal move there.
    let mut list = retrobook::chess::MoveList::new();
    start.legal_moves(&mut list);
    for m in list.as_slice() {
        let after = start.play(m);
        for e in book.entries(retrobook::book::polyglot_key(&after)) {
            assert!(
                retrobook::book::decode_move(&after, e.mv).is_some(),
                "{after}"
            );
        }
    }
}

#[test]
fn min_elo_and_min_games_filter_as_documented() {
    let dir = tempfile::tempdir().unwrap();
    let pgn = dir.path().join("elo.pgn");
    std::fs::write(
        &pgn,
        "[WhiteElo \"2500\"]\n[BlackElo \"2400\"]\n1. e4 e5 1-0\n\n\
         [WhiteElo \"2500\"]\n[BlackElo \"1900\"]\n1. d4 d5 0-1\n\n\
         [WhiteElo \"2600\"]\n1. c4 c5 1/2-1/2\n\n\
         [WhiteElo \"2450\"]\n[BlackElo \"2450\"]\n1. e4 c5 1/2-1/2\n",
    )
    .unwrap();
    let out = dir.path().join("elo.rbb");
    let s = build(&[&pgn], &out, &["--min-elo", "2000"]);
    assert_eq!(s["games_used"], 2, "{s}");
    assert_eq!(s["skipped"]["below --min-elo"]["games"], 2, "{s}");
    let book = Book::open(&out).unwrap();
    let start = book.probe(&retrobook::chess::Position::start());
    let first: Vec<String> = start.moves.iter().map(|m| m.mv.to_string()).collect();
    assert_eq!(first, ["e2e4"]);
    assert_eq!(start.moves[0].entry.games, 2);
    // --min-games 2 keeps e4 (2 games) and drops e5 and c5 (1 game each).
    let s = build(&[&pgn], &out, &["--min-elo", "2000", "--min-games", "2"]);
    assert_eq!(s["games_used"], 2, "{s}");
    let book = Book::open(&out).unwrap();
    assert_eq!(
        book.probe(&retrobook::chess::Position::start()).moves.len(),
        1
    );
    let after_e4: retrobook::chess::Position =
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
            .parse()
            .unwrap();
    let a = book.probe(&after_e4);
    assert_eq!((a.games, a.moves.len()), (2, 0));
}

/// `book build` that must fail: exit 1, one line naming `needle`, no book written (an
/// old book under the name is left as it was).
fn build_fails(archives: &[&Path], needle: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("b.rbb");
    std::fs::write(&out, b"the old book").unwrap();
    let mut args = vec!["book", "build", "--out", out.to_str().unwrap()];
    args.extend(archives.iter().map(|a| a.to_str().unwrap()));
    let o = crate::common::run(&args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{archives:?}: {err}");
    assert!(
        err.contains(needle),
        "{archives:?}: {err:?} should say {needle:?}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), b"the old book");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "nothing but the old book: {left:?}");
}

/// What is not PGN is refused, saying no game was found: random bytes, a password file,
/// a table file, plain text named `.zst`, a damaged zstd header, a folder.
#[test]
fn an_archive_that_is_not_pgn_fails_the_build() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let write = |name: &str, bytes: &[u8]| {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let random: Vec<u8> = (0..100_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let random = write("random.pgn", &random);
    let passwd = write(
        "passwd",
        b"root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n",
    );
    let tables = tempfile::tempdir().unwrap();
    run_ok(&["gen", "KQvK", "--tables", tables.path().to_str().unwrap()]);
    let table = tables.path().join("KQvK.rbt");
    let text = write("text.pgn.zst", b"1. e4 e5 2. Nf3 Nc6 1-0\n");
    let mut header = std::fs::read(sample()).unwrap();
    header[1] ^= 0x01; // the magic number
    let header = write("header.pgn.zst", &header);
    for (archive, needle) in [
        (&random, "random.pgn: no PGN game found"),
        (&passwd, "passwd: no PGN game found"),
        (&table, "KQvK.rbt: no PGN game found"),
        (
            &text,
            "text.pgn.zst: after line 0 of its text: not zstd data",
        ),
        (
            &header,
            "header.pgn.zst: after line 0 of its text: not zstd data",
        ),
    ] {
        build_fails(&[archive], needle);
    }
    // Also beside a good archive: the build names the one at fault.
    build_fails(&[&sample(), &passwd], "passwd: no PGN game found");
    build_fails(&[d], "a folder, not an archive");
    // Games, every one of them skipped: nothing to count, nothing written.
    let unfinished = write("unfinished.pgn", b"[Event \"x\"]\n\n1. e4 e5 *\n");
    build_fails(&[&unfinished], "none of the 1 games read could be counted");
}

/// A damaged compressed archive fails the build, naming the archive, the frame and the
/// byte it starts at, and the line of text reached; no book is written, so no game near
/// the damage (a game cut short, two games' headers run together) is ever counted. Every
/// one of 24 single-bit flips spread over the sample either fails so or, where the flip
/// changes nothing decoded (a frame header's spare bits), gives the undamaged book.
#[test]
fn a_damaged_compressed_archive_fails_the_build_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let whole = std::fs::read(sample()).unwrap();
    let cut = dir.path().join("cut.pgn.zst");
    std::fs::write(&cut, &whole[..whole.len() / 2]).unwrap();
    build_fails(&[&cut], "cut.pgn.zst: after line ");
    build_fails(&[&cut], "damaged zstd data in frame 1 (from byte 0)");
    let good = dir.path().join("good.rbb");
    build(&[&sample()], &good, &["--max-ply", "8"]);
    let good = std::fs::read(&good).unwrap();
    let (mut failed, mut same) = (0, 0);
    for i in 0..24 {
        let at = 3 + i * (whole.len() - 4) / 24;
        let mut flipped = whole.clone();
        flipped[at] ^= 1 << (i % 8);
        let archive = dir.path().join(format!("flip{i}.pgn.zst"));
        std::fs::write(&archive, &flipped).unwrap();
        let out = dir.path().join(format!("flip{i}.rbb"));
        let o = crate::common::run(&[
            "book",
            "build",
            "--max-ply",
            "8",
            "--out",
            out.to_str().unwrap(),
            archive.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        if o.status.success() {
            assert!(
                std::fs::read(&out).unwrap() == good,
                "flip at {at}: another book"
            );
            same += 1;
        } else {
            assert_eq!(o.status.code(), Some(1), "{err}");
            assert!(
                err.contains(&format!("flip{i}.pgn.zst: after line ")),
                "{err}"
            );
            assert!(err.contains("in frame 1 (from byte 0)"), "{err}");
            assert!(!out.exists(), "flip at {at}: a book was written");
            failed += 1;
        }
    }
    assert!(failed >= 20, "{failed} failed, {same} gave the same book");
}

/// A build split into shares (as processes of a cluster split it): every game is counted by
/// exactly one share, so the shares, merged, are the whole build byte for byte, with the
/// same games read and skipped; and the shares are not lopsided.
#[test]
fn shares_of_a_build_merged_equal_the_whole() {
    use retrobook::book::{build as build_with, BuildOptions, Share};
    use retrobook::progress::Silent;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (a, b) = halves(d);
    let archives = [a, b];
    let options = |share| BuildOptions {
        max_ply: 20,
        memory: 2 << 20,
        share,
        ..BuildOptions::default()
    };
    let whole = d.join("whole.rbb");
    let all = build_with(&archives, &whole, &options(Share::default()), &Silent).unwrap();
    let parts = 3;
    let mut books = Vec::new();
    let (mut read, mut used) = (0, 0);
    for part in 0..parts {
        let out = d.join(format!("part{part}.rbb"));
        let s = build_with(&archives, &out, &options(Share { part, parts }), &Silent).unwrap();
        assert!(
            s.games_read > all.games_read / 4,
            "share {part} of {parts}: {} of {} games",
            s.games_read,
            all.games_read
        );
        (read, used) = (read + s.games_read, used + s.games_used);
        books.push(out);
    }
    assert_eq!((read, used), (all.games_read, all.games_used));
    let merged = d.join("merged.rbb");
    retrobook::book::merge(&books, &merged).unwrap();
    assert!(std::fs::read(&whole).unwrap() == std::fs::read(&merged).unwrap());
    // A share given twice, or beside the whole, would count its games twice.
    let again = d.join("again.rbb");
    for pair in [
        [&books[0], &books[0]],
        [&whole, &books[1]],
        [&merged, &books[2]],
    ] {
        let pair = [pair[0].clone(), pair[1].clone()];
        let e = retrobook::book::merge(&pair, &again)
            .unwrap_err()
            .to_string();
        assert!(e.contains("count them twice"), "{e}");
    }
    let two = [books[0].clone(), books[2].clone()];
    retrobook::book::merge(&two, &again).unwrap();
}

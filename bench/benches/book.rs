//! Book speed: building from the first 20,000 games of the masters archive
//! (`../shared/data/pgn/masters.pgn.zst`, written out as plain PGN first; the 3,000-game
//! sample in `books/` where the archive is missing) with 1 and 2 threads, side by side with
//! a baseline in the same run: the same games read by pgn-reader and replayed by shakmaty
//! (every move checked, as we check them), counting positions and moves of the first 40
//! plies in a hash map (less work than a book: no results, no file). Also probing the book.
//!
//! Run: `cargo bench -p retrobook-bench --bench book`. Whole archives are timed by the CLI instead
//! (`/usr/bin/time -v retrobook book build ../shared/data/pgn/masters.pgn.zst`).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use pgn_reader::{Reader, SanPlus, Skip, Visitor};
use retrobook::book::{build, Book, BuildOptions};
use retrobook::chess::{MoveList, Position};
use retrobook::progress::Silent;
use shakmaty::{zobrist::Zobrist64, Chess, EnPassantMode, Position as _};
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// Collects a game's main-line moves.
struct Moves;

impl Visitor for Moves {
    type Tags = ();
    type Movetext = Vec<SanPlus>;
    type Output = Vec<SanPlus>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, _: ()) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(Vec::with_capacity(128))
    }
    fn begin_variation(&mut self, _: &mut Self::Movetext) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }
    fn san(&mut self, m: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        m.push(san);
        ControlFlow::Continue(())
    }
    fn end_game(&mut self, m: Self::Movetext) -> Self::Output {
        m
    }
}

/// The baseline: games counted per (Polyglot key, move) with pgn-reader and shakmaty.
fn baseline(archive: &Path) -> usize {
    let file = std::fs::File::open(archive).expect("bench archive");
    let mut reader = Reader::new(std::io::BufReader::new(file));
    let mut counts: HashMap<(u64, String), u32> = HashMap::new();
    while let Some(sans) = reader.read_game(&mut Moves).expect("readable") {
        let mut pos = Chess::default();
        for (ply, san) in sans.iter().enumerate() {
            let Ok(m) = san.san.to_move(&pos) else { break };
            if ply < 40 {
                let key = pos.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal).0;
                *counts.entry((key, san.san.to_string())).or_default() += 1;
            }
            pos.play_unchecked(m);
        }
    }
    counts.len()
}
use std::time::Duration;

/// The bench's games as a plain PGN file, and how many there are.
fn bench_archive(dir: &Path) -> (PathBuf, usize) {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let masters = root.join("../shared/data/pgn/masters.pgn.zst");
    let (source, games) = if masters.is_file() {
        (masters, 20_000)
    } else {
        (root.join("books/masters-3000.pgn.zst"), 3_000)
    };
    let file = std::fs::File::open(&source).expect("archive");
    let text = std::io::BufReader::new(zstd::stream::read::Decoder::new(file).expect("zstd"));
    let mut out = Vec::new();
    let mut seen = 0;
    for line in std::io::BufRead::split(text, b'\n') {
        let line = line.expect("readable archive");
        if line.starts_with(b"[Event ") {
            seen += 1;
            if seen > games {
                break;
            }
        }
        out.extend_from_slice(&line);
        out.push(b'\n');
    }
    let path = dir.join("bench.pgn");
    std::fs::write(&path, out).expect("bench archive written");
    (path, games.min(seen))
}

fn bench_book(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let (sample, games) = bench_archive(dir.path());
    let out = dir.path().join("sample.rbb");
    let mut group = c.benchmark_group("book");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    group.bench_function(format!("baseline-pgn-reader-shakmaty-{games}-games"), |b| {
        b.iter(|| black_box(baseline(&sample)))
    });
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        group.bench_function(format!("build-{games}-games/{threads}-threads"), |b| {
            b.iter(|| {
                pool.install(|| {
                    build(
                        std::slice::from_ref(&sample),
                        &out,
                        &BuildOptions::default(),
                        &Silent,
                    )
                    .expect("book builds")
                })
            })
        });
    }
    // Probing: the start position and every position one and two plies deep.
    let book = Book::open(&out).expect("book opens");
    let mut positions = vec![Position::start()];
    for _ in 0..2 {
        let mut next = Vec::new();
        for p in &positions {
            let mut list = MoveList::new();
            p.legal_moves(&mut list);
            next.extend(list.as_slice().iter().map(|m| p.play(m)));
        }
        positions.extend(next);
    }
    group.bench_function(format!("probe-{}-positions", positions.len()), |b| {
        b.iter(|| {
            for p in &positions {
                black_box(book.probe(p));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench_book);
criterion_main!(benches);

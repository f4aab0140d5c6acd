//! Book speed: building from the 3,000-game sample archive with 1 and 2 threads (games per
//! second, parallel speed-up, side by side), and probing the built book.
//!
//! Run: `cargo bench --bench book`. The whole masters archive is timed by the CLI instead
//! (`/usr/bin/time -v retrobook book build ../shared/data/pgn/masters.pgn.zst`), since one
//! build takes most of a minute.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use retrobook::book::build::NoProgress;
use retrobook::book::{build, Book, BuildOptions};
use retrobook::chess::{MoveList, Position};
use std::path::PathBuf;
use std::time::Duration;

fn bench_book(c: &mut Criterion) {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("books/masters-3000.pgn.zst");
    let dir = tempfile::tempdir().expect("temporary folder");
    let out = dir.path().join("sample.rbb");
    let mut group = c.benchmark_group("book");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        group.bench_function(format!("build-3000-games/{threads}-threads"), |b| {
            b.iter(|| {
                pool.install(|| {
                    build(
                        std::slice::from_ref(&sample),
                        &out,
                        &BuildOptions::default(),
                        &NoProgress,
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

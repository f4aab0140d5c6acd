//! The library's parallel entry points take their thread count as data: used at 1 and at 2
//! threads from one process, side by side, they give byte-identical tables and books, and
//! each runs on the threads it was given (no pool is shared or set process-wide).

use retrobook::book::{build, BuildOptions};
use retrobook::generate::{GenOptions, Session};
use retrobook::material::Material;
use retrobook::probe::{verify_table, DtzCheck};
use retrobook::progress::{Observer, Silent};
use retrobook::Threads;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Records the largest rayon pool its calls are made from: the solver and the writer tell
/// the observer of their progress from their workers.
#[derive(Default)]
struct PoolSeen(Mutex<usize>);

impl Observer for PoolSeen {
    fn pass(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {
        let mut seen = self.0.lock().unwrap();
        *seen = (*seen).max(rayon::current_num_threads());
    }
}

/// Builds `target` and its sub-tables into `dir` on `threads`; the target's bytes, and the
/// largest pool progress was reported from.
fn tables_on(target: Material, dir: &Path, threads: usize) -> (Vec<u8>, usize) {
    let opts = GenOptions {
        threads: Threads::new(threads),
        ..Default::default()
    };
    let seen = PoolSeen::default();
    let mut tb = Session::open(dir, &[target])
        .build_all(&opts, &seen)
        .unwrap();
    let last = dir.join(format!("{target}.rbt"));
    verify_table(
        &mut tb,
        &target,
        Threads::new(threads),
        DtzCheck::Sample,
        &Silent,
    )
    .unwrap();
    let pool = *seen.0.lock().unwrap();
    (std::fs::read(last).unwrap(), pool)
}

#[test]
fn tables_built_at_one_and_two_threads_side_by_side_are_identical() {
    let target: Material = "KRvKN".parse().unwrap();
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // At once, from two threads of this process: each call in its own pool.
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| tables_on(target, one.path(), 1));
        let b = s.spawn(|| tables_on(target, two.path(), 2));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_eq!(a.1, 1, "the one-thread build ran in a larger pool");
    assert_eq!(b.1, 2, "the two-thread build did not run in a pool of two");
    assert!(a.0 == b.0, "KRvKN differs between 1 and 2 threads");
}

#[test]
fn books_built_at_one_and_two_threads_side_by_side_are_identical() {
    let archive = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/books/masters-3000.pgn.zst"
    ));
    let dir = tempfile::tempdir().unwrap();
    let book_on = |threads: usize| {
        let out = dir.path().join(format!("book-{threads}.rbb"));
        let opts = BuildOptions {
            max_ply: 12,
            // Little memory: records are spilled and merged, which the threads must not
            // change either.
            memory: 4 << 20,
            threads: Threads::new(threads),
            ..BuildOptions::default()
        };
        let summary = build(std::slice::from_ref(&archive), &out, &opts, &Silent).unwrap();
        (std::fs::read(&out).unwrap(), summary)
    };
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| book_on(1));
        let b = s.spawn(|| book_on(2));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_eq!(a.1, b.1);
    assert!(a.1.games_used > 2_000 && a.1.runs > 0, "{:?}", a.1);
    assert!(a.0 == b.0, "the book differs between 1 and 2 threads");
}

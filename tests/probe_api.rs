//! The Rust probing API's promises: `Tablebase` is `Send + Sync`, FEN convenience calls
//! give typed errors, and a probe on a warm cache allocates nothing (counted by this test
//! binary's global allocator).

use retrobook::chess::Position;
use retrobook::generate::{generate, plan};
use retrobook::material::Material;
use retrobook::retro::Silent;
use retrobook::{ProbeError, Tablebase, Wdl};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Counts allocations of this thread while `COUNTING` is set for it.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static COUNTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

// SAFETY: defers to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(|c| c.get()) {
            ALLOCATIONS.fetch_add(1, Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn tables() -> (tempfile::TempDir, Tablebase) {
    let dir = tempfile::tempdir().unwrap();
    let mut tb = Tablebase::new();
    let targets: Vec<Material> = vec!["KRvK".parse().unwrap(), "KPvK".parse().unwrap()];
    for m in plan(&targets, &tb) {
        let report = generate(m, &tb, dir.path(), &Silent).unwrap();
        tb.add_file(&report.path).unwrap();
    }
    (dir, tb)
}

#[test]
fn tablebase_is_send_and_sync() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Tablebase>();
}

#[test]
fn probes_and_errors() {
    let (_dir, tb) = tables();
    // KRvK, and KvKR through the colour flip.
    assert_eq!(
        tb.probe_dtm_fen("8/8/8/8/8/3k4/8/K1R5 w - - 0 1").unwrap(),
        tb.probe_dtm_fen("k1r5/8/3K4/8/8/8/8/8 b - - 0 1").unwrap()
    );
    assert_eq!(
        tb.probe_wdl_fen("8/8/8/8/8/3k4/8/K1R5 w - - 0 1").unwrap(),
        Wdl::Win
    );
    let moves = tb.best_moves_fen("8/8/8/8/8/3k4/8/K1R5 w - - 0 1").unwrap();
    assert_eq!(
        moves[0].1.back(),
        tb.probe_dtm_fen("8/8/8/8/8/3k4/8/K1R5 w - - 0 1").unwrap()
    );
    assert!(matches!(
        tb.probe_dtm_fen("not a fen"),
        Err(ProbeError::InvalidFen(_))
    ));
    assert!(matches!(
        tb.probe_dtm_fen("7k/8/8/8/8/8/8/KQQ5 w - - 0 1"),
        Err(ProbeError::MissingTable(_))
    ));
    assert!(matches!(
        tb.probe_dtm_fen("r3k3/8/8/8/8/8/8/4K3 b q - 0 1"),
        Err(ProbeError::Castling)
    ));
}

#[test]
fn warm_probes_do_not_allocate() {
    let (_dir, tb) = tables();
    let m: Material = "KPvK".parse().unwrap();
    let index = tb.table(&m).unwrap().index();
    let positions: Vec<Position> = (0..index.size())
        .step_by(7)
        .filter_map(|i| index.decode(i, retrobook::chess::Color::Black))
        .filter(|p| p.validate().is_ok())
        .collect();
    assert!(positions.len() > 5000);
    // Warm the cache, then count.
    for p in &positions {
        tb.probe_dtm(p).unwrap();
    }
    ALLOCATIONS.store(0, Relaxed);
    COUNTING.with(|c| c.set(true));
    for p in &positions {
        tb.probe_dtm(p).unwrap();
        tb.probe_wdl(p).unwrap();
    }
    COUNTING.with(|c| c.set(false));
    assert_eq!(ALLOCATIONS.load(Relaxed), 0, "allocations while probing");
}

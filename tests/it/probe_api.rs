//! The Rust probing API's promises: `Tablebase` is `Send + Sync`, FEN convenience calls
//! give typed errors, a WDL probe allocates nothing even on never-touched positions, a DTM
//! probe on a warm cache nothing either (counted by this test binary's global allocator),
//! and the root probe keeps the moves that keep the position's value.

use retrobook::chess::Position;
use retrobook::generate::Session;
use retrobook::material::Material;
use retrobook::progress::Silent;
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
    let targets: Vec<Material> = vec!["KRvK".parse().unwrap(), "KPvK".parse().unwrap()];
    let tb = Session::open(dir.path(), &targets)
        .build_all(&Default::default(), &Silent)
        .unwrap();
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
        Err(ProbeError::InvalidFen { fen, .. }) if fen == "not a fen"
    ));
    assert!(matches!(
        tb.probe_dtm_fen("7k/8/8/8/8/8/8/KQQ5 w - - 0 1"),
        Err(ProbeError::MissingTable(m)) if m.to_string() == "KQQvK"
    ));
    assert!(matches!(
        tb.probe_dtm_fen("r3k3/8/8/8/8/8/8/4K3 b q - 0 1"),
        Err(ProbeError::Castling)
    ));
}

/// Legal positions of KPvK with `turn` to move, spread over the index.
fn spread(tb: &Tablebase, turn: retrobook::Side) -> Vec<Position> {
    let m: Material = "KPvK".parse().unwrap();
    let index = tb.table(&m).unwrap().index();
    (0..index.size())
        .step_by(7)
        .filter_map(|i| index.decode(i, turn))
        .filter(|p| p.validate().is_ok())
        .collect()
}

#[test]
fn wdl_probes_and_warm_dtm_probes_do_not_allocate() {
    use retrobook::Side;
    let (_dir, tb) = tables();
    let positions: Vec<Position> = [Side::White, Side::Black]
        .into_iter()
        .flat_map(|turn| spread(&tb, turn))
        .collect();
    assert!(positions.len() > 10_000);
    let counted = |f: &dyn Fn()| {
        ALLOCATIONS.store(0, Relaxed);
        COUNTING.with(|c| c.set(true));
        f();
        COUNTING.with(|c| c.set(false));
        ALLOCATIONS.load(Relaxed)
    };
    // Never-touched positions, promotions among their moves: WDL probes alone.
    let cold = counted(&|| {
        for p in &positions {
            tb.probe_wdl(p).unwrap();
        }
    });
    assert_eq!(cold, 0, "allocations while probing WDL");
    // DTM probes once the cache holds their answers.
    for p in &positions {
        tb.probe_dtm(p).unwrap();
    }
    let warm = counted(&|| {
        for p in &positions {
            tb.probe_dtm(p).unwrap();
            tb.probe_wdl(p).unwrap();
        }
    });
    assert_eq!(warm, 0, "allocations while probing a warm cache");
}

#[test]
fn the_root_probe_keeps_the_moves_that_keep_the_value() {
    use retrobook::Side;
    let (_dir, tb) = tables();
    let mut seen_choice = false;
    for pos in spread(&tb, Side::White).into_iter().step_by(13) {
        let own = tb.probe_dtm(&pos).unwrap();
        let root = tb.probe_root(&pos).unwrap();
        let all = tb.best_moves(&pos).unwrap();
        let keeping: Vec<_> = all
            .iter()
            .filter(|(_, after)| after.back().wdl() == own.wdl())
            .collect();
        assert_eq!(root.len(), keeping.len(), "{pos}");
        for (r, (mv, after)) in root.iter().zip(&keeping) {
            assert_eq!(r.root_wdl, own.wdl(), "{pos}");
            assert_eq!(r.root_dtm, after.back(), "{pos} {mv}");
        }
        if let Some(first) = root.first() {
            assert_eq!(first.root_dtm, own, "{pos}");
        }
        seen_choice |= root.len() > 1 && root.len() < all.len();
    }
    assert!(
        seen_choice,
        "some position has moves that do not keep its value"
    );
}

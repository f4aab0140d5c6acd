//! Probe speed, one thread, against shakmaty-syzygy probing the Syzygy files of the same
//! tables (WDL, and DTZ as the nearest thing Syzygy has to a distance), side by side in one
//! run:
//! - `probe`: the same 1,000 random legal positions of KQvKR, KRvKN and KRvKP, probed again
//!   and again (warm), and with retrobook's DTM cache dropped before each pass over them;
//! - `probe-cold-5`: 100,000 random legal positions of KQRvKR (less the few shakmaty
//!   refuses), each probed once per pass,
//!   so that nearly every probe reads a block no earlier probe of the pass has read, as
//!   probes from inside a search do; retrobook's DTM cache is dropped before each pass.
//!
//! Run: `cargo bench -p retrobook-bench --bench probe`. Tables are built once into `target/bench-tables` (the
//! five-piece table and its sub-tables take some minutes the first time); the Syzygy files
//! are read from `../shared/data/syzygy` (or `RETROBOOK_SYZYGY`).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use retrobook::chess::Position;
use retrobook::generate::Session;
use retrobook::material::Material;
use retrobook::progress::Silent;
use retrobook::Side;
use retrobook::Tablebase;
use shakmaty::{fen::Fen, CastlingMode, Chess};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const TABLES: [&str; 3] = ["KQvKR", "KRvKN", "KRvKP"];
/// The five-piece table of the cold probes.
const COLD_TABLE: &str = "KQRvKR";
/// Positions per pass of the cold probes.
const COLD_POSITIONS: usize = 100_000;

fn tables() -> Tablebase {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../target/bench-tables"
    ));
    let targets: Vec<Material> = TABLES
        .iter()
        .chain([&COLD_TABLE])
        .map(|s| s.parse().unwrap())
        .collect();
    // Kept between runs: only what is missing is built.
    Session::open(&dir, &targets)
        .build_all(&Default::default(), &Silent)
        .expect("tables build")
}

/// `n` random legal positions of `m`, either side to move (a fixed pseudo-random sequence).
fn positions(tb: &Tablebase, m: &Material, n: usize) -> Vec<Position> {
    let index = tb.table(m).expect("table").index();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let turn = Side::from_index((seed >> 63) as usize);
        if let Some(p) = index.decode(seed % index.size(), turn) {
            if p.validate().is_ok() {
                out.push(p);
            }
        }
    }
    out
}

/// The positions shakmaty accepts (it refuses some legal ones, such as double checks no
/// last move could give), as each library sees them.
fn both_sides(ours: Vec<Position>) -> (Vec<Position>, Vec<Chess>) {
    ours.into_iter()
        .filter_map(|p| {
            let fen: Fen = p.to_string().parse().ok()?;
            let theirs = fen.into_position(CastlingMode::Standard).ok()?;
            Some((p, theirs))
        })
        .unzip()
}

fn syzygy() -> shakmaty_syzygy::Tablebase<Chess> {
    let dir = std::env::var_os("RETROBOOK_SYZYGY")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../shared/data/syzygy"
            ))
        });
    let mut syzygy = shakmaty_syzygy::Tablebase::<Chess>::new();
    syzygy
        .add_directory(&dir)
        .expect("Syzygy files (set RETROBOOK_SYZYGY)");
    syzygy
}

/// `iters` passes of DTM probes over `positions` (all distinct), the cache dropped before
/// each pass and not timed: every probe of a pass is cold but for shared sub-probes.
fn cold_pass(tb: &Tablebase, positions: &[Position], iters: u64) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        tb.clear_cache();
        let start = Instant::now();
        for p in positions {
            black_box(tb.probe_dtm(p).unwrap());
        }
        total += start.elapsed();
    }
    total
}

fn bench_probe(c: &mut Criterion) {
    let tb = tables();
    let syzygy = syzygy();

    let mut group = c.benchmark_group("probe");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for sig in TABLES {
        let m: Material = sig.parse().unwrap();
        let (ours, theirs) = both_sides(positions(&tb, &m, 1000));
        // Each iteration probes all 1,000 positions: reported times are per 1,000 probes.
        group.bench_function(format!("{sig}/wdl/retrobook-warm"), |b| {
            b.iter(|| {
                for p in &ours {
                    black_box(tb.probe_wdl(p).unwrap());
                }
            })
        });
        group.bench_function(format!("{sig}/wdl/shakmaty-syzygy"), |b| {
            b.iter(|| {
                for p in &theirs {
                    black_box(syzygy.probe_wdl_after_zeroing(p).unwrap());
                }
            })
        });
        group.bench_function(format!("{sig}/dtm/retrobook-warm"), |b| {
            b.iter(|| {
                for p in &ours {
                    black_box(tb.probe_dtm(p).unwrap());
                }
            })
        });
        group.bench_function(format!("{sig}/dtm/retrobook-cold"), |b| {
            b.iter_custom(|iters| cold_pass(&tb, &ours, iters))
        });
        group.bench_function(format!("{sig}/dtz/shakmaty-syzygy"), |b| {
            b.iter(|| {
                for p in &theirs {
                    black_box(syzygy.probe_dtz(p).ok());
                }
            })
        });
    }
    group.finish();
}

fn bench_cold(c: &mut Criterion) {
    let tb = tables();
    let syzygy = syzygy();
    let m: Material = COLD_TABLE.parse().unwrap();
    let (ours, theirs) = both_sides(positions(&tb, &m, COLD_POSITIONS));
    let mut group = c.benchmark_group("probe-cold-5");
    // Each iteration is one pass over all positions: reported figures are per probe.
    group
        .throughput(Throughput::Elements(ours.len() as u64))
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    group.bench_function(format!("{COLD_TABLE}/wdl/retrobook"), |b| {
        b.iter(|| {
            for p in &ours {
                black_box(tb.probe_wdl(p).unwrap());
            }
        })
    });
    group.bench_function(format!("{COLD_TABLE}/wdl/shakmaty-syzygy"), |b| {
        b.iter(|| {
            for p in &theirs {
                black_box(syzygy.probe_wdl_after_zeroing(p).unwrap());
            }
        })
    });
    group.bench_function(format!("{COLD_TABLE}/dtm/retrobook"), |b| {
        b.iter_custom(|iters| cold_pass(&tb, &ours, iters))
    });
    group.bench_function(format!("{COLD_TABLE}/dtz/shakmaty-syzygy"), |b| {
        b.iter(|| {
            for p in &theirs {
                black_box(syzygy.probe_dtz(p).ok());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench_probe, bench_cold);
criterion_main!(benches);

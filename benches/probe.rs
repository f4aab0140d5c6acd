//! Probe speed, one thread, on the same 1,000 random legal positions of KQvKR, KRvKN and
//! KRvKP: retrobook with a warm block cache and with the cache dropped before every probe,
//! against shakmaty-syzygy probing the Syzygy files of the same tables (WDL, and DTZ as the
//! nearest thing Syzygy has to a distance), side by side in one run.
//!
//! Run: `cargo bench --bench probe`. Tables are built once into `target/bench-tables`; the
//! Syzygy files are read from `../shared/data/syzygy` (or `RETROBOOK_SYZYGY`).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use retrobook::chess::{Color, Position};
use retrobook::generate::{generate, plan};
use retrobook::material::Material;
use retrobook::retro::Silent;
use retrobook::Tablebase;
use shakmaty::{fen::Fen, CastlingMode, Chess};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const TABLES: [&str; 3] = ["KQvKR", "KRvKN", "KRvKP"];

fn tables() -> Tablebase {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench-tables");
    std::fs::create_dir_all(&dir).expect("bench tables folder");
    let mut tb = Tablebase::new();
    let _ = tb.add_dir_lenient(&dir);
    let targets: Vec<Material> = TABLES.iter().map(|s| s.parse().unwrap()).collect();
    for m in plan(&targets, &tb) {
        let r = generate(m, &tb, &dir, &Silent).expect("table builds");
        tb.add_file(&r.path).expect("table opens");
    }
    tb
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
        let turn = Color::from_index((seed >> 63) as usize);
        if let Some(p) = index.decode(seed % index.size(), turn) {
            if p.validate().is_ok() {
                out.push(p);
            }
        }
    }
    out
}

fn bench_probe(c: &mut Criterion) {
    let tb = tables();
    let syzygy_dir = std::env::var_os("RETROBOOK_SYZYGY")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data/syzygy"));
    let mut syzygy = shakmaty_syzygy::Tablebase::<Chess>::new();
    syzygy
        .add_directory(&syzygy_dir)
        .expect("Syzygy files (set RETROBOOK_SYZYGY)");

    let mut group = c.benchmark_group("probe");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for sig in TABLES {
        let m: Material = sig.parse().unwrap();
        let ours = positions(&tb, &m, 1000);
        let theirs: Vec<Chess> = ours
            .iter()
            .map(|p| {
                let fen: Fen = p.to_string().parse().unwrap();
                fen.into_position(CastlingMode::Standard).unwrap()
            })
            .collect();
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
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    for p in &ours {
                        tb.clear_cache();
                        let start = Instant::now();
                        black_box(tb.probe_dtm(p).unwrap());
                        total += start.elapsed();
                    }
                }
                total
            })
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

criterion_group!(benches, bench_probe);
criterion_main!(benches);

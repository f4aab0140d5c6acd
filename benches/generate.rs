//! Table generation speed: KQvKR and KRvKN (sub-tables present), with 1 and 2 threads in the
//! same run, so the speed-up is a ratio measured side by side.
//!
//! Run: `cargo bench --bench generate`. The whole 3-4-piece set is timed by the CLI instead
//! (`/usr/bin/time -v retrobook gen --tables /tmp/t`), since one run takes minutes.

use criterion::{criterion_group, criterion_main, Criterion};
use retrobook::generate::{generate, plan, GenOptions};
use retrobook::material::Material;
use retrobook::progress::Silent;
use retrobook::{Tablebase, Threads};
use std::time::Duration;

fn bench_generate(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let targets: Vec<Material> = ["KQvKR", "KRvKN"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    // Sub-tables once, outside the measurement.
    let mut tb = Tablebase::new();
    for m in plan(&targets, &tb) {
        if targets.contains(&m) {
            continue;
        }
        let r =
            generate(m, &tb, dir.path(), &Default::default(), &Silent).expect("sub-table builds");
        tb.add_file(&r.path).expect("sub-table opens");
    }
    let mut group = c.benchmark_group("generate");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20));
    for m in &targets {
        for threads in [1, 2] {
            let opts = GenOptions {
                threads: Threads::new(threads),
                ..Default::default()
            };
            let out = tempfile::tempdir().expect("temporary folder");
            group.bench_function(format!("{m}/{threads}-threads"), |b| {
                b.iter(|| generate(*m, &tb, out.path(), &opts, &Silent).expect("table builds"))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_generate);
criterion_main!(benches);

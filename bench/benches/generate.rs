//! Table generation speed: KQvKR and KRvKN (sub-tables present), with 1 and 2 threads in the
//! same run, so the speed-up is a ratio measured side by side; and the un-moves the solves
//! take back, alone (`unmoves`): a third of a table's build, measured without the build.
//!
//! Run: `cargo bench -p retrobook-bench --bench generate`. The whole 3-4-piece set is timed by the CLI instead
//! (`/usr/bin/time -v retrobook gen --tables /tmp/t`), since one run takes minutes.

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use retrobook::chess::Position;
use retrobook::generate::{generate, plan, GenOptions};
use retrobook::index::TableIndex;
use retrobook::material::Material;
use retrobook::progress::Silent;
use retrobook::retro::{ChessGame, RetroGame, SubTables};
use retrobook::value::{Dtm, Wdl5};
use retrobook::Side;
use retrobook::{Tablebase, Threads};
use std::time::Duration;

/// A group of ten samples of `name`, measured over `seconds`: each sample is a whole pass.
fn group<'c>(c: &'c mut Criterion, name: &str, seconds: u64) -> BenchmarkGroup<'c, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(seconds));
    group
}

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
    let mut group = group(c, "generate", 20);
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

/// Sub-tables that are never read: un-moves stay inside the table.
struct NoSubTables;

impl SubTables for NoSubTables {
    type Error = std::convert::Infallible;
    fn value(&self, _: &Position) -> Result<Dtm, Self::Error> {
        unreachable!("un-moves read no sub-table")
    }
    fn value50(&self, _: &Position) -> Result<(Dtm, Wdl5), Self::Error> {
        unreachable!("un-moves read no sub-table")
    }
}

/// The predecessors of every legal position of a table, both sides to move, one thread:
/// what each level of the two solves asks of a position it takes back.
fn bench_unmoves(c: &mut Criterion) {
    let mut group = group(c, "unmoves", 10);
    for sig in ["KQvKR", "KRRvK", "KRPvK"] {
        let game = ChessGame::new(TableIndex::new(sig.parse().unwrap()), &NoSubTables);
        let legal: Vec<(Side, u64)> = Side::ALL
            .into_iter()
            .flat_map(|side| (0..game.size()).map(move |idx| (side, idx)))
            .filter(|&(side, idx)| game.position(side, idx).is_some())
            .collect();
        group.bench_function(sig, |b| {
            b.iter(|| {
                let mut seen = 0u64;
                for &(side, idx) in &legal {
                    game.predecessors(side, idx, &mut |j, _| seen = seen.wrapping_add(j));
                }
                seen
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_generate, bench_unmoves);
criterion_main!(benches);

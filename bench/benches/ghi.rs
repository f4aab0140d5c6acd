//! `graph solve` speed on a random graph of 10^6 nodes with few cycles: a layered DAG (moves
//! go to later nodes) plus one back edge per 10,000 nodes, against the same graph without
//! the back edges (plain minimax over components), in one run.
//!
//! Run: `cargo bench -p retrobook-bench --bench ghi`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use retrobook::ghi::{solve, Graph, Kind, Repetition, Value};
use std::time::Duration;

fn random_graph(n: usize, back_edges_every: Option<usize>) -> Graph {
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut next = move |m: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % m
    };
    let mut kinds = Vec::with_capacity(n);
    let mut edges = Vec::with_capacity(n);
    for i in 0..n {
        if i + 10 >= n || next(20) == 0 {
            kinds.push(Kind::Terminal(
                [Value::Win, Value::Draw, Value::Loss][next(3) as usize],
            ));
            edges.push(Vec::new());
            continue;
        }
        kinds.push(if next(2) == 0 { Kind::Max } else { Kind::Min });
        let mut e: Vec<usize> = (0..2 + next(3))
            .map(|_| i + 1 + next(10) as usize)
            .collect();
        if let Some(k) = back_edges_every {
            if i % k == k - 1 {
                e.push(i - 1 - next(5) as usize); // a short cycle
            }
        }
        e.dedup();
        edges.push(e);
    }
    Graph::new(kinds, edges, Repetition::Fixed(Value::Draw))
}

fn bench_ghi(c: &mut Criterion) {
    let mut group = c.benchmark_group("graph-solve");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10));
    for (name, back) in [("acyclic", None), ("100-cycles", Some(10_000))] {
        let g = random_graph(1_000_000, back);
        let s = solve(&g);
        let marked = s.path_dependent.iter().filter(|&&d| d).count();
        eprintln!("{name}: {marked} path-dependent nodes");
        group.bench_function(format!("1e6-nodes/{name}"), |b| {
            b.iter(|| black_box(solve(&g)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_ghi);
criterion_main!(benches);

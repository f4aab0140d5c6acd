//! Graph history interaction: the lecture example of `docs/design.md` (with the naive cached
//! search that gets it wrong), thousands of random cyclic graphs against a brute force that
//! carries the full history, and the `graph solve` command.

use crate::common::run;
use retrobook::ghi::{solve, Colour, Graph, Kind, Repetition, Value};
use std::collections::HashMap;

const LECTURE: &str = "\
# The GHI lecture example: A and E max, B min, D a loss, G a win; a repetition loses.
node A max
node B min
node C max
node D loss
node E max
node F max
node G win
node H max
node I max
node J max
edge A B
edge A C
edge B D
edge B E
edge E I
edge I J
edge J H
edge H E
edge E G
edge C F
edge F H
repetition loss
";

/// The value of `v` with `path` as history, by brute force (the whole path is carried).
fn brute(g: &Graph, v: usize, path: &mut Vec<usize>) -> Value {
    let kind = g.kinds[v];
    if let Kind::Terminal(t) = kind {
        return t;
    }
    path.push(v);
    let values: Vec<Value> = g.edges[v]
        .clone()
        .into_iter()
        .map(|w| {
            if let Some(at) = path.iter().position(|&u| u == w) {
                repeated(g, &path[at..])
            } else {
                brute(g, w, path)
            }
        })
        .collect();
    path.pop();
    if kind == Kind::Max {
        *values.iter().max().unwrap()
    } else {
        *values.iter().min().unwrap()
    }
}

/// The value for max of the move from the last node of `cycle` back to its first, written
/// from the rules' text apart from the library: under the Asian rules a side whose moves
/// round the loop all check, or all chase one same piece, breaks the rule; one side breaking
/// it loses, a checker loses against a chaser, anything else draws.
fn repeated(g: &Graph, cycle: &[usize]) -> Value {
    let mover = g.kinds[*cycle.last().unwrap()];
    if g.repetition != Repetition::Asian {
        return g.repetition.value(mover);
    }
    // 0: none, 1: perpetual check, 2: perpetual chase.
    let broken = |side: Kind| {
        let colours: Vec<&Colour> = (0..cycle.len())
            .filter(|&i| g.kinds[cycle[i]] == side)
            .map(|i| {
                let w = cycle[(i + 1) % cycle.len()];
                let e = g.edges[cycle[i]].iter().position(|&t| t == w).unwrap();
                &g.colours[cycle[i]][e]
            })
            .collect();
        if colours.is_empty() {
            return 0;
        }
        if colours.iter().all(|c| **c == Colour::Check) {
            return 1;
        }
        let common = (0..8u32).any(|p| {
            colours
                .iter()
                .all(|c| matches!(c, Colour::Chase(ps) if ps.contains(&p)))
        });
        if common {
            2
        } else {
            0
        }
    };
    match (broken(Kind::Max), broken(Kind::Min)) {
        (0, 0) => Value::Draw,
        (_, 0) | (1, 2) => Value::Loss,
        (0, _) | (2, 1) => Value::Win,
        _ => Value::Draw,
    }
}

/// Whether some simple path ending at `v` (from any node), as history, changes its value.
fn brute_dependent(g: &Graph, v: usize) -> bool {
    let free = brute(g, v, &mut Vec::new());
    let mut preds: HashMap<usize, Vec<usize>> = HashMap::new();
    for (u, ws) in g.edges.iter().enumerate() {
        for &w in ws {
            preds.entry(w).or_default().push(u);
        }
    }
    let preds = |at: usize| preds.get(&at).cloned().unwrap_or_default();
    crate::common::some_path_changes(v, &preds, &mut |history| brute(g, v, history), &free)
}

/// The naive search: caches every value by node alone, whatever the path it was found
/// under, and explores moves in the order given.
fn naive(g: &Graph, v: usize, path: &mut Vec<usize>, cache: &mut HashMap<usize, Value>) -> Value {
    if let Some(&x) = cache.get(&v) {
        return x;
    }
    let kind = g.kinds[v];
    let x = match kind {
        Kind::Terminal(t) => t,
        _ => {
            path.push(v);
            let mut acc: Option<Value> = None;
            for w in g.edges[v].clone() {
                let x = if let Some(at) = path.iter().position(|&u| u == w) {
                    repeated(g, &path[at..])
                } else {
                    naive(g, w, path, cache)
                };
                acc = Some(match acc {
                    None => x,
                    Some(a) if kind == Kind::Max => a.max(x),
                    Some(a) => a.min(x),
                });
            }
            path.pop();
            acc.unwrap()
        }
    };
    cache.insert(v, x);
    x
}

#[test]
fn the_lecture_example_is_a_win_whatever_the_order() {
    let g = Graph::parse(LECTURE).unwrap();
    let id = |n: &str| g.node(n).unwrap();
    let s = solve(&g);
    assert_eq!(s.values[id("A")], Value::Win);
    assert_eq!(s.values[id("H")], Value::Win);
    assert!(s.path_dependent[id("H")], "H loses after A-B-E-I-J");
    let mut history = vec![id("A"), id("B"), id("E"), id("I"), id("J")];
    assert_eq!(brute(&g, id("H"), &mut history), Value::Loss);
    // Every order of exploring the moves gives the same answer.
    for order in 0..4 {
        let mut h = g.clone();
        if order & 1 == 1 {
            h.edges[id("A")].reverse();
        }
        if order & 2 == 2 {
            h.edges[id("E")].reverse();
        }
        assert_eq!(solve(&h), s, "order {order}");
    }
    // The naive cached search, exploring B before C and I before G, answers loss.
    assert_eq!(g.edges[id("A")], [id("B"), id("C")]);
    assert_eq!(g.edges[id("E")], [id("I"), id("G")]);
    assert_eq!(
        naive(&g, id("A"), &mut Vec::new(), &mut HashMap::new()),
        Value::Loss
    );
}

/// A small random graph (xorshift), every non-terminal node with at least one move.
fn random_graph(seed: &mut u64, rule: Repetition) -> Graph {
    let mut next = |m: u64| {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed % m
    };
    let n = 1 + next(7) as usize;
    let kinds: Vec<Kind> = (0..n)
        .map(|_| match next(10) {
            0 => Kind::Terminal(Value::Win),
            1 => Kind::Terminal(Value::Loss),
            2 => Kind::Terminal(Value::Draw),
            3..=6 => Kind::Max,
            _ => Kind::Min,
        })
        .collect();
    let edges = kinds
        .iter()
        .map(|k| match k {
            Kind::Terminal(_) => Vec::new(),
            _ => {
                let mut e: Vec<usize> = (0..1 + next(3)).map(|_| next(n as u64) as usize).collect();
                e.dedup();
                e
            }
        })
        .collect();
    Graph::new(kinds, edges, rule)
}

#[test]
fn random_cyclic_graphs_match_a_brute_force_with_full_history() {
    let mut seed = 0x5eed_1234_abcd_ef01u64;
    let mut dependent_seen = 0;
    for i in 0..4000 {
        let rule = Repetition::ALL[i % 5];
        let g = random_graph(&mut seed, rule);
        let s = solve(&g);
        for v in 0..g.len() {
            assert_eq!(
                s.values[v],
                brute(&g, v, &mut Vec::new()),
                "graph {i}: {g:?} node {v}"
            );
            let dep = brute_dependent(&g, v);
            assert_eq!(s.path_dependent[v], dep, "graph {i}: {g:?} node {v}");
            dependent_seen += usize::from(dep);
        }
    }
    assert!(
        dependent_seen > 500,
        "{dependent_seen} path-dependent nodes met"
    );
}

/// A small random graph under the Asian rules: the moves of `random_graph`, each to its own
/// node, coloured check, idle, or chasing one or two of three pieces.
fn random_asian_graph(seed: &mut u64) -> Graph {
    let g = random_graph(seed, Repetition::Asian);
    let mut next = |m: u64| {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed % m
    };
    let mut text = String::from("repetition asian\n");
    for (v, k) in g.kinds.iter().enumerate() {
        let kind = match k {
            Kind::Max => "max",
            Kind::Min => "min",
            Kind::Terminal(t) => t.as_str(),
        };
        text += &format!("node n{v} {kind}\n");
    }
    for (v, targets) in g.edges.iter().enumerate() {
        let mut seen = Vec::new();
        for &w in targets {
            if seen.contains(&w) {
                continue;
            }
            seen.push(w);
            let colour = match next(6) {
                0 | 1 => "check".to_string(),
                2 => String::new(),
                3 => format!("chase p{}", next(3)),
                _ => format!("chase p{} p{}", next(3), next(3)),
            };
            text += &format!("edge n{v} n{w} {colour}\n");
        }
    }
    Graph::parse(&text).unwrap()
}

#[test]
fn asian_rules_graphs_match_a_brute_force_with_full_history() {
    let mut seed = 0xa51a_2026_0c0f_fee5u64;
    let (mut dependent_seen, mut decided) = (0, 0);
    for i in 0..3000 {
        let g = random_asian_graph(&mut seed);
        let s = solve(&g);
        let mut plain = g.clone();
        plain.repetition = Repetition::Fixed(Value::Draw);
        let drawn = solve(&plain);
        for v in 0..g.len() {
            let brute_value = brute(&g, v, &mut Vec::new());
            assert_eq!(s.values[v], brute_value, "graph {i}: {g:?} node {v}");
            let dep = brute_dependent(&g, v);
            assert_eq!(s.path_dependent[v], dep, "graph {i}: {g:?} node {v}");
            dependent_seen += usize::from(dep);
            decided += usize::from(brute_value != drawn.values[v]);
        }
    }
    // The rule decides values a draw-for-every-repetition solve does not, both ways.
    assert!(decided > 300, "{decided} values decided by the rule");
    assert!(
        dependent_seen > 300,
        "{dependent_seen} path-dependent nodes met"
    );
}

#[test]
fn a_perpetual_checker_must_change_in_a_graph_file() {
    // Max at A can shuttle A-B-A, or leave for a loss at D; min at B can go back to A or
    // lose at W. Shuttling while checking each time is max's perpetual check, and loses
    // under the Asian rules (min's idle answer does not save max); a quiet shuttle draws,
    // and so does every shuttle when each repetition draws.
    let text = |colour: &str, rule: &str| {
        format!(
            "repetition {rule}\nnode A max\nnode B min\nnode D loss\nnode W win\n\
             edge A B {colour}\nedge A D\nedge B A\nedge B W\n"
        )
    };
    let value_of_a = |colour: &str| {
        let g = Graph::parse(&text(colour, "asian")).unwrap();
        let (a, b) = (g.node("A").unwrap(), g.node("B").unwrap());
        (solve(&g).values[a], g.repetition_value(&[a, b]))
    };
    assert_eq!(value_of_a("check"), (Value::Loss, Value::Loss));
    assert_eq!(
        value_of_a("chase x"),
        (Value::Loss, Value::Loss),
        "one piece chased"
    );
    assert_eq!(value_of_a("idle"), (Value::Draw, Value::Draw));
    let plain = solve(&Graph::parse(&text("", "draw")).unwrap());
    assert_eq!(plain.values[0], Value::Draw);
    // The command line says the same.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shuttle.graph");
    std::fs::write(&file, text("check", "asian")).unwrap();
    let v = solved_json(file.to_str().unwrap());
    assert_eq!(v["nodes"]["A"]["value"], "loss");
    assert_eq!(v["nodes"]["B"]["value"], "loss");
    // The checker loses against a chaser; two chasers draw.
    let both = |c1: &str, c2: &str| {
        let g = Graph::parse(&format!(
            "repetition asian\nnode A max\nnode B min\nedge A B {c1}\nedge B A {c2}\n"
        ))
        .unwrap();
        g.repetition_value(&[0, 1])
    };
    assert_eq!(both("check", "chase q"), Value::Loss);
    assert_eq!(both("chase q", "check"), Value::Win);
    assert_eq!(both("chase q", "chase r"), Value::Draw);
    assert_eq!(both("check", "check"), Value::Draw);
}

/// `graph solve FILE --json`, which must succeed, as JSON.
fn solved_json(file: &str) -> serde_json::Value {
    let out = run(&["graph", "solve", file, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn graph_solve_prints_values_and_marks() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lecture.graph");
    std::fs::write(&file, LECTURE).unwrap();
    let f = file.to_str().unwrap();
    let v = solved_json(f);
    assert_eq!(v["nodes"]["A"]["value"], "win");
    assert_eq!(v["nodes"]["A"]["path_dependent"], false);
    assert_eq!(v["nodes"]["H"]["path_dependent"], true);
    assert_eq!(v["nodes"].as_object().unwrap().len(), 10);
    let out = run(&["graph", "solve", f, "--root", "A", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"].as_object().unwrap().len(), 1);
    assert_eq!(v["nodes"]["A"]["value"], "win");
    let out = run(&["graph", "solve", f, "--root", "Z"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn malformed_graph_files_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    for (text, needle) in [
        (
            "node A max\nnode A min\nrepetition draw\n",
            "line 2: node A is defined twice",
        ),
        (
            "node A max\nedge A B\nrepetition draw\n",
            "line 2: unknown node B",
        ),
        (
            "node A max\nnode B win\nedge A B\nrepetition sometimes\n",
            "line 4: repetition rule",
        ),
        ("node A maybe\n", "line 1: node kind"),
        (
            "node A max\nnode B win\nedge A B\nfrobnicate\nrepetition draw\n",
            "line 4: expected",
        ),
        (
            "node A max\nnode B min\nedge A B\nrepetition draw\n",
            "node B has no move",
        ),
        ("node A win\n", "no `repetition` rule"),
        (
            "node A max\nnode B win\nedge A B check\nrepetition draw\n",
            "line 3: edge colours count only under `repetition asian`",
        ),
        (
            "node A max\nnode B win\nedge A B chase\nrepetition asian\n",
            "line 3: edge colour \"chase\"",
        ),
        (
            "node A max\nnode B win\nedge A B\nedge A B check\nrepetition asian\n",
            "line 4: a second edge from A to B",
        ),
    ] {
        let file = dir.path().join("bad.graph");
        std::fs::write(&file, text).unwrap();
        let out = run(&["graph", "solve", file.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{text:?}: {err}");
        assert!(
            err.contains(needle) && err.contains("bad.graph"),
            "{err} lacks {needle:?}"
        );
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

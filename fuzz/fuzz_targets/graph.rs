//! Graph files from users: parsing any text must give a graph or an error, and a small
//! graph that parses is solved without panicking, to the values and path-dependence marks
//! of a search of every simple path (the definition the solver must meet).
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrobook::ghi::{solve, Graph, Kind, Value};

/// Solving is exponential in a component's cycles, and the reference search in the paths:
/// only graphs this small are solved.
const MAX_NODES: usize = 8;
const MAX_EDGES: usize = 16;

/// The value for max of the game at `v`, with `path` the nodes played before it: a move
/// to a node on the path (or to `v`) ends the game by the repetition rule, on the loop it
/// closes.
fn value(g: &Graph, v: usize, path: &mut Vec<usize>) -> Value {
    let kind = g.kinds[v];
    if let Kind::Terminal(x) = kind {
        return x;
    }
    path.push(v);
    let mut vals = Vec::with_capacity(g.edges[v].len());
    for &t in &g.edges[v] {
        vals.push(if let Some(at) = path.iter().position(|&u| u == t) {
            g.repetition_value(&path[at..])
        } else {
            value(g, t, path)
        });
    }
    path.pop();
    let best = if kind == Kind::Max {
        vals.into_iter().max()
    } else {
        vals.into_iter().min()
    };
    best.expect("a non-terminal node has moves")
}

/// Whether some simple path ending in a move to `v`, taken as history, changes its value.
fn path_dependent(g: &Graph, v: usize, plain: Value, path: &mut Vec<usize>) -> bool {
    // `path` ends at a node with a move to `v`: try it, then extend it backwards.
    if !path.is_empty() && value(g, v, &mut path.clone()) != plain {
        return true;
    }
    for u in 0..g.len() {
        if u != v && !path.contains(&u) && g.edges[u].contains(&path.first().copied().unwrap_or(v))
        {
            path.insert(0, u);
            let found = path_dependent(g, v, plain, path);
            path.remove(0);
            if found {
                return true;
            }
        }
    }
    false
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(g) = Graph::parse(text) else {
        return;
    };
    if g.len() > MAX_NODES || g.edges.iter().map(Vec::len).sum::<usize>() > MAX_EDGES {
        return;
    }
    let s = solve(&g);
    assert_eq!(s.values.len(), g.len());
    assert_eq!(s.path_dependent.len(), g.len());
    for v in 0..g.len() {
        let plain = value(&g, v, &mut Vec::new());
        assert_eq!(s.values[v], plain, "value of {}", g.names[v]);
        let dep = path_dependent(&g, v, plain, &mut Vec::new());
        assert_eq!(
            s.path_dependent[v], dep,
            "path dependence of {}",
            g.names[v]
        );
    }
});

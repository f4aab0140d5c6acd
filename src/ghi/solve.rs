//! Exact values of a game graph under its repetition rule, with path-dependence marks.
//!
//! Why this is exact and cheap where cycles are few: a node's value under a history depends
//! only on the history's nodes it can reach again, and those lie in its own strongly
//! connected component (a node on the path that the node can reach would close a cycle
//! through it). So the graph is split into components (Tarjan), and they are solved sinks
//! first. A node outside every cycle has one value for every history: the plain minimax of
//! its moves, whose values are already known. Inside a cyclic component the value is
//! searched with the history restricted to the component, and results are cached under
//! that exact key (node, component nodes on the path) — the record of what a stored value
//! depends on, never the node alone. A node is path-dependent when some simple path inside
//! its component that reaches it, taken as history, changes its value; paths from outside
//! the component cannot.

use super::graph::{Graph, Kind, Value};
use std::collections::HashMap;

/// Values from an empty history and path-dependence marks, by node number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Value for max when the game starts at the node with an empty history.
    pub values: Vec<Value>,
    /// True when some path reaching the node, taken as history, changes its value.
    pub path_dependent: Vec<bool>,
}

fn best(kind: Kind, a: Value, b: Value) -> Value {
    if kind == Kind::Max {
        a.max(b)
    } else {
        a.min(b)
    }
}

/// Strongly connected components, sinks first (each a list of node numbers), without
/// recursion, so that graphs of millions of nodes are fine.
fn components(g: &Graph) -> Vec<Vec<usize>> {
    let n = g.len();
    const NONE: usize = usize::MAX;
    let (mut index, mut low) = (vec![NONE; n], vec![0; n]);
    let mut on_stack = vec![false; n];
    let (mut stack, mut out) = (Vec::new(), Vec::new());
    let mut next = 0;
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        // (node, next edge to look at)
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut e)) = work.last_mut() {
            if *e == 0 && index[v] == NONE {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = g.edges[v].get(*e) {
                *e += 1;
                if index[w] == NONE {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                loop {
                    let w = stack.pop().expect("tarjan stack");
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(comp);
            }
        }
    }
    out
}

/// The search inside one cyclic component.
struct Component<'g> {
    g: &'g Graph,
    /// Local number of each member (global -> local).
    local: HashMap<usize, usize>,
    /// Values of nodes outside (already solved).
    solved: &'g [Option<Value>],
    memo: HashMap<(usize, Vec<u64>), Value>,
}

impl Component<'_> {
    fn on(path: &[u64], i: usize) -> bool {
        path[i / 64] >> (i % 64) & 1 == 1
    }

    /// Value of member `v` (global) with `path` (component members, local bits) as history.
    fn value(&mut self, v: usize, path: &mut Vec<u64>) -> Value {
        let kind = self.g.kinds[v];
        if let Kind::Terminal(t) = kind {
            return t;
        }
        let lv = self.local[&v];
        if let Some(&x) = self.memo.get(&(v, path.clone())) {
            return x;
        }
        path[lv / 64] |= 1 << (lv % 64);
        let mut acc: Option<Value> = None;
        for &w in &self.g.edges[v] {
            let x = match self.local.get(&w) {
                Some(&lw) if Self::on(path, lw) => self.g.repetition.value(kind),
                Some(_) => self.value(w, path),
                None => self.solved[w].expect("components are solved sinks first"),
            };
            acc = Some(acc.map_or(x, |a| best(kind, a, x)));
        }
        path[lv / 64] &= !(1 << (lv % 64));
        let x = acc.expect("non-terminal nodes have moves");
        self.memo.insert((v, path.clone()), x);
        x
    }

    /// True if some simple path of members ending at `v` (v excluded), as history, gives
    /// `v` another value than `free`.
    fn path_dependent(&mut self, v: usize, members: &[usize], free: Value) -> bool {
        // Walk simple paths backwards from v: each prefix set is a history to try.
        let mut preds: HashMap<usize, Vec<usize>> = HashMap::new();
        for &u in members {
            for &w in &self.g.edges[u] {
                if self.local.contains_key(&w) {
                    preds.entry(w).or_default().push(u);
                }
            }
        }
        let words = members.len().div_ceil(64);
        let lv = self.local[&v];
        let mut path = vec![0u64; words];
        path[lv / 64] |= 1 << (lv % 64); // v itself is never in its own history
        self.back(v, v, &preds, &mut path, free)
    }

    fn back(
        &mut self,
        target: usize,
        at: usize,
        preds: &HashMap<usize, Vec<usize>>,
        path: &mut Vec<u64>,
        free: Value,
    ) -> bool {
        for &p in preds.get(&at).map_or(&[][..], |v| &v[..]) {
            let lp = self.local[&p];
            if Self::on(path, lp) {
                continue;
            }
            path[lp / 64] |= 1 << (lp % 64);
            let lt = self.local[&target];
            path[lt / 64] &= !(1 << (lt % 64));
            let differs = self.value(target, path) != free;
            path[lt / 64] |= 1 << (lt % 64);
            if differs || self.back(target, p, preds, path, free) {
                return true;
            }
            path[lp / 64] &= !(1 << (lp % 64));
        }
        false
    }
}

/// Solves every node of `g`.
pub fn solve(g: &Graph) -> Solution {
    let n = g.len();
    let mut solved: Vec<Option<Value>> = vec![None; n];
    let mut dependent = vec![false; n];
    for comp in components(g) {
        let v0 = comp[0];
        let cyclic = comp.len() > 1 || g.edges[v0].contains(&v0);
        if !cyclic {
            solved[v0] = Some(match g.kinds[v0] {
                Kind::Terminal(t) => t,
                kind => g.edges[v0]
                    .iter()
                    .map(|&w| solved[w].expect("sinks first"))
                    .reduce(|a, b| best(kind, a, b))
                    .expect("non-terminal nodes have moves"),
            });
            continue;
        }
        let local: HashMap<usize, usize> = comp.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        let words = comp.len().div_ceil(64);
        let (values, marks): (Vec<Value>, Vec<bool>) = {
            let mut c = Component {
                g,
                local,
                solved: &solved,
                memo: HashMap::new(),
            };
            let values: Vec<Value> = comp
                .iter()
                .map(|&v| c.value(v, &mut vec![0u64; words]))
                .collect();
            let marks = comp
                .iter()
                .zip(&values)
                .map(|(&v, &free)| c.path_dependent(v, &comp, free))
                .collect();
            (values, marks)
        };
        for ((&v, x), m) in comp.iter().zip(values).zip(marks) {
            solved[v] = Some(x);
            dependent[v] = m;
        }
    }
    Solution {
        values: solved
            .into_iter()
            .map(|v| v.expect("every node solved"))
            .collect(),
        path_dependent: dependent,
    }
}

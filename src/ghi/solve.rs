//! Exact values of a game graph under its repetition rule, with path-dependence marks.
//!
//! Why this is exact and cheap where cycles are few: a node's value under a history depends
//! only on the history's nodes it can reach again, and those lie in its own strongly
//! connected component (a node on the path that the node can reach would close a cycle
//! through it). So the graph is split into components (Tarjan, without recursion), and they
//! are solved sinks first. A node outside every cycle has one value for every history: the
//! plain minimax of its moves, whose values are already known. Inside a cyclic component the
//! value is searched with the history restricted to the component, and results are cached
//! under that exact key (node, component nodes on the path) — the record of what a stored
//! value depends on, never the node alone. A node is path-dependent when some simple path
//! inside its component that reaches it, taken as history, changes its value; paths from
//! outside the component cannot.
//!
//! The search inside a component costs time exponential in the number of its independent
//! cycles (each simple path is a history to try), not in the size of the graph; game graphs
//! whose cycles are short and sparse, such as opening books, stay cheap.
//!
//! The solver works for any totally ordered value ([`solve_with`]): win/draw/loss for graph
//! files ([`solve`]), a score for opening books. A repetition is valued by who made the
//! repeating move ([`ByMover`]) or by the whole loop it closes ([`ByLoop`], as the Asian rules
//! of Chinese chess judge one); then a history is a path in its order, not a set, and values
//! are cached under the ordered path.

use super::graph::{Graph, Kind, Repetition, Value};
use std::collections::HashMap;

/// Values from an empty history and path-dependence marks, by node number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Value for max when the game starts at the node with an empty history.
    pub values: Vec<Value>,
    /// True when some path reaching the node, taken as history, changes its value.
    pub path_dependent: Vec<bool>,
}

/// The moves of every node of a game graph, stored flat: compact for graphs of millions of
/// nodes (no list per node).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moves {
    /// Node `v`'s moves are `targets[starts[v]..starts[v + 1]]`.
    starts: Vec<u32>,
    targets: Vec<u32>,
}

impl Default for Moves {
    fn default() -> Self {
        Moves::new()
    }
}

impl Moves {
    /// No nodes yet.
    pub fn new() -> Moves {
        Moves::with_capacity(0, 0)
    }

    /// No nodes yet, with room for `nodes` nodes and `moves` moves.
    pub fn with_capacity(nodes: usize, moves: usize) -> Moves {
        let mut starts = Vec::with_capacity(nodes + 1);
        starts.push(0);
        Moves {
            starts,
            targets: Vec::with_capacity(moves),
        }
    }

    /// Adds the next node (numbered [`len`](Moves::len) before the call) with its moves.
    ///
    /// # Panics
    /// If a node number or the number of moves in all does not fit in 32 bits.
    pub fn push(&mut self, targets: impl IntoIterator<Item = usize>) {
        let fits = |n: usize| u32::try_from(n).expect("game graphs have fewer than 2^32 moves");
        self.targets.extend(targets.into_iter().map(fits));
        self.starts.push(fits(self.targets.len()));
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// True without nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of moves of all nodes.
    pub fn count(&self) -> usize {
        self.targets.len()
    }

    /// The moves of node `v` (target node numbers).
    pub fn of(&self, v: usize) -> &[u32] {
        &self.targets[self.starts[v] as usize..self.starts[v + 1] as usize]
    }
}

/// What [`solve_with`] finds: values, marks, and the shape of the graph's cycles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solved<V> {
    /// Value for max when the game starts at the node with an empty history.
    pub values: Vec<V>,
    /// True when some path reaching the node, taken as history, changes its value.
    pub path_dependent: Vec<bool>,
    /// Strongly connected components with a cycle (a move back to a node of the component).
    pub cyclic_components: usize,
    /// Nodes of the largest cyclic component (0 without cycles).
    pub largest_component: usize,
}

/// How a repetition is valued: the value for max of a move, made at a node of kind `mover`,
/// that reaches a node already on the path.
pub trait Repetitions<V> {
    /// True when the value depends on the loop (its nodes in order), not only on the mover:
    /// the search then keeps each history in its order.
    const BY_LOOP: bool;

    /// The repetition's value for max: `cycle` holds the loop's nodes, from the node reached
    /// again to the node the move is made at.
    fn value(&self, mover: Kind<V>, cycle: &[u32]) -> V;
}

/// Repetitions valued by who made the repeating move alone.
pub struct ByMover<F>(pub F);

impl<V, F: Fn(Kind<V>) -> V> Repetitions<V> for ByMover<F> {
    const BY_LOOP: bool = false;

    fn value(&self, mover: Kind<V>, _: &[u32]) -> V {
        (self.0)(mover)
    }
}

/// Repetitions valued by the loop they close (the nodes of `cycle`, in order).
pub struct ByLoop<F>(pub F);

impl<V, F: Fn(&[u32]) -> V> Repetitions<V> for ByLoop<F> {
    const BY_LOOP: bool = true;

    fn value(&self, _: Kind<V>, cycle: &[u32]) -> V {
        (self.0)(cycle)
    }
}

fn best<V: Ord>(kind: Kind<V>, a: V, b: V) -> V {
    if matches!(kind, Kind::Max) {
        a.max(b)
    } else {
        a.min(b)
    }
}

/// Strongly connected components, sinks first, without recursion, so that graphs of
/// millions of nodes are fine. Component `i` is `nodes[starts[i]..starts[i + 1]]`.
pub(crate) struct Components {
    nodes: Vec<u32>,
    starts: Vec<u32>,
}

impl Components {
    /// The components, sinks first, each a slice of its nodes.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &[u32]> {
        (self.starts.windows(2)).map(|c| &self.nodes[c[0] as usize..c[1] as usize])
    }
}

fn components(moves: &Moves) -> Components {
    components_of(moves.len(), |v, e| moves.of(v).get(e).copied())
}

/// The components of a graph of `n` nodes whose move `e` of node `v` leads to `edge(v, e)`
/// (None past its last move).
pub(crate) fn components_of(n: usize, edge: impl Fn(usize, usize) -> Option<u32>) -> Components {
    const NONE: u32 = u32::MAX;
    let (mut index, mut low) = (vec![NONE; n], vec![0u32; n]);
    let mut on_stack = vec![false; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut out = Components {
        nodes: Vec::with_capacity(n),
        starts: vec![0],
    };
    let mut next = 0u32;
    // (node, next move to look at)
    let mut work: Vec<(u32, u32)> = Vec::new();
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        work.push((root as u32, 0));
        while let Some(&mut (v, ref mut e)) = work.last_mut() {
            let v = v as usize;
            if *e == 0 && index[v] == NONE {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v as u32);
                on_stack[v] = true;
            }
            if let Some(w) = edge(v, *e as usize) {
                *e += 1;
                let w = w as usize;
                if index[w] == NONE {
                    work.push((w as u32, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent as usize] = low[parent as usize].min(low[v]);
            }
            if low[v] == index[v] {
                loop {
                    let w = stack.pop().expect("tarjan stack");
                    on_stack[w as usize] = false;
                    out.nodes.push(w);
                    if w as usize == v {
                        break;
                    }
                }
                out.starts.push(out.nodes.len() as u32);
            }
        }
    }
    out
}

/// A history inside a component: its members as a bit set over local numbers, and in the
/// order they were played (global numbers).
struct History {
    bits: Vec<u64>,
    order: Vec<u32>,
}

impl History {
    fn empty(words: usize) -> History {
        History {
            bits: vec![0; words],
            order: Vec::new(),
        }
    }

    fn has(&self, i: usize) -> bool {
        self.bits[i / 64] >> (i % 64) & 1 == 1
    }

    fn set(&mut self, i: usize, bit: bool) {
        if bit {
            self.bits[i / 64] |= 1 << (i % 64);
        } else {
            self.bits[i / 64] &= !(1 << (i % 64));
        }
    }

    /// Writes into `key` the key a value found at `v` under this history is cached with:
    /// the set of members, or the members in order where repetitions are valued by their
    /// loops.
    fn key(&self, v: usize, ordered: bool, key: &mut Vec<u64>) {
        key.clear();
        if ordered {
            key.extend(self.order.iter().map(|&u| u64::from(u)));
        } else {
            key.extend_from_slice(&self.bits);
        }
        key.push(v as u64);
    }
}

/// The search inside one cyclic component.
struct Component<'g, V, R> {
    kinds: &'g [Kind<V>],
    moves: &'g Moves,
    repetition: &'g R,
    /// Local number of each member (global -> local).
    local: HashMap<u32, usize>,
    /// Values of nodes outside (already solved).
    solved: &'g [Option<V>],
    /// Values by (history, then the node) — what each value depends on.
    memo: HashMap<Vec<u64>, V>,
    /// The most values `memo` may hold: beyond, the search gives up.
    budget: usize,
    /// A key being looked up (no allocation for a value found).
    probe: Vec<u64>,
}

impl<V: Copy + Ord, R: Repetitions<V>> Component<'_, V, R> {
    /// Value of member `v` (global) with `path` (component members) as history; None once
    /// the search is over its budget.
    fn value(&mut self, v: usize, path: &mut History) -> Option<V> {
        let kind = self.kinds[v];
        if let Kind::Terminal(t) = kind {
            return Some(t);
        }
        path.key(v, R::BY_LOOP, &mut self.probe);
        if let Some(&x) = self.memo.get(self.probe.as_slice()) {
            return Some(x);
        }
        if self.memo.len() >= self.budget {
            return None;
        }
        let lv = self.local[&(v as u32)];
        path.set(lv, true);
        path.order.push(v as u32);
        let mut acc: Option<V> = None;
        for &w in self.moves.of(v) {
            let x = match self.local.get(&w) {
                Some(&lw) if path.has(lw) => {
                    let from = path
                        .order
                        .iter()
                        .rposition(|&u| u == w)
                        .expect("on the path");
                    self.repetition.value(kind, &path.order[from..])
                }
                Some(_) => match self.value(w as usize, path) {
                    Some(x) => x,
                    None => {
                        path.order.pop();
                        path.set(lv, false);
                        return None;
                    }
                },
                None => self.solved[w as usize].expect("components are solved sinks first"),
            };
            acc = Some(acc.map_or(x, |a| best(kind, a, x)));
        }
        path.order.pop();
        path.set(lv, false);
        let x = acc.expect("non-terminal nodes have moves");
        let mut key = Vec::new();
        path.key(v, R::BY_LOOP, &mut key);
        self.memo.insert(key, x);
        Some(x)
    }

    /// True if some simple path of members ending at `v` (v excluded), as history, gives
    /// `v` another value than `free`. `preds` are the members' predecessors in the component.
    /// None once the search is over its budget.
    fn path_dependent(
        &mut self,
        v: usize,
        preds: &HashMap<u32, Vec<u32>>,
        free: V,
    ) -> Option<bool> {
        // Walk simple paths backwards from v: each one walked is a history to try.
        let mut walked = History::empty(self.local.len().div_ceil(64));
        self.back(v, v, preds, &mut walked, free)
    }

    /// `walked` holds the path walked back from `target` (its order: nearest first).
    fn back(
        &mut self,
        target: usize,
        at: usize,
        preds: &HashMap<u32, Vec<u32>>,
        walked: &mut History,
        free: V,
    ) -> Option<bool> {
        for &p in preds.get(&(at as u32)).map_or(&[][..], |v| &v[..]) {
            let lp = self.local[&p];
            if p as usize == target || walked.has(lp) {
                continue;
            }
            walked.set(lp, true);
            walked.order.push(p);
            let mut history = History {
                bits: walked.bits.clone(),
                order: walked.order.iter().rev().copied().collect(),
            };
            if self.value(target, &mut history)? != free
                || self.back(target, p as usize, preds, walked, free)?
            {
                return Some(true);
            }
            walked.order.pop();
            walked.set(lp, false);
        }
        Some(false)
    }
}

/// Solves every node of a game graph whose values are any totally ordered type: `kinds`
/// says who moves at each node (or its value), `moves` where each node's moves lead, and
/// `repetition` the value of a move that reaches a node already on the path.
///
/// # Panics
/// If `kinds` and `moves` differ in length, or a Max or Min node has no move.
pub fn solve_with<V: Copy + Ord>(
    kinds: &[Kind<V>],
    moves: &Moves,
    repetition: impl Repetitions<V>,
) -> Solved<V> {
    solve_within(kinds, moves, repetition, usize::MAX).expect("no budget")
}

/// `solve_with`, or None where the search of a component would keep more than `budget`
/// values (histories and nodes) at once: a bound on its time and memory for graphs whose
/// cycles may be too many to search.
pub(crate) fn solve_within<V: Copy + Ord>(
    kinds: &[Kind<V>],
    moves: &Moves,
    repetition: impl Repetitions<V>,
    budget: usize,
) -> Option<Solved<V>> {
    let n = kinds.len();
    assert_eq!(n, moves.len(), "one kind per node");
    let mut solved: Vec<Option<V>> = vec![None; n];
    let mut dependent = vec![false; n];
    let (mut cyclic_components, mut largest_component) = (0, 0);
    for comp in components(moves).iter() {
        let v0 = comp[0] as usize;
        let cyclic = comp.len() > 1 || moves.of(v0).contains(&comp[0]);
        if !cyclic {
            solved[v0] = Some(match kinds[v0] {
                Kind::Terminal(t) => t,
                kind => moves
                    .of(v0)
                    .iter()
                    .map(|&w| solved[w as usize].expect("sinks first"))
                    .reduce(|a, b| best(kind, a, b))
                    .expect("non-terminal nodes have moves"),
            });
            continue;
        }
        cyclic_components += 1;
        largest_component = largest_component.max(comp.len());
        let local: HashMap<u32, usize> = comp.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        let mut preds: HashMap<u32, Vec<u32>> = HashMap::new();
        for &u in comp {
            for &w in moves.of(u as usize) {
                if local.contains_key(&w) {
                    preds.entry(w).or_default().push(u);
                }
            }
        }
        let words = comp.len().div_ceil(64);
        let mut c = Component {
            kinds,
            moves,
            repetition: &repetition,
            local,
            solved: &solved,
            memo: HashMap::new(),
            budget,
            probe: Vec::new(),
        };
        let values: Vec<V> = (comp.iter())
            .map(|&v| c.value(v as usize, &mut History::empty(words)))
            .collect::<Option<_>>()?;
        let marks: Vec<bool> = (comp.iter().zip(&values))
            .map(|(&v, &free)| c.path_dependent(v as usize, &preds, free))
            .collect::<Option<_>>()?;
        for ((&v, x), m) in comp.iter().zip(values).zip(marks) {
            solved[v as usize] = Some(x);
            dependent[v as usize] = m;
        }
    }
    Some(Solved {
        values: solved
            .into_iter()
            .map(|v| v.expect("every node solved"))
            .collect(),
        path_dependent: dependent,
        cyclic_components,
        largest_component,
    })
}

/// Solves every node of `g`.
pub fn solve(g: &Graph) -> Solution {
    let mut moves = Moves::with_capacity(g.len(), g.edges.iter().map(Vec::len).sum());
    for e in &g.edges {
        moves.push(e.iter().copied());
    }
    let s = match g.repetition {
        Repetition::Asian => solve_with(
            &g.kinds,
            &moves,
            ByLoop(|cycle: &[u32]| {
                let cycle: Vec<usize> = cycle.iter().map(|&v| v as usize).collect();
                g.repetition_value(&cycle)
            }),
        ),
        rule => solve_with(&g.kinds, &moves, ByMover(|mover| rule.value(mover))),
    };
    Solution {
        values: s.values,
        path_dependent: s.path_dependent,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A search over its budget gives up (None) instead of running on; within it, the same
    /// solution as without a budget. The graph: eight nodes, each with a move to every
    /// other and to a terminal, so that its histories are many.
    #[test]
    fn a_search_over_its_budget_gives_up() {
        let n = 8;
        let mut kinds: Vec<Kind> = (0..n)
            .map(|v| if v % 2 == 0 { Kind::Max } else { Kind::Min })
            .collect();
        kinds.push(Kind::Terminal(Value::Draw));
        let mut moves = Moves::new();
        for v in 0..n {
            moves.push((0..=n).filter(|&w| w != v));
        }
        moves.push([]);
        // The side that repeats loses.
        let loser = || {
            ByMover(|mover| match mover {
                Kind::Max => Value::Loss,
                _ => Value::Win,
            })
        };
        let whole = solve_with(&kinds, &moves, loser());
        assert_eq!(solve_within(&kinds, &moves, loser(), 1 << 20), Some(whole));
        assert_eq!(solve_within(&kinds, &moves, loser(), 100), None);
    }
}

//! The Asian rules, check and chase, over a xiangqi table's plain draws (`docs/xiangqi-rules.md`,
//! Tables under perpetual chase).
//!
//! The game the tables value is the one the first repetition ends, its loop ruled by the
//! judge (`xiangqi::Loop`). Repetitions happen only inside a strongly connected component
//! of the graph of plain draws, so the components are taken sinks first: a small one is
//! searched exactly with every ordered history inside it (`ghi`), on the positions
//! themselves (the index counts a position and its mirror image once, and a mirror image is
//! no repetition), which gives its values and its path marks. A component too large for
//! the search (more than `LARGEST` positions, or `BUDGET` values held per position) keeps
//! the perpetual-check rule's wins and losses (a parity game, `perpetual`), and its draws
//! where each side can play, again and again, a move that neither checks nor chases; the
//! rest of it is said to be not judged (`Ruled::chases_judged`).

use super::perpetual::RuleGraph;
use crate::ghi::{components_of, solve_within, ByLoop, Kind, Moves, Value};
use crate::keyed::KeyedMap;
use crate::side::Side;
use crate::value::Wdl;
use crate::xiangqi::{colour, Colour, Loop, Move, Position, Rule, Ruling, XiangqiIndex};
use rayon::prelude::*;
use std::collections::HashMap;

/// How a plain draw (every repetition a draw) stands under the Asian rules, for its side
/// to move, in the game that starts at it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Ruled {
    /// Its value.
    pub wdl: Wdl,
    /// The rule that decides a win or a loss: perpetual check where the check rule alone
    /// gives that value, perpetual chase where the chase rule changes it; None for a draw.
    pub rule: Option<Rule>,
    /// Whether an earlier position of the game, repeated, can change the value.
    pub path_dependent: bool,
    /// False where the chase rule was not applied (the cycles through the position were
    /// too many to search): the value and mark are the check rule's alone.
    pub chases_judged: bool,
}

/// The most values (a node under a history) the search of one component may hold, per
/// position of the component: a table with many components whose cycles are too many to
/// search gives each up soon (KRABvKAABB took 1,094 s with a budget of 2^20 values for
/// every component, 105 s with this one).
const BUDGET: usize = 1 << 10;

/// Components of more positions are not searched.
pub(super) const LARGEST: usize = 1 << 12;

/// The graph of a table's plain draws, as the check rule's solve holds it, with what the
/// search needs besides.
pub(super) struct Drawn<'a> {
    pub(super) index: &'a XiangqiIndex,
    /// Each node's index and side to move (`idx << 1 | side`).
    pub(super) positions: &'a [u64],
    /// Each side's node numbers by index (`u32::MAX` for no node).
    pub(super) number: &'a [Vec<u32>; 2],
    pub(super) graph: &'a RuleGraph,
    /// Nodes with a capture into a position whose value the chase rule did not settle.
    pub(super) exit_unjudged: &'a [bool],
    /// Components of more positions are not searched (`LARGEST`).
    pub(super) search_up_to: usize,
}

/// A node's value and marks as found.
#[derive(Copy, Clone)]
struct Found {
    wdl: Wdl,
    path_dependent: bool,
    unjudged: bool,
}

impl Drawn<'_> {
    fn position(&self, v: usize) -> Position {
        let p = self.positions[v];
        let side = Side::from_index((p & 1) as usize);
        self.index.decode(p >> 1, side).expect("a legal index")
    }

    fn node_of(&self, pos: &Position) -> Option<usize> {
        let idx = self.index.encode(pos).expect("the table's material");
        match self.number[pos.turn().index()][idx as usize] {
            u32::MAX => None,
            n => Some(n as usize),
        }
    }

    /// Every node's value under the rules, given `checks`, the check rule's values: None
    /// for a plain draw that stays one on every path.
    pub(super) fn judge(&self, checks: &[Wdl]) -> Vec<Option<Ruled>> {
        let g = self.graph;
        let comps = components_of(g.len(), |v, e| g.target(v, e).map(|t| t as u32));
        let mut found: Vec<Option<Found>> = vec![None; g.len()];
        for comp in comps.iter() {
            let v0 = comp[0] as usize;
            let cyclic = comp.len() > 1 || g.moves_of(v0).any(|(t, _)| t == v0);
            if !cyclic {
                found[v0] = Some(self.acyclic(v0, &found));
                continue;
            }
            let searched = (comp.len() <= self.search_up_to)
                .then(|| self.search(comp, &found))
                .flatten();
            let f = searched.unwrap_or_else(|| self.kept(comp, checks, &found));
            for (&v, f) in comp.iter().zip(f) {
                found[v as usize] = Some(f);
            }
        }
        (found.into_iter().zip(checks))
            .map(|(f, &check)| {
                let f = f.expect("every node judged");
                let plain = f.wdl == Wdl::Draw && !f.path_dependent && !f.unjudged;
                (!plain).then(|| Ruled {
                    wdl: f.wdl,
                    rule: match f.wdl {
                        Wdl::Draw => None,
                        w if w == check => Some(Rule::PerpetualCheck),
                        _ => Some(Rule::PerpetualChase),
                    },
                    path_dependent: f.path_dependent,
                    chases_judged: !f.unjudged,
                })
            })
            .collect()
    }

    /// The best of a node's move out and its moves to nodes outside `inside` (judged), for
    /// its side to move, and whether any of them is unjudged.
    fn outside(
        &self,
        v: usize,
        found: &[Option<Found>],
        inside: impl Fn(usize) -> bool,
    ) -> (Option<Wdl>, bool) {
        let mut best = self.graph.exit(v).wdl();
        let mut unjudged = self.exit_unjudged[v];
        for (t, _) in self.graph.moves_of(v).filter(|&(t, _)| !inside(t)) {
            let f = found[t].expect("components are judged sinks first");
            best = best.max(Some(f.wdl.back()));
            unjudged |= f.unjudged;
        }
        (best, unjudged)
    }

    /// A node on no cycle: the best of its moves, on every path.
    fn acyclic(&self, v: usize, found: &[Option<Found>]) -> Found {
        let (best, unjudged) = self.outside(v, found, |_| false);
        Found {
            wdl: best.expect("a drawn position has moves"),
            path_dependent: false,
            unjudged,
        }
    }

    /// A component's values and marks by the exact search, on the positions themselves;
    /// None where the search outgrows its budget.
    fn search(&self, comp: &[u32], found: &[Option<Found>]) -> Option<Vec<Found>> {
        let member = members(comp);
        // The positions, the canonical ones first, their mirror images as moves reach them;
        // each one's moves to positions of the component, and its best move elsewhere.
        let mut nodes: Vec<Position> = comp.iter().map(|&v| self.position(v as usize)).collect();
        let mut local: HashMap<Position, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, p)| (p.clone(), i))
            .collect();
        // Each move inside with its colour, by its position and target: a loop is ruled
        // from them, not played out again.
        let mut coloured: KeyedMap<u64, (Move, Colour)> = KeyedMap::default();
        let mut lists: Vec<(Vec<usize>, Option<Wdl>)> = Vec::new();
        let mut unjudged = false;
        while lists.len() < nodes.len() {
            let pos = nodes[lists.len()].clone();
            let v = self.node_of(&pos).expect("a member's position");
            let (best, out_unjudged) = self.outside(v, found, &member);
            unjudged |= out_unjudged;
            let mut inside = Vec::new();
            for m in pos.legal_moves() {
                let next = pos.play(&m);
                if pos.at(m.to).is_some() || !self.node_of(&next).is_some_and(&member) {
                    continue;
                }
                let n = *local.entry(next.clone()).or_insert_with(|| {
                    nodes.push(next);
                    nodes.len() - 1
                });
                coloured.insert(edge(lists.len(), n), (m, colour(&pos, m)));
                inside.push(n);
            }
            lists.push((inside, best));
        }
        // A terminal node after the positions for each best move elsewhere.
        let n = nodes.len();
        let mut kinds: Vec<Kind> = (nodes.iter())
            .map(|p| match p.turn() {
                Side::White => Kind::Max,
                Side::Black => Kind::Min,
            })
            .collect();
        let mut graph = Moves::new();
        let mut terminals = Vec::new();
        for (at, (inside, best)) in lists.into_iter().enumerate() {
            let terminal = best.map(|b| {
                terminals.push(Kind::Terminal(for_red(nodes[at].turn(), b)));
                n + terminals.len() - 1
            });
            graph.push(inside.into_iter().chain(terminal));
        }
        for t in terminals {
            kinds.push(t);
            graph.push([]);
        }
        let judge = |cycle: &[u32]| {
            let line: Vec<_> = (0..cycle.len())
                .map(|k| {
                    let (from, to) = (cycle[k] as usize, cycle[(k + 1) % cycle.len()] as usize);
                    coloured[&edge(from, to)]
                })
                .collect();
            let first = nodes[cycle[0] as usize].turn();
            match Loop::of_coloured(first, line).ruling() {
                Ruling::Draw => Value::Draw,
                Ruling::Loses {
                    side: Side::White, ..
                } => Value::Loss,
                Ruling::Loses { .. } => Value::Win,
            }
        };
        let solved = solve_within(&kinds, &graph, ByLoop(judge), BUDGET * comp.len())?;
        Some(
            (0..comp.len())
                .map(|k| Found {
                    wdl: for_mover(nodes[k].turn(), solved.values[k]),
                    path_dependent: solved.path_dependent[k],
                    unjudged,
                })
                .collect(),
        )
    }

    /// A component not searched. Its positions the check rule wins or loses keep that
    /// value: the winner's strategy holds the other side to loops of its checks, which
    /// the chase rule rules the same way (a checker loses, also against a chaser). Its
    /// check rule's draws are draws where each side can play, again and again, a move that
    /// neither checks nor chases (`idle_safe`): round any loop it then breaks no rule. Path marks are not
    /// searched: where a move inside checks or chases, every position is marked (a
    /// history may change it); elsewhere no loop is ruled and none is. The whole component
    /// is not judged where a move out reaches a value the chase rule changed or did not
    /// judge; a draw neither side's idle play secures is not judged either.
    fn kept(&self, comp: &[u32], checks: &[Wdl], found: &[Option<Found>]) -> Vec<Found> {
        let member = members(comp);
        let outside_differs = comp.iter().any(|&v| {
            let v = v as usize;
            self.exit_unjudged[v]
                || (self.graph.moves_of(v).filter(|&(t, _)| !member(t))).any(|(t, _)| {
                    let f = found[t].expect("components are judged sinks first");
                    f.unjudged || f.wdl != checks[t]
                })
        });
        // Each member's moves (in the graph's order) that neither check nor chase, a bit
        // each: a position has fewer than 128 quiet moves.
        let idle: Vec<u128> = comp
            .par_iter()
            .map(|&v| {
                let pos = self.position(v as usize);
                let quiet = (pos.legal_moves().into_iter())
                    .filter(|m| pos.at(m.to).is_none())
                    .filter(|m| self.node_of(&pos.play(m)).is_some());
                (quiet.enumerate()).fold(0u128, |bits, (e, m)| {
                    bits | u128::from(colour(&pos, m) == Colour::Idle) << e
                })
            })
            .collect();
        let ruled = (comp.iter().zip(&idle)).any(|(&v, &idle)| {
            (self.graph.moves_of(v as usize).enumerate())
                .any(|(e, (t, _))| member(t) && idle >> e & 1 == 0)
        });
        // Each member's place in `comp`, where a move inside leads; the best its moves out
        // give its side to move.
        let place = places(comp, self.graph.len());
        let inside = |t: usize| member(t).then(|| place(t));
        let out: Vec<Option<Wdl>> = (comp.iter())
            .map(|&v| self.outside(v as usize, found, &member).0)
            .collect();
        let safe =
            [Side::White, Side::Black].map(|side| self.idle_safe(comp, &idle, &out, &inside, side));
        (comp.iter().enumerate())
            .map(|(k, &v)| {
                let wdl = checks[v as usize];
                let secured = wdl != Wdl::Draw || (safe[0][k] && safe[1][k]);
                Found {
                    wdl,
                    path_dependent: ruled,
                    unjudged: outside_differs || !secured,
                }
            })
            .collect()
    }

    /// Which members of `comp` let `side` secure at least a draw by playing, again and
    /// again, a move that neither checks nor chases (`idle`, by member, a bit per move in
    /// the graph's order): then each loop holds one, and `side` breaks no rule round it. A
    /// Büchi game, νZ.μY: the positions from which `side` forces, within the component, a
    /// move out worth a draw or more to it, or an idle move of its own into Z, the other
    /// side having no move out worth more than a draw to it. `out` is each member's best
    /// move out for its side to move, `inside` a move's member by its target (None
    /// outside).
    fn idle_safe(
        &self,
        comp: &[u32],
        idle: &[u128],
        out: &[Option<Wdl>],
        inside: &impl Fn(usize) -> Option<usize>,
        side: Side,
    ) -> Vec<bool> {
        let mut z = vec![true; comp.len()];
        loop {
            // μY: where `side` forces an idle move into Z, or a good move out, in finitely
            // many moves.
            let mut y = vec![false; comp.len()];
            loop {
                let mut grew = false;
                for (k, &v) in comp.iter().enumerate() {
                    if y[k] {
                        continue;
                    }
                    let v = v as usize;
                    let mut moves = self.graph.moves_of(v).enumerate();
                    let joins = if self.position_side(v) == side {
                        out[k] >= Some(Wdl::Draw)
                            || moves.any(|(e, (t, _))| {
                                inside(t).is_some_and(|l| y[l] || (idle[k] >> e & 1 == 1 && z[l]))
                            })
                    } else {
                        out[k] <= Some(Wdl::Draw)
                            && moves.all(|(_, (t, _))| inside(t).is_none_or(|l| y[l]))
                    };
                    if joins {
                        y[k] = true;
                        grew = true;
                    }
                }
                if !grew {
                    break;
                }
            }
            if y == z {
                return z;
            }
            z = y;
        }
    }

    /// The side to move at node `v`.
    fn position_side(&self, v: usize) -> Side {
        Side::from_index((self.positions[v] & 1) as usize)
    }
}

/// A move from local node `from` to `to` as one key.
fn edge(from: usize, to: usize) -> u64 {
    (from as u64) << 32 | to as u64
}

/// Each member's place in `comp`, by node (of `n`): read from an array over every node
/// where the component holds a good part of them, from a map where it is small.
fn places(comp: &[u32], n: usize) -> impl Fn(usize) -> usize {
    let (mut dense, mut sparse) = (Vec::new(), KeyedMap::default());
    if comp.len() >= n / 64 {
        dense = vec![0u32; n];
        for (k, &v) in comp.iter().enumerate() {
            dense[v as usize] = k as u32;
        }
    } else {
        sparse.extend(
            comp.iter()
                .enumerate()
                .map(|(k, &v)| (u64::from(v), k as u32)),
        );
    }
    move |v| match dense.get(v) {
        Some(&k) => k as usize,
        None => sparse[&(v as u64)] as usize,
    }
}

/// Whether a node is one of `comp`'s.
fn members(comp: &[u32]) -> impl Fn(usize) -> bool + Sync {
    let mut sorted = comp.to_vec();
    sorted.sort_unstable();
    move |t| sorted.binary_search(&(t as u32)).is_ok()
}

/// A value for the side to move `mover` as the search reads it: for Red.
fn for_red(mover: Side, w: Wdl) -> Value {
    match (mover, w) {
        (_, Wdl::Draw) => Value::Draw,
        (Side::White, Wdl::Win) | (Side::Black, Wdl::Loss) => Value::Win,
        _ => Value::Loss,
    }
}

/// A value for Red as a value for the side to move `mover`.
fn for_mover(mover: Side, v: Value) -> Wdl {
    let red = match v {
        Value::Win => Wdl::Win,
        Value::Draw => Wdl::Draw,
        Value::Loss => Wdl::Loss,
    };
    match mover {
        Side::White => red,
        Side::Black => red.back(),
    }
}

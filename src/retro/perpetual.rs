//! The perpetual-check rule of xiangqi's Asian rules (first stage) as a game on a graph:
//! play that never ends is lost by the side that, from some move on, checks at every one of
//! its moves while the other side does not; when both do, or neither, it is drawn.
//!
//! Why a parity game: "from some point on, O checks at every move and P does not" says that
//! O's quiet moves (moves that do not check) come finitely often and P's infinitely often.
//! Colour O's quiet moves 3, P's quiet moves 2 and every check 1: P wins an endless play
//! exactly when the highest colour it sees infinitely often is 2. Such games are won by
//! positional strategies, so the game in which the first repetition ends play and the
//! cycle is judged by the same condition (the rule as an arbiter applies it) has the same
//! values; the tests hold the two against each other on small graphs, searching every path.
//! P's winning positions are the fixpoint μZ.νY.μX.F(X, Y, Z), where F holds at a position
//! of P if one of its moves, and at a position of O if all of its moves, either leave the
//! graph to a position P has won or land, by colour 1, 2 or 3, in X, Y or Z.
//!
//! Not modelled here: perpetual chase, which breaks the parity condition (`loops` judges it);
//! the graph's owner decides what a check is and which positions are in the graph.

use crate::value::Wdl;

/// The best move out of the graph of a position, for the side to move there.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Exit {
    /// No move leaves the graph.
    None,
    /// The best move out loses.
    Loss,
    /// The best move out draws.
    Draw,
    /// A move out wins.
    Win,
}

impl Exit {
    /// The best move out worth `w` to the side to move.
    pub(crate) fn of(w: Wdl) -> Exit {
        match w {
            Wdl::Loss => Exit::Loss,
            Wdl::Draw => Exit::Draw,
            Wdl::Win => Exit::Win,
        }
    }

    /// What the best move out is worth to the side to move, None without one.
    pub(crate) fn wdl(self) -> Option<Wdl> {
        match self {
            Exit::None => None,
            Exit::Loss => Some(Wdl::Loss),
            Exit::Draw => Some(Wdl::Draw),
            Exit::Win => Some(Wdl::Win),
        }
    }
}

/// A game graph whose moves are marked as checks: the positions of a table that neither
/// side can win by mate, with their moves among themselves and their best moves out.
#[derive(Default)]
pub(crate) struct RuleGraph {
    /// The side to move (0 or 1) at each position.
    mover: Vec<u8>,
    exit: Vec<Exit>,
    /// Moves of position `v`: `targets[starts[v]..starts[v + 1]]`.
    starts: Vec<usize>,
    /// Target position, with `CHECK` set where the move gives check.
    targets: Vec<u32>,
}

const CHECK: u32 = 1 << 31;

impl RuleGraph {
    /// An empty graph: positions are added in the order of their numbers.
    pub(crate) fn new() -> RuleGraph {
        RuleGraph {
            starts: vec![0],
            ..Default::default()
        }
    }

    /// Adds the next position: its side to move, its best move out of the graph, and its
    /// moves inside (target number, whether the move gives check).
    pub(crate) fn push(
        &mut self,
        mover: usize,
        exit: Exit,
        moves: impl IntoIterator<Item = (u32, bool)>,
    ) {
        self.mover.push(mover as u8);
        self.exit.push(exit);
        for (t, check) in moves {
            assert!(t < CHECK, "rule graphs hold fewer than 2^31 positions");
            self.targets.push(t | if check { CHECK } else { 0 });
        }
        self.starts.push(self.targets.len());
    }

    /// Number of positions.
    pub(crate) fn len(&self) -> usize {
        self.mover.len()
    }

    /// Number of moves inside.
    pub(crate) fn moves(&self) -> usize {
        self.targets.len()
    }

    /// The target of move `e` of position `v`, None past its last.
    pub(crate) fn target(&self, v: usize, e: usize) -> Option<usize> {
        let at = self.starts[v] + e;
        (at < self.starts[v + 1]).then(|| (self.targets[at] & !CHECK) as usize)
    }

    /// The best move out of the graph of position `v`.
    pub(crate) fn exit(&self, v: usize) -> Exit {
        self.exit[v]
    }

    /// The moves of position `v` inside: target, and whether the move gives check.
    pub(crate) fn moves_of(&self, v: usize) -> impl Iterator<Item = (usize, bool)> + '_ {
        self.targets[self.starts[v]..self.starts[v + 1]]
            .iter()
            .map(|&t| ((t & !CHECK) as usize, t & CHECK != 0))
    }

    /// The value of every position under the rule, for its side to move.
    pub(crate) fn values(&self) -> Vec<Wdl> {
        let checks = Checks::of(self);
        let won = [0, 1].map(|p| self.won_by(p, &checks));
        (0..self.len())
            .map(|v| {
                let me = usize::from(self.mover[v]);
                match (won[me][v], won[1 - me][v]) {
                    (true, _) => Wdl::Win,
                    (_, true) => Wdl::Loss,
                    _ => Wdl::Draw,
                }
            })
            .collect()
    }

    /// The positions side `p` wins: μZ.νY.μX.F(X, Y, Z).
    fn won_by(&self, p: usize, checks: &Checks) -> Vec<bool> {
        let mut z = vec![false; self.len()];
        loop {
            let mut y = vec![true; self.len()];
            loop {
                let x = self.attractor(p, &y, &z, checks);
                if x == y {
                    break;
                }
                y = x;
            }
            if y == z {
                return z;
            }
            z = y;
        }
    }

    /// μX.F(X, Y, Z): the positions from which `p` forces, through checks inside X, a
    /// winning move out, a quiet move of its own into `y` or a quiet move of the other
    /// side's into `z`.
    fn attractor(&self, p: usize, y: &[bool], z: &[bool], checks: &Checks) -> Vec<bool> {
        const NEVER: u32 = u32::MAX;
        let n = self.len();
        let mut x = vec![false; n];
        // Positions of the other side: checks not yet known to land in X.
        let mut pending = vec![NEVER; n];
        let mut queue = Vec::new();
        for v in 0..n {
            let joins = if usize::from(self.mover[v]) == p {
                self.exit[v] == Exit::Win || self.moves_of(v).any(|(t, check)| !check && y[t])
            } else if matches!(self.exit[v], Exit::Draw | Exit::Win) {
                false
            } else {
                let mut left = 0;
                let quiet_fails = self.moves_of(v).any(|(t, check)| {
                    left += u32::from(check);
                    !check && !z[t]
                });
                if !quiet_fails {
                    pending[v] = left;
                }
                !quiet_fails && left == 0
            };
            if joins {
                x[v] = true;
                queue.push(v);
            }
        }
        while let Some(t) = queue.pop() {
            for &s in checks.into(t) {
                let s = s as usize;
                if x[s] {
                    continue;
                }
                let joins = if usize::from(self.mover[s]) == p {
                    true
                } else if pending[s] == NEVER {
                    false
                } else {
                    pending[s] -= 1;
                    pending[s] == 0
                };
                if joins {
                    x[s] = true;
                    queue.push(s);
                }
            }
        }
        x
    }
}

/// The checks of a graph by target: the only moves through which an attractor grows.
struct Checks {
    starts: Vec<usize>,
    sources: Vec<u32>,
}

impl Checks {
    fn of(g: &RuleGraph) -> Checks {
        let mut starts = vec![0usize; g.len() + 1];
        for v in 0..g.len() {
            for (t, check) in g.moves_of(v) {
                starts[t + 1] += usize::from(check);
            }
        }
        for i in 0..g.len() {
            starts[i + 1] += starts[i];
        }
        let mut sources = vec![0u32; starts[g.len()]];
        // Each start serves as its position's cursor, which ends at the next one's start;
        // moved up by one place, they are the starts again (no copy of them held).
        for v in 0..g.len() {
            for (t, check) in g.moves_of(v) {
                if check {
                    sources[starts[t]] = v as u32;
                    starts[t] += 1;
                }
            }
        }
        starts.copy_within(..g.len(), 1);
        starts[0] = 0;
        Checks { starts, sources }
    }

    /// The positions with a check into `t` (once per such move).
    fn into(&self, t: usize) -> &[u32] {
        &self.sources[self.starts[t]..self.starts[t + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    /// A small graph kept whole for the search.
    struct Small {
        mover: Vec<usize>,
        exit: Vec<Exit>,
        moves: Vec<Vec<(usize, bool)>>,
    }

    impl Small {
        fn graph(&self) -> RuleGraph {
            let mut g = RuleGraph::new();
            for v in 0..self.mover.len() {
                let moves = self.moves[v].iter().map(|&(t, c)| (t as u32, c));
                g.push(self.mover[v], self.exit[v], moves);
            }
            g
        }

        /// The value for the side to move at `v` of the game that the first repetition
        /// ends, the cycle judged by the rule, found by searching every path from `v`;
        /// `path` holds the positions before `v` with whether the move out of each
        /// checked.
        /// Without `rule`, every repetition is a draw (the chess convention).
        fn search(&self, v: usize, path: &mut Vec<(usize, bool)>, rule: bool) -> Wdl {
            let mut best = self.exit[v].wdl();
            for &(t, check) in &self.moves[v] {
                path.push((v, check));
                let value = match path.iter().position(|&(u, _)| u == t) {
                    Some(start) if rule => self.verdict(&path[start..], v),
                    Some(_) => Wdl::Draw,
                    None => self.search(t, path, rule).back(),
                };
                path.pop();
                let rank = |w: Wdl| {
                    [Wdl::Loss, Wdl::Draw, Wdl::Win]
                        .iter()
                        .position(|&x| x == w)
                };
                best = best.filter(|&b| rank(b) >= rank(value)).or(Some(value));
            }
            // No move at all loses, as stalemate does in xiangqi.
            best.unwrap_or(Wdl::Loss)
        }

        /// The rule's verdict on a cycle (its positions with their moves' checks), for the
        /// side to move at `v`, the last position of the cycle.
        fn verdict(&self, cycle: &[(usize, bool)], v: usize) -> Wdl {
            let checks_always = |side: usize| {
                cycle
                    .iter()
                    .filter(|&&(u, _)| self.mover[u] == side)
                    .all(|&(_, check)| check)
            };
            let me = self.mover[v];
            match (checks_always(me), checks_always(1 - me)) {
                (true, false) => Wdl::Loss,
                (false, true) => Wdl::Win,
                _ => Wdl::Draw,
            }
        }
    }

    /// A random graph of `n` positions, sides alternating along every move.
    fn random(n: usize, next: &mut impl FnMut() -> u64) -> Small {
        let mover: Vec<usize> = (0..n).map(|_| (next() % 2) as usize).collect();
        let exit = (0..n)
            .map(|_| match next() % 8 {
                0 => Exit::Loss,
                1 => Exit::Draw,
                2 => Exit::Win,
                _ => Exit::None,
            })
            .collect();
        let moves = (0..n)
            .map(|v| {
                let others: Vec<usize> = (0..n).filter(|&t| mover[t] != mover[v]).collect();
                let count = if others.is_empty() { 0 } else { next() % 4 };
                let mut moves: Vec<(usize, bool)> = (0..count)
                    .map(|_| {
                        let t = others[(next() % others.len() as u64) as usize];
                        (t, next() % 3 != 0)
                    })
                    .collect();
                moves.sort();
                moves.dedup_by_key(|m| m.0);
                moves
            })
            .collect();
        Small { mover, exit, moves }
    }

    /// The fixpoint against a search of every path, with the first repetition ending play,
    /// on 3,000 random graphs of 2 to 11 positions; over a thousand positions take another
    /// value than with every repetition drawn.
    #[test]
    fn fixpoint_equals_the_first_repetition_game() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut decided_by_cycle = 0;
        for case in 0..3000 {
            let small = random(2 + case % 10, &mut next);
            let values = small.graph().values();
            for (v, &value) in values.iter().enumerate() {
                let searched = small.search(v, &mut Vec::new(), true);
                assert_eq!(value, searched, "graph {case}, position {v}");
                let plain = small.search(v, &mut Vec::new(), false);
                decided_by_cycle += usize::from(value != plain);
            }
        }
        assert!(decided_by_cycle > 1000, "{decided_by_cycle}");
    }

    /// The rule's three cases on a two-position cycle: the side that alone checks loses;
    /// mutual checks draw, as do cycles without checks.
    #[test]
    fn perpetual_check_loses_mutual_check_draws() {
        let cycle = |c0: bool, c1: bool| {
            let mut g = RuleGraph::new();
            g.push(0, Exit::None, [(1, c0)]);
            g.push(1, Exit::None, [(0, c1)]);
            g.values()
        };
        assert_eq!(cycle(true, false), [Wdl::Loss, Wdl::Win]);
        assert_eq!(cycle(false, true), [Wdl::Win, Wdl::Loss]);
        assert_eq!(cycle(true, true), [Wdl::Draw, Wdl::Draw]);
        assert_eq!(cycle(false, false), [Wdl::Draw, Wdl::Draw]);
    }
}

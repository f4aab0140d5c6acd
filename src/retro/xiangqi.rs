//! Xiangqi as a game graph for the solver: a table's positions numbered by
//! `XiangqiIndex` (side 0 Red to move, side 1 Black), the moves that take nothing inside
//! the table, captures out of it into sub-tables of known value, a side without a legal
//! move lost (stalemate loses in xiangqi). [`XiangqiTables`] solves a table and its
//! sub-tables in memory, smallest first.
//!
//! Repetitions are judged by the Asian rules: the plain solve first, every repetition a draw
//! as in chess, whose wins are forced mates that hold on any path; then the positions left
//! drawn are judged, perpetual check by a parity game over their graph
//! ([`perpetual`](super::perpetual)) and check and chase together by an exact search of
//! each cycle's component where it is small enough ([`loops`](super::loops)); those the
//! rules change or mark are kept apart ([`Verdict::Ruled`]). The values are those of a
//! game that starts at the position (no earlier position to repeat).

use super::first_error::FirstError;
use super::loops::{Drawn, Ruled, LARGEST};
use super::perpetual::{Exit, RuleGraph};
use super::solver::{solve, RetroGame, Solution, Successor};
use crate::progress::{Observer, Silent};
use crate::side::{BySide, Side};
use crate::value::{Dtm, Wdl};
use crate::xiangqi::{colour, Colour, Digits, Move, Position, Role, Rule, Signature, XiangqiIndex};
use rayon::prelude::*;
use std::collections::HashMap;

/// A position's value under the Asian rules, for its side to move, in the game that starts
/// at it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// As with every repetition a draw: a mate forced in exactly so many plies, whatever
    /// the path, or a draw that no repetition changes.
    Plain(Dtm),
    /// A draw with every repetition a draw, which the rules win or lose, or which an
    /// earlier position repeated can change (no distance is given: it depends on the path).
    Ruled(Ruled),
}

impl Verdict {
    /// The win/draw/loss part.
    pub fn wdl(self) -> Wdl {
        match self {
            Verdict::Plain(d) => d.wdl(),
            Verdict::Ruled(r) => r.wdl,
        }
    }

    /// The value for the side that moved into a position of value `self`.
    pub fn back(self) -> Verdict {
        match self {
            Verdict::Plain(d) => Verdict::Plain(d.back()),
            Verdict::Ruled(r) => Verdict::Ruled(Ruled {
                wdl: r.wdl.back(),
                ..r
            }),
        }
    }

    /// The value with every repetition a draw: the rules' verdicts are draws.
    pub fn plain(self) -> Dtm {
        match self {
            Verdict::Plain(d) => d,
            Verdict::Ruled(_) => Dtm::Draw,
        }
    }

    /// The value of index `idx` whose plain value is `plain`, the rules' verdicts of its
    /// side to move listed in `by_rule` (in order): the one reading of a table's two parts.
    pub fn of(plain: Dtm, by_rule: &[(u64, Ruled)], idx: u64) -> Verdict {
        // Only plain draws are listed: a mate needs no look-up.
        let listed = match plain {
            Dtm::Draw => by_rule.binary_search_by_key(&idx, |e| e.0).ok(),
            _ => None,
        };
        match listed {
            Some(i) => Verdict::Ruled(by_rule[i].1),
            None => Verdict::Plain(plain),
        }
    }

    /// The value of a plain draw whose marks (kept apart from the listed wins and losses)
    /// say whether it depends on the path and whether the chase rule judged it; a mate
    /// carries no marks.
    pub fn marked(self, path_dependent: bool, chases_judged: bool) -> Verdict {
        match self {
            Verdict::Ruled(r) => Verdict::Ruled(Ruled {
                chases_judged: r.chases_judged && chases_judged,
                ..r
            }),
            Verdict::Plain(Dtm::Draw) if path_dependent || !chases_judged => {
                Verdict::Ruled(Ruled {
                    wdl: Wdl::Draw,
                    rule: None,
                    path_dependent,
                    chases_judged,
                })
            }
            v => v,
        }
    }

    /// The rule that decides a win or loss: None for a forced mate or a draw.
    pub fn rule(self) -> Option<Rule> {
        match self {
            Verdict::Plain(_) => None,
            Verdict::Ruled(r) => r.rule,
        }
    }

    /// True where the value rests on a rule's verdict on a repetition.
    pub fn by_rule(self) -> bool {
        self.rule().is_some()
    }

    /// True where an earlier position of the game, repeated, can change the value.
    pub fn path_dependent(self) -> bool {
        matches!(self, Verdict::Ruled(r) if r.path_dependent)
    }

    /// False where the chase rule was not applied to the position (`Ruled::chases_judged`).
    pub fn chases_judged(self) -> bool {
        !matches!(self, Verdict::Ruled(r) if !r.chases_judged)
    }

    /// A number that orders values by preference of the side to move: a forced mate before
    /// a win by the rules, the longest loss by mate last.
    pub fn preference(self) -> i64 {
        match self {
            Verdict::Plain(Dtm::Win(p)) => (1 << 20) - i64::from(p),
            Verdict::Plain(Dtm::Loss(p)) => -(1 << 20) + i64::from(p),
            v => match v.wdl() {
                Wdl::Win => 1,
                Wdl::Draw => 0,
                Wdl::Loss => -1,
            },
        }
    }
}

/// One side to move's verdicts of the Asian rules on a table's plain draws: the draws the
/// rules win or lose, listed by index (a table has few), and the marks of the others, two
/// bits an index (path-dependent, not judged for chases), where a large drawn component
/// may mark every draw. Marks take memory only once one is set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rulings {
    /// The rules' wins and losses, by index.
    decided: Vec<(u64, Ruled)>,
    /// Bitmaps of the draws marked path-dependent and not judged for chases (empty until
    /// a mark is set).
    path: Vec<u64>,
    unjudged: Vec<u64>,
}

impl Rulings {
    /// The verdicts `decided` lists (in order), no draw marked: as a table file lists them,
    /// its streams' codes marking its draws.
    pub fn listed(decided: Vec<(u64, Ruled)>) -> Rulings {
        Rulings {
            decided,
            ..Default::default()
        }
    }

    /// Sets the verdict of index `idx` of a table of `size` indices, a plain draw, to `r`.
    pub fn set(&mut self, size: u64, idx: u64, r: Ruled) {
        if r.wdl != Wdl::Draw {
            let at = self.decided.partition_point(|e| e.0 < idx);
            match self.decided.get(at) {
                Some(e) if e.0 == idx => self.decided[at].1 = r,
                _ => self.decided.insert(at, (idx, r)),
            }
            return;
        }
        let words = size.div_ceil(64) as usize;
        for (bits, set) in [
            (&mut self.path, r.path_dependent),
            (&mut self.unjudged, !r.chases_judged),
        ] {
            if set {
                if bits.is_empty() {
                    *bits = crate::zeroed::zeroed(words);
                }
                bits[(idx / 64) as usize] |= 1 << (idx % 64);
            }
        }
    }

    /// The rules' wins and losses, in order.
    pub fn decided(&self) -> &[(u64, Ruled)] {
        &self.decided
    }

    /// The value of index `idx` whose plain value is `plain`.
    pub fn verdict(&self, plain: Dtm, idx: u64) -> Verdict {
        let bit = |bits: &[u64]| {
            bits.get((idx / 64) as usize)
                .is_some_and(|w| w >> (idx % 64) & 1 == 1)
        };
        Verdict::of(plain, &self.decided, idx).marked(bit(&self.path), !bit(&self.unjudged))
    }
}

/// The index after the quiet move `m` of `pos`, whose digits are `digits`: one digit
/// changed, or for a king's move, which may change the view, the whole numbered again
/// (played on `scratch`, a copy of `pos`).
fn quiet_index(
    index: &XiangqiIndex,
    pos: &Position,
    digits: &Digits,
    scratch: &mut Position,
    m: &Move,
) -> u64 {
    let piece = pos.at(m.from).expect("a piece moves");
    match piece.role {
        Role::King => scratch.after(m.from, m.to, |next| index.encode(next)),
        _ => index.moved(digits, piece, m.from, m.to),
    }
    .expect("a quiet move keeps the material")
}

/// One table's graph, with the values of the positions its captures lead to.
pub(super) struct XiangqiGame<'a> {
    index: &'a XiangqiIndex,
    /// The value of a position of a sub-table, for its side to move.
    sub: &'a (dyn Fn(&Position) -> Dtm + Sync),
}

impl<'a> XiangqiGame<'a> {
    /// The graph of `index`'s table, captures valued by `sub`.
    pub(super) fn new(index: &'a XiangqiIndex, sub: &'a (dyn Fn(&Position) -> Dtm + Sync)) -> Self {
        XiangqiGame { index, sub }
    }
}

impl RetroGame for XiangqiGame<'_> {
    fn size(&self) -> u64 {
        self.index.size()
    }

    fn successors(&self, side: Side, idx: u64, f: &mut impl FnMut(Successor)) -> Option<Dtm> {
        let pos = self.index.decode(idx, side)?;
        // The side not to move may not be in check, nor the kings face each other.
        if pos.in_check(!pos.turn()) {
            return None;
        }
        let moves = pos.legal_moves();
        let digits = self.index.digits(&pos).expect("a position of the table");
        let mut scratch = pos.clone();
        for m in &moves {
            f(match pos.at(m.to).is_some() {
                true => scratch.after(m.from, m.to, |next| Successor::Fixed((self.sub)(next))),
                false => Successor::Table(quiet_index(self.index, &pos, &digits, &mut scratch, m)),
            });
        }
        Some(match moves.is_empty() {
            true => Dtm::Loss(0),
            false => Dtm::Draw,
        })
    }

    /// One predecessor per move into `idx`: the un-moves of its position and, where the
    /// mirror image shares its index, of the image too, each kept only when it leads back
    /// to a position as it is numbered (the moves of a position are those of its
    /// numbered view).
    fn predecessors(&self, side: Side, idx: u64, f: &mut impl FnMut(u64, Option<Dtm>)) {
        let Some(pos) = self.index.decode(idx, side) else {
            return;
        };
        let image = XiangqiIndex::shares_index_with_mirror(&pos).then(|| pos.mirrored());
        for view in [Some(pos), image].into_iter().flatten() {
            // The un-moves of a piece other than a king keep the view: those of a
            // canonical view are numbered a digit at a time, those of the other none.
            let digits = XiangqiIndex::is_canonical(&view)
                .then(|| self.index.digits(&view))
                .flatten();
            let mut scratch = view.clone();
            for u in view.unmoves() {
                let piece = view.at(u.to).expect("a piece moved");
                let before = match piece.role {
                    Role::King => scratch.after(u.to, u.from, |before| {
                        XiangqiIndex::is_canonical(before).then(|| self.index.encode(before))
                    }),
                    _ => digits
                        .as_ref()
                        .map(|d| self.index.moved(d, piece, u.to, u.from)),
                };
                if let Some(before) = before {
                    f(before.expect("an un-move keeps the material"), None);
                }
            }
        }
    }
}

/// The rule's graph of a table would need more memory than it was allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the perpetual-check rule's graph of its {positions} drawn positions needs about {:.0} MiB of memory, {:.0} MiB allowed",
    *need as f64 / f64::from(1 << 20),
    *allowed as f64 / f64::from(1 << 20)
)]
pub struct GraphTooLarge {
    /// Drawn positions the graph would hold (0 if the table was refused before they were
    /// counted).
    pub positions: u64,
    /// Bytes it would need, as far as known when it was refused (a lower bound).
    pub need: u64,
    /// Bytes it was allowed.
    pub allowed: u64,
}

/// Positions whose moves are listed at once while the rule's graph is built.
const BATCH: usize = 1 << 20;

/// Bytes the rule's graph of a table of `size` indices per side holds at most, with
/// `drawn` positions and `moves` moves among them, `checks` of which check. An estimate
/// from above: KCAABvKAABB's graph (47.8 million positions, 571 million moves) comes to
/// 4.41 GB by it, and the whole solve peaked at 4.32 GB; KNvKN's (374 thousand, 2.3
/// million) 73 MB, and the solve 64 MB.
fn graph_bytes(size: u64, drawn: u64, moves: u64, checks: u64) -> u64 {
    // The positions by number and the numbers by index; each position's side to move,
    // best move out and first move; the moves; the verdicts' marks, two bits an index
    // and side (`Rulings`).
    let graph = 8 * size + size / 2 + 19 * drawn + 4 * moves;
    // While it is built: one batch's moves as listed.
    let listed = drawn.min(BATCH as u64);
    let building = 48 * listed + 16 * (moves * listed / drawn.max(1));
    // While it is solved: the checks by target, the solve's sets, counters and queue;
    // then the components, each position's verdict, and a component's idle moves.
    let solving = (26 * drawn + 4 * checks).max(64 * drawn);
    graph + building.max(solving)
}

/// The Asian rules' verdicts on a table's plain draws, by side to move (`Rulings`: those
/// the rules win or lose, those a repetition can change, those not judged; `loops`): the graph of its
/// plain draws, their moves among themselves marked as checks or not, and their best moves
/// out (captures valued by `sub` under the rules, moves to plain mates lost). `plain` gives
/// each index's value with every repetition a draw (None where it is no legal position):
/// the solver's, or a table file's for `verify`. With `memory`, a graph that would need
/// more bytes (`graph_bytes`, projected from the moves listed so far) is refused as soon
/// as that is known, not built.
pub fn by_rule(
    index: &XiangqiIndex,
    plain: &(dyn Fn(Side, u64) -> Option<Dtm> + Sync),
    sub: &(dyn Fn(&Position) -> Verdict + Sync),
    memory: Option<u64>,
) -> Result<BySide<Rulings>, GraphTooLarge> {
    by_rule_searching(index, plain, sub, memory, LARGEST)
}

/// `by_rule`, cycles' components of more than `search_up_to` positions not searched.
fn by_rule_searching(
    index: &XiangqiIndex,
    plain: &(dyn Fn(Side, u64) -> Option<Dtm> + Sync),
    sub: &(dyn Fn(&Position) -> Verdict + Sync),
    memory: Option<u64>,
    search_up_to: usize,
) -> Result<BySide<Rulings>, GraphTooLarge> {
    const OUT: u32 = u32::MAX;
    let fits = |positions: u64, need: u64| match memory {
        Some(allowed) if need > allowed => Err(GraphTooLarge {
            positions,
            need,
            allowed,
        }),
        _ => Ok(()),
    };
    fits(0, graph_bytes(index.size(), 0, 0, 0))?;
    let drawn = |side: usize, idx: u64| plain(Side::from_index(side), idx) == Some(Dtm::Draw);
    // The graph's numbers of the drawn positions, and the positions by number (index
    // and side to move in one word: a large drawn table has hundreds of millions).
    let mut number = [0, 1].map(|_| vec![OUT; index.size() as usize]);
    let mut positions = Vec::new();
    for (side, numbers) in number.iter_mut().enumerate() {
        for idx in (0..index.size()).filter(|&idx| drawn(side, idx)) {
            assert!(
                positions.len() < 1 << 31,
                "rule graphs hold fewer than 2^31 positions"
            );
            numbers[idx as usize] = positions.len() as u32;
            positions.push(idx << 1 | side as u64);
        }
    }
    // A drawn position's best move out, whether a capture reaches a position the chase
    // rule did not judge, whether one reaches a position the rules decide, and its moves
    // among the drawn positions.
    let node = |&p: &u64| {
        let (side, idx) = unpacked(p);
        let pos = index
            .decode(idx, Side::from_index(side))
            .expect("a legal index");
        let digits = index.digits(&pos).expect("a legal index");
        let mut scratch = pos.clone();
        let mut exit = Exit::None;
        let (mut unjudged, mut ruled) = (false, false);
        let mut inside = Vec::new();
        for m in pos.legal_moves() {
            let out = if pos.at(m.to).is_some() {
                let after = scratch.after(m.from, m.to, sub);
                unjudged |= !after.chases_judged();
                ruled |= after.by_rule();
                after.back().wdl()
            } else {
                let j = quiet_index(index, &pos, &digits, &mut scratch, &m);
                match number[1 - side][j as usize] {
                    OUT => (plain(Side::from_index(1 - side), j))
                        .expect("a legal move")
                        .back()
                        .wdl(),
                    n => {
                        let check = scratch.after(m.from, m.to, |next| next.in_check(next.turn()));
                        inside.push((n, check));
                        continue;
                    }
                }
            };
            exit = exit.max(Exit::of(out));
        }
        (exit, unjudged, ruled, inside)
    };
    // The rules decide nothing, and no history changes a value, unless some move among
    // the draws checks or chases (a loop without one draws), or a capture reaches a
    // position the rules decide or did not judge: most tables are spared the graph.
    let seed = |p: &u64| {
        let (_, unjudged, ruled, inside) = node(p);
        if unjudged || ruled || inside.iter().any(|&(_, check)| check) {
            return true;
        }
        let (side, idx) = unpacked(*p);
        let pos = index
            .decode(idx, Side::from_index(side))
            .expect("a legal index");
        (pos.legal_moves().into_iter())
            .filter(|m| pos.at(m.to).is_none())
            .filter(|m| {
                let j = index
                    .encode(&pos.play(m))
                    .expect("a quiet move keeps the material");
                number[1 - side][j as usize] != OUT
            })
            .any(|m| matches!(colour(&pos, m), Colour::Chase(_)))
    };
    // In small pieces: a thread given a large one at the start may be left running it
    // alone at the end (KCABvKABB spent a quarter of its time so).
    const PIECE: usize = 1 << 12;
    if !positions.par_iter().with_max_len(PIECE).any(seed) {
        return Ok(BySide::default());
    }
    let draws = positions.len() as u64;
    fits(draws, graph_bytes(index.size(), draws, 0, 0))?;
    // A batch of positions at a time: the moves of every position listed at once before
    // the graph took them were most of a large drawn table's memory (KCAABvKAABB peaked
    // at 12.0 GiB, 108 bytes an index).
    let mut graph = RuleGraph::new();
    let mut exit_unjudged = Vec::with_capacity(positions.len());
    let mut checks = 0u64;
    for batch in positions.chunks(BATCH) {
        let nodes: Vec<_> = batch.par_iter().with_max_len(PIECE).map(node).collect();
        for (&p, (exit, unjudged, _, inside)) in batch.iter().zip(nodes) {
            checks += inside.iter().filter(|m| m.1).count() as u64;
            exit_unjudged.push(unjudged);
            graph.push(unpacked(p).0, exit, inside);
        }
        // The moves still to list, projected from those listed.
        let (listed, moves) = (graph.len() as u64, graph.moves() as u64);
        let projected = |n: u64| n * draws / listed;
        fits(
            draws,
            graph_bytes(index.size(), draws, projected(moves), projected(checks)),
        )?;
    }
    let check_values = graph.values();
    let drawn = Drawn {
        index,
        positions: &positions,
        number: &number,
        graph: &graph,
        exit_unjudged: &exit_unjudged,
        search_up_to,
    };
    let mut by_rule: BySide<Rulings> = BySide::default();
    for (&p, ruled) in positions.iter().zip(drawn.judge(&check_values)) {
        let (side, idx) = unpacked(p);
        if let Some(r) = ruled {
            by_rule[Side::from_index(side)].set(index.size(), idx, r);
        }
    }
    Ok(by_rule)
}

/// The side to move and index of a position of the rule's graph, as `by_rule` lists them.
fn unpacked(p: u64) -> (usize, u64) {
    ((p & 1) as usize, p >> 1)
}

/// Why a xiangqi table could not be solved.
#[derive(Debug)]
pub(crate) enum SolveError<E> {
    /// A sub-table could not be read: the first failure met (the solve is then invalid).
    SubTable(E),
    /// The perpetual-check rule's graph does not fit the memory allowed.
    RuleGraph(GraphTooLarge),
}

/// Solves the table of `signature` (Red's material first), the values of the positions its
/// captures lead to read by `sub`: the plain solve, then the rule's verdicts.
/// With `rule_memory`, the rule's graph is refused as [`by_rule`] says.
pub(crate) fn solve_table<E: Send>(
    signature: Signature,
    sub: &(dyn Fn(&Position) -> Result<Verdict, E> + Sync),
    observer: &dyn Observer,
    rule_memory: Option<u64>,
) -> Result<Solved, SolveError<E>> {
    // A draw stands in for a failed read until the end.
    let failed = FirstError::new();
    let sub = |pos: &Position| failed.or(sub(pos), Verdict::Plain(Dtm::Draw));
    let index = XiangqiIndex::new(signature);
    let plain = |pos: &Position| sub(pos).plain();
    let solution = solve(&XiangqiGame::new(&index, &plain), observer);
    let plain = |side: Side, idx: u64| {
        (!solution.is_illegal(side, idx)).then(|| solution.value(side, idx).0)
    };
    let by_rule = by_rule(&index, &plain, &sub, rule_memory);
    if let Some(e) = failed.take() {
        return Err(SolveError::SubTable(e));
    }
    Ok(Solved {
        index,
        solution,
        by_rule: by_rule.map_err(SolveError::RuleGraph)?,
    })
}

/// A solved table.
pub struct Solved {
    /// Its numbering.
    pub index: XiangqiIndex,
    /// Its values with every repetition a draw.
    pub solution: Solution,
    /// By side to move, the Asian rules' verdicts on the plain draws.
    pub by_rule: BySide<Rulings>,
}

impl Solved {
    /// The value of index `idx` with `side` to move (a legal position).
    pub fn verdict(&self, side: Side, idx: u64) -> Verdict {
        self.by_rule[side].verdict(self.solution.value(side, idx).0, idx)
    }
}

/// Tables solved in memory, each under its signature (Red's material first).
#[derive(Default)]
pub struct XiangqiTables {
    tables: HashMap<Signature, Solved>,
}

impl XiangqiTables {
    /// Solves `signature`'s table after its sub-tables (those missing); a table is kept
    /// under its canonical signature, the stronger side as Red.
    pub fn solve(&mut self, signature: Signature) {
        let signature = signature.canonical();
        if self.tables.contains_key(&signature) {
            return;
        }
        for sub in signature.captures() {
            self.solve(sub);
        }
        let sub = |pos: &Position| self.probe(pos).ok_or(signature);
        let solved = solve_table(signature, &sub, &Silent, None)
            .unwrap_or_else(|e| panic!("{signature}: sub-tables solved first, no limit: {e:?}"));
        self.tables.insert(signature, solved);
    }

    /// The value of `pos` for its side to move, if its table is solved (through the
    /// colour flip when Black has the stronger side).
    pub fn probe(&self, pos: &Position) -> Option<Verdict> {
        let signature = Signature::of(pos);
        if !signature.is_canonical() {
            return self.probe(&pos.flipped());
        }
        let t = self.tables.get(&signature)?;
        Some(t.verdict(pos.turn(), t.index.encode(pos)?))
    }

    /// The table of `signature`, if solved.
    pub fn table(&self, signature: &Signature) -> Option<&Solved> {
        self.tables.get(signature)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ghi::{solve_with, ByLoop, Kind, Moves, Value};
    use crate::xiangqi::{Loop, Ruling};

    /// A sub-table that cannot be read fails the solve with its first error; with every
    /// sub-table at hand the same solve succeeds.
    #[test]
    fn a_sub_table_that_fails_fails_the_solve() {
        let sig: Signature = "KRvKN".parse().unwrap();
        let mut tables = XiangqiTables::default();
        for sub in sig.captures() {
            tables.solve(sub);
        }
        let missing = "KNvK".parse::<Signature>().unwrap().canonical();
        let sub = |pos: &Position| match Signature::of(pos).canonical() {
            s if s == missing => Err(s),
            _ => Ok(tables.probe(pos).expect("solved")),
        };
        match solve_table(sig, &sub, &Silent, None) {
            Err(SolveError::SubTable(s)) => assert_eq!(s, missing),
            Err(e) => panic!("{e:?}"),
            Ok(_) => panic!("solved without {missing}"),
        }
        let all = |pos: &Position| tables.probe(pos).ok_or(());
        assert!(solve_table(sig, &all, &Silent, None).is_ok());
    }

    /// The exact distance to mate of `pos` if a side mates within `depth` plies, by a
    /// forward search of every line (no table involved).
    fn search(pos: &Position, depth: u32) -> Option<Dtm> {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Some(Dtm::Loss(0));
        }
        if depth == 0 {
            return None;
        }
        // A win in the fewest plies, else a loss in the most, if every move loses.
        let mut best: Option<Dtm> = None;
        let mut all_lose = true;
        for m in &moves {
            match search(&pos.play(m), depth - 1).map(Dtm::back) {
                Some(v @ Dtm::Win(_)) => {
                    if best.is_none_or(|b| v.preference() > b.preference()) {
                        best = Some(v);
                    }
                }
                Some(v) => {
                    if !matches!(best, Some(Dtm::Win(_)))
                        && best.is_none_or(|b| v.preference() > b.preference())
                    {
                        best = Some(v);
                    }
                }
                None => all_lose = false,
            }
        }
        match best {
            Some(Dtm::Win(p)) => Some(Dtm::Win(p)),
            Some(loss) if all_lose => Some(loss),
            _ => None,
        }
    }

    /// Small tables against a forward search: every position the table values within
    /// three plies of mate is found so by the search, and a sample of the others has no
    /// mate within three plies; and each value with every repetition a draw is the best of
    /// its moves' (one ply, sub-tables included).
    #[test]
    fn small_tables_agree_with_a_forward_search() {
        let mut tables = XiangqiTables::default();
        let mut total_decided = 0;
        for sig in ["KRvK", "KCvKA", "KPvK"] {
            let sig: Signature = sig.parse().unwrap();
            tables.solve(sig);
            let t = tables.table(&sig).unwrap();
            let (mut checked, mut decided) = (0, 0);
            for side in 0..2 {
                for idx in (0..t.index.size()).step_by((t.index.size() / 1500).max(1) as usize) {
                    let Some(pos) = t.index.decode(idx, Side::from_index(side)) else {
                        continue;
                    };
                    if pos.in_check(!pos.turn()) {
                        continue;
                    }
                    let value = tables.probe(&pos).unwrap();
                    // One ply: the best of the moves' values with every repetition a
                    // draw (under the rules a value need not be the best of the moves'
                    // with no history: the test with full history holds those).
                    let moves = pos.legal_moves();
                    let best = moves
                        .iter()
                        .map(|m| tables.probe(&pos.play(m)).unwrap().plain().back())
                        .max_by_key(|v| v.preference())
                        .unwrap_or(Dtm::Loss(0));
                    let value = value.plain();
                    assert_eq!(value, best, "{sig} {}", pos.to_fen());
                    let near = value.plies().is_some_and(|p| p <= 3);
                    if near || idx % 147 == 0 {
                        let found = search(&pos, 3);
                        assert_eq!(found, near.then_some(value), "{sig} {}", pos.to_fen());
                        decided += usize::from(near);
                    }
                    checked += 1;
                }
            }
            assert!(checked > 500, "{sig}: {checked}");
            total_decided += decided;
        }
        assert!(total_decided > 50, "{total_decided}");
        // Colour symmetry: KvKR solved as it stands equals KRvK read through the flip.
        let index = XiangqiIndex::new("KvKR".parse().unwrap());
        let sub = |pos: &Position| tables.probe(pos).unwrap().plain();
        let direct = solve(&XiangqiGame::new(&index, &sub), &Silent);
        let mut compared = 0;
        for side in 0..2 {
            for idx in 0..index.size() {
                let Some(pos) = index.decode(idx, Side::from_index(side)) else {
                    continue;
                };
                if !pos.in_check(!pos.turn()) {
                    let flipped = tables.probe(&pos).map(Verdict::plain);
                    assert_eq!(Some(direct.value(Side::from_index(side), idx).0), flipped);
                    compared += 1;
                }
            }
        }
        assert!(compared > 4000, "{compared}");
        // Chariot and king against a lone king win.
        let win = |fen: &str| tables.probe(&Position::from_fen(fen).unwrap()).unwrap();
        let win = win("4k4/9/9/9/9/9/9/9/9/3K1R3 w");
        assert!(matches!(win, Verdict::Plain(Dtm::Win(_))), "{win:?}");
    }

    /// What a search of the game with full history knows of a value for the side to move:
    /// at least `.0`, at most `.1` (-1 loss, 0 draw, 1 win).
    type Bounds = (i8, i8);

    fn score(w: Wdl) -> i8 {
        match w {
            Wdl::Loss => -1,
            Wdl::Draw => 0,
            Wdl::Win => 1,
        }
    }

    /// Bounds on the value of `pos` (a plain draw of the tables) for the game that the
    /// first repetition ends, its loop ruled by the Asian rules' judge (check and chase),
    /// searched `depth` plies deep with the whole history in `path` (the positions before
    /// `pos`, each with the move played from it). Only a forced mate (which holds on every
    /// path) and a capture (after which nothing before it can repeat) are taken from the
    /// tables; every drawn position is searched, its moves tried in the tables' order, best
    /// first, to find a win soon.
    fn search_with_history(
        tables: &XiangqiTables,
        pos: &Position,
        path: &mut Vec<(Position, Move)>,
        depth: u32,
    ) -> Bounds {
        let mut moves: Vec<(Move, Position, Verdict)> = pos
            .legal_moves()
            .iter()
            .map(|&m| {
                let next = pos.play(&m);
                let value = tables.probe(&next).unwrap().back();
                (m, next, value)
            })
            .collect();
        moves.sort_by_key(|m| -m.2.preference());
        let mut best: Bounds = (-1, -1);
        for (m, next, value) in moves {
            path.push((pos.clone(), m));
            let found = if let Some(start) = path.iter().position(|(p, _)| *p == next) {
                let line: Vec<Move> = path[start..].iter().map(|e| e.1).collect();
                let v = match Loop::new(&next, &line).unwrap().ruling() {
                    Ruling::Draw => 0,
                    Ruling::Loses { side, .. } if side == pos.turn() => -1,
                    Ruling::Loses { .. } => 1,
                };
                (v, v)
            } else if Signature::of(&next) != Signature::of(pos) || value.plain() != Dtm::Draw {
                let v = score(value.wdl());
                (v, v)
            } else if depth == 0 {
                (-1, 1)
            } else {
                let (lo, hi) = search_with_history(tables, &next, path, depth - 1);
                (-hi, -lo)
            };
            path.pop();
            best = (best.0.max(found.0), best.1.max(found.1));
            if best.0 == 1 {
                break;
            }
        }
        best
    }

    /// The positions of a table drawn with every repetition a draw, and each one's quiet
    /// moves to another of them: a graph of the positions themselves (a position and its
    /// mirror image apart), for the search's histories.
    fn plain_draws(t: &Solved) -> HashMap<Position, Vec<(Move, Position)>> {
        let mut draws = HashMap::new();
        for side in Side::ALL {
            for idx in 0..t.index.size() {
                if t.solution.is_illegal(side, idx) || t.verdict(side, idx).plain() != Dtm::Draw {
                    continue;
                }
                let pos = t.index.decode(idx, side).unwrap();
                for p in [pos.mirrored(), pos] {
                    draws.insert(p, Vec::new());
                }
            }
        }
        let positions: Vec<Position> = draws.keys().cloned().collect();
        for pos in positions {
            let moves = (pos.legal_moves().into_iter())
                .filter(|m| pos.at(m.to).is_none())
                .map(|m| (m, pos.play(&m)))
                .filter(|(_, next)| draws.contains_key(next))
                .collect();
            draws.insert(pos, moves);
        }
        draws
    }

    /// Whether some history of at most `plies` moves among the plain draws, walked back
    /// from `pos` (`preds`: each position's moves into it) without repeating a position,
    /// gives `pos` another value than `free` in the search (`deep` plies deep).
    fn changed_by_a_history(
        tables: &XiangqiTables,
        preds: &HashMap<Position, Vec<(Move, Position)>>,
        pos: &Position,
        walked: &mut Vec<(Position, Move)>,
        (plies, deep): (usize, u32),
        free: Bounds,
    ) -> bool {
        let at = walked.last().map_or(pos, |e| &e.0).clone();
        for (m, p) in preds.get(&at).into_iter().flatten() {
            if p == pos || walked.iter().any(|e| e.0 == *p) {
                continue;
            }
            walked.push((p.clone(), *m));
            let mut history: Vec<(Position, Move)> = walked.iter().rev().cloned().collect();
            if search_with_history(tables, pos, &mut history, deep) != free
                || (walked.len() < plies
                    && changed_by_a_history(tables, preds, pos, walked, (plies, deep), free))
            {
                return true;
            }
            walked.pop();
        }
        false
    }

    /// The tables under the Asian rules against a search of the game with full history,
    /// each loop ruled by the judge (check and chase), written apart from the tables'
    /// solve: in KRvKN (where the horse checks, and the chariot's side wins 1,597 positions
    /// by the check rule), KRvKC, KNvKA (a chased advisor), KRvKCA and KRvKNA (a chariot
    /// against a cannon or horse with a defender), every position drawn with every
    /// repetition a draw takes the very value the search proves; and a position is marked
    /// path-dependent exactly where some history among the plain draws (up to 12 plies, the
    /// longest cycles here being shorter) changes its value in the search.
    #[test]
    fn rule_values_and_marks_equal_a_search_with_full_history() {
        let mut tables = XiangqiTables::default();
        let mut counts = Vec::new();
        for sig in ["KRvKN", "KRvKC", "KNvKA", "KRvKCA", "KRvKNA"] {
            let sig: Signature = sig.parse().unwrap();
            tables.solve(sig);
            let t = tables.table(&sig).unwrap();
            let draws = plain_draws(t);
            let mut preds: HashMap<Position, Vec<(Move, Position)>> = HashMap::new();
            for (p, moves) in &draws {
                for (m, next) in moves {
                    preds.entry(next.clone()).or_default().push((*m, p.clone()));
                }
            }
            let (mut by_rule, mut marked) = (0, 0);
            for pos in draws.keys() {
                let value = tables.probe(pos).unwrap();
                let v = score(value.wdl());
                let fen = pos.to_fen();
                let found = search_with_history(&tables, pos, &mut Vec::new(), 16);
                assert_eq!(found, (v, v), "{sig} {fen} {value:?}");
                let walk = (12, 16);
                let changed =
                    changed_by_a_history(&tables, &preds, pos, &mut Vec::new(), walk, found);
                assert_eq!(changed, value.path_dependent(), "{sig} {fen} {value:?}");
                assert!(value.chases_judged(), "{sig} {fen}");
                by_rule += usize::from(value.by_rule());
                marked += usize::from(value.path_dependent());
            }
            assert!(draws.len() > 500, "{sig}: {}", draws.len());
            counts.push((sig.to_string(), by_rule, marked));
        }
        // Each position and its mirror image: KRvKN's 1,597 by the check rule twice.
        assert_eq!(
            (&counts[0].0[..], counts[0].1),
            ("KRvKN", 2 * 1597),
            "{counts:?}"
        );
    }

    /// Components not searched keep the check rule's wins and losses and secure draws by
    /// idle play (`loops::Drawn::kept`): with no component searched, every draw is judged,
    /// its value the search's, and every position the search marks is marked (KRvKN, KNvKA,
    /// KRvKCA, KRvKNA).
    #[test]
    fn values_of_components_not_searched_are_the_searchs_where_judged() {
        let mut tables = XiangqiTables::default();
        for sig in ["KRvKN", "KNvKA", "KRvKCA", "KRvKNA"] {
            let sig: Signature = sig.parse().unwrap();
            tables.solve(sig);
            let t = tables.table(&sig).unwrap();
            let plain = |side: Side, idx: u64| {
                (!t.solution.is_illegal(side, idx)).then(|| t.solution.value(side, idx).0)
            };
            let sub = |pos: &Position| tables.probe(pos).unwrap();
            let kept = by_rule_searching(&t.index, &plain, &sub, None, 0).unwrap();
            let (mut judged, mut all) = (0, 0);
            for side in Side::ALL {
                for idx in 0..t.index.size() {
                    if plain(side, idx) != Some(Dtm::Draw) {
                        continue;
                    }
                    let searched = t.verdict(side, idx);
                    let v = kept[side].verdict(Dtm::Draw, idx);
                    all += 1;
                    if v.chases_judged() {
                        judged += 1;
                        assert_eq!(v.wdl(), searched.wdl(), "{sig} {side:?} {idx}");
                    }
                    assert!(
                        v.path_dependent() || !searched.path_dependent(),
                        "{sig} {idx}"
                    );
                }
            }
            assert_eq!(judged, all, "{sig}: draws judged");
        }
    }

    /// With a memory limit, the rule's graph is refused at each point where what it needs
    /// is known better: the numbers by index (before any position is counted), the drawn
    /// positions, and the moves listed (KRvKN's fit one batch, so that figure is exact);
    /// given exactly what it needs, it is built, the same as without a limit.
    #[test]
    fn the_rules_graph_is_refused_beyond_its_memory() {
        let mut tables = XiangqiTables::default();
        let sig: Signature = "KRvKN".parse().unwrap();
        tables.solve(sig);
        let t = tables.table(&sig).unwrap();
        let plain = |side: Side, idx: u64| {
            (!t.solution.is_illegal(side, idx)).then(|| t.solution.value(side, idx).0)
        };
        let sub = |pos: &Position| tables.probe(pos).unwrap();
        let unlimited = by_rule(&t.index, &plain, &sub, None).unwrap();
        assert_eq!(unlimited, t.by_rule);
        let mut allowed = 0;
        let mut needs = Vec::new();
        let built = loop {
            match by_rule(&t.index, &plain, &sub, Some(allowed)) {
                Ok(built) => break built,
                Err(e) => {
                    assert_eq!(e.allowed, allowed);
                    assert!(e.need > allowed, "{e:?}");
                    needs.push((e.positions, e.need));
                    allowed = e.need;
                }
            }
        };
        assert_eq!(built, unlimited);
        let size = t.index.size();
        let drawn = Side::ALL
            .into_iter()
            .map(|side| {
                (0..size)
                    .filter(|&i| plain(side, i) == Some(Dtm::Draw))
                    .count() as u64
            })
            .sum::<u64>();
        assert_eq!(needs.len(), 3, "{needs:?}");
        assert_eq!(needs[0], (0, graph_bytes(size, 0, 0, 0)));
        assert_eq!(needs[1], (drawn, graph_bytes(size, drawn, 0, 0)));
        // The moves among the draws, listed, add 4 bytes each: KRvKN has over 1,800.
        assert!(needs[2].1 >= needs[1].1 + 4 * 1800, "{needs:?}");
        assert!(by_rule(&t.index, &plain, &sub, Some(allowed - 1)).is_err());
    }

    /// A value for the side to move `mover` as the repetition solver reads it: for Red.
    fn for_red(mover: Side, w: Wdl) -> Value {
        match (mover, w) {
            (_, Wdl::Draw) => Value::Draw,
            (Side::White, Wdl::Win) | (Side::Black, Wdl::Loss) => Value::Win,
            _ => Value::Loss,
        }
    }

    /// A table's drawn positions (with every repetition a draw) as a game graph for the
    /// repetition solver: a node per position, its quiet moves among them, and one
    /// terminal for its best move out; Red maximises. Each node's position comes along.
    fn drawn_graph(
        tables: &XiangqiTables,
        sig: &str,
    ) -> (Vec<Kind<Value>>, Moves, Vec<Position>, Vec<Wdl>) {
        let t = tables.table(&sig.parse().unwrap()).unwrap();
        let mut number = HashMap::new();
        let mut nodes = Vec::new();
        let mut values = Vec::new();
        for side in Side::ALL {
            for idx in 0..t.index.size() {
                let value = t.verdict(side, idx);
                if t.solution.is_illegal(side, idx) || value.plain() != Dtm::Draw {
                    continue;
                }
                let pos = t.index.decode(idx, side).unwrap();
                number.insert(pos.clone(), nodes.len());
                nodes.push(pos);
                values.push(value.wdl());
            }
        }
        let (mut kinds, mut moves) = (Vec::new(), Moves::new());
        let mut exits = Vec::new();
        for pos in &nodes {
            let mut inside = Vec::new();
            let mut best: Option<Value> = None;
            for m in pos.legal_moves() {
                let next = pos.play(&m);
                match number.get(&next) {
                    Some(&w) if pos.at(m.to).is_none() => inside.push(w),
                    _ => {
                        let v = for_red(pos.turn(), tables.probe(&next).unwrap().back().wdl());
                        // The mover's best: Red's most, Black's least.
                        best = Some(match (best, pos.turn()) {
                            (None, _) => v,
                            (Some(b), Side::White) => b.max(v),
                            (Some(b), Side::Black) => b.min(v),
                        });
                    }
                }
            }
            let exit = best.map(|b| {
                exits.push(b);
                nodes.len() + exits.len() - 1
            });
            kinds.push(match pos.turn() {
                Side::White => Kind::Max,
                Side::Black => Kind::Min,
            });
            moves.push(inside.into_iter().chain(exit));
        }
        for v in exits {
            kinds.push(Kind::Terminal(v));
            moves.push([]);
        }
        (kinds, moves, nodes, values)
    }

    /// The tables' values under the perpetual-check rule against the exact search of the
    /// game that the first repetition ends (`ghi::solve_with`, every ordered history inside
    /// each strongly connected component), each loop ruled by the Asian rules' judge, check
    /// and chase: equal on every drawn position of KRvKN (no loop of it holds a chase; the
    /// 1,597 positions the check rule decides included) and of KNvKA (whose loops hold
    /// chases that decide nothing). The search's path marks are printed beside the tables'
    /// (docs/xiangqi-rules.md says what they show).
    #[test]
    fn rule_values_equal_the_exact_search_with_the_asian_judge() {
        let mut tables = XiangqiTables::default();
        for sig in ["KRvKN", "KNvKA"] {
            tables.solve(sig.parse().unwrap());
            let (kinds, moves, nodes, values) = drawn_graph(&tables, sig);
            let judge = |cycle: &[u32]| {
                let line: Vec<Move> = (0..cycle.len())
                    .map(|i| {
                        let (from, to) = (&nodes[cycle[i] as usize], cycle[(i + 1) % cycle.len()]);
                        let m = from.legal_moves().into_iter();
                        m.into_iter()
                            .find(|m| from.play(m) == nodes[to as usize])
                            .unwrap()
                    })
                    .collect();
                match Loop::new(&nodes[cycle[0] as usize], &line)
                    .unwrap()
                    .ruling()
                {
                    Ruling::Draw => Value::Draw,
                    Ruling::Loses {
                        side: Side::White, ..
                    } => Value::Loss,
                    Ruling::Loses { .. } => Value::Win,
                }
            };
            let exact = solve_with(&kinds, &moves, ByLoop(judge));
            let mut differ = 0;
            let mut marks = [[0usize; 2]; 2];
            for (v, pos) in nodes.iter().enumerate() {
                let red = for_red(pos.turn(), values[v]);
                differ += usize::from(exact.values[v] != red);
                let marked = values[v] != Wdl::Draw;
                marks[usize::from(marked)][usize::from(exact.path_dependent[v])] += 1;
            }
            eprintln!("{sig}: marked by the tables / by the search: {marks:?}");
            assert_eq!(differ, 0, "{sig}: {} drawn positions", nodes.len());
        }
    }
}

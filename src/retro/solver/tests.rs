//! The solver against the definition of the values, on explicit game graphs.

use super::solution::or_bits_at;
use super::*;
use crate::peers::Owners;
use crate::progress::Silent;
use crate::side::{BySide, Side};
use crate::value::{Wdl, Wdl5};
use std::ops::Range;
use std::sync::Arc;

/// An explicit game graph: each position's moves, and who moves into whom.
struct Graph {
    moves: [Vec<Vec<Successor>>; 2],
    preds: [Vec<Vec<u64>>; 2],
    parts: Vec<Range<u64>>,
}

impl Graph {
    fn new(moves: [Vec<Vec<Successor>>; 2]) -> Graph {
        let n = moves[0].len();
        let mut preds = [vec![Vec::new(); n], vec![Vec::new(); n]];
        for (side, side_moves) in moves.iter().enumerate() {
            for (i, list) in side_moves.iter().enumerate() {
                for m in list {
                    if let Successor::Table(j) = m {
                        preds[1 - side][*j as usize].push(i as u64);
                    }
                }
            }
        }
        Graph {
            moves,
            preds,
            parts: std::iter::once(0..n as u64).collect(),
        }
    }

    /// The best of the moves of `idx` that leave the graph, for its mover.
    fn best_fixed(&self, side: usize, idx: u64) -> Option<Dtm> {
        self.moves[side][idx as usize]
            .iter()
            .filter_map(|m| match m {
                Successor::Fixed(d) => Some(d.back()),
                _ => None,
            })
            .max()
    }

    /// True when `idx` has a move inside the graph.
    fn inside(&self, side: usize, idx: u64) -> bool {
        self.moves[side][idx as usize]
            .iter()
            .any(|m| matches!(m, Successor::Table(_)))
    }

    /// Distance to mate by its definition, level after level, looking forward at every
    /// position's moves (no un-moves, no counters).
    fn oracle(&self) -> [Vec<Dtm>; 2] {
        let n = self.moves[0].len();
        let mut val: [Vec<Option<Dtm>>; 2] = [vec![None; n], vec![None; n]];
        for (side, v) in val.iter_mut().enumerate() {
            for (i, x) in v.iter_mut().enumerate() {
                if self.moves[side][i].is_empty() {
                    *x = Some(Dtm::Loss(0));
                }
            }
        }
        for level in 1..=2000 {
            let before = val.clone();
            for side in 0..2 {
                for i in 0..n {
                    if before[side][i].is_some() {
                        continue;
                    }
                    let outcomes: Vec<Option<Dtm>> = self.moves[side][i]
                        .iter()
                        .map(|m| match *m {
                            Successor::Table(j) => before[1 - side][j as usize].map(Dtm::back),
                            Successor::Fixed(d) => Some(d.back()),
                            Successor::Either(..) => unreachable!(),
                        })
                        .collect();
                    let wins = outcomes.contains(&Some(Dtm::Win(level)));
                    let loses = outcomes
                        .iter()
                        .all(|o| matches!(o, Some(Dtm::Loss(p)) if *p <= level));
                    if level % 2 == 1 && wins || level % 2 == 0 && loses {
                        val[side][i] = Some(Dtm::from_plies(level));
                    }
                }
            }
        }
        val.map(|v| v.into_iter().map(|x| x.unwrap_or(Dtm::Draw)).collect())
    }
}

impl RetroGame for Graph {
    fn size(&self) -> u64 {
        self.moves[0].len() as u64
    }

    fn parts(&self) -> Vec<Range<u64>> {
        self.parts.clone()
    }

    fn successors(&self, side: Side, idx: u64, f: &mut impl FnMut(Successor)) -> Option<Dtm> {
        self.moves[side.index()][idx as usize]
            .iter()
            .for_each(|&m| f(m));
        Some(Dtm::Loss(0))
    }

    fn predecessors(&self, side: Side, idx: u64, f: &mut impl FnMut(u64, Option<Dtm>)) {
        self.preds[side.index()][idx as usize]
            .iter()
            .for_each(|&p| f(p, None));
    }
}

/// A chain of forced moves 700 plies long (position k moves to k - 1, 0 is mated), with
/// side branches: losers that can step back up the chain, exits far beyond 250 plies
/// both ways, and a loop that draws.
fn long_chain() -> Graph {
    let n = 700u64;
    let moves = [0, 1].map(|side: u64| {
        (0..n)
            .map(|k| {
                let mut m = Vec::new();
                if k > 0 {
                    m.push(Successor::Table(k - 1));
                }
                if k % 3 == 0 && k + 1 < n {
                    m.push(Successor::Table(k + 1));
                }
                let even = (k as u32 + side as u32) & !1;
                if k % 50 == 7 {
                    m.push(Successor::Fixed(Dtm::Loss(even + 290)));
                }
                if k % 70 == 11 {
                    m.push(Successor::Fixed(Dtm::Win(even + 301)));
                }
                if k % 97 == 5 {
                    m = vec![Successor::Table(k), Successor::Fixed(Dtm::Draw)];
                }
                m
            })
            .collect()
    });
    Graph::new(moves)
}

/// 1,200 positions in parts of 150, each with a few moves inside its part, into earlier
/// parts, and out of the graph, drawn from a fixed pseudo-random sequence.
fn parted_graph() -> Graph {
    let (n, part) = (1200u64, 150u64);
    let mut random = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
    let mut next = move |below: u64| random() % below;
    let moves = [0, 1].map(|_| {
        (0..n)
            .map(|k| {
                let first = k / part * part;
                let mut m = Vec::new();
                for _ in 0..next(4) {
                    m.push(Successor::Table(first + next(part)));
                }
                if first > 0 && next(3) == 0 {
                    m.push(Successor::Table(next(first)));
                }
                match next(8) {
                    0 => m.push(Successor::Fixed(Dtm::Loss(2 * next(20) as u32))),
                    1 => m.push(Successor::Fixed(Dtm::Win(2 * next(20) as u32 + 1))),
                    2 => m.push(Successor::Fixed(Dtm::Draw)),
                    _ => {}
                }
                m
            })
            .collect()
    });
    let mut g = Graph::new(moves);
    g.parts = (0..n / part).map(|p| p * part..(p + 1) * part).collect();
    g
}

/// Solved part by part, a graph has the values its definition gives, and its best
/// exits are its moves out of the graph alone.
#[test]
fn parts_solved_in_turn_match_the_definition() {
    let g = parted_graph();
    let expected = g.oracle();
    for solution in both_ways(&g) {
        let mut decided = 0;
        for (side, want) in Side::ALL.into_iter().zip(&expected) {
            for idx in 0..g.size() {
                let (v, _) = solution.value(side, idx);
                assert_eq!(v, want[idx as usize], "side {side:?} index {idx}");
                decided += usize::from(v != Dtm::Draw);
                assert_exits(&solution, side, idx, v, g.best_fixed(side.index(), idx));
            }
        }
        assert!(decided > 600, "{decided} decided");
    }
}

/// Parts whose values no part left reads are packed and their pages given back; made
/// whole again, a side at a time, the solution is the one solved without that. Moves
/// into earlier parts go one or two parts back, so the first parts go early.
#[test]
fn parts_let_go_come_back_whole() {
    let g = parted_graph();
    let part = g.parts[0].end;
    let back = |first: u64, t: u64, steps: u64| first - steps * part + t % part;
    let moves = g.moves.clone().map(|side| {
        (0..g.size())
            .map(|i| {
                let first = i / part * part;
                let list = &side[i as usize];
                (list.iter().enumerate())
                    .map(|(k, m)| match *m {
                        Successor::Table(t) if t < first => Successor::Table(back(
                            first,
                            t,
                            1 + (k as u64 % 2).min(first / part - 1),
                        )),
                        m => m,
                    })
                    .collect()
            })
            .collect()
    });
    let mut g2 = Graph::new(moves);
    g2.parts = g.parts.clone();
    let count = g2.parts.len();
    let mut last: Vec<usize> = (0..count).collect();
    for side in 0..2 {
        for (i, list) in g2.moves[side].iter().enumerate() {
            for m in list {
                if let Successor::Table(t) = m {
                    let (from, to) = (i / part as usize, (*t / part) as usize);
                    last[to] = last[to].max(from);
                }
            }
        }
    }
    assert!(last[0] + 2 < count, "{last:?}");
    let whole = solve_within(&g2, Dtm::MAX_PLIES, LossSearch::Counters, &Silent);
    let mut parts = PartByPart::new(&g2, Dtm::MAX_PLIES, LossSearch::Counters);
    let mut let_go = 0;
    for _ in 0..count {
        parts.solve_next(&g2, &Silent);
        parts.let_go_unread(&last);
        let_go = parts.let_go.iter().filter(|&&b| b).count();
    }
    assert!(let_go > 0, "some part let go before the end");
    let mut finished = BySide::default();
    // Counting reads a side's values and illegal bits; its exit bits are packed already.
    let mut tried = BySide::default();
    let (mut sides, packed) = parts.into_sides(
        |s, side| {
            assert_eq!(s.values[side], whole.values[side]);
            assert_eq!(s.illegal[side], whole.illegal[side]);
            assert!(s.exit_decides[side].is_empty() && s.exit_same_wdl[side].is_empty());
            finished[side] = true;
        },
        |s, side| {
            assert_eq!(s.values[side], whole.values[side]);
            assert_eq!(s.exit_decides[side], whole.exit_decides[side]);
            assert!(s.illegal[side].is_empty() && s.exit_same_wdl[side].is_empty());
            tried[side] = true;
        },
    );
    let both = BySide::from([true; 2]);
    assert_eq!((finished, tried), (both, both));
    assert_eq!(
        packed.as_ref().map(PackedSide::side),
        BySide::from(Side::ALL)
    );
    assert!(sides.values.iter().all(|(_, v)| v.is_empty()));
    for (_, p) in packed {
        p.restore(&mut sides);
    }
    assert_eq!(sides.values, whole.values);
    assert_eq!(sides.illegal, whole.illegal);
    assert_eq!(sides.exit_decides, whole.exit_decides);
    assert_eq!(sides.exit_same_wdl, whole.exit_same_wdl);
}

/// `g` solved by `count` processes (threads here), each part split across them, with
/// `search`: what each process gets.
fn split(g: &Graph, count: usize, search: LossSearch) -> Vec<Solution> {
    let group = crate::peers::InProcess::group(count);
    std::thread::scope(|s| {
        let solves: Vec<_> = group
            .into_iter()
            .map(|p| {
                s.spawn(move || {
                    let mut parts =
                        PartByPart::new(g, Dtm::MAX_PLIES, search).split_across(Arc::new(p));
                    for _ in 0..parts.count() {
                        parts.solve_next(g, &Silent);
                    }
                    let sent = parts.peers().bytes_sent();
                    (parts.into_solution(), sent)
                })
            })
            .collect();
        let solved: Vec<_> = solves.into_iter().map(|h| h.join().unwrap()).collect();
        assert!(solved.iter().any(|&(_, sent)| sent > 0), "notes were sent");
        solved.into_iter().map(|(s, _)| s).collect()
    })
}

/// Split across two, three and five processes, with counters and with checks, in
/// parts and whole, with distances beyond a byte: every process holds the solution
/// one process finds, bit for bit, at the indices it keeps, its share of each part
/// (`PartByPart::owned`), and every index is some process's.
#[test]
fn split_solves_equal_the_whole() {
    let mut whole = parted_graph();
    whole.parts = std::iter::once(0..whole.size()).collect();
    for g in [parted_graph(), whole, long_chain()] {
        for search in [LossSearch::Counters, LossSearch::Checks] {
            let one = solve_within(&g, Dtm::MAX_PLIES, search, &Silent);
            for count in [2, 3, 5] {
                let (mut held, mut longest) = (0, 0);
                let owners = Owners::new(&g.parts, count);
                for (rank, s) in split(&g, count, search).into_iter().enumerate() {
                    let n = s.values.white.len() as u64;
                    match g.parts.len() {
                        1 => assert_eq!(s.first..s.first + n, owners.of(rank)[0]),
                        _ => assert_eq!(s.first..s.first + n, 0..g.size()),
                    }
                    for own in owners.of(rank) {
                        let at = own.start as usize..own.end as usize;
                        for side in Side::ALL {
                            let what = format!("{count} {search:?} side {side:?}");
                            let i = |at: &Range<usize>, s: &Solution| {
                                at.start - s.first as usize..at.end - s.first as usize
                            };
                            assert_eq!(
                                s.values[side][i(&at, &s)],
                                one.values[side][at.clone()],
                                "{what}"
                            );
                            for idx in own.clone() {
                                assert_eq!(s.is_illegal(side, idx), one.is_illegal(side, idx));
                                assert_eq!(s.exit_decides(side, idx), one.exit_decides(side, idx));
                                let same =
                                    |s: &Solution| bit(&s.exit_same_wdl[side], idx - s.first);
                                assert_eq!(same(&s), same(&one), "{what} index {idx}");
                                assert_eq!(s.value(side, idx), one.value(side, idx));
                            }
                            let listed = s.long[side].entries();
                            let ours = listed.iter().filter(|(i, _)| own.contains(i));
                            let theirs = one.long[side].entries().iter();
                            assert!(ours.eq(theirs.filter(|(i, _)| own.contains(i))));
                        }
                        held += own.end - own.start;
                    }
                    longest = longest.max(s.longest_exit);
                }
                assert_eq!(held, g.size(), "every index held once");
                assert_eq!(longest, one.longest_exit);
            }
        }
    }
}

/// `g` solved with counters and with checks.
fn both_ways(g: &Graph) -> [Solution; 2] {
    [LossSearch::Counters, LossSearch::Checks]
        .map(|search| solve_within(g, Dtm::MAX_PLIES, search, &Silent))
}

/// Solved whole, the same graph has the values its definition gives, and its best exits
/// are marked from their classes: fixed wins that a sooner move replaces, fixed losses
/// that hold out longer than every move inside, fixed draws.
#[test]
fn a_graph_solved_whole_matches_the_definition() {
    let mut g = parted_graph();
    g.parts = std::iter::once(0..g.size()).collect();
    let expected = g.oracle();
    for solution in both_ways(&g) {
        let mut seen = [0; 3];
        for (side, want) in Side::ALL.into_iter().zip(&expected) {
            for idx in 0..g.size() {
                let (v, _) = solution.value(side, idx);
                assert_eq!(v, want[idx as usize], "side {side:?} index {idx}");
                let best_fixed = g.best_fixed(side.index(), idx);
                assert_exits(&solution, side, idx, v, best_fixed);
                match (best_fixed, v) {
                    (Some(Dtm::Win(f)), Dtm::Win(p)) if p < f => seen[0] += 1,
                    (Some(Dtm::Loss(f)), Dtm::Loss(p)) if p == f && g.inside(side.index(), idx) => {
                        seen[1] += 1
                    }
                    (Some(Dtm::Draw), Dtm::Draw) => seen[2] += 1,
                    _ => {}
                }
            }
        }
        assert!(seen.iter().all(|&k| k > 5), "cases seen: {seen:?}");
    }
}

/// A best exit decides a position's class under the 50-move rule only when it wins,
/// draws or loses alike and is cursed (or blessed) alike.
#[test]
fn an_exit_has_the_class_only_if_cursed_alike() {
    let mut s = Solution::from_parts(BySide::new_with(|_| vec![0; 4]), Default::default());
    // Index 0: exit of another WDL; 1: same WDL; 2: same WDL, both cursed; 3: same
    // WDL, only the exit cursed.
    s.exit_same_wdl = BySide::from([vec![0b1110], vec![]]);
    s.cursed = BySide::from([vec![0b0100], vec![]]);
    s.exit_cursed = BySide::from([vec![0b1100], vec![]]);
    let class = |i| Wdl5::new(Wdl::Win, bit(&s.cursed.white, i));
    let has = |i| s.exit_has_class(Side::White, i, class(i));
    assert_eq!([0, 1, 2, 3].map(has), [false, true, true, false]);
    assert!(
        !s.exit_has_class(Side::Black, 1, Wdl5::Win),
        "an empty bitmap marks nothing"
    );
    // Draws are never cursed: the same WDL is the same class.
    assert!(s.exit_has_class(Side::White, 3, Wdl5::Draw));
}

/// A part's bitmap lands at its offset in the whole's, at every alignment.
#[test]
fn bits_move_to_their_offset() {
    let len = 300u64;
    let src = bitmap(len as usize, |i| i % 7 == 0 || i % 11 == 3);
    for offset in [0u64, 1, 63, 64, 65, 150, 191] {
        let mut dst = vec![1u64 << 63; (offset + len + 70).div_ceil(64) as usize];
        let before = dst.clone();
        or_bits_at(&mut dst, offset, &src);
        for i in 0..dst.len() as u64 * 64 {
            let moved = (offset..offset + len).contains(&i) && bit(&src, i - offset);
            assert_eq!(
                bit(&dst, i),
                moved || bit(&before, i),
                "offset {offset} bit {i}"
            );
        }
    }
}

#[test]
fn distances_beyond_a_byte_match_the_definition() {
    let g = long_chain();
    let expected = g.oracle();
    for solution in both_ways(&g) {
        let (mut longest, mut longest_exit) = (0, 0);
        for (side, want) in Side::ALL.into_iter().zip(&expected) {
            for idx in 0..g.size() {
                let (v, _) = solution.value(side, idx);
                assert_eq!(v, want[idx as usize], "side {side:?} index {idx}");
                longest = longest.max(v.plies().unwrap_or(0));
                let best_fixed = g.best_fixed(side.index(), idx);
                assert_exits(&solution, side, idx, v, best_fixed);
                longest_exit = longest_exit.max(best_fixed.and_then(Dtm::plies).unwrap_or(0));
            }
        }
        assert!(longest > 600, "the chain reaches {longest} plies");
        let beyond = |v: &Vec<Dtm>| {
            v.iter()
                .filter(|d| d.plies() > Some(Dtm::BYTE_PLIES))
                .count()
        };
        for ((_, long), want) in solution.long.iter().zip(&expected) {
            assert_eq!(long.len(), beyond(want));
        }
        assert!(longest_exit > 250, "exits listed apart are marked too");
        assert_eq!(solution.longest_exit, longest_exit);
    }
}

/// The exit marks of `idx`, of value `v`, say what its best fixed move `best_fixed`
/// gives: whether it reaches `v`, and whether it wins, draws or loses as `v` does.
fn assert_exits(solution: &Solution, side: Side, idx: u64, v: Dtm, best_fixed: Option<Dtm>) {
    assert_eq!(
        solution.exit_decides(side, idx),
        best_fixed == Some(v),
        "side {side:?} index {idx}"
    );
    assert_eq!(
        bit(&solution.exit_same_wdl[side], idx),
        best_fixed.map(Dtm::wdl) == Some(v.wdl()),
        "side {side:?} index {idx}"
    );
}

//! The generic solver on two games that are not chess, each checked position by position
//! against a search written apart from it: tic-tac-toe (no cycles, draws by a full board)
//! and a cop chasing a robber on a grid (cycles everywhere, draws by evasion for ever).

use retrobook::progress::Silent;
use retrobook::retro::{solve, RetroGame, Successor};
use retrobook::{Dtm, Side};
use std::collections::HashMap;

/// Orders values as the side to move prefers them: faster wins first, slower losses last.
fn key(v: Dtm) -> (u8, i64) {
    match v {
        Dtm::Win(p) => (2, -i64::from(p)),
        Dtm::Draw => (1, 0),
        Dtm::Loss(p) => (0, i64::from(p)),
    }
}

/// The value of a move into a position of value `v`, for the side that makes it.
fn back(v: Dtm) -> Dtm {
    match v {
        Dtm::Win(p) => Dtm::Loss(p + 1),
        Dtm::Draw => Dtm::Draw,
        Dtm::Loss(p) => Dtm::Win(p + 1),
    }
}

/// Tic-tac-toe. Index: the nine cells in base 3 (0 empty, 1 X, 2 O), cell 0 least
/// significant. Side 0 is X to move (as many X as O), side 1 is O to move (one X more).
/// The side to move has lost when the other has three in a row, and drawn when the board
/// is full.
struct TicTacToe;

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

fn cells(idx: u64) -> [u8; 9] {
    let mut c = [0u8; 9];
    let mut x = idx;
    for cell in &mut c {
        *cell = (x % 3) as u8;
        x /= 3;
    }
    c
}

fn index(c: &[u8; 9]) -> u64 {
    c.iter().rev().fold(0, |i, &v| i * 3 + u64::from(v))
}

fn has_line(c: &[u8; 9], mark: u8) -> bool {
    LINES.iter().any(|l| l.iter().all(|&i| c[i] == mark))
}

/// The mark of the side to move and of the other side.
fn marks(side: usize) -> (u8, u8) {
    if side == 0 {
        (1, 2)
    } else {
        (2, 1)
    }
}

/// Whether `c` may stand with `side` to move: the counts agree, and the side to move has
/// no line (the game would have ended before its turn).
fn legal(side: usize, c: &[u8; 9]) -> bool {
    let count = |m| c.iter().filter(|&&v| v == m).count();
    let (x, o) = (count(1), count(2));
    let turn_ok = if side == 0 { x == o } else { x == o + 1 };
    turn_ok && !has_line(c, marks(side).0)
}

impl RetroGame for TicTacToe {
    fn size(&self) -> u64 {
        3u64.pow(9)
    }

    fn successors(&self, side: Side, idx: u64, f: &mut impl FnMut(Successor)) -> Option<Dtm> {
        let side = side.index();
        let c = cells(idx);
        if !legal(side, &c) {
            return None;
        }
        let (mine, theirs) = marks(side);
        if has_line(&c, theirs) {
            return Some(Dtm::Loss(0));
        }
        for i in 0..9 {
            if c[i] == 0 {
                let mut next = c;
                next[i] = mine;
                f(Successor::Table(index(&next)));
            }
        }
        Some(Dtm::Draw)
    }

    fn predecessors(&self, side: Side, idx: u64, f: &mut impl FnMut(u64, Option<Dtm>)) {
        let side = side.index();
        let c = cells(idx);
        let (mine, theirs) = marks(side);
        for i in 0..9 {
            if c[i] == theirs {
                let mut before = c;
                before[i] = 0;
                // Played from a position where the game went on: its mover had no line,
                // nor had the side to move here.
                if legal(1 - side, &before) && !has_line(&before, mine) {
                    f(index(&before), None);
                }
            }
        }
    }
}

/// Negamax over boards, memoised: the oracle for tic-tac-toe.
fn tictactoe_search(c: [u8; 9], side: usize, memo: &mut HashMap<([u8; 9], usize), Dtm>) -> Dtm {
    if let Some(&v) = memo.get(&(c, side)) {
        return v;
    }
    let (mine, theirs) = marks(side);
    let v = if has_line(&c, theirs) {
        Dtm::Loss(0)
    } else {
        let mut best: Option<Dtm> = None;
        for i in 0..9 {
            if c[i] == 0 {
                let mut next = c;
                next[i] = mine;
                let v = back(tictactoe_search(next, 1 - side, memo));
                if best.is_none_or(|b| key(v) > key(b)) {
                    best = Some(v);
                }
            }
        }
        best.unwrap_or(Dtm::Draw)
    };
    memo.insert((c, side), v);
    v
}

#[test]
fn tictactoe_equals_a_negamax_search_on_every_legal_position() {
    let solution = solve(&TicTacToe, &Silent);
    let mut memo = HashMap::new();
    let (mut legal_positions, mut won, mut lost) = (0, 0, 0);
    for side in 0..2 {
        let turn = Side::from_index(side);
        for idx in 0..TicTacToe.size() {
            let c = cells(idx);
            assert_eq!(solution.is_illegal(turn, idx), !legal(side, &c), "{c:?}");
            if !legal(side, &c) {
                continue;
            }
            legal_positions += 1;
            let (value, _) = solution.value(turn, idx);
            assert_eq!(
                value,
                tictactoe_search(c, side, &mut memo),
                "{c:?} side {side}"
            );
            won += usize::from(matches!(value, Dtm::Win(_)));
            lost += usize::from(matches!(value, Dtm::Loss(_)));
        }
    }
    assert!(won > 0 && lost > 0 && legal_positions > won + lost);
    // Perfect play draws; a corner answered on an edge loses (X mates in 5 more plies).
    assert_eq!(solution.value(Side::White, 0).0, Dtm::Draw);
    let mut c = [0u8; 9];
    c[0] = 1;
    c[1] = 2;
    assert_eq!(solution.value(Side::White, index(&c)).0, Dtm::Win(5));
}

/// The positions reached from the empty board by the moves `successors` reports: 5,478, the
/// published count of tic-tac-toe's positions.
#[test]
fn tictactoe_reaches_its_published_number_of_positions() {
    let mut seen = vec![[false; 2]; TicTacToe.size() as usize];
    let mut stack = vec![(0usize, 0u64)];
    seen[0][0] = true;
    let mut count = 0;
    while let Some((side, idx)) = stack.pop() {
        count += 1;
        TicTacToe.successors(Side::from_index(side), idx, &mut |s| {
            let Successor::Table(next) = s else {
                panic!("tic-tac-toe has only moves inside the graph")
            };
            if !seen[next as usize][1 - side] {
                seen[next as usize][1 - side] = true;
                stack.push((1 - side, next));
            }
        });
    }
    assert_eq!(count, 5478);
}

/// A cop and a robber on a 4x4 grid, moving a step up, down, left or right or staying put,
/// the cop first. The cop wins by stepping onto the robber; the robber may not step onto
/// the cop. Index: cop's square times 16 plus the robber's. Side 0 is the cop to move
/// (never on the robber's square), side 1 the robber (caught, and lost, when they share
/// one). One cop cannot catch a robber on a grid that keeps away: most positions are drawn
/// by evasion round and round.
struct CopAndRobber;

const N: u64 = 4;

fn steps(sq: u64) -> impl Iterator<Item = u64> {
    let (x, y) = ((sq % N) as i64, (sq / N) as i64);
    [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)]
        .into_iter()
        .map(move |(dx, dy)| (x + dx, y + dy))
        .filter(|&(x, y)| (0..N as i64).contains(&x) && (0..N as i64).contains(&y))
        .map(|(x, y)| (y * N as i64 + x) as u64)
}

impl RetroGame for CopAndRobber {
    fn size(&self) -> u64 {
        N * N * N * N
    }

    fn successors(&self, side: Side, idx: u64, f: &mut impl FnMut(Successor)) -> Option<Dtm> {
        let side = side.index();
        let (cop, robber) = (idx / (N * N), idx % (N * N));
        match side {
            0 if cop == robber => None,
            0 => {
                steps(cop).for_each(|c| f(Successor::Table(c * N * N + robber)));
                Some(Dtm::Draw)
            }
            _ if cop == robber => Some(Dtm::Loss(0)),
            _ => {
                steps(robber)
                    .filter(|&r| r != cop)
                    .for_each(|r| f(Successor::Table(cop * N * N + r)));
                Some(Dtm::Draw)
            }
        }
    }

    fn predecessors(&self, side: Side, idx: u64, f: &mut impl FnMut(u64, Option<Dtm>)) {
        let side = side.index();
        let (cop, robber) = (idx / (N * N), idx % (N * N));
        if side == 1 {
            // The cop moved here, from a square other than the robber's.
            steps(cop)
                .filter(|&c| c != robber)
                .for_each(|c| f(c * N * N + robber, None));
        } else {
            // The robber moved here, from a square other than the cop's.
            steps(robber)
                .filter(|&r| r != cop)
                .for_each(|r| f(cop * N * N + r, None));
        }
    }
}

/// Values found by searching every position to a growing depth (a win within d plies if a
/// move reaches a loss within d - 1; a loss within d if every move reaches a win within
/// d - 1), until a whole depth adds nothing: what is left undecided is drawn.
fn cop_and_robber_search() -> [Vec<Dtm>; 2] {
    let n = (N * N) as usize;
    let moves = |side: usize, cop: u64, robber: u64| -> Vec<(u64, u64)> {
        if side == 0 {
            steps(cop).map(|c| (c, robber)).collect()
        } else {
            steps(robber)
                .filter(|&r| r != cop)
                .map(|r| (cop, r))
                .collect()
        }
    };
    let mut value: [Vec<Option<Dtm>>; 2] = [vec![None; n * n], vec![None; n * n]];
    for sq in 0..n {
        value[1][sq * n + sq] = Some(Dtm::Loss(0));
    }
    for depth in 1.. {
        let mut found = vec![];
        for side in 0..2 {
            for cop in 0..N * N {
                for robber in 0..N * N {
                    let i = (cop * N * N + robber) as usize;
                    if value[side][i].is_some() || side == 0 && cop == robber {
                        continue;
                    }
                    let after: Vec<Option<Dtm>> = moves(side, cop, robber)
                        .into_iter()
                        .map(|(c, r)| value[1 - side][(c * N * N + r) as usize])
                        .collect();
                    let within = |v: &Option<Dtm>, loss: bool| match v {
                        Some(Dtm::Loss(p)) => loss && *p < depth,
                        Some(Dtm::Win(p)) => !loss && *p < depth,
                        _ => false,
                    };
                    if after.iter().any(|v| within(v, true)) {
                        found.push((side, i, Dtm::Win(depth)));
                    } else if after.iter().all(|v| within(v, false)) {
                        found.push((side, i, Dtm::Loss(depth)));
                    }
                }
            }
        }
        if found.is_empty() {
            break;
        }
        for (side, i, v) in found {
            value[side][i] = Some(v);
        }
    }
    value.map(|side| side.into_iter().map(|v| v.unwrap_or(Dtm::Draw)).collect())
}

#[test]
fn cop_and_robber_equals_a_search_to_every_depth_on_every_position() {
    let solution = solve(&CopAndRobber, &Silent);
    let expected = cop_and_robber_search();
    let mut count = HashMap::new();
    for (side, expected) in Side::ALL.into_iter().zip(&expected) {
        for idx in 0..CopAndRobber.size() {
            let illegal = side == Side::White && idx / (N * N) == idx % (N * N);
            assert_eq!(
                solution.is_illegal(side, idx),
                illegal,
                "side {side:?} index {idx}"
            );
            if illegal {
                continue;
            }
            let (value, _) = solution.value(side, idx);
            assert_eq!(value, expected[idx as usize], "side {side:?} index {idx}");
            *count.entry(key(value).0).or_insert(0) += 1;
        }
    }
    // Wins, losses and draws all occur.
    assert!(count.len() == 3, "{count:?}");
    // A robber two steps straight from the cop, the cop to move, escapes for ever.
    assert_eq!(solution.value(Side::White, 5 * N * N + 7).0, Dtm::Draw);
    // The cop next to the robber, the cop to move: caught at once.
    assert_eq!(solution.value(Side::White, 5 * N * N + 6).0, Dtm::Win(1));
}

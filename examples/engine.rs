//! A small chess engine that probes retrobook tables at the leaves of its search: negamax
//! with alpha-beta pruning, a transposition table and iterative deepening, the textbook
//! design. With distance-to-mate at the leaves, even a shallow search plays every won
//! endgame position along the shortest mate. A position the tables hold is not searched:
//! its move is the first of `Tablebase::probe_root_clock`, ranked from the FEN's move
//! count, which keeps every win the 50-move rule allows (the fastest mate among the moves
//! that do), as engines play Syzygy's root moves.
//!
//! ```text
//! cargo run --release --example engine -- TABLES FEN [DEPTH]
//! ```
//! prints the best move in UCI notation and its score (mate in n moves, or a draw).

use retrobook::chess::{Move, MoveList, Position};
use retrobook::{Dtm, Tablebase};
use std::collections::HashMap;

/// Score of giving mate now; a mate `n` plies from the root scores `MATE - n`.
const MATE: i32 = 30_000;
/// Scores beyond this are mate scores.
const MATE_BOUND: i32 = MATE - 1_000;
const INFINITY: i32 = MATE + 1;

#[derive(Copy, Clone, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Copy, Clone)]
struct Entry {
    depth: u32,
    score: i32,
    bound: Bound,
    best: Option<Move>,
}

/// The search: the tables, its transposition table and a node count.
pub struct Engine<'a> {
    tb: &'a Tablebase,
    tt: HashMap<Position, Entry>,
    nodes: u64,
}

/// Mate scores are stored relative to the node, so that an entry holds wherever the node
/// is met again in the tree.
fn to_tt(score: i32, ply: i32) -> i32 {
    match score {
        s if s > MATE_BOUND => s + ply,
        s if s < -MATE_BOUND => s - ply,
        s => s,
    }
}

fn from_tt(score: i32, ply: i32) -> i32 {
    match score {
        s if s > MATE_BOUND => s - ply,
        s if s < -MATE_BOUND => s + ply,
        s => s,
    }
}

/// The table value `dtm` of a position `ply` plies from the root, as a score.
fn dtm_score(dtm: Dtm, ply: i32) -> i32 {
    match dtm {
        Dtm::Win(p) => MATE - ply - p as i32,
        Dtm::Loss(p) => -(MATE - ply - p as i32),
        Dtm::Draw => 0,
    }
}

/// A score as people read it.
pub fn describe(score: i32) -> String {
    match score {
        s if s > MATE_BOUND => format!("mate in {} ({} plies)", (MATE - s + 1) / 2, MATE - s),
        s if s < -MATE_BOUND => format!("mated in {} ({} plies)", (MATE + s) / 2, MATE + s),
        0 => "draw".into(),
        s => format!("{s} (material)"),
    }
}

/// Material balance from the side to move's view, for leaves outside the tables.
fn material(pos: &Position) -> i32 {
    use retrobook::chess::Role;
    const VALUES: [(Role, i32); 5] = [
        (Role::Pawn, 100),
        (Role::Knight, 300),
        (Role::Bishop, 300),
        (Role::Rook, 500),
        (Role::Queen, 900),
    ];
    let us = pos.turn();
    VALUES
        .iter()
        .map(|&(r, v)| v * (pos.pieces(us, r).count() as i32 - pos.pieces(!us, r).count() as i32))
        .sum()
}

/// The transposition key: the position without its move clocks.
fn key(pos: &Position) -> Position {
    let mut k = *pos;
    k.set_clocks(0, 1);
    k
}

impl<'a> Engine<'a> {
    /// An engine probing `tb`.
    pub fn new(tb: &'a Tablebase) -> Engine<'a> {
        Engine {
            tb,
            tt: HashMap::new(),
            nodes: 0,
        }
    }

    /// The tables' move for the root `pos`, from its move count, and its score: a win the
    /// count spoils scores a draw. None outside the tables. `repeated`: a position came
    /// back since the last capture or pawn move.
    pub fn root_move(&self, pos: &Position, repeated: bool) -> Option<(Move, i32)> {
        let first = *self.tb.probe_root_clock(pos, repeated).ok()?.first()?;
        let score = match first.root_outcome {
            retrobook::Wdl::Draw => 0,
            _ => dtm_score(first.root_dtm, 0),
        };
        Some((first.mv, score))
    }

    /// The best move of `pos` and its score: the tables' root move where they hold the
    /// position, else a search to `max_depth` plies by iterative deepening. None if the
    /// position has no legal move.
    pub fn best(&mut self, pos: &Position, max_depth: u32) -> Option<(Move, i32)> {
        self.root_move(pos, false)
            .or_else(|| self.search(pos, max_depth))
    }

    /// Searches to `max_depth` plies by iterative deepening; returns the best move and its
    /// score, or None if the position has no legal move.
    pub fn search(&mut self, pos: &Position, max_depth: u32) -> Option<(Move, i32)> {
        let mut best = None;
        for depth in 1..=max_depth {
            let score = self.negamax(pos, depth, -INFINITY, INFINITY, 0);
            let mv = self.tt.get(&key(pos)).and_then(|e| e.best);
            best = mv.map(|m| (m, score));
        }
        best
    }

    fn leaf(&self, pos: &Position, ply: i32) -> i32 {
        match self.tb.probe_dtm(pos) {
            Ok(dtm) => dtm_score(dtm, ply),
            Err(_) => material(pos),
        }
    }

    fn negamax(&mut self, pos: &Position, depth: u32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        self.nodes += 1;
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        if list.is_empty() {
            return if pos.is_check() { -(MATE - ply) } else { 0 };
        }
        if depth == 0 {
            return self.leaf(pos, ply);
        }
        let k = key(pos);
        let mut tt_move = None;
        if let Some(e) = self.tt.get(&k) {
            tt_move = e.best;
            if e.depth >= depth {
                let s = from_tt(e.score, ply);
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if usable {
                    return s;
                }
            }
        }
        // The move that was best before is searched first: it makes cut-offs early.
        let mut moves: Vec<Move> = list.as_slice().to_vec();
        if let Some(t) = tt_move {
            if let Some(i) = moves.iter().position(|m| *m == t) {
                moves.swap(0, i);
            }
        }
        let alpha_in = alpha;
        let mut best_score = -INFINITY;
        let mut best_move = None;
        for m in &moves {
            let score = -self.negamax(&pos.play(m), depth - 1, -beta, -alpha, ply + 1);
            if score > best_score {
                best_score = score;
                best_move = Some(*m);
            }
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best_score <= alpha_in {
            Bound::Upper
        } else if best_score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.tt.insert(
            k,
            Entry {
                depth,
                score: to_tt(best_score, ply),
                bound,
                best: best_move,
            },
        );
        best_score
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: engine TABLES FEN [DEPTH]");
        std::process::exit(2);
    }
    let tb = Tablebase::open(&args[0]).unwrap_or_else(|e| {
        eprintln!("engine: {e}");
        std::process::exit(1)
    });
    let pos: Position = args[1].parse().unwrap_or_else(|e| {
        eprintln!("engine: invalid FEN {:?}: {e}", args[1]);
        std::process::exit(1)
    });
    let depth = args.get(2).and_then(|d| d.parse().ok()).unwrap_or(3);
    let mut engine = Engine::new(&tb);
    match engine.best(&pos, depth) {
        Some((m, score)) => println!(
            "bestmove {m} score {} nodes {}",
            describe(score),
            engine.nodes
        ),
        None => println!("no legal move"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrobook::generate::Session;
    use retrobook::material::Material;
    use retrobook::progress::Silent;
    use retrobook::Side;

    /// Plays `start` out: the engine (searching `depth` plies) for the winning side, the
    /// table's best defence (the longest loss) for the other; returns the plies to mate.
    fn play_out(tb: &Tablebase, start: &Position, depth: u32) -> u32 {
        let winner = match tb.probe_dtm(start).unwrap() {
            Dtm::Win(_) => start.turn(),
            Dtm::Loss(_) => !start.turn(),
            Dtm::Draw => panic!("{start} is a draw"),
        };
        let mut engine = Engine::new(tb);
        let mut pos = *start;
        for plies in 0..300 {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                assert!(pos.is_check() && pos.turn() != winner, "{pos}: not a mate");
                return plies;
            }
            let m = if pos.turn() == winner {
                engine.search(&pos, depth).unwrap().0
            } else {
                tb.best_moves(&pos).unwrap()[0].0
            };
            pos = pos.play(&m);
        }
        panic!("no mate in 300 plies from {start}");
    }

    /// The engine mates in exactly the table's distance, from the table's longest mate and
    /// from a spread of other won positions, with either colour winning.
    fn mates_in_table_distance(tb: &Tablebase, sig: &str, samples: u64) {
        let m: Material = sig.parse().unwrap();
        let table = tb.table(&m).unwrap();
        let index = table.index();
        let stats = table.header().stats;
        let longest = index
            .decode(stats.max_index, Side::from_index(stats.max_side as usize))
            .unwrap();
        let mut starts = vec![longest];
        let step = index.size() / samples;
        for i in 0..samples {
            let Some(p) = index.decode(i * step + 7, Side::from_index((i % 2) as usize)) else {
                continue;
            };
            if p.validate().is_ok() && tb.probe_dtm(&p).unwrap() != Dtm::Draw {
                starts.push(p);
            }
        }
        let flipped: Vec<Position> = starts.iter().map(|p| p.color_flipped()).collect();
        starts.extend(flipped);
        assert!(starts.len() >= samples as usize, "{sig}: few starts");
        for start in &starts {
            let want = tb.probe_dtm(start).unwrap().plies().unwrap();
            assert_eq!(play_out(tb, start, 2), want, "{sig}: {start}");
        }
        assert_eq!(
            tb.probe_dtm(&longest).unwrap().plies(),
            Some(stats.max_plies)
        );
    }

    /// From won positions each given a move count that leaves its distance to zeroing
    /// just room, the root move mates before the count reaches 100 (a reset in time
    /// starts it again); the search's own
    /// choice (the shortest mate, blind to the count) lets the rule draw some such games.
    fn root_moves_beat_the_count(tb: &Tablebase, starts: &[Position]) {
        let mut spoilt_by_search = 0;
        for start in starts {
            let dtz = tb.probe_dtz(start).unwrap().0;
            if !(1..=100).contains(&dtz) {
                continue;
            }
            let mut timed = *start;
            timed.set_clocks(100 - dtz as u32, 1);
            for by_root in [true, false] {
                let mut engine = Engine::new(tb);
                let mut pos = timed;
                let mated = loop {
                    if !pos.has_legal_move() {
                        break pos.is_check();
                    }
                    if pos.halfmoves() >= 100 {
                        break false;
                    }
                    let m = match (pos.turn() == timed.turn(), by_root) {
                        (true, true) => engine.root_move(&pos, false).unwrap().0,
                        (true, false) => engine.search(&pos, 2).unwrap().0,
                        (false, _) => tb.probe_root_clock(&pos, false).unwrap()[0].mv,
                    };
                    pos = pos.play(&m);
                };
                match by_root {
                    true => assert!(mated, "{timed}: the win slipped to the count"),
                    false => spoilt_by_search += u32::from(!mated),
                }
            }
        }
        assert!(spoilt_by_search > 0, "the shortest mates all fit the count");
    }

    #[test]
    fn mates_kqk_krk_kbnk_in_exactly_the_table_distance() {
        let dir = tempfile::tempdir().unwrap();
        let targets: Vec<Material> = ["KQvK", "KRvK", "KBNvK", "KPvK"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let tb = Session::open(dir.path(), &targets)
            .build_all(&Default::default(), &Silent)
            .unwrap();
        mates_in_table_distance(&tb, "KQvK", 20);
        mates_in_table_distance(&tb, "KRvK", 20);
        mates_in_table_distance(&tb, "KBNvK", 12);
        // KPvK: a pawn move resets the count, so the shortest mate is not always in time.
        let m: Material = "KPvK".parse().unwrap();
        let index = tb.table(&m).unwrap().index();
        let starts: Vec<Position> = (0..400)
            .filter_map(|i| index.decode(i * 211 + 3, Side::White))
            .filter(|p| p.validate().is_ok() && tb.probe_dtm(p).unwrap() != Dtm::Draw)
            .collect();
        root_moves_beat_the_count(&tb, &starts);
    }
}

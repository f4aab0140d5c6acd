//! Table answers in the shape of the Lichess tablebase API (`/standard`,
//! `/standard/mainline`), so that clients written for it read ours. `dtm` is in plies,
//! signed from the side to move's view (positive: it mates; negative: it is mated; null: a
//! draw). `dtz` is the distance to zeroing in plies with the move count at zero, signed the
//! same way (0: a draw), and always exact, so `precise_dtz` is the same number. `category`
//! is the value under the 50-move rule from the FEN's move count: win, cursed-win (won,
//! but not in the plies left), draw, blessed-loss or loss, and `unknown` outside the tables
//! (the metrics null), as lila-tablebase answers. Each move's values are those of the
//! position it leads to, for the side to move there, its count one more or reset.

use super::responses::{
    Category, Facts, MainlineResponse, MainlineStep, StandardMove, StandardResponse,
};
use retrobook::chess::{Move, MoveList, Position};
use retrobook::probe::{PositionReport, ProbeError, Tablebase};
use retrobook::{Dtz, Wdl};
use std::cmp::Reverse;

/// `r`, or None where the tables do not cover the position (castling rights, more pieces
/// than any table, a table not built), which Lichess answers as `unknown`.
fn known<T>(r: Result<T, ProbeError>) -> Result<Option<T>, ProbeError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_outside_the_tables() => Ok(None),
        Err(e) => Err(e),
    }
}

/// What the API says of a position, besides its moves: its report (the position asked
/// about, `before` None, or one a move made with the count at `before` leads to:
/// `Tablebase::report`, `report_after`). Outside the tables the metrics are null and the
/// category `unknown`, but where the board alone decides (a mate, a stalemate, material
/// that cannot mate), as lila-tablebase gives them.
fn facts(
    pos: &Position,
    before: Option<u32>,
    report: Result<PositionReport, ProbeError>,
) -> Result<Facts, ProbeError> {
    let facts = |checkmate, stalemate, insufficient_material, category| Facts {
        checkmate,
        stalemate,
        variant_win: false,
        variant_loss: false,
        insufficient_material,
        dtz: None,
        precise_dtz: None,
        dtm: None,
        dtw: None,
        dtc: None,
        category,
    };
    Ok(match known(report)? {
        Some(r) => Facts {
            dtz: Some(r.dtz.0),
            precise_dtz: Some(r.dtz.0),
            dtm: r.dtm.signed_plies(),
            ..facts(
                r.checkmate,
                r.stalemate,
                r.insufficient_material,
                r.category.into(),
            )
        },
        None => {
            let checkmate = pos.is_checkmate();
            let stalemate = !checkmate && !pos.has_legal_move();
            let insufficient_material = pos.is_insufficient_material();
            let category = match () {
                _ if stalemate || insufficient_material => Category::Draw,
                // Outside the tables a mate is valued still: Syzygy's -1, from the count.
                _ if checkmate => Dtz(-1).class_by(before, pos.halfmoves(), true).into(),
                _ => Category::Unknown,
            };
            facts(checkmate, stalemate, insufficient_material, category)
        }
    })
}

/// A move of `pos` with the facts of the position it leads to.
fn standard_move(tb: &Tablebase, pos: &Position, m: &Move) -> Result<StandardMove, ProbeError> {
    Ok(StandardMove {
        uci: m.to_string(),
        san: pos.san(m),
        zeroing: m.is_zeroing(),
        conversion: m.is_conversion(),
        facts: facts(&pos.play(m), Some(pos.halfmoves()), tb.report_after(pos, m))?,
    })
}

/// Lichess's order of the moves of a position outside the tables: by the value each leaves
/// the opponent (what is not known after a loss), mates, then stalemates, then (among
/// equal values) a winner's conversion or reset first and a loser's last, the longest
/// distance to zeroing first, then captures and promotions of the greatest piece.
fn lichess_order(m: &Move, standard: &StandardMove) -> impl Ord {
    let f = &standard.facts;
    let positive = f.category.is_positive();
    (
        (f.category, Reverse(f.checkmate)),
        (Reverse(f.stalemate), Reverse(f.insufficient_material)),
        standard.conversion ^ !positive,
        (standard.zeroing ^ !positive, f.dtz.map(Reverse)),
        (Reverse(m.capture), Reverse(m.promotion)),
    )
}

/// `/standard`: the position's value and every legal move's, in the order of play from the
/// FEN's move count (`Tablebase::probe_root_clock`); each move's values are those of the
/// position it leads to, for the side to move there, as Lichess gives them. Outside the
/// tables, in Lichess's order (`lichess_order`), the position's value the best move's.
pub fn position(tb: &Tablebase, pos: &Position) -> Result<StandardResponse, ProbeError> {
    let mut facts = facts(pos, None, tb.report(pos))?;
    let mut moves = Vec::new();
    match known(tb.probe_root_clock(pos, false))? {
        Some(ranked) => {
            for r in ranked {
                moves.push(standard_move(tb, pos, &r.mv)?);
            }
        }
        None => {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            let mut all = Vec::new();
            for m in list.as_slice() {
                all.push((*m, standard_move(tb, pos, m)?));
            }
            all.sort_by_cached_key(|(m, standard)| lichess_order(m, standard));
            moves = all.into_iter().map(|(_, standard)| standard).collect();
            if let Some(best) = moves.first() {
                facts.category = best.facts.category.flipped();
            }
        }
    }
    Ok(StandardResponse { facts, moves })
}

/// `/standard/mainline?line=dtm`: the line of play from the FEN's move count to mate, each side
/// playing the first move `probe_root_clock` ranks (the winner the fastest mate that keeps
/// the win, the loser the longest resistance), each step with the distances of the position
/// it leads to, for the side to move there; empty when the position is drawn from its count
/// (a cursed win or blessed loss included). `winner` is the side that mates where the line
/// ends ("w" or "b"), as Lichess says it: null for a draw, and the mating side of a position
/// already mated, whatever its count.
pub fn mainline_to_mate(tb: &Tablebase, pos: &Position) -> Result<MainlineResponse, ProbeError> {
    let report = tb.report(pos)?;
    let (dtm, dtz) = (report.dtm, report.dtz);
    // A position already mated is lost whatever its count, and its line is empty.
    let winner = match report.outcome() {
        Wdl::Win => pos.turn(),
        Wdl::Loss => !pos.turn(),
        Wdl::Draw => {
            return Ok(MainlineResponse {
                dtm: dtm.signed_plies(),
                dtz: dtz.0,
                precise_dtz: dtz.0,
                winner: None,
                mainline: Vec::new(),
            })
        }
    };
    let mut at = *pos;
    let mut steps = Vec::new();
    // Every move keeps the win under the count, so a reset (a capture, one of the at most
    // six steps of each pawn) or the mate comes within every 100 plies; a longer line is a
    // table at fault.
    let pawns = pos.by_role(retrobook::chess::Role::Pawn).count() as usize;
    let bound = 101 * (pos.occupied().count() as usize + 6 * pawns);
    while let Some(first) = tb.probe_root_clock(&at, false)?.first().copied() {
        if steps.len() > bound || first.root_outcome == Wdl::Draw {
            return Err(ProbeError::Inconsistent {
                fen: at.to_string(),
            });
        }
        let after = at.play(&first.mv);
        steps.push(step(&at, &first.mv, &after, tb)?);
        at = after;
    }
    Ok(MainlineResponse {
        dtm: dtm.signed_plies(),
        dtz: dtz.0,
        precise_dtz: dtz.0,
        winner: Some(winner.fen_char().to_string()),
        mainline: steps,
    })
}

/// `/standard/mainline`: Lichess's line (lila-tablebase's, by shakmaty-syzygy's best move):
/// where the position is not a draw with the count at zero, each side plays the move that
/// keeps its best class under the rule (counted from zero), a mate first, then the winner a
/// reset before any other move and the loser any other before a reset, then the least
/// distance to zeroing for the winner and the greatest for the loser, a tie going to the
/// move Lichess generates first (`generated_order`); the line stops when the count reaches
/// 100 or no move is left. Each step has the distances of the position it leads to, for
/// the side to move there; `winner` is the side that mates where the line ends, if it
/// does.
pub fn mainline(tb: &Tablebase, pos: &Position) -> Result<MainlineResponse, ProbeError> {
    let report = tb.report(pos)?;
    let mut at = *pos;
    let mut steps = Vec::new();
    if report.dtz.0 != 0 {
        while at.halfmoves() < 100 {
            let Some((m, after)) = lichess_best_move(tb, &at)? else {
                break;
            };
            steps.push(step(&at, &m, &after, tb)?);
            at = after;
        }
    }
    Ok(MainlineResponse {
        dtm: report.dtm.signed_plies(),
        dtz: report.dtz.0,
        precise_dtz: report.dtz.0,
        winner: at
            .is_checkmate()
            .then(|| (!at.turn()).fen_char().to_string()),
        mainline: steps,
    })
}

/// A step of a line: move `m` of `at`, which leads to `after`, with `after`'s distances.
fn step(
    at: &Position,
    m: &Move,
    after: &Position,
    tb: &Tablebase,
) -> Result<MainlineStep, ProbeError> {
    let dtz = tb.probe_dtz(after)?.0;
    Ok(MainlineStep {
        uci: m.to_string(),
        san: at.san(m),
        dtm: tb.probe_dtm(after)?.signed_plies(),
        dtz,
        precise_dtz: dtz,
    })
}

/// The move of `pos` Lichess's line plays (see `mainline`), with the position it leads
/// to; None where `pos` has no move. Each move costs one probe, of its position's distance
/// to zeroing, which gives the class with the count at zero too.
fn lichess_best_move(
    tb: &Tablebase,
    pos: &Position,
) -> Result<Option<(Move, Position)>, ProbeError> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut moves = list.as_slice().to_vec();
    let in_check = pos.is_check();
    moves.sort_by_key(|m| generated_order(in_check, m));
    let mut valued = Vec::with_capacity(moves.len());
    for m in moves {
        let after = pos.play(&m);
        let dtz = tb.probe_dtz(&after)?;
        valued.push((m, after, dtz, dtz.class_at(0, false)));
    }
    // The opponent's class after the move, the count at zero: the least is the best.
    let Some(best) = valued.iter().map(|v| v.3).min() else {
        return Ok(None);
    };
    let chosen = (valued.into_iter())
        .filter(|v| v.3 == best)
        .min_by_key(|(m, after, dtz, _)| {
            let mates = dtz.0 == -1 && after.is_checkmate();
            let winning = dtz.0 < 0;
            (Reverse(mates), m.is_zeroing() ^ winning, Reverse(dtz.0))
        });
    Ok(chosen.map(|(m, after, _, _)| (m, after)))
}

/// Where shakmaty's move generator, which Lichess's ties go by, lists move `m` of `pos`:
/// en passant first; then, out of check, pawn captures toward the a-file, then toward the
/// h-file, pushes, double pushes, the knights', bishops', rooks' and queens' moves, the
/// king's, and castling on the king's side and the queen's; in check, the king's moves
/// right after en passant (`in_check`: the side to move is). Pieces by square, each
/// piece's moves by square; a pawn's moves to the last rank after its others, promoting to
/// a queen, rook, bishop, then knight.
fn generated_order(in_check: bool, m: &Move) -> (u8, u8, u8, u8) {
    use retrobook::chess::{MoveKind, Role};
    let king_group = if in_check { 1 } else { 10 };
    let last_rank = u8::from(matches!(m.to.rank(), 0 | 7));
    let promotion = match m.promotion {
        None | Some(Role::Queen) => 0,
        Some(Role::Rook) => 1,
        Some(Role::Bishop) => 2,
        Some(_) => 3,
    };
    let (from, to) = (m.from.index() as u8, m.to.index() as u8);
    match (m.kind, m.role) {
        (MoveKind::EnPassant, _) => (0, from, 0, 0),
        (MoveKind::CastleKing, _) => (11, 0, 0, 0),
        (MoveKind::CastleQueen, _) => (12, 0, 0, 0),
        (MoveKind::DoublePush, _) => (5, to, 0, 0),
        (_, Role::Pawn) => {
            let group = match m.to.file().cmp(&m.from.file()) {
                std::cmp::Ordering::Less => 2,
                std::cmp::Ordering::Greater => 3,
                std::cmp::Ordering::Equal => 4,
            };
            (group, last_rank, to, promotion)
        }
        (_, Role::Knight) => (6, from, to, 0),
        (_, Role::Bishop) => (7, from, to, 0),
        (_, Role::Rook) => (8, from, to, 0),
        (_, Role::Queen) => (9, from, to, 0),
        (_, Role::King) => (king_group, to, 0, 0),
    }
}

//! Table answers in the shape of the Lichess tablebase API (`/standard`,
//! `/standard/mainline`), so that clients written for it read ours. `dtm` is in plies,
//! signed from the side to move's view (positive: it mates; negative: it is mated; null: a
//! draw). `dtz` is the distance to zeroing in plies with the move count at zero, signed the
//! same way (0: a draw), and always exact, so `precise_dtz` is the same number. `category`
//! is the value under the 50-move rule from the FEN's move count: win, cursed-win (won,
//! but not in the plies left), draw, blessed-loss or loss. Each move's values are those of
//! the position it leads to, for the side to move there, its count one more or reset.

use super::responses::{Facts, MainlineResponse, MainlineStep, StandardMove, StandardResponse};
use retrobook::chess::{MoveList, Position};
use retrobook::probe::{ProbeError, Tablebase};
use retrobook::{Dtm, Wdl};

/// A distance as the API gives it: signed plies, null for a draw.
fn signed(d: Dtm) -> Option<i64> {
    match d {
        Dtm::Win(p) => Some(i64::from(p)),
        Dtm::Loss(p) => Some(-i64::from(p)),
        Dtm::Draw => None,
    }
}

/// What the API says of any position, besides its moves.
fn facts(tb: &Tablebase, pos: &Position) -> Result<Facts, ProbeError> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let stuck = list.is_empty();
    let (dtm, dtz) = (tb.probe_dtm(pos)?, tb.probe_dtz(pos)?);
    let category = dtz.class_at(pos.halfmoves(), stuck && pos.is_check());
    Ok(Facts {
        checkmate: stuck && pos.is_check(),
        stalemate: stuck && !pos.is_check(),
        variant_win: false,
        variant_loss: false,
        insufficient_material: pos.is_insufficient_material(),
        dtz: dtz.0,
        precise_dtz: dtz.0,
        dtm: signed(dtm),
        category: category.as_str(),
    })
}

/// `/standard`: the position's value and every legal move's, in the order of play from the
/// FEN's move count (`Tablebase::probe_root_clock`); each move's values are those of the
/// position it leads to, for the side to move there, as Lichess gives them.
pub fn position(tb: &Tablebase, pos: &Position) -> Result<StandardResponse, ProbeError> {
    let mut moves = Vec::new();
    for ranked in tb.probe_root_clock(pos, false)? {
        let m = ranked.mv;
        moves.push(StandardMove {
            uci: m.to_string(),
            san: pos.san(&m),
            zeroing: m.is_zeroing(),
            conversion: m.is_conversion(),
            facts: facts(tb, &pos.play(&m))?,
        });
    }
    Ok(StandardResponse {
        facts: facts(tb, pos)?,
        moves,
    })
}

/// `/standard/mainline`: the line of play from the FEN's move count to mate, each side
/// playing the first move `probe_root_clock` ranks (the winner the fastest mate that keeps
/// the win, the loser the longest resistance), each step with the distances of the position
/// it is played from, for the side playing it; empty, with `winner` null, when the position
/// is drawn from its count (a cursed win or blessed loss included). `winner` is "w" or "b".
pub fn mainline(tb: &Tablebase, pos: &Position) -> Result<MainlineResponse, ProbeError> {
    let (dtm, dtz) = (tb.probe_dtm(pos)?, tb.probe_dtz(pos)?);
    let outcome = dtz
        .class_at(pos.halfmoves(), pos.is_check() && !pos.has_legal_move())
        .fifty_move_outcome();
    let winner = match outcome {
        Wdl::Win => pos.turn(),
        Wdl::Loss => !pos.turn(),
        Wdl::Draw => {
            return Ok(MainlineResponse {
                dtm: signed(dtm),
                dtz: dtz.0,
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
        if steps.len() > bound || first.outcome == Wdl::Draw {
            return Err(ProbeError::Inconsistent {
                fen: at.to_string(),
            });
        }
        let (value, zeroing) = (tb.probe_dtm(&at)?, tb.probe_dtz(&at)?);
        steps.push(MainlineStep {
            uci: first.mv.to_string(),
            san: at.san(&first.mv),
            dtm: signed(value),
            dtz: zeroing.0,
        });
        at = at.play(&first.mv);
    }
    Ok(MainlineResponse {
        dtm: signed(dtm),
        dtz: dtz.0,
        winner: Some(winner.fen_char().to_string()),
        mainline: steps,
    })
}

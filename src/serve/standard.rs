//! Table answers in the shape of the Lichess tablebase API (`/standard`,
//! `/standard/mainline`), so that clients written for it read ours. Distances are DTM in
//! plies, signed from the side to move's view (positive: it mates; negative: it is mated;
//! null: a draw); there is no DTZ (`dtz` and `precise_dtz` are null). `category` is the
//! value under the 50-move rule with the move count at zero: win, cursed-win, draw,
//! blessed-loss or loss. A move's category is its position's at count zero too (the
//! tables hold no DTZ, so the clock a quiet move leaves is not known), but from a cursed
//! win no quiet move is shown winning outright: it is a blessed loss for the side to move
//! after it, as the position's own category proves.

use retrobook::chess::{MoveList, Position};
use retrobook::probe::{ProbeError, Tablebase};
use retrobook::{Dtm, Wdl5};
use serde_json::{json, Value};

/// A distance as the API gives it: signed plies, null for a draw.
fn signed(d: Dtm) -> Value {
    match d {
        Dtm::Win(p) => json!(p),
        Dtm::Loss(p) => json!(-i64::from(p)),
        Dtm::Draw => Value::Null,
    }
}

/// What the API says of any position, besides its moves.
fn facts(pos: &Position, wdl: Wdl5, dtm: Dtm) -> Value {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let stuck = list.is_empty();
    json!({
        "checkmate": stuck && pos.is_check(),
        "stalemate": stuck && !pos.is_check(),
        "variant_win": false,
        "variant_loss": false,
        "insufficient_material": pos.is_insufficient_material(),
        "dtz": null,
        "precise_dtz": null,
        "dtm": signed(dtm),
        "category": wdl.as_str(),
    })
}

/// `/standard`: the position's value and every legal move's, best move first (each move's
/// values are those of the position it leads to, for the side to move there, as Lichess
/// gives them).
pub fn position(tb: &Tablebase, pos: &Position) -> Result<Value, ProbeError> {
    let (dtm, wdl) = (tb.probe_dtm(pos)?, tb.probe_wdl5(pos)?);
    let mut out = facts(pos, wdl, dtm);
    let mut moves = Vec::new();
    for (m, after_dtm) in tb.best_moves(pos)? {
        let after = pos.play(&m);
        let zeroing = m.capture.is_some() || m.role == retrobook::chess::Role::Pawn;
        let category = after_category(wdl, tb.probe_wdl5(&after)?, zeroing);
        let mut o = facts(&after, category, after_dtm);
        o["uci"] = json!(m.to_string());
        o["san"] = json!(pos.san(&m));
        o["zeroing"] = json!(zeroing);
        o["conversion"] = json!(m.is_conversion());
        moves.push(o);
    }
    out["moves"] = Value::Array(moves);
    Ok(out)
}

/// The category of the position after a move, for its side to move, from its value at
/// count zero. If the position before is a cursed win at count zero, a quiet move cannot
/// lead to a loss within the rule with the clock at one (the position would be a win), so
/// a loss at count zero there is a blessed loss.
fn after_category(before: Wdl5, after: Wdl5, zeroing: bool) -> Wdl5 {
    if before == Wdl5::CursedWin && after == Wdl5::Loss && !zeroing {
        Wdl5::BlessedLoss
    } else {
        after
    }
}

/// `/standard/mainline`: the line of best moves to mate, each with the distance of the
/// position it is played from (for the side playing it); `winner` is "w", "b" or null.
pub fn mainline(tb: &Tablebase, pos: &Position) -> Result<Value, ProbeError> {
    let dtm = tb.probe_dtm(pos)?;
    let mut at = *pos;
    let mut steps = Vec::new();
    // `mainline` checked that each move takes the distance exactly one ply nearer.
    for (m, plies) in tb
        .mainline(pos)?
        .iter()
        .zip((1..=dtm.plies().unwrap_or(0)).rev())
    {
        let value = Dtm::from_plies(plies);
        steps.push(json!({"uci": m.to_string(), "san": at.san(m), "dtm": signed(value)}));
        at = at.play(m);
    }
    let winner = match dtm {
        Dtm::Win(_) => json!(pos.turn().fen_char().to_string()),
        Dtm::Loss(_) => json!((!pos.turn()).fen_char().to_string()),
        Dtm::Draw => Value::Null,
    };
    Ok(json!({"dtm": signed(dtm), "winner": winner, "mainline": steps}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursed_win_has_no_quiet_move_winning_outright() {
        assert_eq!(
            after_category(Wdl5::CursedWin, Wdl5::Loss, false),
            Wdl5::BlessedLoss
        );
        // A capture or pawn move starts the clock again: its value stands.
        assert_eq!(
            after_category(Wdl5::CursedWin, Wdl5::Loss, true),
            Wdl5::Loss
        );
        // From a win, a loss at count zero after a quiet move may be one; other values
        // stand whatever came before.
        assert_eq!(after_category(Wdl5::Win, Wdl5::Loss, false), Wdl5::Loss);
        assert_eq!(
            after_category(Wdl5::CursedWin, Wdl5::BlessedLoss, false),
            Wdl5::BlessedLoss
        );
        assert_eq!(after_category(Wdl5::Draw, Wdl5::Draw, false), Wdl5::Draw);
    }
}

//! How `probe` says a value, in words and in JSON, for both games: one point of view
//! throughout. A position's value is for its side to move; a move's value is the value of
//! the position the move leads to, for the side to move there (as the Lichess tablebase API
//! gives it), and the text names that side so nobody has to guess.

use retrobook::Dtm;
use serde_json::json;

/// How a game stands when the side to move has no legal move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// In check with no move.
    Checkmate,
    /// Not in check with no move: a draw in chess, a loss in Chinese chess.
    Stalemate,
}

impl Ending {
    /// The ending of a position with `has_moves` legal moves, `in_check` or not.
    pub fn of(has_moves: bool, in_check: bool) -> Option<Ending> {
        match (has_moves, in_check) {
            (true, _) => None,
            (false, true) => Some(Ending::Checkmate),
            (false, false) => Some(Ending::Stalemate),
        }
    }

    /// `"checkmate"` and `"stalemate"` as the JSON answers carry them (both false for a
    /// position with moves).
    pub fn json(end: Option<Ending>) -> serde_json::Value {
        json!({
            "checkmate": end == Some(Ending::Checkmate),
            "stalemate": end == Some(Ending::Stalemate),
        })
    }
}

/// A distance to mate in words: "win in 3 plies (mate in 2)", "loss in 2 plies (mated in
/// 1)", "draw", or the ending when there is no move; `stalemate` is how the game scores
/// one ("a draw" in chess, "a loss" in Chinese chess).
pub fn words(v: Dtm, end: Option<Ending>, stalemate: &str) -> String {
    match (end, v) {
        (Some(Ending::Checkmate), _) => "checkmated".into(),
        (Some(Ending::Stalemate), _) => format!("stalemate ({stalemate})"),
        (None, Dtm::Win(p)) => format!("win in {} (mate in {})", plies(p), p.div_ceil(2)),
        (None, Dtm::Loss(p)) => format!("loss in {} (mated in {})", plies(p), p / 2),
        (None, Dtm::Draw) => "draw".into(),
    }
}

/// "1 ply", "3 plies".
fn plies(p: u32) -> String {
    match p {
        1 => "1 ply".into(),
        p => format!("{p} plies"),
    }
}

/// Merges the fields of `extra` (an object) into `o` (an object).
pub fn merge(o: &mut serde_json::Value, extra: serde_json::Value) {
    if let (Some(o), serde_json::Value::Object(extra)) = (o.as_object_mut(), extra) {
        o.extend(extra);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_in_words() {
        assert_eq!(
            words(Dtm::Win(3), None, "a draw"),
            "win in 3 plies (mate in 2)"
        );
        assert_eq!(
            words(Dtm::Win(1), None, "a draw"),
            "win in 1 ply (mate in 1)"
        );
        assert_eq!(
            words(Dtm::Loss(2), None, "a draw"),
            "loss in 2 plies (mated in 1)"
        );
        assert_eq!(words(Dtm::Draw, None, "a draw"), "draw");
        let mated = Ending::of(false, true);
        assert_eq!(words(Dtm::Loss(0), mated, "a draw"), "checkmated");
        let stalemate = Ending::of(false, false);
        assert_eq!(words(Dtm::Draw, stalemate, "a draw"), "stalemate (a draw)");
        assert_eq!(
            words(Dtm::Loss(0), stalemate, "a loss"),
            "stalemate (a loss)"
        );
        assert_eq!(Ending::of(true, true), None);
        assert_eq!(
            Ending::json(mated),
            json!({"checkmate": true, "stalemate": false})
        );
    }
}

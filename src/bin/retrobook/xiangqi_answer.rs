//! A Chinese chess position's answer from the tables, as `probe --game xiangqi` prints it
//! and `serve` answers it at `/xiangqi`: its value, every move's, best first, and the
//! mainline. One builder, so that the two say the same.

use crate::cli::said::{merge, words, Ending};
use retrobook::probe::{ProbeError, Tablebase, Xiangqi};
use retrobook::retro::Verdict;
use retrobook::xiangqi::{Move, Position, Rule, Script};
use serde_json::{json, Value};

/// A position's value: its verdict and how the game stands when there is no move.
pub struct XiangqiValue {
    verdict: Verdict,
    end: Option<Ending>,
}

impl XiangqiValue {
    fn of(pos: &Position, verdict: Verdict) -> XiangqiValue {
        let end = Ending::of(!pos.legal_moves().is_empty(), pos.in_check(pos.turn()));
        XiangqiValue { verdict, end }
    }

    /// The value in JSON: `wdl` (and `category`, its name in the Lichess API's shape),
    /// `dtm_plies` and `dtm` (signed as `/standard` signs it), the rule that decides it
    /// (`rule`, null for a forced mate or a draw; `by_rule`, whether there is one), whether
    /// it depends on the path (`path_dependent`) and whether the chase rule was applied to
    /// it (`chases_judged`).
    fn json(&self) -> Value {
        let v = self.verdict;
        let mut o = json!({
            "wdl": v.wdl().as_str(),
            "category": v.wdl().as_str(),
            "dtm_plies": v.plain().plies(),
            "dtm": v.plain().signed_plies(),
            "rule": v.rule().map(Rule::name),
            "path_dependent": v.path_dependent(),
            "by_rule": v.by_rule(),
            "chases_judged": v.chases_judged(),
        });
        merge(&mut o, Ending::json(self.end));
        o
    }

    /// The value in words.
    pub fn text(&self) -> String {
        match self.verdict {
            Verdict::Plain(d) => words(d, self.end, "a loss"),
            Verdict::Ruled(r) => {
                let mut s = match (r.wdl, r.rule) {
                    (w, Some(rule)) => format!("{} by the {} rule", w.as_str(), rule.name()),
                    (w, None) => w.as_str().to_string(),
                };
                if r.path_dependent {
                    s += " (path-dependent)";
                }
                if !r.chases_judged {
                    s += " (chases not judged)";
                }
                s
            }
        }
    }
}

/// What the tables say of a position.
pub struct XiangqiAnswer {
    /// The position's value.
    pub value: XiangqiValue,
    /// Every legal move, best first, with the value after it (the other side to move).
    pub moves: Vec<(Move, XiangqiValue)>,
    /// The line of best play from the position.
    pub mainline: Vec<Move>,
}

impl XiangqiAnswer {
    /// Probes `pos` in `tb`.
    pub fn probe(tb: &Tablebase<Xiangqi>, pos: &Position) -> Result<XiangqiAnswer, ProbeError> {
        let value = XiangqiValue::of(pos, tb.probe(pos)?);
        let moves = (tb.moves(pos)?.into_iter())
            .map(|(m, after)| (m, XiangqiValue::of(&pos.play(&m), after)))
            .collect();
        Ok(XiangqiAnswer {
            value,
            moves,
            mainline: tb.mainline(pos)?,
        })
    }

    /// The answer in JSON, for `fen` (as asked) of `pos`: the value's fields, `moves` (each
    /// with `uci`, its UCCI/ICCS coordinates, `wxf` and `wxf_ascii`), `mainline` and the
    /// same moves in WXF notation (`mainline_wxf`).
    pub fn json(&self, fen: &str, pos: &Position) -> Value {
        let mut o = json!({"fen": fen});
        merge(&mut o, self.value.json());
        o["moves"] = (self.moves.iter())
            .map(|(m, after)| {
                let mut x = json!({
                    "uci": m.to_string(),
                    "wxf": pos.wxf(m, Script::Chinese),
                    "wxf_ascii": pos.wxf(m, Script::Ascii),
                });
                merge(&mut x, after.json());
                x
            })
            .collect();
        o["mainline"] = self.mainline.iter().map(|m| m.to_string()).collect();
        let mut at = pos.clone();
        o["mainline_wxf"] = (self.mainline.iter())
            .map(|m| {
                let name = at.wxf(m, Script::Ascii);
                at = at.play(m);
                name
            })
            .collect();
        o
    }
}

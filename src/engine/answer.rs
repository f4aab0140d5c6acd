//! What an engine is asked (`Limit`) and what it answers (`Analysis`), read from its
//! `info` and `bestmove` lines.

use std::fmt;

/// How far the engine searches each position: a fixed depth or node count, so that an
/// engine run on one thread answers the same every time.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// `go depth N`.
    Depth(u32),
    /// `go nodes N`.
    Nodes(u64),
}

impl Limit {
    /// The `go` command of this limit.
    pub fn go(self) -> String {
        match self {
            Limit::Depth(d) => format!("go depth {d}"),
            Limit::Nodes(n) => format!("go nodes {n}"),
        }
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Depth(d) => write!(f, "depth {d}"),
            Limit::Nodes(n) => write!(f, "nodes {n}"),
        }
    }
}

/// An engine's score from the side to move's view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Hundredths of a pawn.
    Centipawns(i32),
    /// Mate in this many moves (the side to move mates when positive, is mated when
    /// negative or zero: mated now).
    Mate(i32),
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Score::Centipawns(cp) => write!(f, "{:+.2}", f64::from(cp) / 100.0),
            Score::Mate(n) if n > 0 => write!(f, "#{n}"),
            Score::Mate(n) => write!(f, "#-{}", n.unsigned_abs()),
        }
    }
}

/// One position's answer: the score and depth of the engine's last complete line, its best
/// move and that line, moves in the engine's own notation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// The score of the last complete line.
    pub score: Score,
    /// Its depth.
    pub depth: u32,
    /// The move the engine would play (`bestmove`).
    pub best: String,
    /// The last complete line, its first move most often `best`.
    pub line: Vec<String>,
}

/// The last complete line an engine reported while searching: what `bestmove` is read with.
#[derive(Default)]
pub(super) struct Reading {
    last: Option<(Score, u32, Vec<String>)>,
}

impl Reading {
    /// Takes in one line of output; Some(analysis) at `bestmove` (Err: the answer is out of
    /// form, its text).
    pub(super) fn line(&mut self, line: &str) -> Option<Result<Analysis, String>> {
        let mut words = line.split_ascii_whitespace();
        match words.next() {
            Some("info") => {
                if let Some(seen) = info(words) {
                    self.last = Some(seen);
                }
                None
            }
            Some("bestmove") => Some(self.finish(words.next(), line)),
            _ => None,
        }
    }

    fn finish(&mut self, best: Option<&str>, line: &str) -> Result<Analysis, String> {
        let best = best.filter(|b| is_move(b) && *b != "0000" && *b != "(none)");
        match (best, self.last.take()) {
            (Some(best), Some((score, depth, line))) => Ok(Analysis {
                score,
                depth,
                best: best.to_string(),
                line,
            }),
            (None, _) => Err(format!("no best move in {line:?}")),
            (Some(_), None) => Err(format!("{line:?} without a scored line before it")),
        }
    }
}

/// Whether `word` has the form of a move in coordinate notation (chess's `e2e4`, `e7e8q`;
/// Fairy-Stockfish's xiangqi `h3e3`, `a10a9`).
fn is_move(word: &str) -> bool {
    (4..=6).contains(&word.len()) && word.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The score, depth and line of an `info` line (the words after `info`) that reports a
/// complete line of the first (or only) principal variation: not a bound, not a
/// secondary line, not one without its moves.
fn info<'a>(mut words: impl Iterator<Item = &'a str>) -> Option<(Score, u32, Vec<String>)> {
    let (mut score, mut depth, mut line) = (None, None, None);
    while let Some(w) = words.next() {
        match w {
            "depth" => depth = words.next()?.parse().ok(),
            "multipv" if words.next()? != "1" => return None,
            "lowerbound" | "upperbound" => return None,
            "score" => {
                let (kind, n) = (words.next()?, words.next()?.parse().ok()?);
                score = match kind {
                    "cp" => Some(Score::Centipawns(n)),
                    "mate" => Some(Score::Mate(n)),
                    _ => return None,
                };
            }
            // The line runs to the end of the info line.
            "pv" => {
                let moves: Vec<String> = words.by_ref().map(str::to_string).collect();
                if moves.is_empty() || !moves.iter().all(|m| is_move(m)) {
                    return None;
                }
                line = Some(moves);
            }
            _ => {}
        }
    }
    Some((score?, depth?, line?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str]) -> Option<Result<Analysis, String>> {
        let mut r = Reading::default();
        lines.iter().find_map(|l| r.line(l))
    }

    #[test]
    fn the_last_complete_line_before_bestmove_is_the_answer() {
        let a = read(&[
            "info string NNUE evaluation enabled",
            "info depth 9 seldepth 12 multipv 1 score cp -32 nodes 1 pv c7c5 g1f3",
            "info depth 10 seldepth 13 multipv 1 score cp 18 lowerbound nodes 2 pv e7e5",
            "info depth 10 multipv 2 score cp -90 pv a7a6",
            "info depth 10 seldepth 13 multipv 1 score mate -3 nodes 3 time 4 pv d7d5 e4d5",
            "info depth 10 currmove e7e5 currmovenumber 2",
            "bestmove d7d5 ponder e4d5",
        ]);
        let a = a.expect("an answer").expect("in form");
        assert_eq!(
            a,
            Analysis {
                score: Score::Mate(-3),
                depth: 10,
                best: "d7d5".into(),
                line: vec!["d7d5".into(), "e4d5".into()],
            }
        );
        assert_eq!(a.score.to_string(), "#-3");
        assert_eq!(Score::Centipawns(-32).to_string(), "-0.32");
        assert_eq!(Score::Centipawns(120).to_string(), "+1.20");
    }

    #[test]
    fn answers_out_of_form_are_errors() {
        for lines in [
            &["bestmove e2e4"][..],
            &["info depth 3 score cp 5 pv e2e4", "bestmove (none)"],
            &["info depth 3 score cp 5 pv e2e4", "bestmove"],
            &["info depth x score cp 5 pv e2e4", "bestmove e2e4"],
            &["info depth 3 score cp 5 pv e2-e4", "bestmove e2e4"],
        ] {
            assert!(matches!(read(lines), Some(Err(_))), "{lines:?}");
        }
        assert_eq!(read(&["info depth 3 score cp 5 pv e2e4", "readyok"]), None);
    }
}

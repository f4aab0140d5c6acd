//! A streaming PGN reader for real archives: tag pairs (escapes, Latin-1 or UTF-8 values),
//! comments `{...}` and `;`, nested variations (skipped), NAGs and annotation marks, move
//! numbers with `...`, `%` escape lines, a UTF-8 byte-order mark, CRLF, lines of any length,
//! and games without tags that follow another game. It splits the input into games; `replay`
//! turns a game into positions and moves, or says why the game cannot be used.

use crate::chess::{Move, Position};
use std::io::{self, BufRead};

/// One game as written: tags, move tokens and result, before any chess is checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawGame {
    /// Tag pairs in file order (values decoded from UTF-8, or Latin-1 where not UTF-8).
    pub tags: Vec<(String, String)>,
    /// Move tokens of the main line (SAN, with check and annotation marks as written).
    pub moves: Vec<String>,
    /// The game termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`), if any.
    pub result: Option<String>,
    /// Line of the input where the game starts (1-based).
    pub line: u64,
    /// Line of each move token.
    pub move_lines: Vec<u64>,
}

impl RawGame {
    /// The value of tag `name` (case-sensitive, as PGN defines), if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Text from bytes: UTF-8 when valid, else Latin-1 (every byte one character).
fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect(),
    }
}

fn is_result(token: &str) -> bool {
    matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*" | "½-½")
}

/// Splits a PGN stream into games. Reads line by line, so memory is bounded by the longest
/// line and the largest game.
pub struct PgnReader<R> {
    input: R,
    line: Vec<u8>,
    line_no: u64,
    /// Nesting depth of `(` variations and whether a `{` comment is open, across lines.
    depth: u32,
    in_comment: bool,
    game: RawGame,
    started: bool,
    done: bool,
}

impl<R: BufRead> PgnReader<R> {
    /// A reader over `input`.
    pub fn new(input: R) -> PgnReader<R> {
        PgnReader {
            input,
            line: Vec::new(),
            line_no: 0,
            depth: 0,
            in_comment: false,
            game: RawGame::default(),
            started: false,
            done: false,
        }
    }

    /// The game collected so far, ended: returned if it holds anything.
    fn finish(&mut self) -> Option<RawGame> {
        let game = std::mem::take(&mut self.game);
        let had = self.started;
        self.started = false;
        self.depth = 0;
        self.in_comment = false;
        (had && (!game.tags.is_empty() || !game.moves.is_empty() || game.result.is_some()))
            .then_some(game)
    }

    fn begin(&mut self) {
        if !self.started {
            self.started = true;
            self.game.line = self.line_no;
        }
    }

    /// Reads one tag pair line `[Name "value"]`; false if the line is not one.
    fn tag_pair(&mut self, text: &[u8]) -> bool {
        let Some(inner) = text.strip_prefix(b"[") else {
            return false;
        };
        let name_len = inner
            .iter()
            .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
            .unwrap_or(inner.len());
        if name_len == 0 {
            return false;
        }
        let name = decode(&inner[..name_len]);
        let rest = inner[name_len..].trim_ascii_start();
        let Some(rest) = rest.strip_prefix(b"\"") else {
            return false;
        };
        let mut value = Vec::new();
        let mut escaped = false;
        for &c in rest {
            match (escaped, c) {
                (false, b'\\') => escaped = true,
                (false, b'"') => break,
                (_, c) => {
                    value.push(c);
                    escaped = false;
                }
            }
        }
        self.begin();
        self.game.tags.push((name, decode(&value)));
        true
    }

    /// Reads the movetext tokens of one line; returns true if it ended the game (a result).
    fn movetext(&mut self, text: &[u8]) -> bool {
        let mut i = 0;
        while i < text.len() {
            let c = text[i];
            if self.in_comment {
                if c == b'}' {
                    self.in_comment = false;
                }
                i += 1;
                continue;
            }
            match c {
                b'{' => {
                    self.in_comment = true;
                    i += 1;
                }
                b';' => return false, // comment to the end of the line
                b'(' => {
                    self.depth += 1;
                    i += 1;
                }
                b')' => {
                    self.depth = self.depth.saturating_sub(1);
                    i += 1;
                }
                c if c.is_ascii_whitespace() => i += 1,
                _ => {
                    let end = text[i..]
                        .iter()
                        .position(|c| {
                            c.is_ascii_whitespace() || matches!(c, b'{' | b'(' | b')' | b';')
                        })
                        .map_or(text.len(), |p| i + p);
                    let token = decode(&text[i..end]);
                    i = end;
                    if self.depth > 0 {
                        continue;
                    }
                    if self.token(&token) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// One movetext token of the main line; true if it is the result.
    fn token(&mut self, token: &str) -> bool {
        if is_result(token) {
            self.begin();
            self.game.result = Some(token.replace('½', "1/2"));
            return true;
        }
        // Move numbers ("12.", "12...", "12.e4" glued), NAGs ("$1") and lone marks ("!?").
        let t = token.trim_start_matches(|c: char| c.is_ascii_digit());
        let t = if t.len() < token.len() {
            t.trim_start_matches('.')
        } else {
            t
        };
        let t = t.trim_start_matches('.');
        if t.is_empty() || t.starts_with('$') || t.chars().all(|c| "!?+#".contains(c)) {
            return false;
        }
        if t == "e.p." {
            return false; // written apart from its move: "exd6 e.p."
        }
        self.begin();
        self.game.moves.push(t.to_string());
        self.game.move_lines.push(self.line_no);
        false
    }

    /// The next game, or None at the end of the input.
    pub fn next_game(&mut self) -> io::Result<Option<RawGame>> {
        if self.done {
            return Ok(None);
        }
        loop {
            self.line.clear();
            if self.input.read_until(b'\n', &mut self.line)? == 0 {
                self.done = true;
                return Ok(self.finish());
            }
            self.line_no += 1;
            let mut line = std::mem::take(&mut self.line);
            let mut text: &[u8] = &line;
            if self.line_no == 1 {
                text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
            }
            let text_trimmed = text.trim_ascii();
            let mut result = None;
            if text.first() == Some(&b'%') {
                // An escape line: ignored.
            } else if !self.in_comment && self.depth == 0 && text_trimmed.starts_with(b"[") {
                // Tags after moves start a new game (the previous one lacked a result).
                if self.started && (!self.game.moves.is_empty() || self.game.result.is_some()) {
                    result = self.finish();
                }
                if !self.tag_pair(text_trimmed) {
                    self.movetext(text_trimmed);
                }
            } else if self.movetext(text_trimmed) {
                result = self.finish();
            }
            line.clear();
            self.line = line;
            if let Some(game) = result {
                return Ok(Some(game));
            }
        }
    }
}

impl<R: BufRead> Iterator for PgnReader<R> {
    type Item = io::Result<RawGame>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_game().transpose()
    }
}

/// Why a game cannot be used, for the run's summary.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipReason {
    /// A `[Variant]` other than standard chess (the name is given).
    Variant(String),
    /// A `[FEN]` that cannot be read.
    BadFen,
    /// A move that is not legal or not readable.
    BadMove,
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::Variant(v) => write!(f, "variant {v}"),
            SkipReason::BadFen => f.write_str("unreadable FEN tag"),
            SkipReason::BadMove => f.write_str("illegal or unreadable move"),
        }
    }
}

/// A game skipped: why, and where (line and text of the offending move, if any).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The reason class.
    pub reason: SkipReason,
    /// Input line of the fault.
    pub line: u64,
    /// The details (the move as written and its error).
    pub detail: String,
}

/// A game replayed: its start position and its legal moves.
#[derive(Clone, Debug)]
pub struct Game {
    /// The start position (standard or from a `[FEN]` tag).
    pub start: Position,
    /// The moves of the main line, in order.
    pub moves: Vec<Move>,
}

/// Replays `raw` from its start position: every move must be legal.
pub fn replay(raw: &RawGame) -> Result<Game, Skipped> {
    let skip = |reason, line, detail: String| Skipped {
        reason,
        line,
        detail,
    };
    if let Some(v) = raw.tag("Variant") {
        let v_lower = v.to_ascii_lowercase();
        if !matches!(v_lower.as_str(), "" | "standard" | "chess") {
            return Err(skip(SkipReason::Variant(v.to_string()), raw.line, v.into()));
        }
    }
    let start = match raw.tag("FEN") {
        Some(fen) => fen
            .parse::<Position>()
            .map_err(|e| skip(SkipReason::BadFen, raw.line, format!("{fen:?}: {e}")))?,
        None => Position::start(),
    };
    let mut pos = start;
    let mut moves = Vec::with_capacity(raw.moves.len());
    for (token, &line) in raw.moves.iter().zip(&raw.move_lines) {
        let m = pos
            .parse_san(token)
            .map_err(|e| skip(SkipReason::BadMove, line, e.to_string()))?;
        pos = pos.play(&m);
        moves.push(m);
    }
    Ok(Game { start, moves })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(text: &[u8]) -> Vec<RawGame> {
        PgnReader::new(text).map(|g| g.unwrap()).collect()
    }

    #[test]
    fn reads_tags_comments_variations_and_marks() {
        let pgn =
            b"\xef\xbb\xbf[Event \"Caf\xe9 \\\"open\\\"\"]\r\n[White \"M\xc3\xbcller\"]\r\n\r\n\
1. e4 {a comment\r\nover lines} e5 $1 2. Nf3!? (2. f4 exf4 (2... d5) 3. Nf3) 2... Nc6 ; rest\r\n\
%escape line 3. Bb5\r\n3.Bb5 a6 4. Ba4 1-0\r\n";
        let g = games(pgn);
        assert_eq!(g.len(), 1);
        assert_eq!(g[0].tag("Event"), Some("Caf\u{e9} \"open\""));
        assert_eq!(g[0].tag("White"), Some("M\u{fc}ller"));
        assert_eq!(g[0].moves, ["e4", "e5", "Nf3!?", "Nc6", "Bb5", "a6", "Ba4"]);
        assert_eq!(g[0].result.as_deref(), Some("1-0"));
        assert_eq!(g[0].line, 1);
        let game = replay(&g[0]).unwrap();
        assert_eq!(game.moves.len(), 7);
    }

    #[test]
    fn splits_games_with_and_without_tags() {
        let pgn = b"[Event \"a\"]\n\n1. d4 d5 1/2-1/2\n1. c4 e5 0-1\n\n[Event \"c\"]\n1. e4 *\n\
[Event \"d\"]\n1. Nf3\n[Event \"e\"]\n1. g3 1-0";
        let g = games(pgn);
        let firsts: Vec<&str> = g.iter().map(|g| g.moves[0].as_str()).collect();
        assert_eq!(firsts, ["d4", "c4", "e4", "Nf3", "g3"]);
        let results: Vec<Option<&str>> = g.iter().map(|g| g.result.as_deref()).collect();
        assert_eq!(
            results,
            [Some("1/2-1/2"), Some("0-1"), Some("*"), None, Some("1-0")]
        );
        assert_eq!(g[1].tags.len(), 0);
        assert_eq!(g[1].line, 4);
    }

    #[test]
    fn replays_from_fen_and_skips_what_cannot_be_played() {
        let pgn =
            b"[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n1. e4 Kd7 2. e5 1-0\n\
[Variant \"Chess960\"]\n1. e4 1-0\n\
[Event \"bad\"]\n1. e4 e5 2. Ke3 1-0\n\
[FEN \"not a fen\"]\n1. e4 1-0\n\
1. O-O 1-0\n";
        let g = games(pgn);
        assert_eq!(g.len(), 5);
        assert_eq!(replay(&g[0]).unwrap().moves.len(), 3);
        assert_eq!(
            replay(&g[1]).unwrap_err().reason,
            SkipReason::Variant("Chess960".into())
        );
        let bad = replay(&g[2]).unwrap_err();
        assert_eq!((bad.reason, bad.line), (SkipReason::BadMove, 7));
        assert!(bad.detail.contains("Ke3"), "{}", bad.detail);
        assert_eq!(replay(&g[3]).unwrap_err().reason, SkipReason::BadFen);
        assert_eq!(replay(&g[4]).unwrap_err().reason, SkipReason::BadMove);
    }

    #[test]
    fn long_lines_and_separate_ep_marks() {
        let mut pgn = b"[Event \"long\"]\n".to_vec();
        // 1. e4 d5 2. e5 f5 3. exf6 e.p. and then 200 knight shuffles on one line.
        pgn.extend_from_slice(b"1. e4 Nh6 2. e5 f5 3. exf6 e.p. Ng8");
        for i in 0..200 {
            let n = 4 + i;
            pgn.extend_from_slice(format!(" {n}. Nf3 Nf6 {}. Ng1 Ng8", n + 1000).as_bytes());
        }
        pgn.extend_from_slice(b" 1/2-1/2\n");
        let g = games(&pgn);
        assert_eq!(g.len(), 1);
        let game = replay(&g[0]).unwrap();
        assert_eq!(game.moves.len(), 6 + 800);
        assert_eq!(game.moves[4].to_string(), "e5f6");
    }
}

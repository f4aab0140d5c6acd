//! A streaming PGN reader for real archives: tag pairs (escapes, Latin-1 or UTF-8 values),
//! comments `{...}` and `;`, nested variations (skipped), NAGs and annotation marks, move
//! numbers with `...`, `%` escape lines, a UTF-8 byte-order mark, CRLF, lines of any length,
//! and games without tags that follow another game. It splits the input into games;
//! `start_position` gives a game's chess start position, or says why the game cannot be
//! used (`rules::replay_from` plays its moves).
//!
//! The reading state between lines is a value ([`PgnState`]), so an archive cut into pieces
//! can be parsed piece by piece, in parallel, with the same result as reading it whole: a
//! piece that starts after a line which ended a game starts from a fresh state.
//! Games are collected into reused buffers, so reading allocates nothing per game.

use crate::chess::Position;
use std::io::{self, BufRead};
use std::ops::Range;

/// One game as written: tags, move tokens and result, before any chess is checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawGame {
    /// Tag names, tag values and move tokens, back to back.
    text: String,
    /// Each tag: its name is `text[n.0..n.1]`, its value `text[n.1..n.2]`.
    tags: Vec<(u32, u32, u32)>,
    /// Each move token of the main line: where it is in `text`, and its input line.
    moves: Vec<(u32, u32, u64)>,
    result: Option<&'static str>,
    /// Line of the input where the game starts (1-based).
    pub line: u64,
}

impl RawGame {
    /// The value of tag `name` (case-sensitive, as PGN defines), if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags().find(|(k, _)| *k == name).map(|(_, v)| v)
    }

    /// Tag pairs in file order (values decoded from UTF-8, or Latin-1 where not UTF-8).
    pub fn tags(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        self.tags.iter().map(|&(a, b, c)| {
            (
                &self.text[a as usize..b as usize],
                &self.text[b as usize..c as usize],
            )
        })
    }

    /// Move tokens of the main line (SAN, with check and annotation marks as written), each
    /// with its input line.
    pub fn moves(&self) -> impl ExactSizeIterator<Item = (&str, u64)> + '_ {
        self.moves
            .iter()
            .map(|&(a, b, line)| (&self.text[a as usize..b as usize], line))
    }

    /// The game termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`), if any.
    pub fn result(&self) -> Option<&'static str> {
        self.result
    }

    /// The game's result as recorded: its termination marker, else its `[Result]` tag.
    pub fn recorded_result(&self) -> Option<&str> {
        self.result().or(self.tag("Result"))
    }

    /// Whether the text read as this game has a tag pair or a final result (`*` alone
    /// is a token random bytes hold now and then): what any PGN game has, and text that is
    /// not PGN hardly ever.
    pub fn looks_like_a_game(&self) -> bool {
        !self.tags.is_empty() || self.result.is_some_and(|r| r != "*")
    }

    fn clear(&mut self) {
        self.text.clear();
        self.tags.clear();
        self.moves.clear();
        self.result = None;
        self.line = 0;
    }

    /// Appends `bytes` to `text`: UTF-8 when valid, else Latin-1 (every byte one character).
    fn push_text(&mut self, bytes: &[u8]) -> Range<u32> {
        let start = self.text.len() as u32;
        if bytes.is_ascii() {
            // Nearly every token: copied without a UTF-8 check.
            // SAFETY: ASCII bytes are valid UTF-8, so `text` stays valid UTF-8.
            unsafe { self.text.as_mut_vec() }.extend_from_slice(bytes);
        } else {
            match std::str::from_utf8(bytes) {
                Ok(s) => self.text.push_str(s),
                Err(_) => self.text.extend(bytes.iter().map(|&b| b as char)),
            }
        }
        start..self.text.len() as u32
    }

    fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.moves.is_empty() && self.result.is_none()
    }
}

/// What a byte is in movetext: part of a token, white space, or a comment or variation mark
/// (`{`, `;`, `(`, `)`), which also ends a token.
const CLASS: [u8; 256] = {
    let mut t = [TOKEN; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_whitespace() {
            t[c] = SPACE;
        } else if matches!(b, b'{' | b'(' | b')' | b';') {
            t[c] = MARK;
        }
        c += 1;
    }
    t
};
const TOKEN: u8 = 0;
const SPACE: u8 = 1;
const MARK: u8 = 2;

/// The result marker `token` stands for, written the standard way.
fn as_result(token: &[u8]) -> Option<&'static str> {
    match token {
        b"1-0" => Some("1-0"),
        b"0-1" => Some("0-1"),
        b"1/2-1/2" | b"\xc2\xbd-\xc2\xbd" => Some("1/2-1/2"), // also written "½-½"
        b"*" => Some("*"),
        _ => None,
    }
}

/// True if the last token of `line` is a game result: after such a line a reader is in a
/// fresh state, unless the token sat in a comment or variation (which [`PgnState`] checks).
pub fn ends_with_result(line: &[u8]) -> bool {
    let t = line.trim_ascii_end();
    let start = t
        .iter()
        .rposition(|c| c.is_ascii_whitespace())
        .map_or(0, |p| p + 1);
    as_result(&t[start..]).is_some()
}

/// The name of the tag line `text` (`[Name ...`) and what follows it, if it has one.
fn tag_name(text: &[u8]) -> Option<(&[u8], &[u8])> {
    let inner = text.strip_prefix(b"[")?;
    let len = inner
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        .unwrap_or(inner.len());
    (len > 0).then(|| inner.split_at(len))
}

/// The state of reading between two lines: line number, open comment or variations, and
/// the game being collected.
#[derive(Clone, Debug, Default)]
pub struct PgnState {
    line_no: u64,
    /// Nesting depth of `(` variations and whether a `{` comment is open, across lines.
    depth: u32,
    in_comment: bool,
    started: bool,
    game: RawGame,
    /// The last game completed.
    done: RawGame,
    /// A tag value with its escapes removed (kept to be reused).
    value: Vec<u8>,
}

impl PgnState {
    /// A fresh state for input whose first line is line `after + 1`.
    pub fn after_line(after: u64) -> PgnState {
        PgnState {
            line_no: after,
            ..PgnState::default()
        }
    }

    /// True when no game is under way and no comment or variation is open: input from here
    /// on reads the same whatever came before.
    pub fn is_fresh(&self) -> bool {
        !self.started && self.depth == 0 && !self.in_comment
    }

    /// Reads every line of `text` (the last one may lack its line end), calling `on_game`
    /// with each game completed.
    pub fn feed(&mut self, text: &[u8], mut on_game: impl FnMut(&RawGame)) {
        let mut rest = text;
        while !rest.is_empty() {
            let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |p| p + 1);
            if self.line(&rest[..end]) {
                on_game(&self.done);
            }
            rest = &rest[end..];
        }
    }

    /// Ends the input: the game under way, if it holds anything, is completed.
    pub fn end(&mut self, mut on_game: impl FnMut(&RawGame)) {
        if self.finish() {
            on_game(&self.done);
        }
    }

    /// Ends the game collected so far; true if it held anything (it is then in `done`).
    fn finish(&mut self) -> bool {
        let had = self.started && !self.game.is_empty();
        self.started = false;
        self.depth = 0;
        self.in_comment = false;
        if had {
            std::mem::swap(&mut self.game, &mut self.done);
        }
        self.game.clear();
        had
    }

    fn begin(&mut self) {
        if !self.started {
            self.started = true;
            self.game.line = self.line_no;
        }
    }

    /// Reads one line; true if it completed a game.
    fn line(&mut self, line: &[u8]) -> bool {
        self.line_no += 1;
        let mut text = line;
        if self.line_no == 1 {
            text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
        }
        if text.first() == Some(&b'%') {
            return false; // an escape line
        }
        let text = text.trim_ascii();
        if !self.in_comment && self.depth == 0 && text.starts_with(b"[") {
            // Tags after moves start a new game (the previous one lacked a result), and so
            // does a tag the game already has (the previous one had tags only).
            let ended = self.started
                && (!self.game.moves.is_empty()
                    || self.game.result.is_some()
                    || self.has_tag_of(text));
            if ended {
                self.finish();
            }
            if !self.tag_pair(text) {
                self.movetext(text);
            }
            return ended;
        }
        self.movetext(text) && self.finish()
    }

    /// Whether the game has a tag of the name the tag line `text` gives.
    fn has_tag_of(&self, text: &[u8]) -> bool {
        tag_name(text).is_some_and(|(name, _)| self.game.tags().any(|(k, _)| k.as_bytes() == name))
    }

    /// Reads one tag pair line `[Name "value"]`; false if the line is not one.
    fn tag_pair(&mut self, text: &[u8]) -> bool {
        let Some((name, rest)) = tag_name(text) else {
            return false;
        };
        let rest = rest.trim_ascii_start();
        let Some(rest) = rest.strip_prefix(b"\"") else {
            return false;
        };
        self.begin();
        let name = self.game.push_text(name);
        // The value up to its closing quote; `\"` and `\\` are escapes.
        let mut value = std::mem::take(&mut self.value);
        value.clear();
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
        let range = self.game.push_text(&value);
        self.value = value;
        self.game.tags.push((name.start, name.end, range.end));
        true
    }

    /// Reads the movetext tokens of one line; returns true if it ended the game (a result).
    fn movetext(&mut self, text: &[u8]) -> bool {
        let mut i = 0;
        while i < text.len() {
            if self.in_comment {
                match memchr::memchr(b'}', &text[i..]) {
                    Some(p) => {
                        self.in_comment = false;
                        i += p + 1;
                        continue;
                    }
                    None => return false,
                }
            }
            match CLASS[text[i] as usize] {
                SPACE => i += 1,
                TOKEN => {
                    let mut end = i + 1;
                    while end < text.len() && CLASS[text[end] as usize] == TOKEN {
                        end += 1;
                    }
                    let token = &text[i..end];
                    i = end;
                    if self.depth == 0 && self.token(token) {
                        return true;
                    }
                }
                _ => {
                    match text[i] {
                        b'{' => self.in_comment = true,
                        b';' => return false, // comment to the end of the line
                        b'(' => self.depth += 1,
                        _ => self.depth = self.depth.saturating_sub(1), // ')'
                    }
                    i += 1;
                }
            }
        }
        false
    }

    /// One movetext token of the main line; true if it is the result.
    fn token(&mut self, token: &[u8]) -> bool {
        let may_be_result = matches!(token[0], b'0' | b'1' | b'*' | 0xc2);
        if let Some(result) = as_result(token).filter(|_| may_be_result) {
            self.begin();
            self.game.result = Some(result);
            return true;
        }
        // Move numbers ("12.", "12...", "12.e4" glued), NAGs ("$1") and lone marks ("!?").
        let digits = token.iter().take_while(|c| c.is_ascii_digit()).count();
        let t = &token[digits..];
        let dots = t.iter().take_while(|&&c| c == b'.').count();
        let t = &t[dots..];
        if t.is_empty() || t[0] == b'$' || t.iter().all(|c| b"!?+#".contains(c)) {
            return false;
        }
        if t == b"e.p." {
            return false; // written apart from its move: "exd6 e.p."
        }
        self.begin();
        let r = self.game.push_text(t);
        self.game.moves.push((r.start, r.end, self.line_no));
        false
    }
}

/// Splits a PGN stream into games. Reads line by line, so memory is bounded by the longest
/// line and the largest game.
pub struct PgnReader<R> {
    input: R,
    line: Vec<u8>,
    state: PgnState,
    done: bool,
}

impl<R: BufRead> PgnReader<R> {
    /// A reader over `input`.
    pub fn new(input: R) -> PgnReader<R> {
        PgnReader {
            input,
            line: Vec::new(),
            state: PgnState::default(),
            done: false,
        }
    }

    /// The next game, or None at the end of the input. The game is lent: the reader reuses
    /// its buffers for the next one.
    pub fn next_game(&mut self) -> io::Result<Option<&RawGame>> {
        if self.done {
            return Ok(None);
        }
        loop {
            self.line.clear();
            if self.input.read_until(b'\n', &mut self.line)? == 0 {
                self.done = true;
                let had = self.state.finish();
                return Ok(had.then_some(&self.state.done));
            }
            if self.state.line(&self.line) {
                return Ok(Some(&self.state.done));
            }
        }
    }
}

impl<R: BufRead> Iterator for PgnReader<R> {
    type Item = io::Result<RawGame>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_game().map(|g| g.cloned()).transpose()
    }
}

/// Why a game cannot be used, for the run's summary.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum SkipReason {
    /// A `[Variant]` other than standard chess (the name is given).
    Variant(String),
    /// A `[FEN]` that cannot be read.
    BadFen,
    /// A move that is not legal or not readable.
    BadMove,
    /// No result, or `*` (the result tag's text is given).
    Unfinished(String),
    /// A player rated below `--min-elo`, or unrated.
    BelowMinElo,
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::Variant(v) => write!(f, "variant {v}"),
            SkipReason::BadFen => f.write_str("unreadable FEN tag"),
            SkipReason::BadMove => f.write_str("illegal or unreadable move"),
            SkipReason::Unfinished(r) => write!(f, "unfinished or no result ({r})"),
            SkipReason::BelowMinElo => f.write_str("below --min-elo"),
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

/// The start position of `raw` (standard, or from its `[FEN]` tag), or why the game cannot
/// be used (another variant, an unreadable FEN).
pub fn start_position(raw: &RawGame) -> Result<Position, Skipped> {
    if let Some(v) = raw.tag("Variant") {
        let v_lower = v.to_ascii_lowercase();
        if !matches!(v_lower.as_str(), "" | "standard" | "chess") {
            return Err(Skipped {
                reason: SkipReason::Variant(v.to_string()),
                line: raw.line,
                detail: v.into(),
            });
        }
    }
    match raw.tag("FEN") {
        Some(fen) => fen.parse::<Position>().map_err(|e| Skipped {
            reason: SkipReason::BadFen,
            line: raw.line,
            detail: format!("{fen:?}: {e}"),
        }),
        None => Ok(Position::start()),
    }
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
        let moves: Vec<&str> = g[0].moves().map(|(m, _)| m).collect();
        assert_eq!(moves, ["e4", "e5", "Nf3!?", "Nc6", "Bb5", "a6", "Ba4"]);
        assert_eq!(g[0].result(), Some("1-0"));
        assert_eq!(g[0].line, 1);
    }

    #[test]
    fn splits_games_with_and_without_tags() {
        let pgn = b"[Event \"a\"]\n\n1. d4 d5 1/2-1/2\n1. c4 e5 0-1\n\n[Event \"c\"]\n1. e4 *\n\
[Event \"d\"]\n1. Nf3\n[Event \"e\"]\n1. g3 1-0";
        let g = games(pgn);
        let firsts: Vec<&str> = g.iter().map(|g| g.moves().next().unwrap().0).collect();
        assert_eq!(firsts, ["d4", "c4", "e4", "Nf3", "g3"]);
        let results: Vec<Option<&str>> = g.iter().map(|g| g.result()).collect();
        assert_eq!(
            results,
            [Some("1/2-1/2"), Some("0-1"), Some("*"), None, Some("1-0")]
        );
        assert_eq!(g[1].tags().count(), 0);
        assert_eq!(g[1].line, 4);
        // A game of tags only, without a result, ends where the next game's tags begin.
        let g = games(b"[Event \"a\"]\n[Result \"*\"]\n\n[Event \"b\"]\n1. e4 1-0\n");
        assert_eq!(g.len(), 2);
        assert_eq!((g[0].tag("Event"), g[0].moves().len()), (Some("a"), 0));
        assert_eq!((g[1].tag("Event"), g[1].line), (Some("b"), 4));
    }
}

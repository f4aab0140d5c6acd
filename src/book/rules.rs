//! What a book needs of a game's rules, and the two games that have books: chess (Polyglot
//! keys and moves, SAN in archives) and xiangqi (keys of `crate::xiangqi::position_key`,
//! WXF or UCCI in archives). The builder, the back-up and probing are written once over
//! [`BookRules`].

use super::pgn::{self, RawGame, SkipReason, Skipped};
use super::polyglot_key::{polyglot_key, polyglot_key_after};
use super::polyglot_move::{decode_move, encode_move};
use crate::chess;
use crate::game::Game;
use crate::side::Side;
use crate::xiangqi;

/// A game's rules as books use them: positions, their 64-bit keys, and moves as written in
/// archives and as 16-bit codes (0 is never a move: it marks a position's own entry).
pub trait BookRules: Sync + 'static {
    /// A position, with the side to move.
    type Position: Clone + Send;
    /// A move.
    type Move: Copy + PartialEq + std::fmt::Display;
    /// Which game, as the book file records it.
    const GAME: Game;

    /// The game's start position.
    fn start() -> Self::Position;
    /// The position a game of the archive starts from (its tags), or why it is skipped.
    fn setup(raw: &RawGame) -> Result<Self::Position, Skipped>;
    /// The position's key.
    fn key(pos: &Self::Position) -> u64;
    /// The key of `next`, reached from `pos` (key `key`) by `m`, found incrementally.
    fn key_after(key: u64, pos: &Self::Position, m: &Self::Move, next: &Self::Position) -> u64;
    /// The legal move a token of an archive names.
    fn parse(pos: &Self::Position, token: &str) -> Result<Self::Move, String>;
    /// The position after `m`.
    fn play(pos: &Self::Position, m: &Self::Move) -> Self::Position;
    /// The move's 16-bit code.
    fn encode(m: &Self::Move) -> u16;
    /// The legal move of `pos` that `code` stands for.
    fn decode(pos: &Self::Position, code: u16) -> Option<Self::Move>;
    /// Whether no position before `m` can occur again after it (a capture, a pawn move, a
    /// soldier's step forward).
    fn irreversible(pos: &Self::Position, m: &Self::Move) -> bool;
    /// Whether the first player (White, Red) is to move.
    fn first_to_move(pos: &Self::Position) -> bool;
    /// The UCI options that set an engine to the game, before any other.
    const ENGINE_OPTIONS: &'static [(&'static str, &'static str)];
    /// The position as the game's UCI engines read it (`position fen`), its move counts
    /// those of a game's start: a book's position is one whatever the counts of the games
    /// that reached it (its key leaves them out), and engines score by the halfmove count.
    fn fen(pos: &Self::Position) -> String;
    /// The legal move an engine names in its notation, if it is one.
    fn engine_move(pos: &Self::Position, text: &str) -> Option<Self::Move>;
}

/// `fen` with its halfmove and fullmove counts set to a game's start's, 0 and 1.
fn counts_reset(fen: &str) -> String {
    let fields: Vec<&str> = fen.split_ascii_whitespace().take(4).collect();
    format!("{} 0 1", fields.join(" "))
}

/// Plays `raw`'s moves from `start` by the rules `R`, calling `each(position, move, next
/// position)` for each move, and returns the final position; every move must be legal.
pub fn replay_from<R: BookRules>(
    raw: &RawGame,
    start: R::Position,
    mut each: impl FnMut(&R::Position, &R::Move, &R::Position),
) -> Result<R::Position, Skipped> {
    let mut pos = start;
    for (token, line) in raw.moves() {
        let m = R::parse(&pos, token).map_err(|detail| Skipped {
            reason: SkipReason::BadMove,
            line,
            detail,
        })?;
        let next = R::play(&pos, &m);
        each(&pos, &m, &next);
        pos = next;
    }
    Ok(pos)
}

/// Chess books: Polyglot keys and move codes, so that a book exports to Polyglot as it is.
pub struct Chess;

impl BookRules for Chess {
    type Position = chess::Position;
    type Move = chess::Move;
    const GAME: Game = Game::Chess;

    fn start() -> chess::Position {
        chess::Position::start()
    }
    fn setup(raw: &RawGame) -> Result<chess::Position, Skipped> {
        pgn::start_position(raw)
    }
    fn key(pos: &chess::Position) -> u64 {
        polyglot_key(pos)
    }
    fn key_after(key: u64, pos: &chess::Position, m: &chess::Move, next: &chess::Position) -> u64 {
        polyglot_key_after(key, pos, m, next)
    }
    fn parse(pos: &chess::Position, token: &str) -> Result<chess::Move, String> {
        pos.parse_san(token).map_err(|e| e.to_string())
    }
    fn play(pos: &chess::Position, m: &chess::Move) -> chess::Position {
        pos.play(m)
    }
    fn encode(m: &chess::Move) -> u16 {
        encode_move(m)
    }
    fn decode(pos: &chess::Position, code: u16) -> Option<chess::Move> {
        decode_move(pos, code)
    }
    fn irreversible(_: &chess::Position, m: &chess::Move) -> bool {
        m.is_zeroing()
    }
    fn first_to_move(pos: &chess::Position) -> bool {
        pos.turn() == Side::White
    }
    const ENGINE_OPTIONS: &'static [(&'static str, &'static str)] = &[];
    fn fen(pos: &chess::Position) -> String {
        counts_reset(&pos.to_string())
    }
    /// UCI: `e2e4`, `e7e8q`, castling as the king's two-square move.
    fn engine_move(pos: &chess::Position, text: &str) -> Option<chess::Move> {
        pos.parse_uci(text).ok()
    }
}

/// Xiangqi books: keys of `xiangqi::position_key`; a move's code is its origin square
/// (0-89) plus 128 times its destination.
pub struct Xiangqi;

impl BookRules for Xiangqi {
    type Position = xiangqi::Position;
    type Move = xiangqi::Move;
    const GAME: Game = Game::Xiangqi;

    fn start() -> xiangqi::Position {
        xiangqi::Position::start()
    }
    /// The start position or the `[FEN]` tag's; a `[Variant]` or `[Game]` tag naming
    /// another game skips the game.
    fn setup(raw: &RawGame) -> Result<xiangqi::Position, Skipped> {
        let skip = |reason, detail: String| Skipped {
            reason,
            line: raw.line,
            detail,
        };
        for tag in ["Variant", "Game"] {
            if let Some(v) = raw.tag(tag) {
                let lower = v.to_ascii_lowercase();
                if !matches!(lower.as_str(), "" | "xiangqi" | "chinese chess") {
                    return Err(skip(SkipReason::Variant(v.to_string()), v.to_string()));
                }
            }
        }
        match raw.tag("FEN") {
            Some(fen) => xiangqi::Position::from_fen(fen)
                .map_err(|e| skip(SkipReason::BadFen, format!("{fen:?}: {e}"))),
            None => Ok(xiangqi::Position::start()),
        }
    }
    fn key(pos: &xiangqi::Position) -> u64 {
        xiangqi::position_key(pos)
    }
    fn key_after(
        key: u64,
        pos: &xiangqi::Position,
        m: &xiangqi::Move,
        _: &xiangqi::Position,
    ) -> u64 {
        xiangqi::key_after(key, pos, m)
    }
    fn parse(pos: &xiangqi::Position, token: &str) -> Result<xiangqi::Move, String> {
        pos.parse_move(token).map_err(|e| e.to_string())
    }
    fn play(pos: &xiangqi::Position, m: &xiangqi::Move) -> xiangqi::Position {
        pos.play(m)
    }
    fn encode(m: &xiangqi::Move) -> u16 {
        (m.from.index() | m.to.index() << 7) as u16
    }
    /// Only the moves of the kind of piece on the origin square are generated.
    fn decode(pos: &xiangqi::Position, code: u16) -> Option<xiangqi::Move> {
        let from = xiangqi::Square::from_index(usize::from(code & 127))?;
        let piece = pos.at(from).filter(|p| p.color == pos.turn())?;
        pos.legal_moves_of(piece.role)
            .into_iter()
            .find(|m| Xiangqi::encode(m) == code)
    }
    /// A capture, or a soldier's step forward (its steps sideways can be undone).
    fn irreversible(pos: &xiangqi::Position, m: &xiangqi::Move) -> bool {
        let soldier = pos
            .at(m.from)
            .is_some_and(|p| p.role == xiangqi::Role::Soldier);
        pos.at(m.to).is_some() || (soldier && m.from.rank() != m.to.rank())
    }
    fn first_to_move(pos: &xiangqi::Position) -> bool {
        pos.turn() == Side::White
    }
    /// Fairy-Stockfish plays xiangqi when told so.
    const ENGINE_OPTIONS: &'static [(&'static str, &'static str)] = &[("UCI_Variant", "xiangqi")];
    fn fen(pos: &xiangqi::Position) -> String {
        counts_reset(&pos.to_fen())
    }
    /// Fairy-Stockfish's coordinates: UCCI's files, ranks counted from 1 (`h3e3` is UCCI's
    /// `h2e2`).
    fn engine_move(pos: &xiangqi::Position, text: &str) -> Option<xiangqi::Move> {
        let second = 1 + text.get(1..)?.find(|c: char| c.is_ascii_alphabetic())?;
        let square = |s: &str| -> Option<String> {
            let (file, rank) = s.split_at_checked(1)?;
            let rank: u32 = rank.parse().ok()?;
            (1..=10)
                .contains(&rank)
                .then(|| format!("{file}{}", rank - 1))
        };
        let ucci = format!("{}{}", square(&text[..second])?, square(&text[second..])?);
        let m: xiangqi::Move = ucci.parse().ok()?;
        pos.legal_moves().contains(&m).then_some(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::pgn::{start_position, PgnReader};
    use crate::chess::Move;

    /// The moves of `raw` replayed from its start position, or why it cannot be.
    fn replay(raw: &RawGame) -> Result<Vec<Move>, Skipped> {
        let mut moves = Vec::new();
        replay_from::<Chess>(raw, start_position(raw)?, |_, m, _| moves.push(*m))?;
        Ok(moves)
    }

    fn games(text: &[u8]) -> Vec<RawGame> {
        PgnReader::new(text).map(|g| g.unwrap()).collect()
    }

    #[test]
    fn replays_moves_with_comments_variations_and_marks() {
        let pgn = b"1. e4 {a comment} e5 $1 2. Nf3!? (2. f4 exf4) 2... Nc6 3.Bb5 a6 4. Ba4 1-0\n";
        assert_eq!(replay(&games(pgn)[0]).unwrap().len(), 7);
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
        assert_eq!(replay(&g[0]).unwrap().len(), 3);
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
        let moves = replay(&g[0]).unwrap();
        assert_eq!(moves.len(), 6 + 800);
        assert_eq!(moves[4].to_string(), "e5f6");
    }

    #[test]
    fn xiangqi_codes_name_one_legal_move_each() {
        let pos = xiangqi::Position::start();
        let moves = pos.legal_moves();
        for m in &moves {
            let code = Xiangqi::encode(m);
            assert_ne!(code, 0);
            assert_eq!(Xiangqi::decode(&pos, code), Some(*m));
        }
        // h2e2: from h2 (2 * 9 + 7 = 25) to e2 (22).
        let m = pos.parse_move("h2e2").unwrap();
        assert_eq!(Xiangqi::encode(&m), 25 | 22 << 7);
        // a0b0: the chariot onto its own horse.
        assert_eq!(Xiangqi::decode(&pos, 1 << 7), None);
    }
}

//! FEN and EPD: parsing (six fields, or the four-field EPD form without clocks) and writing.

use super::position::{Castling, Position};
use super::role::{Piece, Role};
use super::square::Square;
use crate::side::Side;
use std::fmt;
use std::str::FromStr;

/// Why a FEN was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FenError(pub String);

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid FEN: {}", self.0)
    }
}

impl std::error::Error for FenError {}

fn err<T>(msg: impl Into<String>) -> Result<T, FenError> {
    Err(FenError(msg.into()))
}

impl FromStr for Position {
    type Err = FenError;

    /// Parses a FEN (6 fields) or EPD position (the first 4 fields, then EPD operations
    /// such as `dm 3;`, each ended by `;`, which are ignored). Underscores stand for spaces
    /// in a FEN written without any (as Lichess writes FENs in addresses). Strict: the
    /// clocks are numbers (a fullmove number from 1), nothing follows them, every castling
    /// right has its king and rook at home, each side has one king, at most 16 pieces and
    /// 8 pawns.
    ///
    /// ```
    /// use retrobook::chess::Position;
    /// let p: Position = "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1".parse().unwrap();
    /// assert_eq!(p.to_string(), "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1");
    /// assert_eq!("8/8/8/8/8/3k4/8/K1Q5_w_-_-_0_1".parse::<Position>(), Ok(p));
    /// assert!("8/8/8 w - -".parse::<Position>().is_err());
    /// assert!("8/8/8/8/8/3k4/8/K1Q5 w - - -5 1".parse::<Position>().is_err());
    /// assert!("8/8/8/8/8/3k4/8/K1Q5 w K - 0 1".parse::<Position>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Position, FenError> {
        read(s, false)
    }
}

impl Position {
    /// Reads a FEN as `parse` does, but as leniently as Lichess's tablebase server reads
    /// one: castling rights without their king and rook at home, and an en-passant square
    /// no pawn can take on, are dropped instead of refused.
    ///
    /// ```
    /// use retrobook::chess::Position;
    /// let p = Position::from_fen_lenient("4k3/8/8/3pP3/8/8/8/4K2Q w KQkq a6 0 1").unwrap();
    /// assert_eq!(p.to_string(), "4k3/8/8/3pP3/8/8/8/4K2Q w - - 0 1");
    /// assert!("4k3/8/8/3pP3/8/8/8/4K2Q w KQkq a6 0 1".parse::<Position>().is_err());
    /// ```
    pub fn from_fen_lenient(s: &str) -> Result<Position, FenError> {
        read(s, true)
    }
}

/// Reads a FEN (see `Position::from_str`); `lenient`: drops what Lichess drops.
fn read(s: &str, lenient: bool) -> Result<Position, FenError> {
    let spaced;
    let s = if s.contains('_') && !s.contains(char::is_whitespace) {
        spaced = s.replace('_', " ");
        spaced.as_str()
    } else {
        s
    };
    let fields: Vec<&str> = s.split_whitespace().collect();
    if fields.len() < 4 {
        return err(format!(
            "expected 6 fields (or the 4 of EPD), found {}",
            fields.len()
        ));
    }
    let clocks = read_clocks(&fields[4..])?;
    let turn = match fields[1] {
        "w" => Side::White,
        "b" => Side::Black,
        other => return err(format!("side to move must be w or b, not {other:?}")),
    };
    let mut pos = Position::empty(turn);
    let ranks: Vec<&str> = fields[0].split('/').collect();
    if ranks.len() != 8 {
        return err(format!(
            "placement must have 8 ranks, found {}",
            ranks.len()
        ));
    }
    for (i, row) in ranks.iter().enumerate() {
        let rank = 7 - i as u32;
        let mut file = 0u32;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                if !(1..=8).contains(&d) {
                    return err(format!("bad empty-square count {c:?} in rank {}", rank + 1));
                }
                file += d;
            } else {
                let role = Role::from_char(c)
                    .ok_or_else(|| FenError(format!("unknown piece letter {c:?}")))?;
                if file >= 8 {
                    return err(format!("rank {} has more than 8 squares", rank + 1));
                }
                let color = if c.is_ascii_uppercase() {
                    Side::White
                } else {
                    Side::Black
                };
                pos.put(Square::from_coords(file, rank), Piece { color, role });
                file += 1;
            }
            if file > 8 {
                return err(format!("rank {} has more than 8 squares", rank + 1));
            }
        }
        if file != 8 {
            return err(format!("rank {} has {file} squares, not 8", rank + 1));
        }
    }
    let mut castling = 0u8;
    if fields[2] != "-" {
        for c in fields[2].chars() {
            let (flag, color, rook_file) = match c {
                'K' => (Castling::WHITE_KING, Side::White, 7),
                'Q' => (Castling::WHITE_QUEEN, Side::White, 0),
                'k' => (Castling::BLACK_KING, Side::Black, 7),
                'q' => (Castling::BLACK_QUEEN, Side::Black, 0),
                other => return err(format!("unsupported castling flag {other:?}")),
            };
            if castling & flag != 0 {
                return err(format!("castling flag {c:?} given twice"));
            }
            let rank = if color == Side::White { 0 } else { 7 };
            let home = |file: u32, role: Role| {
                pos.pieces(color, role)
                    .contains(Square::from_coords(file, rank))
            };
            if !(home(4, Role::King) && home(rook_file, Role::Rook)) {
                if lenient {
                    continue;
                }
                let (king, rook) = (
                    Square::from_coords(4, rank),
                    Square::from_coords(rook_file, rank),
                );
                return err(format!(
                    "castling right {c:?} needs the {} king on {king} and a rook on {rook}",
                    if color == Side::White {
                        "white"
                    } else {
                        "black"
                    }
                ));
            }
            castling |= flag;
        }
    }
    pos.set_castling(Castling(castling));
    if fields[3] != "-" {
        let sq: Square = fields[3]
            .parse()
            .map_err(|_| FenError(format!("bad en-passant square {:?}", fields[3])))?;
        let expected_rank = if turn == Side::White { 5 } else { 2 };
        let possible = pos.ep_square_possible(sq);
        if !lenient && sq.rank() != expected_rank {
            return err(format!("en-passant square {sq} is on the wrong rank"));
        }
        if !lenient && !possible {
            return err(format!(
                "en-passant square {sq} without a pawn that just moved two squares"
            ));
        }
        if possible {
            pos.set_ep_square(Some(sq));
        }
    }
    if let Some((halfmoves, fullmoves)) = clocks {
        pos.set_clocks(halfmoves, fullmoves);
    }
    pos.validate().map_err(|e| FenError(e.to_string()))?;
    Ok(pos)
}

/// The clocks of a FEN from the fields after the en-passant square: none (EPD, maybe with
/// operations, each ended by `;`), or the halfmove clock and the fullmove number, last.
fn read_clocks(rest: &[&str]) -> Result<Option<(u32, u32)>, FenError> {
    let number = |f: &str| {
        f.bytes()
            .all(|b| b.is_ascii_digit() || b == b'-' || b == b'+')
    };
    match rest {
        [] => Ok(None),
        [first, ..] if !number(first) => match rest.last() {
            Some(last) if last.ends_with(';') => Ok(None),
            _ => err(format!(
                "{first:?} is neither a halfmove clock nor an EPD operation ended by ';'"
            )),
        },
        [half, full] => {
            let half: u32 = half
                .parse()
                .map_err(|_| FenError(format!("halfmove clock {half:?} is not a number from 0")))?;
            let full: u32 = full.parse().ok().filter(|&n| n >= 1).ok_or_else(|| {
                FenError(format!("fullmove number {full:?} is not a number from 1"))
            })?;
            Ok(Some((half, full)))
        }
        [_] => err("the fullmove number is missing after the halfmove clock"),
        _ => err(format!(
            "a FEN has 6 fields, found {} (nothing follows the fullmove number)",
            4 + rest.len()
        )),
    }
}

impl Position {
    /// The placement field of the FEN.
    pub fn board_fen(&self) -> String {
        let mut s = String::with_capacity(64);
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.piece_at(Square::from_coords(file, rank)) {
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from_digit(empty, 10).unwrap());
                            empty = 0;
                        }
                        s.push(p.fen_char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                s.push(char::from_digit(empty, 10).unwrap());
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s
    }
}

impl fmt::Display for Position {
    /// The full six-field FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.castling();
        let mut castling = String::new();
        for (flag, ch) in [
            (Castling::WHITE_KING, 'K'),
            (Castling::WHITE_QUEEN, 'Q'),
            (Castling::BLACK_KING, 'k'),
            (Castling::BLACK_QUEEN, 'q'),
        ] {
            if c.has(flag) {
                castling.push(ch);
            }
        }
        if castling.is_empty() {
            castling.push('-');
        }
        let ep = self.ep_square().map_or("-".to_string(), |s| s.to_string());
        write!(
            f,
            "{} {} {} {} {} {}",
            self.board_fen(),
            self.turn().fen_char(),
            castling,
            ep,
            self.halfmoves(),
            self.fullmoves()
        )
    }
}

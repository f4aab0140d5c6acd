//! Squares, pieces and positions of xiangqi, and their FEN.

use crate::side::{BySide, Side};
use std::fmt;

/// Files a-i.
pub(super) const FILES: i8 = 9;
/// Ranks 0-9, Red's back rank first.
pub(super) const RANKS: i8 = 10;

/// A square: `rank * 9 + file`, a1 (Red's left corner) is 0.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square on `file` and `rank`, if on the board.
    #[inline]
    pub fn new(file: i8, rank: i8) -> Option<Square> {
        ((0..FILES).contains(&file) && (0..RANKS).contains(&rank))
            .then(|| Square((rank * FILES + file) as u8))
    }

    /// File 0-8 (a-i).
    #[inline]
    pub fn file(self) -> i8 {
        (self.0 % FILES as u8) as i8
    }

    /// Rank 0-9.
    #[inline]
    pub fn rank(self) -> i8 {
        (self.0 / FILES as u8) as i8
    }

    /// The square of index `i` (0-89), if on the board.
    #[inline]
    pub fn from_index(i: usize) -> Option<Square> {
        (i < 90).then_some(Square(i as u8))
    }

    /// 0-89.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The square `df` files and `dr` ranks away, if on the board.
    #[inline]
    pub fn offset(self, df: i8, dr: i8) -> Option<Square> {
        Square::new(self.file() + df, self.rank() + dr)
    }

    /// The square seen in a mirror down the e-file (a0 <-> i0).
    #[inline]
    pub fn mirror(self) -> Square {
        Square((self.rank() * FILES + FILES - 1 - self.file()) as u8)
    }

    /// Every square, a0 to i9.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..90u8).map(Square)
    }

    /// Whether the square lies in `color`'s palace (files d-f, its three home ranks).
    #[inline]
    pub fn in_palace(self, color: Side) -> bool {
        let ranks = match color {
            Side::White => 0..=2,
            Side::Black => 7..=9,
        };
        (3..=5).contains(&self.file()) && ranks.contains(&self.rank())
    }

    /// Whether the square lies on `color`'s side of the river.
    #[inline]
    pub fn on_own_side(self, color: Side) -> bool {
        match color {
            Side::White => self.rank() <= 4,
            Side::Black => self.rank() >= 5,
        }
    }
}

impl fmt::Display for Square {
    /// UCCI coordinates: file letter, rank digit (`h2`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file() as u8) as char, self.rank())
    }
}

impl std::str::FromStr for Square {
    type Err = ();

    /// UCCI coordinates: file letter a-i, rank digit 0-9.
    fn from_str(s: &str) -> Result<Square, ()> {
        match s.as_bytes() {
            &[f @ b'a'..=b'i', r @ b'0'..=b'9'] => {
                Square::new((f - b'a') as i8, (r - b'0') as i8).ok_or(())
            }
            _ => Err(()),
        }
    }
}

/// A kind of piece.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The general: one step orthogonally, inside its palace.
    King,
    /// One step diagonally, inside its palace.
    Advisor,
    /// Two steps diagonally over an empty eye, on its own side of the river.
    Elephant,
    /// One step orthogonally over an empty leg, then one diagonally outwards.
    Horse,
    /// Any distance orthogonally.
    Chariot,
    /// As a chariot to move; takes by jumping exactly one piece (the screen).
    Cannon,
    /// One step forward; sideways too once across the river.
    Soldier,
}

impl Role {
    /// The role's place in FEN letter order K A B N R C P (0-6).
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The role's name in English, lowercase: `king`, `advisor`, `elephant`, `horse`,
    /// `chariot`, `cannon`, `soldier`.
    pub fn name(self) -> &'static str {
        match self {
            Role::King => "king",
            Role::Advisor => "advisor",
            Role::Elephant => "elephant",
            Role::Horse => "horse",
            Role::Chariot => "chariot",
            Role::Cannon => "cannon",
            Role::Soldier => "soldier",
        }
    }

    /// The FEN letter (uppercase): K A B N R C P.
    pub fn letter(self) -> char {
        match self {
            Role::King => 'K',
            Role::Advisor => 'A',
            Role::Elephant => 'B',
            Role::Horse => 'N',
            Role::Chariot => 'R',
            Role::Cannon => 'C',
            Role::Soldier => 'P',
        }
    }

    /// The role of a FEN letter (either case; engines also write E for elephants and H for
    /// horses).
    pub fn from_letter(c: char) -> Option<Role> {
        Some(match c.to_ascii_uppercase() {
            'K' => Role::King,
            'A' => Role::Advisor,
            'B' | 'E' => Role::Elephant,
            'N' | 'H' => Role::Horse,
            'R' => Role::Chariot,
            'C' => Role::Cannon,
            'P' => Role::Soldier,
            _ => return None,
        })
    }
}

/// A piece: its side and role.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Red is `Side::White`.
    pub color: Side,
    /// What kind of piece.
    pub role: Role,
}

/// A position: the board and the side to move.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    board: [Option<Piece>; 90],
    turn: Side,
    /// Each side's king (Red's first), the first found if there are several: kept with
    /// the board, as the legality test asks for it at every move.
    kings: BySide<Option<Square>>,
    /// One bit per occupied square, so that walks over the pieces skip the empty ones.
    occupied: u128,
    /// Pieces of each side by role (`Role::index`), so that the check test asks only
    /// about pieces there are.
    counts: BySide<[u8; 7]>,
}

/// What is wrong with a FEN.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// The board field does not have ten ranks.
    #[error("the board has {0} ranks, not 10")]
    Ranks(usize),
    /// A rank's pieces and empty squares do not add up to nine files.
    #[error("rank {rank} does not hold 9 squares")]
    RankLength {
        /// The rank, 0-9 from Red's side.
        rank: i8,
    },
    /// A letter that names no piece.
    #[error("unknown piece letter {0:?}")]
    Letter(char),
    /// The side to move is not w, r or b.
    #[error("side to move {0:?} is neither w nor b")]
    Turn(String),
    /// A side has no king, several, or one outside its palace.
    #[error("each side needs one king in its palace")]
    Kings,
    /// A side has more pieces of a kind than it starts with.
    #[error("{side} has {count} {role:?} pieces, more than the {most} a side starts with")]
    TooMany {
        /// "red" or "black".
        side: &'static str,
        /// The kind of piece.
        role: Role,
        /// How many the FEN gives.
        count: u8,
        /// How many a side starts with.
        most: u8,
    },
    /// An advisor, elephant or soldier on a point its moves never reach.
    #[error("{side}'s {role:?} on {square} stands where it can never go")]
    Unreachable {
        /// "red" or "black".
        side: &'static str,
        /// The kind of piece.
        role: Role,
        /// Its square, as UCCI names it.
        square: String,
    },
    /// Fields that are not the side to move, `- -` and the two clocks.
    #[error("{0}")]
    Fields(String),
}

/// Where a piece of `color` and `role` can stand in some game (every square for the
/// pieces that go everywhere).
fn reachable(color: Side, role: Role, sq: Square) -> bool {
    let rank = match color {
        Side::White => sq.rank(),
        Side::Black => RANKS - 1 - sq.rank(),
    };
    let at = (sq.file(), rank);
    match role {
        Role::Advisor => matches!(at, (3 | 5, 0 | 2) | (4, 1)),
        Role::Elephant => matches!(at, (2 | 6, 0 | 4) | (0 | 4 | 8, 2)),
        Role::Soldier => rank >= 5 || (rank >= 3 && sq.file() % 2 == 0),
        _ => true,
    }
}

/// The fields after the side to move: none, `- -` (no castling, no en-passant square), or
/// those and the halfmove clock and fullmove number.
fn check_fields(rest: &[&str]) -> Result<(), FenError> {
    let bad = |m: String| Err(FenError::Fields(m));
    match rest {
        [] => Ok(()),
        [c, e, clocks @ ..] if *c == "-" && *e == "-" => match clocks {
            [] => Ok(()),
            [half, full] => {
                if half.parse::<u32>().is_err() {
                    return bad(format!("halfmove clock {half:?} is not a number from 0"));
                }
                if !full.parse::<u32>().is_ok_and(|n| n >= 1) {
                    return bad(format!("fullmove number {full:?} is not a number from 1"));
                }
                Ok(())
            }
            _ => bad(format!(
                "a FEN has 6 fields, found {} (nothing follows the fullmove number)",
                2 + rest.len()
            )),
        },
        [c, ..] => bad(format!(
            "expected \"- -\" after the side to move (xiangqi has no castling and no \
             en-passant square), found {c:?}"
        )),
    }
}

/// A side's name in Chinese chess: "red" or "black".
pub fn side_name(c: Side) -> &'static str {
    match c {
        Side::White => "red",
        Side::Black => "black",
    }
}

impl Position {
    /// The start position.
    pub fn start() -> Position {
        Position::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1")
            .expect("the start position")
    }

    /// Reads a FEN: the board from rank 9 down, Red uppercase, then `w` (Red, also `r`) or
    /// `b`, then optionally `- -` and the two clocks (read, not kept). Underscores stand for
    /// spaces in a FEN written without any. Strict: one king each in its palace, no more
    /// pieces of a kind than a side starts with, advisors, elephants and soldiers only
    /// where they can go.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let spaced;
        let fen = if fen.contains('_') && !fen.contains(char::is_whitespace) {
            spaced = fen.replace('_', " ");
            spaced.as_str()
        } else {
            fen
        };
        let mut fields = fen.split_whitespace();
        let board_field = fields.next().unwrap_or("");
        let rows: Vec<&str> = board_field.split('/').collect();
        if rows.len() != RANKS as usize {
            return Err(FenError::Ranks(rows.len()));
        }
        let mut board = [None; 90];
        for (i, row) in rows.iter().enumerate() {
            let rank = RANKS - 1 - i as i8;
            let mut file = 0i8;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    // Past the rank's end is wrong however far; stop counting there.
                    file = file.saturating_add(d as i8).min(FILES + 1);
                    continue;
                }
                let role = Role::from_letter(c).ok_or(FenError::Letter(c))?;
                let color = match c.is_ascii_uppercase() {
                    true => Side::White,
                    false => Side::Black,
                };
                let sq = Square::new(file, rank).ok_or(FenError::RankLength { rank })?;
                board[sq.index()] = Some(Piece { color, role });
                file += 1;
            }
            if file != FILES {
                return Err(FenError::RankLength { rank });
            }
        }
        let turn = match fields.next().unwrap_or("w") {
            "w" | "r" => Side::White,
            "b" => Side::Black,
            other => return Err(FenError::Turn(other.to_string())),
        };
        check_fields(&fields.collect::<Vec<_>>())?;
        let pieces = (0..90u8).filter_map(|i| board[usize::from(i)].map(|p| (Square(i), p)));
        let pos = Position::from_pieces(turn, pieces).expect("one piece a square");
        for color in Side::ALL {
            let kings: Vec<Square> = pos.squares_of(color, Role::King).collect();
            if kings.len() != 1 || !kings[0].in_palace(color) {
                return Err(FenError::Kings);
            }
        }
        for (sq, piece) in pos
            .occupied_squares()
            .filter_map(|sq| Some((sq, pos.at(sq)?)))
        {
            if !reachable(piece.color, piece.role, sq) {
                return Err(FenError::Unreachable {
                    side: side_name(piece.color),
                    role: piece.role,
                    square: sq.to_string(),
                });
            }
        }
        for color in Side::ALL {
            for (role, most) in [
                (Role::Advisor, 2),
                (Role::Elephant, 2),
                (Role::Horse, 2),
                (Role::Chariot, 2),
                (Role::Cannon, 2),
                (Role::Soldier, 5),
            ] {
                let count = pos.count(color, role);
                if count > most {
                    let side = side_name(color);
                    return Err(FenError::TooMany {
                        side,
                        role,
                        count,
                        most,
                    });
                }
            }
        }
        Ok(pos)
    }

    /// The position of `pieces` with `turn` to move, or None if two share a square.
    pub fn from_pieces(
        turn: Side,
        pieces: impl IntoIterator<Item = (Square, Piece)>,
    ) -> Option<Position> {
        let mut pos = Position {
            board: [None; 90],
            turn,
            kings: BySide::default(),
            occupied: 0,
            counts: BySide::default(),
        };
        for (sq, piece) in pieces {
            pos.board[sq.index()]
                .replace(piece)
                .is_none()
                .then_some(())?;
            pos.occupied |= 1 << sq.index();
            pos.counts[piece.color][piece.role.index()] += 1;
            let king = &mut pos.kings[piece.color];
            if piece.role == Role::King && king.is_none() {
                *king = Some(sq);
            }
        }
        Some(pos)
    }

    /// The position with the colours swapped and the board turned over (rank r to 9 - r):
    /// the same game, Black's part played by Red.
    pub fn flipped(&self) -> Position {
        let pieces = self.occupied_squares().filter_map(|sq| {
            let there = Square::new(sq.file(), RANKS - 1 - sq.rank()).expect("on the board");
            self.at(sq).map(|p| {
                (
                    there,
                    Piece {
                        color: !p.color,
                        role: p.role,
                    },
                )
            })
        });
        Position::from_pieces(!self.turn, pieces).expect("a flip keeps squares apart")
    }

    /// The position seen in a mirror down the e-file: the same game, files reversed.
    pub fn mirrored(&self) -> Position {
        let pieces = self
            .occupied_squares()
            .filter_map(|sq| self.at(sq).map(|p| (sq.mirror(), p)));
        Position::from_pieces(self.turn, pieces).expect("a mirror keeps squares apart")
    }

    /// The side to move.
    #[inline]
    pub fn turn(&self) -> Side {
        self.turn
    }

    /// The same board with `turn` to move: a side's threats are its moves as if the other
    /// side passed.
    pub fn with_turn(&self, turn: Side) -> Position {
        Position {
            turn,
            ..self.clone()
        }
    }

    /// The piece on `sq`.
    #[inline]
    pub fn at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// The squares of `color`'s pieces of `role`.
    pub fn squares_of(&self, color: Side, role: Role) -> impl Iterator<Item = Square> + '_ {
        let piece = Some(Piece { color, role });
        self.occupied_squares()
            .filter(move |sq| self.board[sq.index()] == piece)
    }

    /// Every square with a piece of `color`, and the piece's role.
    pub fn pieces(&self, color: Side) -> impl Iterator<Item = (Square, Role)> + '_ {
        self.occupied_squares()
            .filter_map(move |sq| match self.at(sq) {
                Some(p) if p.color == color => Some((sq, p.role)),
                _ => None,
            })
    }

    /// Every square with a piece, in order.
    pub fn occupied_squares(&self) -> impl Iterator<Item = Square> {
        let mut bits = self.occupied;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let i = bits.trailing_zeros() as u8;
                bits &= bits - 1;
                Square(i)
            })
        })
    }

    /// How many pieces of `color` and `role` stand on the board.
    #[inline]
    pub fn count(&self, color: Side, role: Role) -> u8 {
        self.counts[color][role.index()]
    }

    /// `color`'s king.
    #[inline]
    pub fn king(&self, color: Side) -> Option<Square> {
        self.kings[color]
    }

    /// Whether `test` holds of the position after the piece on `from` goes to `to` (taking
    /// what stands there): played on this position and taken back, no copy made.
    pub(crate) fn after<R>(
        &mut self,
        from: Square,
        to: Square,
        test: impl FnOnce(&Self) -> R,
    ) -> R {
        let taken = self.board[to.index()];
        let occupied = self.occupied;
        self.apply(from, to);
        let r = test(self);
        let piece = self.board[to.index()];
        self.board[from.index()] = piece;
        self.board[to.index()] = taken;
        if let Some(Piece {
            color,
            role: Role::King,
        }) = piece
        {
            self.kings[color] = Some(from);
        }
        self.occupied = occupied;
        if let Some(t) = taken {
            self.counts[t.color][t.role.index()] += 1;
            if t.role == Role::King {
                self.kings[t.color] = Some(to);
            }
        }
        self.turn = !self.turn;
        r
    }

    /// Moves the piece on `from` to `to`, taking what stands there, and passes the turn.
    pub(super) fn apply(&mut self, from: Square, to: Square) {
        debug_assert!(self.board[from.index()].is_some(), "a piece moves");
        if let Some(t) = self.board[to.index()] {
            self.counts[t.color][t.role.index()] -= 1;
            if t.role == Role::King {
                self.kings[t.color] = None;
            }
        }
        let piece = self.board[from.index()].take();
        if let Some(Piece {
            color,
            role: Role::King,
        }) = piece
        {
            self.kings[color] = Some(to);
        }
        self.board[to.index()] = piece;
        self.occupied = (self.occupied & !(1 << from.index())) | 1 << to.index();
        self.turn = !self.turn;
    }

    /// The FEN of the position (counters 0 and 1).
    pub fn to_fen(&self) -> String {
        let mut s = String::new();
        for rank in (0..RANKS).rev() {
            let mut empty = 0;
            for file in 0..FILES {
                let sq = Square::new(file, rank).expect("on the board");
                match self.at(sq) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let c = p.role.letter();
                        s.push(match p.color {
                            Side::White => c,
                            Side::Black => c.to_ascii_lowercase(),
                        });
                    }
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            if rank > 0 {
                s.push('/');
            }
        }
        format!("{s} {} - - 0 1", self.turn.fen_char())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_round_trips_and_names_what_is_wrong() {
        let start = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
        assert_eq!(Position::from_fen(start).unwrap().to_fen(), start);
        let bad = |fen: &str| Position::from_fen(fen).unwrap_err();
        assert_eq!(bad("rnbakabnr/9 w"), FenError::Ranks(2));
        assert_eq!(
            bad("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w"),
            FenError::RankLength { rank: 0 }
        );
        assert_eq!(
            bad("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w"),
            FenError::Letter('X')
        );
        assert_eq!(bad("4k4/9/9/9/9/9/9/9/9/K8 w"), FenError::Kings);
        // Digits past the rank's end, however many (an i8 count would wrap to 9).
        let long = format!("4k4/{}4/9/9/9/9/9/9/9/4K4 w", "9".repeat(29));
        assert_eq!(bad(&long), FenError::RankLength { rank: 8 });
        assert_eq!(
            bad("4k4/9/9/9/9/9/9/9/9/4K4 x"),
            FenError::Turn("x".to_string())
        );
    }
}

//! Chess rules built for retrograde analysis: squares, bitboards, attack tables, positions,
//! legal moves, un-moves, FEN and UCI. Not a general chess library: no SAN, no game records
//! (the book side adds what it needs).

mod attacks;
mod bitboard;
mod color;
mod fen;
mod moves;
mod perft;
mod position;
mod square;
mod uci;
mod unmoves;

pub use attacks::{
    attacks, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks,
};
pub use bitboard::Bitboard;
pub use color::{Color, Piece, Role};
pub use fen::{FenError, START_FEN};
pub use moves::{Move, MoveKind, MoveList};
pub use perft::perft;
pub use position::{Castling, Position};
pub use square::{ParseSquareError, Square};
pub use uci::IllegalUci;
pub use unmoves::{UnMove, UnMoveKind};

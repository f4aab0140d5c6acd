//! Chess rules built for retrograde analysis and for reading game records: squares,
//! bitboards, attack tables, positions, legal moves, un-moves, FEN, UCI and SAN.

mod attacks;
mod bitboard;
mod checks;
mod fen;
mod moves;
mod perft;
mod position;
mod role;
mod san;
mod square;
mod uci;
mod unmoves;

pub use attacks::{
    attacks, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks,
};
pub use bitboard::Bitboard;
pub use checks::CheckFilter;
pub use fen::FenError;
pub use moves::{Move, MoveKind, MoveList};
pub use perft::perft;
pub use position::{Castling, Position, START_FEN};
pub use role::{Piece, Role};
pub use san::SanError;
pub use square::{ParseSquareError, Square};
pub use uci::IllegalUci;
pub use unmoves::{UnMove, UnMoveKind};

//! Chinese chess (xiangqi, `docs/design.md`, Chinese chess): the board, its positions in FEN,
//! and the legal moves, beside `chess/`. Red is `Side::White` (it moves first, uppercase in FEN).
//!
//! The board is a mailbox of 90 squares, file a-i and rank 0-9 from Red's side: the
//! pieces' moves are short and blocked square by square (the horse's leg, the elephant's
//! eye, the cannon's screen), which a mailbox tests directly.

mod chase;
mod index;
mod judge;
mod moves;
mod position;
mod signature;
mod unmoves;
mod wxf;
mod zobrist;

pub use chase::{colour, Colour, Squares};
pub use index::{reachable, Digits, XiangqiIndex};
pub use judge::{Loop, LoopError, Rule, Ruling};
pub use moves::{perft, Move, UcciError};
pub use position::{side_name, FenError, Piece, Position, Role, Square};
pub use signature::{Signature, SignatureError};
pub use wxf::{Script, WxfError};
pub use zobrist::{key_after, position_key};

//! Opening books: Polyglot keys and moves (what every book tool shares), the PGN reader, the
//! parallel, memory-bounded builder and the memory-mapped book file.

pub mod build;
mod file;
pub mod pgn;
mod polyglot_key;
mod polyglot_move;
mod probe;

pub use build::{build, BuildOptions, BuildSummary};
pub use file::{Book, BookInfo, BookWriter, Entry};
pub use polyglot_key::polyglot_key;
pub use polyglot_move::{decode_move, encode_move};
pub use probe::{BookAnswer, BookMove};

//! Opening books: Polyglot keys (the position key every book tool shares) and the PGN reader
//! that feeds the book builder.

pub mod pgn;
mod polyglot_key;

pub use polyglot_key::polyglot_key;

//! Opening books: Polyglot keys (the position key every book tool shares).

mod polyglot_key;

pub use polyglot_key::polyglot_key;

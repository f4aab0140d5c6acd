//! The compression of table values: a pair grammar (`pairs`) turns runs and repeated
//! patterns into symbols, canonical Huffman codes (`huffman`) code the symbols, and
//! `stream` packs the codes into small blocks that a probe decodes in place.

mod huffman;
mod pairs;
mod stream;

pub use pairs::{PairOptions, Symbol};
pub use stream::{encode, Stream, StreamError, StreamOptions};

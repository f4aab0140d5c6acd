//! The compression of table values: a pair grammar (`pairs`) turns runs and repeated
//! patterns into symbols, canonical Huffman codes (`huffman`) code the symbols, and
//! `stream` packs the codes into small blocks that a probe decodes in place; `segments`
//! cuts a long stream into streams of a bounded number of values.

mod huffman;
mod pairs;
mod segments;
mod stream;

pub use pairs::{PairOptions, Symbol};
pub use segments::{join, Segments};
pub use stream::{encode, encode_by_frequency, StreamError, StreamOptions};

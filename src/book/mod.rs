//! Opening books: Polyglot keys and moves (what every book tool shares), the PGN reader, the
//! parallel, memory-bounded builder, the memory-mapped book file, exact merging and Polyglot
//! export and reading, and values backed up through the book graph.

mod analyse;
mod archive;
mod backup;
pub mod build;
mod encoding;
mod error;
pub mod evals;
pub(crate) mod format;
mod graph;
mod merge;
pub mod pgn;
mod pieces;
pub mod polyglot;
mod polyglot_key;
pub(crate) mod polyglot_move;
mod probe;
mod reader;
mod records;
pub mod rules;
pub(crate) mod runs;
pub mod split;
mod writer;

pub use analyse::{analyse, AnalyseOptions, AnalyseSummary};
pub(crate) use archive::{open_archive, Tally};
pub use backup::{backup, score_permille, BackupSummary};
pub use build::{build, BuildOptions, BuildSummary, Share};
pub use error::{BookError, BookFault};
pub use format::{Backup, BookInfo, Entry, Source};
pub use merge::merge;
pub use polyglot_key::polyglot_key;
pub use polyglot_move::{decode_move, encode_move};
pub use probe::{BookAnswer, BookMove};
pub use reader::Book;
pub use writer::BookWriter;

//! Table files: the layout (`format`), what each position may store (`values`), the choice
//! among stored values that compresses best (`fill`), the compression (`codec`), the writer
//! and the memory-mapped reader.

pub mod codec;
mod fill;
mod format;
mod reader;
pub mod values;
mod writer;

pub use format::{Extent, Header, EXTENSION, HEADER_LEN, MAGIC, VERSION};
pub use reader::{DtmMoves, TableFile};
pub(crate) use writer::write_table_sides;
pub use writer::{table_path, write_table, LayoutChoice, WriteOptions};

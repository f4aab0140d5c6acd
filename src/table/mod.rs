//! Table files: the layout (`format`), the writer and the memory-mapped reader.

mod format;
mod reader;
mod writer;

pub use format::{Header, EXTENSION, HEADER_LEN, MAGIC, VERSION};
pub use reader::TableFile;
pub use writer::{table_path, write_table};

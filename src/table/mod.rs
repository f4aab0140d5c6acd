//! Table files: the layout (`format`), the writer, the memory-mapped reader and the cache of
//! decoded blocks that probes share.

mod cache;
pub mod codec;
mod format;
mod reader;
mod writer;

pub use cache::{BlockCache, DEFAULT_CACHE_BYTES};
pub use format::{Header, EXTENSION, HEADER_LEN, MAGIC, VERSION};
pub use reader::TableFile;
pub use writer::{table_path, write_table, WriteOptions};

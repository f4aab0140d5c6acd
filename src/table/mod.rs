//! Table files: the layout (`format`), what each position may store (`values`), the choice
//! among stored values that compresses best (`fill`), the compression (`codec`), the writer
//! and the memory-mapped reader.

pub mod codec;
mod error;
mod fill;
mod format;
mod reader;
mod split;
mod stats;
pub mod values;
mod writer;
pub mod xiangqi;

pub use error::{FileFault, TableError};
pub use format::{DtzLayer, Extent, Header, EXTENSION, HEADER_LEN, MAGIC, VERSION};
pub use reader::{Moves, TableFile};
pub use stats::{
    add_counts, combine as combine_stats, compute as compute_stats, count_side, count_side_of,
    SideCount, SideStats, TableStats,
};
pub(crate) use writer::{dtm_side, dtm_trial, dtz_layer, wdl_inputs_of, write_table_sides, Sides};
pub use writer::{table_path, write_table, LayoutChoice, WriteOptions};

//! Probing: `Tablebase` opens table folders and answers distance-to-mate queries; `verify`
//! re-checks a finished table against its successors.

mod error;
mod loaded;
mod tablebase;
mod verify;

pub use error::ProbeError;
pub use loaded::LoadedTables;
pub use tablebase::Tablebase;
pub use verify::verify_table;

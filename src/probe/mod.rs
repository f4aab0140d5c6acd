//! Probing: `Tablebase` opens a game's table folders and answers its distance-to-mate
//! queries (`TableGame`: chess and Chinese chess); `verify` re-checks a finished table
//! against its successors.

mod bounded;
mod bounds;
mod cache;
mod en_passant;
mod error;
mod game;
mod loaded;
mod pair;
mod report;
mod root;
mod sparse;
mod tablebase;
mod verify;
mod xiangqi;
mod zeroing;

pub use cache::{CacheTooLarge, DEFAULT_CACHE_BYTES};
pub use error::ProbeError;
pub use game::{Chess, TableGame, Xiangqi};
pub(crate) use loaded::schedule_for_building;
pub use loaded::LoadedTables;
pub use report::PositionReport;
pub use root::PlayMove;
pub use tablebase::{RootMove, Tablebase};
pub use verify::{verify_table, verify_work, DtzCheck, Mismatch, VerifyError};
pub use xiangqi::XiangqiVerifyError;

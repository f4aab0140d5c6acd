//! Building tables, chess's (`chess`) and Chinese chess's (`xiangqi`), through one resumable
//! `Session` for both (`session`): it opens a folder, keeps the tables already there, sweeps
//! the temporaries of killed runs, and builds the missing ones sub-tables first, one at a
//! time, so that a killed run loses the table in progress only. Each game brings its
//! `Tables`: its order, files, estimate and the build of one table. The CLI's `gen` prints
//! what they report.

mod chess;
mod session;
pub mod xiangqi;

pub use crate::phases::{peak_memory, PhaseTime};
pub use chess::{estimate, generate, plan, GenError, GenOptions, Report};
pub use session::{Built, Session, Skip, TableName, Tables};

/// What building one table is expected to cost.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Peak memory of the process while it builds the table, at most, in bytes.
    pub peak_bytes: u64,
    /// CPU time, roughly, in seconds (about the wall time times the threads).
    pub cpu_seconds: f64,
}

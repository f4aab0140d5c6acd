//! Building tables, chess's (`chess`) and Chinese chess's (`xiangqi`): each game's session
//! opens a folder, sweeps the temporaries of killed runs, keeps the tables already there,
//! and builds the missing ones sub-tables first, one at a time, so that a killed run loses
//! the table in progress only. The CLI's `gen` prints what they report.

mod chess;
pub mod xiangqi;

pub use crate::phases::{peak_memory, PhaseTime};
pub use chess::{estimate, generate, plan, GenError, GenOptions, Report, Session};

/// What building one table is expected to cost.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Peak memory of the process while it builds the table, at most, in bytes.
    pub peak_bytes: u64,
    /// CPU time, roughly, in seconds (about the wall time times the threads).
    pub cpu_seconds: f64,
}

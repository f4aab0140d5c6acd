//! The command line's parts: its grammar (`args`), progress on
//! stderr (`progress`, `plan`), and the commands of each wing (`tables`, `book`, `graph`, `perft`).

pub mod args;
pub mod book;
pub mod graph;
pub mod judge;
pub mod perft;
pub mod plan;
pub mod progress;
pub mod said;
pub mod tables;
pub mod xiangqi;

//! Command-line handlers that are large enough to have their own file (the rest live in
//! `main.rs`).

pub mod book;
pub mod graph;
pub mod plan;
pub mod progress;

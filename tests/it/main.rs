//! The integration tests, one binary with a module per contract (the browser's and the
//! cluster's tests, which need a browser or Open MPI, stay apart: `tests/explorer.rs`,
//! `tests/cluster.rs`). One binary links once, and its tests share the threads of one run.
//!
//! Run one contract with `cargo test --test it MODULE::`, e.g. `cargo test --test it tables::`.

#[path = "../common/mod.rs"]
mod common;

mod book;
mod book_analyse;
mod book_backup;
mod capi;
mod cli;
mod damage;
mod fuzz_regressions;
mod ghi;
mod index;
mod lichess;
mod long_mates;
mod perft;
mod probe_api;
mod serve;
mod small_games;
mod table_files;
mod tables;
mod threads;
mod unmoves;
mod xiangqi_book;
mod xiangqi_rules;
mod xiangqi_tables;

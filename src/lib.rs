//! retrobook: parallel retrograde analysis into distance-to-mate endgame tables, opening
//! books mined from game archives, exact values of game graphs with repetitions, and a
//! library (Rust and C) that engines link to probe the tables and books.
//!
//! The house: a base floor of rules ([`chess`]), values ([`value`]), progress ([`progress`])
//! and thread counts ([`Threads`]); the tables wing as a straight stack, material and index
//! ([`material`], [`index`]) -> solver ([`retro`]) -> table files and their statistics
//! ([`table`]) -> probing ([`probe`]) -> building ([`generate`]); the books wing
//! ([`book`]); repetitions and path-dependent values ([`ghi`]) and the referee of Chinese
//! chess games ([`referee`]); the C ABI ([`capi`]). Data flows one way, and every
//! fallible entry point returns a typed error that names the file, line or position at
//! fault.
//!
//! # Tables
//!
//! Build a table and its sub-tables, then probe it (each parallel entry point runs on the
//! threads it is given):
//!
//! ```
//! use retrobook::generate::{GenOptions, Session};
//! use retrobook::progress::Silent;
//! use retrobook::material::Material;
//! use retrobook::{Dtm, Threads, Wdl};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let opts = GenOptions { threads: Threads::new(2), ..Default::default() };
//! // KRvK and its sub-tables, sub-tables first; a second run would build nothing.
//! let targets: [Material; 1] = ["KRvK".parse()?];
//! let tb = Session::open(dir.path(), &targets).build_all(&opts, &Silent)?;
//! let pos = "8/8/8/8/8/3k4/8/K1R5 w - - 0 1".parse()?;
//! assert_eq!(tb.probe_wdl(&pos)?, Wdl::Win);
//! assert!(matches!(tb.probe_dtm(&pos)?, Dtm::Win(_)));
//! // Tables already built are opened by folder: `Tablebase::open("tables")`.
//! # Ok(())
//! # }
//! ```
//!
//! # Books
//!
//! Count the games of a PGN archive (plain or `.zst`) into a book, then probe it:
//!
//! ```
//! use retrobook::book::{build, Book, BuildOptions};
//! use retrobook::chess::Position;
//! use retrobook::progress::Silent;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let archive = dir.path().join("games.pgn");
//! std::fs::write(&archive, "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n\
//!                           [Result \"1/2-1/2\"]\n\n1. e4 c5 1/2-1/2\n")?;
//! let out = dir.path().join("book.rbb");
//! let summary = build(&[archive], &out, &BuildOptions::default(), &Silent)?;
//! assert_eq!(summary.games_used, 2);
//! let answer = Book::open(&out)?.probe(&Position::start());
//! assert_eq!((answer.games, answer.moves.len()), (2, 1)); // 1. e4 twice
//! assert_eq!(answer.moves[0].entry.win, 1);
//! # Ok(())
//! # }
//! ```
//!
//! # Repetitions
//!
//! Exact values of a game graph whose repetitions end the game by a rule, and whether a
//! value depends on the path that reached the node:
//!
//! ```
//! use retrobook::ghi::{solve, Graph, Value};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let g = Graph::parse(
//!     "node a max\nnode b min\nnode l loss\n\
//!      edge a b\nedge b a\nedge b l\nrepetition draw\n",
//! )?;
//! let s = solve(&g);
//! let a = g.node("a").expect("named");
//! // From an empty history max loses at a; reached through b, a's only move repeats b
//! // and draws: a's value holds on some paths only, and is marked so.
//! assert_eq!((s.values[a], s.path_dependent[a]), (Value::Loss, true));
//! # Ok(())
//! # }
//! ```
//!
//! # Chinese chess
//!
//! Xiangqi tables solved under the Asian rules' perpetual-check rule, written, and probed
//! by position; a value the rule decides is marked, as it depends on the path:
//!
//! ```
//! use retrobook::probe::{Tablebase, Xiangqi};
//! use retrobook::retro::{Verdict, XiangqiTables};
//! use retrobook::table::xiangqi::write;
//! use retrobook::xiangqi::{Position, Signature};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = std::env::temp_dir().join(format!("rb-doc-xq-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! let mut tables = XiangqiTables::default();
//! let krvk: Signature = "KRvK".parse()?;
//! tables.solve(krvk); // and its sub-table KvK
//! for sig in [krvk, "KvK".parse()?] {
//!     write(&dir, tables.table(&sig).expect("solved"))?;
//! }
//! let tb = Tablebase::<Xiangqi>::open(&dir)?;
//! let pos = Position::from_fen("9/9/4k4/9/9/9/9/9/9/R2K5 w")?;
//! let value = tb.probe(&pos)?;
//! assert!(matches!(value, Verdict::Plain(retrobook::Dtm::Win(3))) && !value.by_rule());
//! assert_eq!(tb.mainline(&pos)?.len(), 3);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```
//!
//! # From C
//!
//! `include/retrobook.h` declares the C ABI ([`capi`]), `include/tbprobe.h` Fathom's API
//! over the same tables; `examples/probe.c` is a complete program, built by the test suite:
//!
//! ```c
//! RbTablebase *tb = rb_open("tables");
//! int32_t wdl = rb_probe_wdl_fen(tb, "8/8/8/8/8/3k4/8/K1R5 w - - 0 1"); /* RB_WIN */
//! rb_close(tb);
//! ```

#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod chess;
pub mod game;
pub mod index;
pub mod material;
pub mod peers;
pub mod retro;
pub mod value;
pub mod xiangqi;

pub use value::{Dtm, Dtz, Wdl, Wdl5};
mod atomic_file;
pub mod book;
pub mod capi;
#[cfg(feature = "mpi")]
pub mod cluster;
pub mod engine;
mod field;
pub mod generate;
pub mod ghi;
mod keyed;
mod phases;
mod prefetch;
pub mod probe;
pub mod progress;
pub mod referee;
mod regular_file;
pub mod side;
pub mod table;
#[cfg(test)]
mod testing;
mod threads;
mod zeroed;

pub use game::Game;
pub use probe::{ProbeError, Tablebase};
pub use side::{BySide, Side};
pub use threads::Threads;

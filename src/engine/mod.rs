//! A UCI engine run as a child process: started with its options, asked for one position at
//! a time at a fixed depth or node count, each answer read within a time limit. The books'
//! off-line analysis (`book analyse`) runs one per thread.
//!
//! Every answer is read as the engine gave it and checked only for form here (a score, a
//! best move); whether the move is legal is for the caller, who knows the game. An engine
//! that dies, falls silent past its time limit or answers out of form gives an
//! [`EngineError`], and is not asked again: the caller starts a new one.
//!
//! Not here: which positions to ask about, or what to do with the answers.

mod answer;
mod process;

pub use answer::{Analysis, Limit, Score};
pub use process::{Engine, EngineError, EngineSpec};

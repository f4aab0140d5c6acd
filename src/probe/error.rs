//! Why a probe has no answer.

use std::fmt;

/// Why a probe failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbeError {
    /// No table of this material is open.
    MissingTable(String),
    /// The position has castling rights, which tables do not cover.
    Castling,
    /// The position cannot arise in a game (the message says why).
    IllegalPosition(String),
    /// A table could not be opened or read (the message names the file and block).
    Table(String),
    /// The FEN given could not be read.
    InvalidFen(String),
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProbeError::MissingTable(sig) => write!(f, "no table for {sig}"),
            ProbeError::Castling => {
                f.write_str("positions with castling rights are not in the tables")
            }
            ProbeError::IllegalPosition(why) => write!(f, "illegal position: {why}"),
            ProbeError::Table(e) => f.write_str(e),
            ProbeError::InvalidFen(e) => write!(f, "invalid FEN {e}"),
        }
    }
}

impl std::error::Error for ProbeError {}

//! UCI move notation (`e2e4`, `e7e8q`; castling as the king's two-square move).

use super::moves::{Move, MoveList};
use super::position::Position;
use std::fmt;

impl fmt::Display for Move {
    /// ```
    /// use retrobook::chess::{Position, MoveList};
    /// let p = Position::start();
    /// let mut list = MoveList::new();
    /// p.legal_moves(&mut list);
    /// assert!(list.as_slice().iter().any(|m| m.to_string() == "e2e4"));
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(p) = self.promotion {
            write!(f, "{}", p.upper_char().to_ascii_lowercase())?;
        }
        Ok(())
    }
}

/// A UCI string that is not a legal move of the position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IllegalUci(pub String);

impl fmt::Display for IllegalUci {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not a legal move here", self.0)
    }
}

impl std::error::Error for IllegalUci {}

impl Position {
    /// The legal move written `uci` in this position.
    pub fn parse_uci(&self, uci: &str) -> Result<Move, IllegalUci> {
        let mut list = MoveList::new();
        self.legal_moves(&mut list);
        list.as_slice()
            .iter()
            .copied()
            .find(|m| m.to_string() == uci)
            .ok_or_else(|| IllegalUci(uci.to_string()))
    }
}

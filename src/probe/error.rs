//! Why a probe has no answer.

use crate::chess::FenError;
use crate::material::Material;
use crate::table::TableError;

/// Why a probe failed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// No table of this material is open.
    #[error("no table for {0}")]
    MissingTable(Material),
    /// No xiangqi table of this material in the folder.
    #[error("no table for {0}")]
    NoXiangqiTable(crate::xiangqi::Signature),
    /// The table has no DTZ layer (it was built before tables had one).
    #[error("the table of {0} has no DTZ layer (built before tables had one): build it again")]
    NoDtz(Material),
    /// More pieces than any table holds.
    #[error("no table for {material} ({} pieces)", material.pieces())]
    TooManyPieces {
        /// The position's material.
        material: Material,
    },
    /// The position has castling rights, which tables do not cover.
    #[error("positions with castling rights are not in the tables")]
    Castling,
    /// The position cannot arise in a game.
    #[error("illegal position: {0}")]
    IllegalPosition(&'static str),
    /// A table could not be opened or read (the error names the file and block).
    #[error(transparent)]
    Table(#[from] TableError),
    /// The WDL layers of the tables around a position contradict each other: one of them
    /// is damaged, and the search cannot tell which.
    #[error("the WDL layers disagree around {fen} (a table is corrupted)")]
    Inconsistent {
        /// The position, as FEN.
        fen: String,
    },
    /// A build or a check asked for a position outside what it loaded: a fault of this
    /// program, not of the tables.
    #[error("{fen}: not among the positions of {material} loaded (internal error)")]
    NotLoaded {
        /// The position, as FEN.
        fen: String,
        /// The table it was looked for in.
        material: Material,
    },
    /// The FEN given could not be read.
    #[error("invalid FEN {fen:?}: {}", error.0)]
    InvalidFen {
        /// The text given.
        fen: String,
        /// Why it is not a FEN.
        error: FenError,
    },
}

impl ProbeError {
    /// True where the position lies outside the tables (castling rights, more pieces than
    /// any table, a table not built) rather than being wrong or a table damaged: what a
    /// server answers as unknown.
    pub fn is_outside_the_tables(&self) -> bool {
        matches!(
            self,
            ProbeError::Castling | ProbeError::TooManyPieces { .. } | ProbeError::MissingTable(_)
        )
    }
}

/// A table at `path` whose stored value at `pos` its moves contradict (damaged, or built
/// wrong): refused, never answered.
pub(super) fn disagree(path: &std::path::Path, pos: &crate::chess::Position) -> ProbeError {
    crate::table::TableError::Disagree {
        path: path.to_path_buf(),
        fen: pos.to_string(),
    }
    .into()
}

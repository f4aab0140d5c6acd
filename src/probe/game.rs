//! What a `Tablebase` asks of a game, on the model of shakmaty-syzygy's `Syzygy`: what
//! names a table, what an open table file is, and how one is opened. The probes themselves
//! are each game's own (`tablebase` for chess, `xiangqi` for Chinese chess).

use super::error::ProbeError;
use crate::material::Material;
use crate::table::xiangqi::XiangqiFile;
use crate::table::{TableError, TableFile};
use crate::xiangqi::Signature;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// A game whose tables a `Tablebase` opens.
pub trait TableGame: Sized + 'static {
    /// What names a table (chess: `Material`; xiangqi: `Signature`).
    type Key: Copy + Eq + fmt::Display + fmt::Debug + FromStr + Send + Sync;
    /// An open table file.
    type File: Send + Sync;
    /// The extension of the game's table files.
    const EXTENSION: &'static str;

    /// Opens and checks the table file at `path`.
    fn open(path: &Path) -> Result<Self::File, TableError>;

    /// The table `file` holds, canonical.
    fn holds(file: &Self::File) -> Self::Key;

    /// The orientation of `key` its table is kept under.
    fn canonical(key: Self::Key) -> Self::Key;

    /// A number of `key`, distinct for distinct keys: the tables are found by it, with a
    /// hash of one multiplication.
    fn number(key: Self::Key) -> u64;

    /// Why a probe that needs `key`'s table (canonical) fails when none is open.
    fn missing(key: Self::Key) -> ProbeError;
}

/// Chess: tables named by `Material`, files `TableFile`.
#[derive(Debug)]
pub enum Chess {}

/// Chinese chess: tables named by `Signature`, files `XiangqiFile`.
#[derive(Debug)]
pub enum Xiangqi {}

impl TableGame for Chess {
    type Key = Material;
    type File = TableFile;
    const EXTENSION: &'static str = crate::table::EXTENSION;

    fn open(path: &Path) -> Result<TableFile, TableError> {
        TableFile::open(path)
    }

    fn holds(file: &TableFile) -> Material {
        file.material()
    }

    fn canonical(key: Material) -> Material {
        key.canonical()
    }

    fn number(key: Material) -> u64 {
        key.key()
    }

    fn missing(key: Material) -> ProbeError {
        ProbeError::MissingTable(key)
    }
}

impl TableGame for Xiangqi {
    type Key = Signature;
    type File = XiangqiFile;
    const EXTENSION: &'static str = crate::table::xiangqi::EXTENSION;

    fn open(path: &Path) -> Result<XiangqiFile, TableError> {
        XiangqiFile::open(path)
    }

    fn holds(file: &XiangqiFile) -> Signature {
        file.header().signature
    }

    fn canonical(key: Signature) -> Signature {
        key.canonical()
    }

    fn number(key: Signature) -> u64 {
        key.key()
    }

    fn missing(key: Signature) -> ProbeError {
        ProbeError::NoXiangqiTable(key)
    }
}

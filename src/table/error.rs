//! What goes wrong with a table file: the file system, bytes refused when the file is
//! opened, a damaged block met by a probe, or layers that contradict each other. Every
//! error names the file; the kind of fault is a variant, so that a caller can tell a
//! missing file from a damaged one from one of another version.

use super::codec::StreamError;
use std::io;
use std::path::PathBuf;

/// What is wrong with a table file's bytes, found when it is opened (the file is refused).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FileFault {
    /// Fewer bytes than a header.
    #[error("file is {len} bytes, shorter than a table header")]
    ShorterThanHeader {
        /// The file's length.
        len: u64,
    },
    /// The file does not begin as a retrobook table does.
    #[error("not a retrobook table (bad magic number)")]
    NotATable,
    /// A version of the format this program does not read.
    #[error(
        "table format version {found}, this program reads versions {oldest} and {newest}{}",
        if found < oldest { ": regenerate it with `retrobook gen`" } else { "" }
    )]
    Version {
        /// The version the file states.
        found: u32,
        /// The oldest version read.
        oldest: u32,
        /// The newest version read.
        newest: u32,
    },
    /// A table of another game.
    #[error("table of game {found:?}, expected {expected}")]
    Game {
        /// The game the header names.
        found: String,
        /// The game the reader expected.
        expected: &'static str,
    },
    /// A checksum over the part named does not match.
    #[error("{part} checksum mismatch (file corrupted)")]
    Checksum {
        /// The part checked ("header", "stream index", ...).
        part: &'static str,
    },
    /// The file ends before what it describes, or goes on after it.
    #[error("{what}")]
    Truncated {
        /// What ends where.
        what: String,
    },
    /// A value of the header or of an index lies outside its range.
    #[error("{what}")]
    Corrupt {
        /// The value, and why it cannot be.
        what: String,
    },
    /// The file holds another table than its name says (copied or renamed by hand).
    #[error("holds {holds}, not {named} as its name says")]
    Misnamed {
        /// The signature of the table the file holds.
        holds: String,
        /// The signature the file's name gives.
        named: String,
    },
    /// A fault inside one part of the file (a stream, a segment, the header's layouts).
    #[error("{part}: {fault}")]
    In {
        /// The part, as messages name it.
        part: String,
        /// What is wrong there.
        fault: Box<FileFault>,
    },
}

impl FileFault {
    /// A value out of range, described by `what`.
    pub(crate) fn corrupt(what: impl Into<String>) -> FileFault {
        FileFault::Corrupt { what: what.into() }
    }

    /// A truncation, described by `what`.
    pub(crate) fn truncated(what: impl Into<String>) -> FileFault {
        FileFault::Truncated { what: what.into() }
    }

    /// This fault, found inside `part`.
    pub(crate) fn within(self, part: impl Into<String>) -> FileFault {
        FileFault::In {
            part: part.into(),
            fault: Box::new(self),
        }
    }
}

/// A table file that cannot be opened, read or written.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The file system refused to open or map the file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A folder of tables could not be listed.
    #[error("cannot read tables folder {}: {source}", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// A folder for tables could not be created.
    #[error("cannot create tables folder {}: {source}", path.display())]
    CreateFolder {
        /// The folder.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The file's bytes were refused at open.
    #[error("{}: {fault}", path.display())]
    Refused {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        fault: FileFault,
    },
    /// A probe met a damaged block: that probe fails, the others may still answer.
    #[error(
        "{}: block {} of the {stream} values is corrupted ({})",
        path.display(),
        block.block(),
        block.why()
    )]
    Block {
        /// The file.
        path: PathBuf,
        /// The stream, as messages name it.
        stream: &'static str,
        /// The block and what is wrong with it.
        block: StreamError,
    },
    /// The WDL and DTM layers give a position contradicting values.
    #[error(
        "{}: the DTM and WDL layers disagree at {fen} (file corrupted)",
        path.display()
    )]
    Disagree {
        /// The file.
        path: PathBuf,
        /// The position, as FEN.
        fen: String,
    },
    /// The file could not be written (the finished file is then left as it was).
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file that was to be written.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
}

//! What goes wrong with a book: the file system, bytes refused when a book is opened, or
//! books that cannot be merged or backed up. Every error names the file at fault.

use std::io;
use std::path::PathBuf;

/// What is wrong with a book file's bytes, found when it is opened (the file is refused).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BookFault {
    /// Fewer bytes than a header.
    #[error("{len} bytes, shorter than a book header")]
    ShorterThanHeader {
        /// The file's length.
        len: u64,
    },
    /// The file does not begin as a retrobook book does.
    #[error("not a retrobook book (bad magic number)")]
    NotABook,
    /// A version of the format this program does not read.
    #[error("book format version {found}, this program reads version {reads}")]
    Version {
        /// The version the file states.
        found: u32,
        /// The version read.
        reads: u32,
    },
    /// A checksum over the part named does not match.
    #[error("{part} checksum mismatch (file corrupted)")]
    Checksum {
        /// The part checked ("header" or "entries").
        part: &'static str,
    },
    /// The header states entries of another size.
    #[error("unexpected entry size")]
    EntrySize,
    /// The file's length is not what its header says.
    #[error("file is {len} bytes, its header says {count} entries (truncated?)")]
    Truncated {
        /// The file's length.
        len: u64,
        /// The entries the header states.
        count: u64,
    },
    /// A game this program does not know.
    #[error("book of unknown game number {code}")]
    Game {
        /// The number the header states.
        code: u32,
    },
    /// A Polyglot file whose length is not a whole number of entries.
    #[error("{len} bytes, not a whole number of 16-byte Polyglot entries")]
    PolyglotLength {
        /// The file's length.
        len: u64,
    },
    /// A Polyglot file whose entries are out of order.
    #[error("entries not sorted by key")]
    Unsorted,
}

/// A book that cannot be opened, built, merged, backed up or written.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The file system failed on the file (or folder) named.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The book could not be written (whatever stood under its name is left as it was).
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The book being written.
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
        fault: BookFault,
    },
    /// An archive could not be read on (damaged compressed data, a read error): the build
    /// stops and writes nothing.
    #[error("{}: after line {line} of its text: {source}", path.display())]
    Archive {
        /// The archive.
        path: PathBuf,
        /// The last line of text read before the fault.
        line: u64,
        /// What went wrong, and where in the file.
        source: io::Error,
    },
    /// An archive with no game in it: not PGN.
    #[error("{}: no PGN game found (no tag pair, no final result): is it PGN?", path.display())]
    NoGames {
        /// The archive.
        path: PathBuf,
    },
    /// Games were read, but none could be counted.
    #[error("none of the {read} games read could be counted ({reasons}): no book written")]
    NothingCounted {
        /// Games read.
        read: u64,
        /// Why they were skipped, reason by reason.
        reasons: String,
    },
    /// A book's engine values (or the journal of a run making them) that cannot be read
    /// or added to.
    #[error("{}: {what}", path.display())]
    Evals {
        /// The evals file or journal.
        path: PathBuf,
        /// What is wrong with it.
        what: String,
    },
    /// The engine failed beyond what `book analyse` goes on after (it cannot start at all).
    #[error(transparent)]
    Engine(crate::engine::EngineError),
    /// A merge was asked of no book.
    #[error("nothing to merge")]
    NothingToMerge,
    /// Books to merge were built with different depths.
    #[error(
        "{}: built with --max-ply {found}, {} with {expected}",
        path.display(),
        first.display()
    )]
    MaxPlyDiffers {
        /// The book that differs.
        path: PathBuf,
        /// Its depth.
        found: u32,
        /// The first book.
        first: PathBuf,
        /// The first book's depth.
        expected: u32,
    },
    /// Two books to merge count some games twice.
    #[error(
        "{} and {} count the same games ({archive}): merged, they would count them twice",
        other.display(),
        path.display()
    )]
    SameGames {
        /// The later book.
        path: PathBuf,
        /// The book it meets.
        other: PathBuf,
        /// What they both count.
        archive: String,
    },
    /// A book to merge left out rare moves, so sums over it would be wrong.
    #[error(
        "{}: built with --min-games {min_games}, so its sums are incomplete; merge books \
         built with --min-games 1",
        path.display()
    )]
    Incomplete {
        /// The book.
        path: PathBuf,
        /// Its threshold.
        min_games: u32,
    },
    /// A book of another game than the one asked for (or than the other books merged).
    #[error("{}: a {found} book, not a {expected} book", path.display())]
    WrongGame {
        /// The book.
        path: PathBuf,
        /// Its game.
        found: crate::game::Game,
        /// The game asked for.
        expected: crate::game::Game,
    },
    /// A book with more entries than a back-up numbers.
    #[error("{}: {entries} entries, more than a back-up can number", path.display())]
    TooLarge {
        /// The book.
        path: PathBuf,
        /// Its entries.
        entries: u64,
    },
}

impl BookError {
    /// A failure `source` to write the book `path`.
    pub(crate) fn write(path: impl Into<PathBuf>, source: io::Error) -> BookError {
        BookError::Write {
            path: path.into(),
            source,
        }
    }

    /// An I/O error `source` on `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> BookError {
        BookError::Io {
            path: path.into(),
            source,
        }
    }
}

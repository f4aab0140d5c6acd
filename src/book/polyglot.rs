//! Polyglot `.bin` books: export from a native book, and a reader (for our exports and for
//! third-party books). An entry is 16 bytes, big-endian: key u64, move u16 (see
//! `polyglot_move`), weight u16, learn u32; entries are sorted by key, and a position's moves
//! by weight, highest first.
//!
//! Export weight of a move: 2 * wins + draws (from the mover's view), Polyglot make-book's
//! own formula; a position whose largest weight exceeds 65,535 has all its weights divided
//! by the same factor (rounded up), so their order is kept. Moves of weight 0 (lost in every
//! game) are left out, as Polyglot readers never play them.

use super::error::{BookError, BookFault};
use super::format::Entry;
use super::reader::Book;
use crate::atomic_file::{prepare_folder_of, AtomicFile};
use crate::field;
use crate::game::Game;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// One Polyglot entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PolyglotEntry {
    /// Polyglot position key.
    pub key: u64,
    /// Polyglot move code.
    pub mv: u16,
    /// Weight (relative frequency of play).
    pub weight: u16,
    /// Learning data (0 in exports).
    pub learn: u32,
}

impl PolyglotEntry {
    fn to_bytes(self) -> [u8; 16] {
        let mut b = [0u8; 16];
        field::put_be(&mut b, 0, self.key);
        field::put_be(&mut b, 8, self.mv);
        field::put_be(&mut b, 10, self.weight);
        field::put_be(&mut b, 12, self.learn);
        b
    }

    fn from_bytes(b: &[u8]) -> PolyglotEntry {
        PolyglotEntry {
            key: field::get_be(b, 0),
            mv: field::get_be(b, 8),
            weight: field::get_be(b, 10),
            learn: field::get_be(b, 12),
        }
    }
}

/// The Polyglot entries of one position's move entries (export formula above), highest
/// weight first (ties: more games first, then move code).
pub fn position_entries(moves: &[Entry]) -> Vec<PolyglotEntry> {
    let raw: Vec<(u64, &Entry)> = moves
        .iter()
        .map(|e| (2 * u64::from(e.win) + u64::from(e.draw), e))
        .filter(|(w, _)| *w > 0)
        .collect();
    let max = raw.iter().map(|(w, _)| *w).max().unwrap_or(0);
    let divisor = max.div_ceil(u64::from(u16::MAX)).max(1);
    let mut out: Vec<(PolyglotEntry, u32)> = raw
        .iter()
        .map(|(w, e)| {
            (
                PolyglotEntry {
                    key: e.key,
                    mv: e.mv,
                    weight: (w / divisor).max(1) as u16,
                    learn: 0,
                },
                e.games,
            )
        })
        .collect();
    out.sort_by(|a, b| {
        b.0.weight
            .cmp(&a.0.weight)
            .then(b.1.cmp(&a.1))
            .then(a.0.mv.cmp(&b.0.mv))
    });
    out.into_iter().map(|(p, _)| p).collect()
}

/// Writes `book` as a Polyglot `.bin` at `out` (under a temporary name, renamed when
/// complete, its folder created if missing); returns the number of entries.
pub fn export(book: &Book, out: &Path) -> Result<u64, BookError> {
    if book.info().game != Game::Chess {
        return Err(BookError::WrongGame {
            path: book.path().to_path_buf(),
            found: book.info().game,
            expected: Game::Chess,
        });
    }
    write_entries(book, out).map_err(|e| BookError::write(out, e))
}

fn write_entries(book: &Book, out: &Path) -> io::Result<u64> {
    prepare_folder_of(out)?;
    let mut file = AtomicFile::create(out)?;
    let w = file.writer();
    let mut count = 0;
    let mut group: Vec<Entry> = Vec::new();
    let mut flush = |group: &mut Vec<Entry>, w: &mut BufWriter<File>| -> io::Result<()> {
        for p in position_entries(group) {
            w.write_all(&p.to_bytes())?;
            count += 1;
        }
        group.clear();
        Ok(())
    };
    for e in book.iter() {
        if group.first().is_some_and(|g| g.key != e.key) {
            flush(&mut group, w)?;
        }
        if e.mv != 0 {
            group.push(e);
        }
    }
    flush(&mut group, w)?;
    file.finish()?;
    Ok(count)
}

/// A Polyglot book read into memory.
pub struct PolyglotBook {
    entries: Vec<PolyglotEntry>,
}

impl PolyglotBook {
    /// Reads a `.bin` file; errors name the file (a size that is not a multiple of 16, or
    /// keys out of order).
    pub fn open(path: &Path) -> Result<PolyglotBook, BookError> {
        let bytes = std::fs::read(path).map_err(|e| BookError::io(path, e))?;
        let refused = |fault| BookError::Refused {
            path: path.to_path_buf(),
            fault,
        };
        if bytes.len() % 16 != 0 {
            return Err(refused(BookFault::PolyglotLength {
                len: bytes.len() as u64,
            }));
        }
        let entries: Vec<PolyglotEntry> = bytes
            .chunks_exact(16)
            .map(PolyglotEntry::from_bytes)
            .collect();
        if entries.windows(2).any(|w| w[0].key > w[1].key) {
            return Err(refused(BookFault::Unsorted));
        }
        Ok(PolyglotBook { entries })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True for an empty book.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries of position `key`, in file order (highest weight first in books that
    /// follow the convention).
    pub fn entries(&self, key: u64) -> &[PolyglotEntry] {
        let start = self.entries.partition_point(|e| e.key < key);
        let end = self.entries.partition_point(|e| e.key <= key);
        &self.entries[start..end]
    }

    /// Every entry in file order.
    pub fn all(&self) -> &[PolyglotEntry] {
        &self.entries
    }
}

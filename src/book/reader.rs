//! Opens a book file (layout in `format`) through a memory map, checks its header and
//! checksums, and finds a position's entries by binary search.

use super::error::{BookError, BookFault};
use super::format::{BookInfo, Entry, BOOK_MAGIC, BOOK_VERSION, ENTRY_LEN, FLAG_BACKED_UP, HEADER};
use crate::field;
use crate::game::Game;
use crate::regular_file::open_regular;
use memmap2::Mmap;
use std::path::{Path, PathBuf};

/// An open, checked book.
pub struct Book {
    path: PathBuf,
    map: Mmap,
    info: BookInfo,
    count: usize,
    backed_up: bool,
}

impl Book {
    /// Opens and checks a book file; errors name the file and the problem.
    pub fn open(path: impl AsRef<Path>) -> Result<Book, BookError> {
        let path = path.as_ref();
        let refused = |fault| BookError::Refused {
            path: path.to_path_buf(),
            fault,
        };
        let file = open_regular(path).map_err(|e| BookError::io(path, e))?;
        // SAFETY: read-only; books are written under a temporary name and renamed.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| BookError::io(path, e))?;
        let len = map.len() as u64;
        if map.len() < HEADER {
            return Err(refused(BookFault::ShorterThanHeader { len }));
        }
        if map[0..8] != BOOK_MAGIC {
            return Err(refused(BookFault::NotABook));
        }
        let u32_at = |at| field::get::<u32>(&map, at);
        let u64_at = |at| field::get::<u64>(&map, at);
        if u32_at(8) != BOOK_VERSION {
            return Err(refused(BookFault::Version {
                found: u32_at(8),
                reads: BOOK_VERSION,
            }));
        }
        if u32_at(60) != crc32fast::hash(&map[..60]) {
            return Err(refused(BookFault::Checksum { part: "header" }));
        }
        if u32_at(12) as usize != ENTRY_LEN {
            return Err(refused(BookFault::EntrySize));
        }
        let count = u64_at(16);
        let expected = count
            .checked_mul(ENTRY_LEN as u64)
            .and_then(|n| n.checked_add(HEADER as u64));
        if expected != Some(len) {
            return Err(refused(BookFault::Truncated { len, count }));
        }
        if crc32fast::hash(&map[HEADER..]) != u32_at(40) {
            return Err(refused(BookFault::Checksum { part: "entries" }));
        }
        let game =
            Game::from_code(u32_at(48)).ok_or(refused(BookFault::Game { code: u32_at(48) }))?;
        Ok(Book {
            path: path.to_path_buf(),
            info: BookInfo {
                game,
                games: u64_at(24),
                max_ply: u32_at(32),
                min_games: u32_at(36),
            },
            count: count as usize,
            backed_up: u32_at(44) & FLAG_BACKED_UP != 0,
            map,
        })
    }

    /// Where the book was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the header records.
    pub fn info(&self) -> BookInfo {
        self.info
    }

    /// True when the entries carry back-up values (`book backup` has run on the book).
    pub fn backed_up(&self) -> bool {
        self.backed_up
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True for a book without entries.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Entry `i` in key order.
    pub fn entry(&self, i: usize) -> Entry {
        Entry::from_bytes(&self.map[HEADER + i * ENTRY_LEN..HEADER + (i + 1) * ENTRY_LEN])
    }

    fn key_at(&self, i: usize) -> u64 {
        let at = HEADER + i * ENTRY_LEN;
        field::get(&self.map, at)
    }

    /// All entries of the position `key`: its own entry (move 0) first, then its moves in
    /// move-code order. Empty when the book does not know the position.
    pub fn entries(&self, key: u64) -> Vec<Entry> {
        // First index whose key is >= `key`.
        let (mut lo, mut hi) = (0, self.count);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.key_at(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (lo..self.count)
            .take_while(|&i| self.key_at(i) == key)
            .map(|i| self.entry(i))
            .collect()
    }

    /// Every entry in key order.
    pub fn iter(&self) -> impl Iterator<Item = Entry> + '_ {
        (0..self.count).map(|i| self.entry(i))
    }
}

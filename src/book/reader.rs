//! Opens a book file (layout in `format`) through a memory map, checks its header and
//! checksums, and finds a position's entries by binary search.

use super::error::{BookError, BookFault};
use super::format::{
    BookInfo, Entry, Source, BOOK_MAGIC, BOOK_VERSION, ENTRY_LEN, FLAG_BACKED_UP, HEADER,
    OLDEST_BOOK_VERSION,
};
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
    /// The archives counted; None for a book of format 1, which does not say.
    sources: Option<Vec<Source>>,
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
        let version = u32_at(8);
        if !(OLDEST_BOOK_VERSION..=BOOK_VERSION).contains(&version) {
            return Err(refused(BookFault::Version {
                found: version,
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
        let end = count
            .checked_mul(ENTRY_LEN as u64)
            .and_then(|n| n.checked_add(HEADER as u64))
            .filter(|&end| end <= len && (version > 1 || end == len));
        let Some(end) = end else {
            return Err(refused(BookFault::Truncated { len, count }));
        };
        let end = end as usize;
        if crc32fast::hash(&map[HEADER..end]) != u32_at(40) {
            return Err(refused(BookFault::Checksum { part: "entries" }));
        }
        let sources = match version {
            1 => None,
            _ => Some(
                Source::read_section(&map[end..])
                    .ok_or(refused(BookFault::Checksum { part: "sources" }))?,
            ),
        };
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
            sources,
            map,
        })
    }

    /// What tells two copies of one book apart from other books: the entries' count and
    /// checksum and the games counted.
    pub(crate) fn fingerprint(&self) -> (usize, u32, u64) {
        (self.count, field::get(&self.map, 40), self.info.games)
    }

    /// The archives whose games the book counts; None for a book that does not say
    /// (format 1).
    pub fn sources(&self) -> Option<&[Source]> {
        self.sources.as_deref()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::BookWriter;

    /// A book of format 1 (no sources section) still opens, with the same entries and no
    /// sources; one of format 2 has its sources back, and a damaged sources section is
    /// refused.
    #[test]
    fn books_of_format_one_open_and_sources_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.rbb");
        let mut w = BookWriter::create(&path).unwrap();
        for key in [3u64, 5, 9] {
            let e = Entry {
                key,
                games: 2,
                win: 1,
                draw: 1,
                ..Entry::default()
            };
            w.push(&e).unwrap();
        }
        let source = Source {
            bytes: 1234,
            crc: 0x5eed,
            part: 1,
            parts: 2,
        };
        w.set_sources(vec![source.clone()]);
        w.finish(BookInfo {
            games: 2,
            max_ply: 10,
            min_games: 1,
            ..BookInfo::default()
        })
        .unwrap();
        let book = Book::open(&path).unwrap();
        assert_eq!(book.sources(), Some(&[source][..]));
        let entries: Vec<Entry> = book.iter().collect();
        drop(book);
        let bytes = std::fs::read(&path).unwrap();
        let end = HEADER + 3 * ENTRY_LEN;
        let mut old = bytes[..end].to_vec();
        field::put(&mut old, 8, 1u32);
        let crc = crc32fast::hash(&old[..60]);
        field::put(&mut old, 60, crc);
        let v1 = dir.path().join("v1.rbb");
        std::fs::write(&v1, &old).unwrap();
        let book = Book::open(&v1).unwrap();
        assert_eq!(book.sources(), None);
        assert_eq!(book.iter().collect::<Vec<_>>(), entries);
        let mut damaged = bytes.clone();
        damaged[end + 6] ^= 1;
        std::fs::write(&v1, &damaged).unwrap();
        let e = Book::open(&v1).err().unwrap().to_string();
        assert!(e.contains("sources checksum mismatch"), "{e}");
        std::fs::write(&v1, &bytes[..bytes.len() - 2]).unwrap();
        assert!(Book::open(&v1).is_err());
    }
}

//! The book file: fixed-size entries sorted by (position key, move), memory-mapped and
//! binary-searched. All integers little-endian.
//!
//! ```text
//! offset  size  field
//!      0     8  magic b"RBBOOK\x1a\0"
//!      8     4  format version (1)
//!     12     4  entry size (32)
//!     16     8  number of entries
//!     24     8  games used to build the book
//!     32     4  --max-ply the book was built with
//!     36     4  --min-games the book was built with
//!     40     4  CRC-32 of all entries
//!     44    16  reserved, zero
//!     60     4  CRC-32 of bytes 0..60
//!     64        entries, 32 bytes each:
//!               key u64, move u16 (Polyglot encoding; 0 = the position itself), reserved u16,
//!               games u32, win u32, draw u32, loss u32 (side to move's view), repeats u32
//! ```
//! A position's own entry (move 0) counts the games that reached it; each move entry counts
//! the games that played that move there. A game counts once per position and per move even
//! when the position recurs in it.

use memmap2::Mmap;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Identifies a retrobook book file.
pub const BOOK_MAGIC: [u8; 8] = *b"RBBOOK\x1a\0";
/// The book format version this code writes and reads.
pub const BOOK_VERSION: u32 = 1;
const HEADER: usize = 64;
/// Bytes per entry.
pub const ENTRY_LEN: usize = 32;

/// One entry: statistics of a position (`mv == 0`) or of one move played from it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// Polyglot key of the position.
    pub key: u64,
    /// Polyglot move, or 0 for the position's own entry.
    pub mv: u16,
    /// Games counted.
    pub games: u32,
    /// Of those, won by the side to move.
    pub win: u32,
    /// Drawn.
    pub draw: u32,
    /// Lost by the side to move.
    pub loss: u32,
    /// Reserved for repetition counts (0).
    pub repeats: u32,
}

impl Entry {
    /// Adds `o`'s counts (same key and move).
    pub fn add(&mut self, o: &Entry) {
        self.games += o.games;
        self.win += o.win;
        self.draw += o.draw;
        self.loss += o.loss;
        self.repeats += o.repeats;
    }

    /// The 32 bytes of the entry.
    pub fn to_bytes(&self) -> [u8; ENTRY_LEN] {
        let mut b = [0u8; ENTRY_LEN];
        b[0..8].copy_from_slice(&self.key.to_le_bytes());
        b[8..10].copy_from_slice(&self.mv.to_le_bytes());
        for (i, v) in [self.games, self.win, self.draw, self.loss, self.repeats]
            .into_iter()
            .enumerate()
        {
            b[12 + 4 * i..16 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        b
    }

    /// An entry from its 32 bytes.
    pub fn from_bytes(b: &[u8]) -> Entry {
        let u32_at = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"));
        Entry {
            key: u64::from_le_bytes(b[0..8].try_into().expect("8 bytes")),
            mv: u16::from_le_bytes(b[8..10].try_into().expect("2 bytes")),
            games: u32_at(12),
            win: u32_at(16),
            draw: u32_at(20),
            loss: u32_at(24),
            repeats: u32_at(28),
        }
    }
}

/// What a book header records besides its entries.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct BookInfo {
    /// Games used to build the book.
    pub games: u64,
    /// Plies per game taken into the book.
    pub max_ply: u32,
    /// Entries with fewer games were left out.
    pub min_games: u32,
}

/// Writes entries (sorted by key and move) to a book file: under a temporary name, renamed
/// when complete.
pub struct BookWriter {
    path: PathBuf,
    tmp: PathBuf,
    out: io::BufWriter<File>,
    count: u64,
    crc: crc32fast::Hasher,
    last: Option<(u64, u16)>,
}

impl BookWriter {
    /// Starts a book at `path`.
    pub fn create(path: &Path) -> io::Result<BookWriter> {
        let name = path
            .file_name()
            .map_or("book".into(), |n| n.to_string_lossy());
        let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let mut out = io::BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        out.write_all(&[0u8; HEADER])?;
        Ok(BookWriter {
            path: path.to_path_buf(),
            tmp,
            out,
            count: 0,
            crc: crc32fast::Hasher::new(),
            last: None,
        })
    }

    /// Appends an entry; entries must come in strictly increasing (key, move) order.
    pub fn push(&mut self, e: &Entry) -> io::Result<()> {
        if self.last.is_some_and(|l| l >= (e.key, e.mv)) {
            return Err(io::Error::other("book entries out of order"));
        }
        self.last = Some((e.key, e.mv));
        let b = e.to_bytes();
        self.crc.update(&b);
        self.out.write_all(&b)?;
        self.count += 1;
        Ok(())
    }

    /// Writes the header, syncs and renames; returns the file size.
    pub fn finish(self, info: BookInfo) -> io::Result<u64> {
        let mut h = [0u8; HEADER];
        h[0..8].copy_from_slice(&BOOK_MAGIC);
        h[8..12].copy_from_slice(&BOOK_VERSION.to_le_bytes());
        h[12..16].copy_from_slice(&(ENTRY_LEN as u32).to_le_bytes());
        h[16..24].copy_from_slice(&self.count.to_le_bytes());
        h[24..32].copy_from_slice(&info.games.to_le_bytes());
        h[32..36].copy_from_slice(&info.max_ply.to_le_bytes());
        h[36..40].copy_from_slice(&info.min_games.to_le_bytes());
        h[40..44].copy_from_slice(&self.crc.finalize().to_le_bytes());
        let crc = crc32fast::hash(&h[..60]);
        h[60..64].copy_from_slice(&crc.to_le_bytes());
        let mut file = self.out.into_inner().map_err(|e| e.into_error())?;
        use std::io::Seek;
        file.seek(io::SeekFrom::Start(0))?;
        file.write_all(&h)?;
        file.sync_all()?;
        std::fs::rename(&self.tmp, &self.path)?;
        Ok(HEADER as u64 + self.count * ENTRY_LEN as u64)
    }

    /// Removes the unfinished file (after an error).
    pub fn abandon(self) {
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// An open, checked book.
pub struct Book {
    path: PathBuf,
    map: Mmap,
    info: BookInfo,
    count: usize,
}

impl Book {
    /// Opens and checks a book file; errors name the file and the problem.
    pub fn open(path: impl AsRef<Path>) -> Result<Book, String> {
        let path = path.as_ref();
        let fail = |why: String| format!("{}: {why}", path.display());
        let file = File::open(path).map_err(|e| fail(e.to_string()))?;
        // SAFETY: read-only; books are written under a temporary name and renamed.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| fail(e.to_string()))?;
        if map.len() < HEADER {
            return Err(fail(format!(
                "{} bytes, shorter than a book header",
                map.len()
            )));
        }
        if map[0..8] != BOOK_MAGIC {
            return Err(fail("not a retrobook book (bad magic number)".into()));
        }
        let u32_at = |at: usize| u32::from_le_bytes(map[at..at + 4].try_into().expect("4"));
        let u64_at = |at: usize| u64::from_le_bytes(map[at..at + 8].try_into().expect("8"));
        if u32_at(8) != BOOK_VERSION {
            return Err(fail(format!(
                "book format version {}, this program reads version {BOOK_VERSION}",
                u32_at(8)
            )));
        }
        if u32_at(60) != crc32fast::hash(&map[..60]) {
            return Err(fail("header checksum mismatch (file corrupted)".into()));
        }
        if u32_at(12) as usize != ENTRY_LEN {
            return Err(fail("unexpected entry size".into()));
        }
        let count = u64_at(16);
        let expected = count
            .checked_mul(ENTRY_LEN as u64)
            .and_then(|n| n.checked_add(HEADER as u64));
        if expected != Some(map.len() as u64) {
            return Err(fail(format!(
                "file is {} bytes, its header says {count} entries (truncated?)",
                map.len()
            )));
        }
        if crc32fast::hash(&map[HEADER..]) != u32_at(40) {
            return Err(fail("entries checksum mismatch (file corrupted)".into()));
        }
        Ok(Book {
            path: path.to_path_buf(),
            info: BookInfo {
                games: u64_at(24),
                max_ply: u32_at(32),
                min_games: u32_at(36),
            },
            count: count as usize,
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
        u64::from_le_bytes(self.map[at..at + 8].try_into().expect("8 bytes"))
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

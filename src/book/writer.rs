//! Writes a book file (layout in `format`) as an `AtomicFile`: whole under its name, or not
//! at all.

use super::format::{
    BookInfo, Entry, Source, BOOK_MAGIC, BOOK_VERSION, ENTRY_LEN, FLAG_BACKED_UP, HEADER,
};
use crate::atomic_file::{prepare_folder_of, AtomicFile};
use crate::field;
use std::io::{self, Seek, Write};
use std::path::Path;

/// Writes entries (sorted by key and move) to a book file: under a temporary name, renamed
/// when complete.
pub struct BookWriter {
    out: AtomicFile,
    count: u64,
    crc: crc32fast::Hasher,
    last: Option<(u64, u16)>,
    flags: u32,
    sources: Vec<Source>,
}

impl BookWriter {
    /// Starts a book at `path`, creating its folder if missing.
    pub fn create(path: &Path) -> io::Result<BookWriter> {
        prepare_folder_of(path)?;
        let mut out = AtomicFile::create(path)?;
        out.writer().write_all(&[0u8; HEADER])?;
        Ok(BookWriter {
            out,
            count: 0,
            crc: crc32fast::Hasher::new(),
            last: None,
            flags: 0,
            sources: Vec::new(),
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
        self.out.writer().write_all(&b)?;
        self.count += 1;
        Ok(())
    }

    /// Records in the header that the entries carry back-up values (`book backup`).
    pub fn mark_backed_up(&mut self) {
        self.flags |= FLAG_BACKED_UP;
    }

    /// Records the archives whose games the entries count.
    pub fn set_sources(&mut self, sources: Vec<Source>) {
        self.sources = Source::normalized(sources);
    }

    /// Writes the sources and the header, syncs and renames; returns the file size. On
    /// failure the unfinished file is removed and whatever was at `path` before is left as
    /// it was.
    pub fn finish(mut self, info: BookInfo) -> io::Result<u64> {
        let section = Source::section(&self.sources);
        self.out.writer().write_all(&section)?;
        let mut h = [0u8; HEADER];
        h[0..8].copy_from_slice(&BOOK_MAGIC);
        field::put(&mut h, 8, BOOK_VERSION);
        field::put(&mut h, 12, ENTRY_LEN as u32);
        field::put(&mut h, 16, self.count);
        field::put(&mut h, 24, info.games);
        field::put(&mut h, 32, info.max_ply);
        field::put(&mut h, 36, info.min_games);
        field::put(&mut h, 40, self.crc.finalize());
        field::put(&mut h, 44, self.flags);
        field::put(&mut h, 48, info.game.code());
        let crc = crc32fast::hash(&h[..60]);
        field::put(&mut h, 60, crc);
        let w = self.out.writer();
        w.seek(io::SeekFrom::Start(0))?;
        w.write_all(&h)?;
        self.out.finish()?;
        Ok(HEADER as u64 + self.count * ENTRY_LEN as u64 + section.len() as u64)
    }
}

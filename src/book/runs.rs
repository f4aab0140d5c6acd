//! Runs: sorted, summed entries spilled to temporary files while a book is built, and the
//! k-way merge that sums sorted streams of entries (runs, or whole books) into a book.

use super::format::{Entry, ENTRY_LEN};
use super::records::Records;
use crate::atomic_file::TempFolder;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// A sorted stream of entries: a run file or a book.
pub(crate) type EntryStream<'a> = Box<dyn Iterator<Item = io::Result<Entry>> + 'a>;

/// Reads a run file written by `spill`.
pub(crate) fn read_run(path: &Path) -> io::Result<EntryStream<'static>> {
    let mut r = BufReader::with_capacity(1 << 16, File::open(path)?);
    Ok(Box::new(std::iter::from_fn(move || {
        let mut b = [0u8; ENTRY_LEN];
        match r.read_exact(&mut b) {
            Ok(()) => Some(Ok(Entry::from_bytes(&b))),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => None,
            Err(e) => Some(Err(e)),
        }
    })))
}

/// Merges sorted streams, summing equal (key, move) entries, into `sink` (a book's
/// writer, or another process), leaving out entries with fewer than `min_games` games;
/// returns the number passed on.
pub(crate) fn merge_into(
    streams: Vec<EntryStream<'_>>,
    min_games: u32,
    sink: &mut dyn FnMut(&Entry) -> io::Result<()>,
) -> io::Result<u64> {
    let mut streams = streams;
    let mut written = 0;
    let mut emit = |e: Entry| -> io::Result<()> {
        if e.games >= min_games {
            sink(&e)?;
            written += 1;
        }
        Ok(())
    };
    if streams.len() == 1 {
        // Already sorted and summed: no heap needed.
        for e in streams.pop().expect("one stream") {
            emit(e?)?;
        }
        return Ok(written);
    }
    let mut heap = BinaryHeap::new();
    for (i, s) in streams.iter_mut().enumerate() {
        if let Some(e) = s.next() {
            let e = e?;
            heap.push(std::cmp::Reverse((e.key, e.mv, i, e)));
        }
    }
    let mut current: Option<Entry> = None;
    while let Some(std::cmp::Reverse((_, _, i, e))) = heap.pop() {
        if let Some(next) = streams[i].next() {
            let n = next?;
            heap.push(std::cmp::Reverse((n.key, n.mv, i, n)));
        }
        match &mut current {
            Some(c) if (c.key, c.mv) == (e.key, e.mv) => c.add(&e),
            _ => {
                if let Some(c) = current.replace(e) {
                    emit(c)?;
                }
            }
        }
    }
    if let Some(c) = current {
        emit(c)?;
    }
    Ok(written)
}

/// Temporary run files in a folder next to the output (`.NAME.runs.PID.N.tmp`, locked, so
/// that a killed build's folder is swept as its other temporaries are), made at the first
/// run and removed when dropped.
pub(crate) struct Runs {
    /// The output the runs are for.
    out: PathBuf,
    folder: Option<TempFolder>,
    pub(crate) files: Vec<PathBuf>,
}

impl Runs {
    pub(crate) fn new(out: &Path) -> Runs {
        Runs {
            out: out.to_path_buf(),
            folder: None,
            files: Vec::new(),
        }
    }

    /// The folder of the runs, made at the first call.
    pub(crate) fn folder(&mut self) -> io::Result<PathBuf> {
        if self.folder.is_none() {
            self.folder = Some(TempFolder::create(&self.out, ".runs")?);
        }
        Ok(self
            .folder
            .as_ref()
            .expect("made above")
            .path()
            .to_path_buf())
    }

    /// Where the runs go (or, before the first, the output they are beside), for errors.
    pub(crate) fn place(&self) -> PathBuf {
        self.folder
            .as_ref()
            .map_or_else(|| self.out.clone(), |f| f.path().to_path_buf())
    }

    /// Sorts and sums `records` and writes them as one more run, then empties it.
    pub(crate) fn spill(&mut self, records: &mut Records) -> io::Result<()> {
        let path = self.folder()?.join(format!("run-{}", self.files.len()));
        let mut w = BufWriter::with_capacity(1 << 20, File::create(&path)?);
        for e in records.sort_and_sum(1) {
            w.write_all(&e.to_bytes())?;
        }
        w.flush()?;
        self.files.push(path);
        Ok(())
    }
}

//! A book's engine values (`book analyse`): one record per position analysed, in a file
//! beside the book (`BOOK.evals`), sorted by key and binary-searched. While a run is under
//! way its records go, as each position is done, to a journal (`BOOK.evals.part`) that a
//! killed run resumes from; the run ends by writing the sorted file whole and removing the
//! journal, so an interrupted run and an uninterrupted one leave the same bytes.
//!
//! ```text
//! header, 128 bytes, integers little-endian:
//!      0   8  magic b"RBEVALS\x1a"
//!      8   4  format version (1)
//!     12   4  record size (40)
//!     16   8  records (0 in a journal)
//!     24   8  the book's entries  } which book the values are of
//!     32   8  the book's games    }
//!     40   1  limit: 1 depth, 2 nodes
//!     41   1  game: 0 chess, 1 xiangqi
//!     42   2  zero
//!     44   8  the limit's depth or nodes
//!     52   4  CRC-32 of the records (0 in a journal)
//!     56   8  zero
//!     64  60  the engine's name (`id name`), UTF-8, zero-padded
//!    124   4  CRC-32 of bytes 0..124
//! records, 40 bytes each (in a journal, each followed by its CRC-32):
//!      0   8  position key (the book's)
//!      8   4  score, from the side to move's view: centipawns, or moves to mate
//!     12   1  score kind: 0 centipawns, 1 mate (positive: the side to move mates)
//!     13   1  moves in the line (0..=10)
//!     14   2  depth
//!     16   2  best move (the book's move code)
//!     18   2  zero
//!     20  20  the line, ten move codes (unused ones zero)
//! ```

use super::error::BookError;
use crate::atomic_file::{locked_elsewhere, AtomicFile};
use crate::engine::{Limit, Score};
use crate::field;
use crate::game::Game;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"RBEVALS\x1a";
const VERSION: u32 = 1;
const HEADER: usize = 128;
const RECORD: usize = 40;
/// A journal's record with its checksum.
const JOURNALED: usize = RECORD + 4;
/// Moves of a line kept.
pub const LINE: usize = 10;
const NAME: usize = 60;

/// One position's engine value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Eval {
    /// The position's key in the book.
    pub key: u64,
    /// The score, from the side to move's view.
    pub score: Score,
    /// The depth the engine reached.
    pub depth: u16,
    /// The best move (the book's move code).
    pub best: u16,
    /// The engine's line, at most `LINE` moves, as far as its moves are legal.
    pub line: Vec<u16>,
}

impl Eval {
    fn to_bytes(&self) -> [u8; RECORD] {
        let mut b = [0u8; RECORD];
        b[0..8].copy_from_slice(&self.key.to_le_bytes());
        let (n, kind) = match self.score {
            Score::Centipawns(cp) => (cp, 0),
            Score::Mate(m) => (m, 1),
        };
        b[8..12].copy_from_slice(&n.to_le_bytes());
        b[12] = kind;
        b[13] = self.line.len().min(LINE) as u8;
        b[14..16].copy_from_slice(&self.depth.to_le_bytes());
        b[16..18].copy_from_slice(&self.best.to_le_bytes());
        for (i, m) in self.line.iter().take(LINE).enumerate() {
            b[20 + 2 * i..22 + 2 * i].copy_from_slice(&m.to_le_bytes());
        }
        b
    }

    /// Whether the record in `b` is in form: a known score kind, a line that fits.
    fn in_form(b: &[u8]) -> bool {
        b[12] <= 1 && usize::from(b[13]) <= LINE
    }

    /// The record in `b`, None where it is out of form.
    fn from_bytes(b: &[u8]) -> Option<Eval> {
        if !Eval::in_form(b) {
            return None;
        }
        let n = field::get::<u32>(b, 8) as i32;
        let score = match b[12] {
            0 => Score::Centipawns(n),
            _ => Score::Mate(n),
        };
        Some(Eval {
            key: field::get::<u64>(b, 0),
            score,
            depth: field::get::<u16>(b, 14),
            best: field::get::<u16>(b, 16),
            line: (0..usize::from(b[13]))
                .map(|i| field::get::<u16>(b, 20 + 2 * i))
                .collect(),
        })
    }
}

/// What the values of a file were found with, and of which book: a run goes on from a
/// journal, or adds to a file, only where these agree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalsOf {
    /// The book's entries and games.
    pub book: (u64, u64),
    /// The game.
    pub game: Game,
    /// The engine's name.
    pub engine: String,
    /// The limit of each search.
    pub limit: Limit,
}

impl EvalsOf {
    fn header(&self, records: u64, crc: u32) -> [u8; HEADER] {
        let mut h = [0u8; HEADER];
        h[0..8].copy_from_slice(MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12..16].copy_from_slice(&(RECORD as u32).to_le_bytes());
        h[16..24].copy_from_slice(&records.to_le_bytes());
        h[24..32].copy_from_slice(&self.book.0.to_le_bytes());
        h[32..40].copy_from_slice(&self.book.1.to_le_bytes());
        let (kind, n) = match self.limit {
            Limit::Depth(d) => (1, u64::from(d)),
            Limit::Nodes(n) => (2, n),
        };
        h[40] = kind;
        h[41] = match self.game {
            Game::Chess => 0,
            Game::Xiangqi => 1,
        };
        h[44..52].copy_from_slice(&n.to_le_bytes());
        h[52..56].copy_from_slice(&crc.to_le_bytes());
        let name = cut(&self.engine, NAME);
        h[64..64 + name.len()].copy_from_slice(name.as_bytes());
        let sum = crc32fast::hash(&h[..124]);
        h[124..128].copy_from_slice(&sum.to_le_bytes());
        h
    }

    /// What header `h` says, its record count and records' checksum.
    fn read(h: &[u8]) -> Result<(EvalsOf, u64, u32), &'static str> {
        if h.len() < HEADER || &h[0..8] != MAGIC {
            return Err("not a retrobook evals file");
        }
        if field::get::<u32>(h, 124) != crc32fast::hash(&h[..124]) {
            return Err("header checksum mismatch (file corrupted)");
        }
        if field::get::<u32>(h, 8) != VERSION || field::get::<u32>(h, 12) as usize != RECORD {
            return Err("another version of the evals format");
        }
        let n = field::get::<u64>(h, 44);
        let limit = match h[40] {
            1 => Limit::Depth(n as u32),
            2 => Limit::Nodes(n),
            _ => return Err("unknown limit"),
        };
        let game = match h[41] {
            0 => Game::Chess,
            1 => Game::Xiangqi,
            _ => return Err("unknown game"),
        };
        let name = &h[64..64 + NAME];
        let end = name.iter().position(|&b| b == 0).unwrap_or(NAME);
        let of = EvalsOf {
            book: (field::get::<u64>(h, 24), field::get::<u64>(h, 32)),
            game,
            engine: String::from_utf8_lossy(&name[..end]).into_owned(),
            limit,
        };
        Ok((of, field::get::<u64>(h, 16), field::get::<u32>(h, 52)))
    }
}

/// `s` cut to at most `max` bytes, at a character's edge.
fn cut(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The evals file of the book at `book`: `BOOK.evals`.
pub fn evals_path(book: &Path) -> PathBuf {
    let mut name = book.as_os_str().to_owned();
    name.push(".evals");
    PathBuf::from(name)
}

/// The journal of a run under way: `BOOK.evals.part`.
fn journal_path(book: &Path) -> PathBuf {
    let mut name = evals_path(book).into_os_string();
    name.push(".part");
    PathBuf::from(name)
}

/// A book's engine values: the file's records, checked when read, looked up by key
/// (binary search), each decoded only when asked for.
#[derive(Debug)]
pub struct Evals {
    of: EvalsOf,
    /// The records, `RECORD` bytes each, sorted by key.
    body: Vec<u8>,
}

impl Evals {
    /// The values in `path` (an evals file); errors name the file.
    pub fn open(path: &Path) -> Result<Evals, BookError> {
        let mut bytes = fs::read(path).map_err(|e| BookError::io(path, e))?;
        let bad = |what: &str| BookError::Evals {
            path: path.to_path_buf(),
            what: what.to_string(),
        };
        let (of, count, crc) = EvalsOf::read(&bytes).map_err(bad)?;
        let body = bytes.split_off(HEADER);
        if body.len() as u64 != count * RECORD as u64 {
            return Err(bad("length is not what its header says (truncated?)"));
        }
        if crc32fast::hash(&body) != crc {
            return Err(bad("records checksum mismatch (file corrupted)"));
        }
        if !body.chunks_exact(RECORD).all(Eval::in_form) {
            return Err(bad("a record out of form"));
        }
        let evals = Evals { of, body };
        if !(1..evals.len()).all(|i| evals.key_at(i - 1) < evals.key_at(i)) {
            return Err(bad("records not sorted by key"));
        }
        Ok(evals)
    }

    /// The values of the book at `book`, if it has an evals file beside it.
    pub fn beside(book: &Path) -> Result<Option<Evals>, BookError> {
        let path = evals_path(book);
        match path.exists() {
            true => Evals::open(&path).map(Some),
            false => Ok(None),
        }
    }

    /// What the values were found with.
    pub fn of(&self) -> &EvalsOf {
        &self.of
    }

    /// How many positions have a value.
    pub fn len(&self) -> usize {
        self.body.len() / RECORD
    }

    /// True where no position has one.
    pub fn is_empty(&self) -> bool {
        self.body.is_empty()
    }

    fn record(&self, i: usize) -> &[u8] {
        &self.body[i * RECORD..(i + 1) * RECORD]
    }

    fn key_at(&self, i: usize) -> u64 {
        field::get::<u64>(self.record(i), 0)
    }

    /// The value of the position with key `key`.
    pub fn get(&self, key: u64) -> Option<Eval> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.key_at(mid).cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Eval::from_bytes(self.record(mid)),
            }
        }
        None
    }

    /// Every value, by key.
    fn into_records(self) -> Vec<Eval> {
        (self.body.chunks_exact(RECORD))
            .map(|b| Eval::from_bytes(b).expect("checked when read"))
            .collect()
    }
}

/// A run's journal: the records found so far, appended as they come, with those an earlier
/// run left, for the evals file the run ends by writing.
pub(super) struct Journal {
    path: PathBuf,
    file: File,
    /// The book's evals file.
    evals: PathBuf,
    of: EvalsOf,
    records: Vec<Eval>,
}

impl Journal {
    /// Opens the journal of a run on the book at `book` with `of`, holding the records an
    /// earlier run left there and in the book's evals file (`done`: a record torn by a
    /// kill is cut off). A journal or file of other settings is an error that says which.
    pub(super) fn open(book: &Path, of: &EvalsOf) -> Result<Journal, BookError> {
        let mut done = Vec::new();
        let evals = evals_path(book);
        if let Some(before) = Evals::beside(book)? {
            check_same(&evals, &before.of, of)?;
            done = before.into_records();
        }
        let path = journal_path(book);
        let fail = |e| BookError::io(&path, e);
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(fail)?;
        if locked_elsewhere(&file) {
            return Err(BookError::Evals {
                path,
                what: "another run is analysing this book (its journal is locked)".into(),
            });
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(fail)?;
        if bytes.len() < HEADER {
            // New, or torn before its header was whole.
            file.set_len(0).map_err(fail)?;
            file.write_all(&of.header(0, 0)).map_err(fail)?;
            file.sync_data().map_err(fail)?;
        } else {
            let (was, _, _) = EvalsOf::read(&bytes).map_err(|what| BookError::Evals {
                path: path.clone(),
                what: what.to_string(),
            })?;
            check_same(&path, &was, of)?;
            let mut whole = HEADER;
            for chunk in bytes[HEADER..].chunks_exact(JOURNALED) {
                let (record, sum) = chunk.split_at(RECORD);
                let Some(e) = Eval::from_bytes(record)
                    .filter(|_| crc32fast::hash(record) == field::get::<u32>(sum, 0))
                else {
                    break;
                };
                done.push(e);
                whole += JOURNALED;
            }
            if whole < bytes.len() {
                file.set_len(whole as u64).map_err(fail)?;
            }
        }
        Ok(Journal {
            path,
            file,
            evals,
            of: of.clone(),
            records: done,
        })
    }

    /// The records held: an earlier run's, and this one's so far.
    pub(super) fn done(&self) -> &[Eval] {
        &self.records
    }

    /// Appends `e`, on disk before it returns (a kill after it keeps it).
    pub(super) fn push(&mut self, e: Eval) -> Result<(), BookError> {
        let record = e.to_bytes();
        let mut chunk = [0u8; JOURNALED];
        chunk[..RECORD].copy_from_slice(&record);
        chunk[RECORD..].copy_from_slice(&crc32fast::hash(&record).to_le_bytes());
        let fail = |e| BookError::io(&self.path, e);
        self.file.write_all(&chunk).map_err(fail)?;
        self.file.sync_data().map_err(fail)?;
        self.records.push(e);
        Ok(())
    }

    /// Writes the records held sorted into the book's evals file, whole or not at all,
    /// then removes the journal; the file's length.
    pub(super) fn finish(self) -> Result<u64, BookError> {
        let Journal {
            path: journal,
            file,
            evals: path,
            of,
            mut records,
        } = self;
        records.sort_by_key(|e| e.key);
        records.dedup_by_key(|e| e.key);
        let body: Vec<u8> = records.iter().flat_map(|e| e.to_bytes()).collect();
        let write = || -> io::Result<()> {
            let mut out = AtomicFile::create(&path)?;
            let header = of.header(records.len() as u64, crc32fast::hash(&body));
            out.writer().write_all(&header)?;
            out.writer().write_all(&body)?;
            out.finish()
        };
        write().map_err(|e| BookError::write(&path, e))?;
        drop(file);
        fs::remove_file(&journal).map_err(|e| BookError::io(&journal, e))?;
        Ok((HEADER + body.len()) as u64)
    }
}

/// An error unless `was` (what `path` holds values of) is `now`.
fn check_same(path: &Path, was: &EvalsOf, now: &EvalsOf) -> Result<(), BookError> {
    let what = if was.book != now.book || was.game != now.game {
        "values of another book".to_string()
    } else if was.engine != now.engine {
        format!("values of engine {:?}, not {:?}", was.engine, now.engine)
    } else if was.limit != now.limit {
        format!("values found at {}, not {}", was.limit, now.limit)
    } else {
        return Ok(());
    };
    Err(BookError::Evals {
        path: path.to_path_buf(),
        what: format!("{what}: remove it to start over"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of() -> EvalsOf {
        EvalsOf {
            book: (10, 3),
            game: Game::Chess,
            engine: "Stockfish 15.1".into(),
            limit: Limit::Depth(12),
        }
    }

    fn eval(key: u64, score: Score) -> Eval {
        Eval {
            key,
            score,
            depth: 12,
            best: 0x31c,
            line: (1..=(key as u16 % 11)).collect(),
        }
    }

    #[test]
    fn a_journal_torn_by_a_kill_resumes_to_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let book = dir.path().join("b.rbb");
        let all: Vec<Eval> = (0..30u64)
            .map(|k| eval(k * 7919 % 101, Score::Centipawns(k as i32 - 15)))
            .chain([eval(500, Score::Mate(-3)), eval(501, Score::Mate(2))])
            .collect();
        // Uninterrupted.
        let mut j = Journal::open(&book, &of()).unwrap();
        assert!(j.done().is_empty());
        all.iter().for_each(|e| j.push(e.clone()).unwrap());
        j.finish().unwrap();
        let whole = fs::read(evals_path(&book)).unwrap();
        fs::remove_file(evals_path(&book)).unwrap();
        // Killed after 20 records and half of the 21st, then resumed.
        let mut j = Journal::open(&book, &of()).unwrap();
        all[..21].iter().for_each(|e| j.push(e.clone()).unwrap());
        drop(j);
        let part = journal_path(&book);
        let len = fs::metadata(&part).unwrap().len();
        OpenOptions::new()
            .write(true)
            .open(&part)
            .unwrap()
            .set_len(len - 10)
            .unwrap();
        let mut j = Journal::open(&book, &of()).unwrap();
        assert_eq!(j.done(), &all[..20]);
        for e in &all[20..] {
            j.push(e.clone()).unwrap();
        }
        j.finish().unwrap();
        assert_eq!(fs::read(evals_path(&book)).unwrap(), whole);
        assert!(!part.exists());
        let evals = Evals::open(&evals_path(&book)).unwrap();
        assert_eq!(evals.of(), &of());
        for e in &all {
            assert_eq!(evals.get(e.key).as_ref(), Some(e));
        }
        assert_eq!(evals.get(499), None);
    }

    #[test]
    fn values_of_other_settings_or_damaged_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let book = dir.path().join("b.rbb");
        let mut j = Journal::open(&book, &of()).unwrap();
        j.push(eval(1, Score::Centipawns(3))).unwrap();
        j.finish().unwrap();
        let deeper = EvalsOf {
            limit: Limit::Depth(14),
            ..of()
        };
        let err = Journal::open(&book, &deeper).err().unwrap().to_string();
        assert!(
            err.contains("b.rbb.evals") && err.contains("depth 12, not depth 14"),
            "{err}"
        );
        let path = evals_path(&book);
        let mut bytes = fs::read(&path).unwrap();
        bytes[HEADER + 3] ^= 1;
        fs::write(&path, &bytes).unwrap();
        let err = Evals::open(&path).unwrap_err().to_string();
        assert!(err.contains("records checksum"), "{err}");
        fs::write(&path, &bytes[..HEADER + 5]).unwrap();
        let err = Evals::open(&path).unwrap_err().to_string();
        assert!(err.contains("truncated"), "{err}");
    }
}

//! Xiangqi table files: the chess tables' magic, header length, checksums and compressed
//! streams (`codec`), with their own index scheme and value encoding, all integers
//! little-endian.
//!
//! ```text
//! offset  size  field
//!      0     8  magic b"RBTABLE\x1a"
//!      8     4  format version (4)
//!     12     4  header length (512)
//!     16     8  game, zero-padded ASCII ("xiangqi")
//!     24    16  signature, zero-padded ASCII (e.g. "KRvKAABB", Red the stronger side)
//!     40     4  index scheme (2: `xiangqi::XiangqiIndex`)
//!     44     4  value encoding (3, below)
//!     48     8  indices per side to move (N)
//!     56    48  Red to move: positions, win, draw, loss, win by rule, loss by rule (u64;
//!               legal indices, a position and its mirror image once; win and loss
//!               count forced mates only)
//!    104    48  Black to move: the same
//!    152     4  longest mate in plies
//!    156     4  side to move of a longest mate (0 Red, 1 Black)
//!    160     8  index of that position
//!    168    16  Red-to-move stream: offset, length (u64 each)
//!    184    16  Black-to-move stream: offset, length
//!    200    16  rule list: offset, length
//!    216   292  reserved, zero
//!    508     4  CRC-32 of bytes 0..508
//!    512        the streams and the list, each starting at a multiple of 64
//! ```
//!
//! Value encoding 3: each side's stream (cut into segments, `codec::segments`) holds a code
//! per index, the value with every repetition a draw: 0 draw, an odd c a win in c plies,
//! an even c a loss in c - 2 plies. Illegal indices hold whatever compresses best. The rule
//! list names the drawn indices that the perpetual-check rule wins or loses: for each side,
//! a count (u64) and its entries in increasing order (u64: index x 2, + 1 for a win), then
//! a CRC-32 of the list's bytes.

use super::codec::{encode_by_frequency, join, Segments, StreamError, StreamOptions};
use super::error::{FileFault, TableError};
use super::format::{HEADER_LEN, MAGIC, VERSION};
use crate::atomic_file::AtomicFile;
use crate::field;
use crate::regular_file::open_regular;
use crate::retro::{Solved, Verdict};
use crate::value::{Dtm, Wdl};
use crate::xiangqi::{Signature, XiangqiIndex};
use memmap2::Mmap;
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

/// The game field of xiangqi tables.
pub const GAME: &str = "xiangqi";
/// Index scheme number of `XiangqiIndex`.
pub const INDEX_SCHEME: u32 = 2;
/// Value encoding number described above.
pub const VALUE_ENCODING: u32 = 3;
/// File name extension of xiangqi tables: apart from chess's, since signatures such as
/// KRvKN name tables of both games.
pub const EXTENSION: &str = "rbx";
/// log2 of the values per segment of a stream.
const SEGMENT_LOG: u32 = 24;

/// One side to move's counts, as the header holds them.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SideCounts {
    /// Legal indices.
    pub positions: u64,
    /// Forced mates for the side to move.
    pub win: u64,
    /// Draws, the rule's verdicts aside.
    pub draw: u64,
    /// Forced mates against the side to move.
    pub loss: u64,
    /// Won by the perpetual-check rule alone (counted in none of the above).
    pub win_by_rule: u64,
    /// Lost by the rule alone.
    pub loss_by_rule: u64,
}

/// Everything the header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XiangqiHeader {
    /// The table's material, Red the stronger side.
    pub signature: Signature,
    /// Indices per side to move.
    pub size: u64,
    /// Counts with Red and with Black to move.
    pub sides: [SideCounts; 2],
    /// Plies of the longest mate, its side to move and index.
    pub longest: (u32, usize, u64),
    /// Red's stream, Black's stream and the rule list: offset and length.
    pub extents: [(u64, u64); 3],
}

const SIDES_AT: [usize; 2] = [56, 104];
const EXTENTS_AT: usize = 168;
const CRC_AT: usize = HEADER_LEN - 4;

impl XiangqiHeader {
    /// The header of `solved`, its parts to be placed at `extents`.
    pub fn of(solved: &Solved, extents: [(u64, u64); 3]) -> XiangqiHeader {
        let n = solved.index.size();
        let per_side = [0, 1].map(|side| {
            (0..n)
                .into_par_iter()
                .filter(|&i| !solved.solution.is_illegal(side, i))
                .map(|i| {
                    let v = solved.verdict(side, i);
                    let mate = match v {
                        Verdict::Plain(Dtm::Win(p)) => Some((p, i)),
                        _ => None,
                    };
                    (SideCounts::of(v), mate)
                })
                .reduce(
                    || (SideCounts::default(), None),
                    |(a, ma), (b, mb)| (a.plus(b), longer(ma, mb)),
                )
        });
        let sides = per_side.map(|(c, _)| c);
        let longest = match (per_side[0].1, per_side[1].1) {
            (Some((p0, i0)), b) if b.is_none_or(|(p1, _)| p0 >= p1) => (p0, 0, i0),
            (_, Some((p1, i1))) => (p1, 1, i1),
            _ => (0, 0, 0),
        };
        XiangqiHeader {
            signature: solved.index.signature(),
            size: n,
            sides,
            longest,
            extents,
        }
    }

    /// The 512 header bytes, checksum included.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        field::put::<u32>(&mut b, 8, VERSION);
        field::put::<u32>(&mut b, 12, HEADER_LEN as u32);
        b[16..16 + GAME.len()].copy_from_slice(GAME.as_bytes());
        let sig = self.signature.to_string();
        b[24..24 + sig.len()].copy_from_slice(sig.as_bytes());
        field::put::<u32>(&mut b, 40, INDEX_SCHEME);
        field::put::<u32>(&mut b, 44, VALUE_ENCODING);
        field::put::<u64>(&mut b, 48, self.size);
        for (c, at) in self.sides.iter().zip(SIDES_AT) {
            let counts = [
                c.positions,
                c.win,
                c.draw,
                c.loss,
                c.win_by_rule,
                c.loss_by_rule,
            ];
            for (i, v) in counts.into_iter().enumerate() {
                field::put::<u64>(&mut b, at + 8 * i, v);
            }
        }
        field::put::<u32>(&mut b, 152, self.longest.0);
        field::put::<u32>(&mut b, 156, self.longest.1 as u32);
        field::put::<u64>(&mut b, 160, self.longest.2);
        for (i, &(offset, len)) in self.extents.iter().enumerate() {
            field::put::<u64>(&mut b, EXTENTS_AT + 16 * i, offset);
            field::put::<u64>(&mut b, EXTENTS_AT + 16 * i + 8, len);
        }
        let crc = crc32fast::hash(&b[..CRC_AT]);
        field::put::<u32>(&mut b, CRC_AT, crc);
        b
    }

    /// Parses and checks a header; the error says what is wrong.
    pub fn from_bytes(b: &[u8]) -> Result<XiangqiHeader, FileFault> {
        if b.len() < HEADER_LEN {
            return Err(FileFault::ShorterThanHeader {
                len: b.len() as u64,
            });
        }
        if b[0..8] != MAGIC {
            return Err(FileFault::NotATable);
        }
        let version = field::get::<u32>(b, 8);
        if version != VERSION {
            let fault = FileFault::Version {
                found: version,
                oldest: VERSION,
                newest: VERSION,
            };
            return Err(fault.within("xiangqi table"));
        }
        if field::get::<u32>(b, CRC_AT) != crc32fast::hash(&b[..CRC_AT]) {
            return Err(FileFault::Checksum { part: "header" });
        }
        if field::get::<u32>(b, 12) as usize != HEADER_LEN {
            return Err(FileFault::corrupt("unexpected header length"));
        }
        let text = |at: usize, len: usize| {
            let f = &b[at..at + len];
            let end = f.iter().position(|&c| c == 0).unwrap_or(len);
            String::from_utf8_lossy(&f[..end]).into_owned()
        };
        let game = text(16, 8);
        if game != GAME {
            return Err(FileFault::Game {
                found: game,
                expected: GAME,
            });
        }
        let signature: Signature = text(24, 16)
            .parse()
            .map_err(|e| FileFault::corrupt(format!("bad signature in header: {e}")))?;
        if field::get::<u32>(b, 40) != INDEX_SCHEME || field::get::<u32>(b, 44) != VALUE_ENCODING {
            return Err(FileFault::corrupt("unknown index scheme or value encoding"));
        }
        let size = field::get::<u64>(b, 48);
        let fits = XiangqiIndex::try_new(signature).is_some_and(|i| i.size() == size);
        if !signature.is_canonical() || !fits {
            return Err(FileFault::corrupt(format!(
                "the header's signature {signature} and size {size} do not fit"
            )));
        }
        let sides = SIDES_AT.map(|at| {
            let v = |i: usize| field::get::<u64>(b, at + 8 * i);
            SideCounts {
                positions: v(0),
                win: v(1),
                draw: v(2),
                loss: v(3),
                win_by_rule: v(4),
                loss_by_rule: v(5),
            }
        });
        let longest = (
            field::get::<u32>(b, 152),
            field::get::<u32>(b, 156) as usize,
            field::get::<u64>(b, 160),
        );
        if longest.1 > 1 || longest.2 >= size.max(1) {
            return Err(FileFault::corrupt("bad longest mate in header"));
        }
        let extents = [0, 1, 2].map(|i| {
            (
                field::get::<u64>(b, EXTENTS_AT + 16 * i),
                field::get::<u64>(b, EXTENTS_AT + 16 * i + 8),
            )
        });
        Ok(XiangqiHeader {
            signature,
            size,
            sides,
            longest,
            extents,
        })
    }
}

impl SideCounts {
    /// The counts of one legal position of value `v`.
    pub fn of(v: Verdict) -> SideCounts {
        let mut c = SideCounts {
            positions: 1,
            ..Default::default()
        };
        match v {
            Verdict::Plain(Dtm::Win(_)) => c.win = 1,
            Verdict::Plain(Dtm::Loss(_)) => c.loss = 1,
            Verdict::Plain(Dtm::Draw) => c.draw = 1,
            Verdict::WinByRule => c.win_by_rule = 1,
            Verdict::LossByRule => c.loss_by_rule = 1,
        }
        c
    }

    /// The counts of both.
    pub fn plus(self, b: SideCounts) -> SideCounts {
        SideCounts {
            positions: self.positions + b.positions,
            win: self.win + b.win,
            draw: self.draw + b.draw,
            loss: self.loss + b.loss,
            win_by_rule: self.win_by_rule + b.win_by_rule,
            loss_by_rule: self.loss_by_rule + b.loss_by_rule,
        }
    }
}

/// The longer of two mates (plies, index), the first on equal plies.
fn longer(a: Option<(u32, u64)>, b: Option<(u32, u64)>) -> Option<(u32, u64)> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.0 > x.0 || (y.0 == x.0 && y.1 < x.1) {
            y
        } else {
            x
        }),
        _ => a.or(b),
    }
}

/// The code of a value (encoding 3).
fn code(d: Dtm) -> u16 {
    match d {
        Dtm::Draw => 0,
        Dtm::Win(p) => p as u16,
        Dtm::Loss(p) => p as u16 + 2,
    }
}

/// The value of a code (encoding 3).
fn value_of(c: u16) -> Dtm {
    match c {
        0 => Dtm::Draw,
        c if c % 2 == 1 => Dtm::Win(u32::from(c)),
        c => Dtm::Loss(u32::from(c) - 2),
    }
}

/// The file of `signature`'s table in `dir`.
pub fn table_path(dir: &Path, signature: &Signature) -> PathBuf {
    dir.join(format!("{signature}.{EXTENSION}"))
}

/// A table file written.
#[derive(Clone, Debug)]
pub struct Written {
    /// Where.
    pub path: PathBuf,
    /// Its length.
    pub bytes: u64,
    /// Its header, as written.
    pub header: XiangqiHeader,
}

/// Writes `solved` into `dir` (whole or not at all).
pub fn write(dir: &Path, solved: &Solved) -> Result<Written, TableError> {
    let path = table_path(dir, &solved.index.signature());
    let n = solved.index.size();
    let streams = [0, 1].map(|side| {
        let len = 1u64 << SEGMENT_LOG;
        let segments = (0..n.div_ceil(len))
            .into_par_iter()
            .map(|k| {
                let mut last = 0;
                let codes: Vec<u16> = (k * len..n.min((k + 1) * len))
                    .map(|i| {
                        // An illegal index continues the run before it.
                        if !solved.solution.is_illegal(side, i) {
                            last = code(solved.solution.value(side, i).0);
                        }
                        last
                    })
                    .collect();
                encode_by_frequency(codes, &StreamOptions::default())
            })
            .collect();
        join(n, SEGMENT_LOG, segments)
    });
    let mut list = Vec::new();
    for entries in &solved.by_rule {
        list.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for &(i, w) in entries {
            list.extend_from_slice(&(i * 2 + u64::from(w == Wdl::Win)).to_le_bytes());
        }
    }
    let crc = crc32fast::hash(&list);
    list.extend_from_slice(&crc.to_le_bytes());
    let mut extents = [(0u64, 0u64); 3];
    let mut at = HEADER_LEN as u64;
    for (e, part) in extents.iter_mut().zip([&streams[0], &streams[1], &list]) {
        *e = (at, part.len() as u64);
        at = (at + part.len() as u64).next_multiple_of(64);
    }
    let header = XiangqiHeader::of(solved, extents);
    let written = (|| {
        let mut file = AtomicFile::create(&path)?;
        let out = file.writer();
        out.write_all(&header.to_bytes())?;
        let mut at = HEADER_LEN as u64;
        for (&(offset, _), part) in extents.iter().zip([&streams[0], &streams[1], &list]) {
            out.write_all(&vec![0u8; (offset - at) as usize])?;
            out.write_all(part)?;
            at = offset + part.len() as u64;
        }
        file.finish()?;
        Ok(at)
    })();
    match written {
        Ok(bytes) => Ok(Written {
            path,
            bytes,
            header,
        }),
        Err(source) => Err(TableError::Write { path, source }),
    }
}

/// An open xiangqi table file, memory-mapped.
#[derive(Debug)]
pub struct XiangqiFile {
    path: PathBuf,
    map: Mmap,
    header: XiangqiHeader,
    index: XiangqiIndex,
    streams: [Segments; 2],
    by_rule: [Vec<(u64, Wdl)>; 2],
}

impl XiangqiFile {
    /// Opens and checks `path`: the header, the streams' directories and the rule list.
    pub fn open(path: &Path) -> Result<XiangqiFile, TableError> {
        let io = |source| TableError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = open_regular(path).map_err(io)?;
        // SAFETY: the file is only read; a table changed under a running probe is the
        // caller's fault, as with any mapped file.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        let refused = |fault| TableError::Refused {
            path: path.to_path_buf(),
            fault,
        };
        let header = XiangqiHeader::from_bytes(&map).map_err(refused)?;
        let part = |i: usize| -> Result<(usize, usize), FileFault> {
            let (offset, len) = header.extents[i];
            let end = offset.checked_add(len).filter(|&e| e <= map.len() as u64);
            match end {
                Some(_) if offset >= HEADER_LEN as u64 => Ok((offset as usize, len as usize)),
                _ => Err(FileFault::truncated(
                    "a part runs past the end of the file (truncated?)",
                )),
            }
        };
        let stream = |side: usize| -> Result<Segments, FileFault> {
            let (at, len) = part(side)?;
            let s = Segments::open(&map, at, len, true)?;
            if s.len() != header.size {
                return Err(FileFault::corrupt("stream length does not match the table"));
            }
            Ok(s)
        };
        let name = ["Red-to-move stream", "Black-to-move stream"];
        let streams = [
            stream(0).map_err(|f| refused(f.within(name[0])))?,
            stream(1).map_err(|f| refused(f.within(name[1])))?,
        ];
        let (at, len) = part(2).map_err(refused)?;
        let by_rule = rule_list(&map[at..at + len], header.size)
            .map_err(|f| refused(f.within("rule list")))?;
        for (list, c) in by_rule.iter().zip(&header.sides) {
            let wins = list.iter().filter(|e| e.1 == Wdl::Win).count() as u64;
            if (wins, list.len() as u64 - wins) != (c.win_by_rule, c.loss_by_rule) {
                return Err(refused(FileFault::corrupt(
                    "the rule list and the header's counts differ",
                )));
            }
        }
        Ok(XiangqiFile {
            path: path.to_path_buf(),
            index: XiangqiIndex::new(header.signature),
            map,
            header,
            streams,
            by_rule,
        })
    }

    /// The header.
    pub fn header(&self) -> &XiangqiHeader {
        &self.header
    }

    /// The numbering.
    pub fn index(&self) -> &XiangqiIndex {
        &self.index
    }

    /// By side to move, the indices the rule makes won or lost, in order.
    pub fn by_rule(&self) -> &[Vec<(u64, Wdl)>; 2] {
        &self.by_rule
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The value of index `idx` with `side` to move (a legal position): a damaged block
    /// is an error, never a wrong value.
    pub fn verdict(&self, side: usize, idx: u64) -> Result<Verdict, TableError> {
        let code = self.streams[side]
            .get(&self.map, idx)
            .map_err(|block| self.damaged(side, block))?;
        Ok(self.verdict_of(side, idx, code))
    }

    /// The value of index `idx` with `side` to move whose stream holds `code`.
    pub fn verdict_of(&self, side: usize, idx: u64, code: u16) -> Verdict {
        Verdict::of(value_of(code), &self.by_rule[side], idx)
    }

    /// Every code of `side`'s stream, decoded in parallel (two bytes an index): for
    /// readers that visit the whole table, as `verify` does.
    pub fn codes(&self, side: usize) -> Result<Vec<u16>, TableError> {
        let codes: Vec<AtomicU16> = (0..self.header.size).map(|_| AtomicU16::new(0)).collect();
        self.streams[side]
            .for_each_block(&self.map, |first, values| {
                for (slot, &v) in codes[first as usize..].iter().zip(values) {
                    slot.store(v, Relaxed);
                }
            })
            .map_err(|block| self.damaged(side, block))?;
        Ok(codes.into_iter().map(AtomicU16::into_inner).collect())
    }

    fn damaged(&self, side: usize, block: StreamError) -> TableError {
        TableError::Block {
            path: self.path.clone(),
            stream: ["Red-to-move", "Black-to-move"][side],
            block,
        }
    }
}

/// The rule list's entries, checked: checksum, order, indices in range.
fn rule_list(b: &[u8], size: u64) -> Result<[Vec<(u64, Wdl)>; 2], FileFault> {
    let short = || FileFault::truncated("the rule list is cut short");
    let body = b.len().checked_sub(4).ok_or_else(short)?;
    if field::get::<u32>(b, body) != crc32fast::hash(&b[..body]) {
        return Err(FileFault::Checksum { part: "rule list" });
    }
    let mut at = 0;
    let mut read = || -> Result<u64, FileFault> {
        let v = b
            .get(at..at + 8)
            .filter(|_| at + 8 <= body)
            .ok_or_else(short)?;
        at += 8;
        Ok(u64::from_le_bytes(v.try_into().expect("eight bytes")))
    };
    let mut lists = [Vec::new(), Vec::new()];
    for list in &mut lists {
        let count = read()?;
        if count > size {
            return Err(FileFault::corrupt("the rule list is longer than the table"));
        }
        for _ in 0..count {
            let e = read()?;
            let (idx, w) = (e / 2, if e % 2 == 1 { Wdl::Win } else { Wdl::Loss });
            if idx >= size || list.last().is_some_and(|&(last, _)| last >= idx) {
                return Err(FileFault::corrupt("the rule list is out of order or range"));
            }
            list.push((idx, w));
        }
    }
    Ok(lists)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retro::XiangqiTables;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rb-xq-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// KRvKN written and read back: every legal index's value (1,597 by the rule among
    /// them), the header's counts and longest mate; then each part damaged in turn is
    /// refused at open or fails its probes, never giving another value.
    #[test]
    fn tables_read_back_and_damage_is_refused() {
        let sig: Signature = "KRvKN".parse().unwrap();
        let mut tables = XiangqiTables::default();
        tables.solve(sig);
        let solved = tables.table(&sig).unwrap();
        let dir = temp_dir("roundtrip");
        let Written { path, bytes, .. } = write(&dir, solved).unwrap();
        assert_eq!(bytes, std::fs::metadata(&path).unwrap().len());
        let file = XiangqiFile::open(&path).unwrap();
        let mut by_rule = 0;
        for side in 0..2 {
            for i in 0..solved.index.size() {
                if !solved.solution.is_illegal(side, i) {
                    let v = solved.verdict(side, i);
                    assert_eq!(file.verdict(side, i).unwrap(), v, "{side} {i}");
                    by_rule += usize::from(v.by_rule());
                }
            }
        }
        assert_eq!(by_rule, 1597);
        let h = file.header();
        let counted: u64 = h.sides.iter().map(|c| c.win_by_rule + c.loss_by_rule).sum();
        assert_eq!(counted, 1597);
        assert_eq!(h.longest.0, 25);
        let (_, side, idx) = h.longest;
        assert_eq!(solved.verdict(side, idx), Verdict::Plain(Dtm::Win(25)));

        let good = std::fs::read(&path).unwrap();
        let damaged = dir.join("KRvKN.rbx");
        let refused = |bytes: &[u8]| {
            std::fs::write(&damaged, bytes).unwrap();
            XiangqiFile::open(&damaged)
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        assert!(refused(&good[..300]).contains("shorter than a table header"));
        let cut = refused(&good[..good.len() - 10]);
        assert!(cut.contains("truncated"), "{cut}");
        let mut b = good.clone();
        b[60] ^= 1;
        assert!(refused(&b).contains("header checksum"));
        let mut b = good.clone();
        let list = h.extents[2].0 as usize;
        b[list + 9] ^= 1;
        assert!(refused(&b).contains("rule list checksum"));
        let mut b = good.clone();
        b[16..24].copy_from_slice(b"chess\0\0\0");
        let crc = crc32fast::hash(&b[..CRC_AT]);
        b[CRC_AT..HEADER_LEN].copy_from_slice(&crc.to_le_bytes());
        assert!(refused(&b).contains("expected xiangqi"));
        // A flipped bit inside Red's stream: its probes fail, the others answer.
        let mut b = good.clone();
        let (at, len) = h.extents[0];
        b[(at + len / 2) as usize] ^= 0x10;
        std::fs::write(&damaged, &b).unwrap();
        let file = XiangqiFile::open(&damaged).unwrap();
        let (mut failed, mut wrong) = (0, 0);
        for i in 0..solved.index.size() {
            if !solved.solution.is_illegal(0, i) {
                match file.verdict(0, i) {
                    Err(TableError::Block { .. }) => failed += 1,
                    Err(e) => panic!("{e}"),
                    Ok(v) => wrong += usize::from(v != solved.verdict(0, i)),
                }
            }
        }
        assert!(failed > 0 && wrong == 0, "{failed} failed, {wrong} wrong");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

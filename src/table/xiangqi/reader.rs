//! Reading a xiangqi table file: its header checked, its streams and rule list mapped.

use super::XiangqiHeader;
use super::{from_entry, verdict_of};
use crate::field;
use crate::regular_file::open_regular;
use crate::retro::{Ruled, Verdict};
use crate::side::{BySide, Side};
use crate::table::codec::{Segments, StreamError};
use crate::table::error::{FileFault, TableError};
use crate::table::format::HEADER_LEN;
use crate::value::Wdl;
use crate::xiangqi::{Rule, XiangqiIndex};
use memmap2::Mmap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

/// An open xiangqi table file, memory-mapped.
#[derive(Debug)]
pub struct XiangqiFile {
    path: PathBuf,
    map: Mmap,
    header: XiangqiHeader,
    index: XiangqiIndex,
    streams: BySide<Segments>,
    by_rule: BySide<Vec<(u64, Ruled)>>,
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
        let stream = |side: Side| -> Result<Segments, FileFault> {
            let (at, len) = part(side.index())?;
            let s = Segments::open(&map, at, len, true)?;
            if s.len() != header.size {
                return Err(FileFault::corrupt("stream length does not match the table"));
            }
            Ok(s)
        };
        let stream = |side: Side| {
            let name = format!("{} stream", STREAM_NAMES[side.index()]);
            stream(side).map_err(|f| refused(f.within(name)))
        };
        let streams = BySide::from([stream(Side::White)?, stream(Side::Black)?]);
        let (at, len) = part(2).map_err(refused)?;
        let by_rule = rule_list(&map[at..at + len], header.size)
            .map_err(|f| refused(f.within("rule list")))?;
        for ((_, list), c) in by_rule.iter().zip(&header.sides) {
            let count = |wdl| list.iter().filter(|e| e.1.wdl == wdl).count() as u64;
            let chase = (list.iter())
                .filter(|e| e.1.rule == Some(Rule::PerpetualChase))
                .count() as u64;
            // Path-dependent draws are marked in the streams, the listed values here.
            let path = list.iter().filter(|e| e.1.path_dependent).count() as u64;
            let counted = (c.win_by_rule, c.loss_by_rule, c.by_chase);
            if (count(Wdl::Win), count(Wdl::Loss), chase) != counted || path > c.path_dependent {
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

    /// By side to move, the plain draws the rules win or lose, in order (as judged for
    /// chases: the streams say where not).
    pub fn by_rule(&self) -> &BySide<Vec<(u64, Ruled)>> {
        &self.by_rule
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The value of index `idx` with `side` to move (a legal position): a damaged block
    /// is an error, never a wrong value.
    pub fn verdict(&self, side: Side, idx: u64) -> Result<Verdict, TableError> {
        let code = self.streams[side]
            .get(&self.map, idx)
            .map_err(|block| self.damaged(side, block))?;
        Ok(self.verdict_of(side, idx, code))
    }

    /// The value of index `idx` with `side` to move whose stream holds `code`.
    pub fn verdict_of(&self, side: Side, idx: u64, code: u16) -> Verdict {
        verdict_of(code, &self.by_rule[side], idx)
    }

    /// Every code of `side`'s stream, decoded in parallel (two bytes an index): for
    /// readers that visit the whole table, as `verify` does.
    pub fn codes(&self, side: Side) -> Result<Vec<u16>, TableError> {
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

    fn damaged(&self, side: Side, block: StreamError) -> TableError {
        TableError::Block {
            path: self.path.clone(),
            stream: STREAM_NAMES[side.index()],
            block,
        }
    }
}

/// The streams' names in messages, by side to move.
const STREAM_NAMES: [&str; 2] = ["Red-to-move", "Black-to-move"];

/// The rule list's entries, checked: checksum, order, indices in range, flags.
fn rule_list(b: &[u8], size: u64) -> Result<BySide<Vec<(u64, Ruled)>>, FileFault> {
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
    let mut lists: BySide<Vec<(u64, Ruled)>> = BySide::default();
    for (_, list) in lists.iter_mut() {
        let count = read()?;
        if count > size {
            return Err(FileFault::corrupt("the rule list is longer than the table"));
        }
        for _ in 0..count {
            let (idx, r) = from_entry(read()?)
                .ok_or_else(|| FileFault::corrupt("a rule list entry has unknown flags"))?;
            if idx >= size || list.last().is_some_and(|&(last, _)| last >= idx) {
                return Err(FileFault::corrupt("the rule list is out of order or range"));
            }
            list.push((idx, r));
        }
    }
    Ok(lists)
}

//! Writing a solved xiangqi table: each side's codes compressed, the rule list, the header.

use super::XiangqiHeader;
use super::{code, entry, table_path, SEGMENT_LOG};
use crate::atomic_file::AtomicFile;
use crate::retro::Solved;
use crate::side::Side;
use crate::table::codec::{encode_by_frequency, join, StreamOptions};
use crate::table::error::TableError;
use crate::table::format::HEADER_LEN;
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};

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
    let streams = Side::ALL.map(|side| {
        let len = 1u64 << SEGMENT_LOG;
        let segments = (0..n.div_ceil(len))
            .into_par_iter()
            .map(|k| {
                let mut last = 0;
                let codes: Vec<u16> = (k * len..n.min((k + 1) * len))
                    .map(|i| {
                        // An illegal index continues the run before it.
                        if !solved.solution.is_illegal(side, i) {
                            last = code(solved.verdict(side, i));
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
    for (_, rulings) in solved.by_rule.iter() {
        let entries = rulings.decided();
        list.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for (i, r) in entries {
            list.extend_from_slice(&entry(*i, r).to_le_bytes());
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

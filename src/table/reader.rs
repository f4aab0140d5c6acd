//! Opens a table file through a memory map and checks what can be checked cheaply at open:
//! the header, each stream's index tables and the file length. Each check group of blocks
//! is checksummed the first time a probe reads it, so a damaged block makes its probes
//! fail, never answer.

use super::codec::{Stream, StreamError};
use super::format::Header;
use crate::index::{Digits, Layout, TableIndex};
use crate::material::Material;
use memmap2::Mmap;
use rayon::prelude::*;
use std::fs::File;
use std::path::{Path, PathBuf};

/// Names the streams in messages.
const STREAM_NAMES: [&str; 3] = ["white-to-move WDL", "black-to-move WDL", "DTM"];

/// An open, checked table file.
pub struct TableFile {
    path: PathBuf,
    header: Header,
    index: TableIndex,
    layouts: [Layout; 3],
    streams: [Stream; 3],
    map: Mmap,
}

impl TableFile {
    /// Opens and checks `path`; errors name the file and the problem.
    pub fn open(path: &Path) -> Result<TableFile, String> {
        let fail = |why: String| format!("{}: {why}", path.display());
        let file = File::open(path).map_err(|e| fail(e.to_string()))?;
        // SAFETY: the file is only read; tables are written under a temporary name and
        // renamed, so a finished file is not modified in place by this program.
        let map = unsafe { Mmap::map(&file) }.map_err(|e| fail(e.to_string()))?;
        // Probes land anywhere: no read-ahead.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Random);
        let header = Header::from_bytes(&map).map_err(fail)?;
        let index = TableIndex::new(header.material);
        if header.size != index.size() {
            return Err(fail(format!(
                "header says {} indices, the index scheme {}",
                header.size,
                index.size()
            )));
        }
        let layouts = header.layouts(&index).map_err(fail)?;
        let len = map.len() as u64;
        let mut end = 0;
        let mut open = |i: usize| -> Result<Stream, String> {
            let e = header.streams[i];
            let name = STREAM_NAMES[i];
            let stop = e.offset.checked_add(e.len).filter(|&s| s <= len);
            let Some(stop) = stop else {
                return Err(fail(format!(
                    "file is {len} bytes, its {name} values end at {} (truncated?)",
                    e.offset.saturating_add(e.len)
                )));
            };
            end = end.max(stop);
            let s = Stream::open(&map, e.offset as usize, e.len as usize)
                .map_err(|why| fail(format!("{name} values: {why}")))?;
            if s.len() != layouts[i].size() {
                return Err(fail(format!(
                    "{name} values: {} of them, the layout has {}",
                    s.len(),
                    layouts[i].size()
                )));
            }
            Ok(s)
        };
        let streams = [open(0)?, open(1)?, open(2)?];
        if end != len {
            return Err(fail(format!(
                "file is {len} bytes, its streams end at {end} (truncated or extended?)"
            )));
        }
        Ok(TableFile {
            path: path.to_path_buf(),
            header,
            index,
            layouts,
            streams,
            map,
        })
    }

    /// Where the table was read from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The table's material (canonical orientation).
    pub fn material(&self) -> Material {
        self.header.material
    }

    /// The index scheme of the table.
    pub fn index(&self) -> &TableIndex {
        &self.index
    }

    /// Size of the file in bytes.
    pub fn bytes(&self) -> u64 {
        self.map.len() as u64
    }

    /// Bytes of the WDL layer (both sides) and of the DTM layer.
    pub fn layer_bytes(&self) -> (u64, u64) {
        let s = &self.header.streams;
        (s[0].len + s[1].len, s[2].len)
    }

    /// The side to move (0 white, 1 black) whose distances the DTM layer stores.
    pub fn dtm_side(&self) -> usize {
        self.header.dtm_side
    }

    fn error(&self, stream: usize, e: StreamError) -> String {
        let (block, why) = match e {
            StreamError::Checksum(b) => (b, "checksum mismatch"),
            StreamError::Corrupt(b) => (b, "does not decode"),
        };
        format!(
            "{}: block {block} of the {} values is corrupted ({why})",
            self.path.display(),
            STREAM_NAMES[stream]
        )
    }

    /// The WDL code (`values`) of the position with these digits and `side` to move.
    #[inline]
    pub fn wdl_code(&self, side: usize, d: &Digits) -> Result<u8, String> {
        let j = self.layouts[side].index(d);
        match self.streams[side].get(&self.map, j) {
            Ok(c) => Ok(c as u8),
            Err(e) => Err(self.error(side, e)),
        }
    }

    /// The moves the DTM layer stores for the position with these digits (its side to
    /// move is `dtm_side()`).
    #[inline]
    pub fn dtm_moves(&self, d: &Digits) -> Result<u16, String> {
        let j = self.layouts[2].index(d);
        self.streams[2]
            .get(&self.map, j)
            .map_err(|e| self.error(2, e))
    }

    /// Every value of stream `stream` (0, 1: WDL codes of white and black to move, 2: DTM
    /// moves), by solver index: indices the layout cannot hold (broken ones) read 0.
    fn decode_stream(&self, stream: usize) -> Result<Vec<u16>, String> {
        let all = self.streams[stream]
            .decode_all(&self.map)
            .map_err(|e| self.error(stream, e))?;
        let layout = &self.layouts[stream];
        let mut out = vec![0u16; self.index.size() as usize];
        out.par_chunks_mut(1 << 14)
            .enumerate()
            .for_each(|(c, chunk)| {
                for (k, o) in chunk.iter_mut().enumerate() {
                    let idx = ((c << 14) + k) as u64;
                    let j = layout.index(&self.index.split(idx));
                    *o = all.get(j as usize).copied().unwrap_or(0);
                }
            });
        Ok(out)
    }

    /// All WDL codes with `side` to move, by solver index, every block checked.
    pub fn decode_wdl(&self, side: usize) -> Result<Vec<u8>, String> {
        Ok(self
            .decode_stream(side)?
            .into_iter()
            .map(|c| c as u8)
            .collect())
    }

    /// All DTM moves of the stored side, by solver index, every block checked.
    pub fn decode_dtm(&self) -> Result<Vec<u16>, String> {
        self.decode_stream(2)
    }
}

//! Opens a table file through a memory map and checks it: header, size and value checksums.
//! A table that opens is safe to probe at any index.

use super::format::{Header, HEADER_LEN};
use crate::index::TableIndex;
use crate::material::Material;
use memmap2::Mmap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// An open, checked table file.
pub struct TableFile {
    path: PathBuf,
    header: Header,
    index: TableIndex,
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
        let header = Header::from_bytes(&map).map_err(fail)?;
        let index = TableIndex::new(header.material);
        if header.size != index.size() {
            return Err(fail(format!(
                "header says {} indices, the index scheme {}",
                header.size,
                index.size()
            )));
        }
        let expected = HEADER_LEN as u64 + 2 * header.size;
        if map.len() as u64 != expected {
            return Err(fail(format!(
                "file is {} bytes, expected {expected} (truncated?)",
                map.len()
            )));
        }
        let t = TableFile {
            path: path.to_path_buf(),
            header,
            index,
            map,
        };
        for side in 0..2 {
            if crc32fast::hash(t.values(side)) != t.header.crc[side] {
                return Err(fail(format!(
                    "checksum mismatch in the {} values (file corrupted)",
                    ["white-to-move", "black-to-move"][side]
                )));
            }
        }
        Ok(t)
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

    /// All encoded values with `side` (0 white, 1 black) to move.
    pub fn values(&self, side: usize) -> &[u8] {
        let n = self.header.size as usize;
        let start = HEADER_LEN + side * n;
        &self.map[start..start + n]
    }

    /// The encoded value at `idx` with `side` to move.
    #[inline]
    pub fn value(&self, side: usize, idx: u64) -> u8 {
        self.map[HEADER_LEN + side * self.header.size as usize + idx as usize]
    }

    /// Size of the file in bytes.
    pub fn bytes(&self) -> u64 {
        self.map.len() as u64
    }
}

//! Opens a table file through a memory map and checks what can be checked cheaply at open:
//! header, block table and file length. Each block's checksum is checked when
//! the block is decoded, so a damaged block makes its probes fail, never answer.

use super::cache::BlockCache;
use super::format::{get_u32, get_u64, Header};
use crate::index::TableIndex;
use crate::material::Material;
use memmap2::Mmap;
use rayon::prelude::*;
use std::cell::RefCell;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use zstd::zstd_safe::DCtx;

/// Names the sides in messages.
const SIDE_NAMES: [&str; 2] = ["white-to-move", "black-to-move"];

/// Gives every open table its own key space in a shared cache.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static DCTX: RefCell<DCtx<'static>> = RefCell::new(DCtx::create());
}

/// An open, checked table file.
pub struct TableFile {
    path: PathBuf,
    header: Header,
    index: TableIndex,
    map: Mmap,
    id: u64,
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
        let len = map.len() as u64;
        let (table_at, table_crc) = header.block_table;
        let table_end = table_at.checked_add(header.block_table_len());
        let Some(table_end) = table_end.filter(|&e| e <= len) else {
            return Err(fail(format!(
                "file is {len} bytes, too short for its block table (truncated?)"
            )));
        };
        let table = &map[table_at as usize..table_end as usize];
        if crc32fast::hash(table) != table_crc {
            return Err(fail(
                "block table checksum mismatch (file corrupted)".into(),
            ));
        }
        let count = 2 * header.blocks as usize;
        let offsets = (0..=count).map(|i| get_u64(table, 8 * i));
        let mut prev = table_end;
        for (i, o) in offsets.enumerate() {
            if o > len {
                return Err(fail(format!(
                    "file is {len} bytes, block table entry {i} points to {o} (truncated?)"
                )));
            }
            if o < prev {
                return Err(fail(format!("block table entry {i} is out of order")));
            }
            prev = o;
        }
        if prev != len {
            return Err(fail(format!(
                "file is {len} bytes, its block table says {prev} (truncated?)"
            )));
        }
        Ok(TableFile {
            path: path.to_path_buf(),
            header,
            index,
            map,
            id: NEXT_ID.fetch_add(1, Relaxed),
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

    /// Number of values block `block` of a side decodes to.
    fn block_len(&self, block: u64) -> usize {
        let start = block << self.header.block_log;
        (self.header.size - start).min(1 << self.header.block_log) as usize
    }

    /// Decodes block `block` of `side` into `out` (resized to the block), checking its
    /// checksum.
    pub fn decode_block(&self, side: usize, block: u64, out: &mut Vec<u8>) -> Result<(), String> {
        out.resize(self.block_len(block), 0);
        self.decode_into(side, block, out)
    }

    /// Decodes block `block` of `side` into `out`, which has exactly the block's length.
    fn decode_into(&self, side: usize, block: u64, out: &mut [u8]) -> Result<(), String> {
        let n = (side as u64 * self.header.blocks + block) as usize;
        let table = &self.map[self.header.block_table.0 as usize..];
        let start = get_u64(table, 8 * n) as usize;
        let end = get_u64(table, 8 * (n + 1)) as usize;
        let crc_at = 8 * (2 * self.header.blocks as usize + 1) + 4 * n;
        let bytes = &self.map[start..end];
        let bad = |why: &str| {
            format!(
                "{}: block {block} of the {} values is corrupted ({why})",
                self.path.display(),
                SIDE_NAMES[side]
            )
        };
        if crc32fast::hash(bytes) != get_u32(table, crc_at) {
            return Err(bad("checksum mismatch"));
        }
        let want = out.len();
        let got = DCTX.with(|d| d.borrow_mut().decompress(out, bytes));
        match got {
            Ok(n) if n == want => Ok(()),
            Ok(n) => Err(bad(&format!("decodes to {n} values, expected {want}"))),
            Err(code) => Err(bad(zstd::zstd_safe::get_error_name(code))),
        }
    }

    /// The encoded value at `idx` with `side` (0 white, 1 black) to move, through `cache`.
    #[inline]
    pub fn value(&self, side: usize, idx: u64, cache: &BlockCache) -> Result<u8, String> {
        let block = idx >> self.header.block_log;
        let key = self.id << 48 | (side as u64) << 47 | block;
        let offset = (idx & ((1 << self.header.block_log) - 1)) as usize;
        cache.get(key, offset, |buf| self.decode_block(side, block, buf))
    }

    /// All encoded values with `side` to move, decoded in parallel without the cache.
    pub fn decode_side(&self, side: usize) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; self.header.size as usize];
        out.par_chunks_mut(1 << self.header.block_log)
            .enumerate()
            .try_for_each(|(b, chunk)| self.decode_into(side, b as u64, chunk))?;
        Ok(out)
    }
}

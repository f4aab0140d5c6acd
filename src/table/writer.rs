//! Writes a table file (layout in `format`): under a temporary name first, renamed once
//! complete and synced, so that a killed run never leaves a half-written file under the
//! final name.
//!
//! Choices, measured on all 35 tables of 3-4 pieces (total bytes of the 35 files):
//! - Illegal and broken indices are never probed, so they take the value of the last legal
//!   index before them, which lengthens runs: 3% smaller than leaving them 0.
//! - One byte per value (`Dtm::encode`), each side to move in its own blocks. Interleaving
//!   the two sides' values of an index was 15% larger.
//! - 2^15 values per block: 4 Ki values gave 31.4 MB, 16 Ki 26.8 MB, 64 Ki 23.9 MB (zstd 19).
//!   A cold probe decodes one block (32 KiB, tens of microseconds); larger blocks gain a few
//!   percent in size for twice the decoding time and cache memory per block.
//! - zstd level 15: within 2% of level 19 at a third of its compression time, which matters
//!   for five-piece tables (level 9 is 15% larger).
//! - No dictionary: a dictionary trained per table made 4 Ki blocks 2% larger (its own bytes
//!   outweigh the gain) and training was slow; larger blocks gain even less from one.
//! - No separate WDL stream: a warm probe reads one byte of a cached block whether it wants
//!   WDL or DTM (72-77 ns either way), and WDL blocks would add 3.4 MB (13%) to the set.
//!
//! With these choices the 35 files take 25.7 MB (Gaviota's DTM files: 27.4 MB).

use super::format::{put_u32, put_u64, Header, EXTENSION, HEADER_LEN};
use crate::material::Material;
use crate::retro::TableStats;
use rayon::prelude::*;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// How a table is compressed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// Log2 of the values per block.
    pub block_log: u32,
    /// zstd compression level.
    pub level: i32,
    /// Whether illegal indices copy the previous legal value (else they keep 0).
    pub fill_previous: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            block_log: 15,
            level: 15,
            fill_previous: true,
        }
    }
}

/// The file name of `material`'s table in `dir`.
pub fn table_path(dir: &Path, material: &Material) -> PathBuf {
    dir.join(format!("{material}.{EXTENSION}"))
}

/// Gives every illegal index (bit set in `illegal`) the value of the last legal index
/// before it in its block, or of the first legal one after it at the start of a block.
fn fill_illegal(values: &mut [u8], illegal: &[u64], block: usize) {
    let is_illegal = |i: usize| illegal[i / 64] >> (i % 64) & 1 == 1;
    values
        .par_chunks_mut(block)
        .enumerate()
        .for_each(|(b, chunk)| {
            let base = b * block;
            let first = (0..chunk.len()).find(|&i| !is_illegal(base + i));
            let mut last = first.map_or(0, |i| chunk[i]);
            for (i, v) in chunk.iter_mut().enumerate() {
                if is_illegal(base + i) {
                    *v = last;
                } else {
                    last = *v;
                }
            }
        });
}

/// Compresses `blocks` in parallel; each comes back with its CRC-32.
fn compress_blocks(blocks: &[&[u8]], level: i32) -> io::Result<Vec<(Vec<u8>, u32)>> {
    blocks
        .par_iter()
        .map_init(
            || zstd::bulk::Compressor::new(level),
            |c, b| {
                let c = c.as_mut().map_err(|e| io::Error::other(e.to_string()))?;
                let z = c.compress(b)?;
                let crc = crc32fast::hash(&z);
                Ok((z, crc))
            },
        )
        .collect()
}

/// Writes the table of `material` into `dir` and returns its path and size in bytes.
/// `values` are the encoded values of both sides to move (illegal indices, marked in
/// `illegal`, are overwritten with whatever compresses best).
pub fn write_table(
    dir: &Path,
    material: &Material,
    values: [&mut [u8]; 2],
    illegal: [&[u64]; 2],
    stats: TableStats,
    opts: &WriteOptions,
) -> Result<(PathBuf, u64), String> {
    let path = table_path(dir, material);
    let tmp = dir.join(format!(
        ".{material}.{EXTENSION}.{}.tmp",
        std::process::id()
    ));
    let size = values[0].len() as u64;
    let block = 1usize << opts.block_log;
    let [v0, v1] = values;
    if opts.fill_previous {
        fill_illegal(v0, illegal[0], block);
        fill_illegal(v1, illegal[1], block);
    }
    let blocks: Vec<&[u8]> = v0.chunks(block).chain(v1.chunks(block)).collect();
    let result = (|| -> io::Result<u64> {
        let compressed = compress_blocks(&blocks, opts.level)?;
        let mut header = Header {
            game: "chess".into(),
            material: *material,
            size,
            stats,
            block_log: opts.block_log,
            blocks: size.div_ceil(block as u64),
            block_table: (HEADER_LEN as u64, 0),
        };
        let mut table = vec![0u8; header.block_table_len() as usize];
        let mut at = HEADER_LEN as u64 + header.block_table_len();
        let crcs = 8 * (compressed.len() + 1);
        for (i, (z, crc)) in compressed.iter().enumerate() {
            put_u64(&mut table, 8 * i, at);
            put_u32(&mut table, crcs + 4 * i, *crc);
            at += z.len() as u64;
        }
        put_u64(&mut table, 8 * compressed.len(), at);
        header.block_table.1 = crc32fast::hash(&table);

        let file = File::create(&tmp)?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        w.write_all(&header.to_bytes())?;
        w.write_all(&table)?;
        for (z, _) in &compressed {
            w.write_all(z)?;
        }
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, &path)?;
        Ok(at)
    })();
    match result {
        Ok(bytes) => Ok((path, bytes)),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(format!("cannot write {}: {e}", path.display()))
        }
    }
}

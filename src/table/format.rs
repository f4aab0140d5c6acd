//! The table file layout (version 2), all integers little-endian:
//!
//! ```text
//! offset  size  field
//!      0     8  magic b"RBTABLE\x1a"
//!      8     4  format version (2)
//!     12     4  header length (256)
//!     16     8  game, zero-padded ASCII ("chess")
//!     24    16  signature, zero-padded ASCII (e.g. "KRvKN", canonical orientation)
//!     40     4  index scheme (1: king pairs x ranked piece groups, see `index`)
//!     44     4  value encoding (1: one byte per position, 0 = draw, plies + 1 otherwise)
//!     48     8  indices per side to move (N)
//!     56    32  white to move: positions, win, draw, loss (u64 each)
//!     88    32  black to move: positions, win, draw, loss
//!    120     4  longest mate in plies
//!    124     4  side to move of a longest mate (0 white, 1 black)
//!    128     8  index of that position
//!    136     4  compression (1: zstd)
//!    140     4  log2 of the values per block (B)
//!    144     8  blocks per side to move (K = ceil(N / B))
//!    152     8  offset of the block table (T)
//!    160     4  CRC-32 of the block table
//!    164    88  reserved, zero
//!    252     4  CRC-32 of bytes 0..252
//!      T        block table: 2K + 1 u64 file offsets, then 2K u32 CRC-32s. Block j of side
//!               s (0 white to move, 1 black) is number s*K + j; its compressed bytes run
//!               from offset[s*K + j] to offset[s*K + j + 1] (the last offset is the file
//!               length) and its CRC-32 covers those bytes. A block decodes to B values
//!               (the last of each side to the rest of N), indices j*B.. in order.
//! ```
//! The writer puts the block table right after the header, then the blocks in order; the
//! reader only relies on the offsets.

use crate::material::Material;
use crate::retro::{SideStats, TableStats};

/// Identifies a retrobook table file.
pub const MAGIC: [u8; 8] = *b"RBTABLE\x1a";
/// The format version this code writes and reads.
pub const VERSION: u32 = 2;
/// Header length in bytes.
pub const HEADER_LEN: usize = 256;
/// Index scheme number of `index::TableIndex`.
pub const INDEX_SCHEME: u32 = 1;
/// Value encoding number of `Dtm::encode`.
pub const VALUE_ENCODING: u32 = 1;
/// Compression number of zstd.
pub const COMPRESSION_ZSTD: u32 = 1;
/// File name extension of table files.
pub const EXTENSION: &str = "rbt";
/// Smallest and largest block sizes (log2 of values) a reader accepts.
pub const BLOCK_LOG_RANGE: std::ops::RangeInclusive<u32> = 6..=20;

/// Everything the header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The game ("chess").
    pub game: String,
    /// Canonical material.
    pub material: Material,
    /// Indices per side to move.
    pub size: u64,
    /// Statistics (DESIGN.md §2 convention).
    pub stats: TableStats,
    /// Log2 of the number of values per block.
    pub block_log: u32,
    /// Blocks per side to move.
    pub blocks: u64,
    /// Where the block table starts and its CRC-32.
    pub block_table: (u64, u32),
}

pub(crate) fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

pub(crate) fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

pub(crate) fn get_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

pub(crate) fn get_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn put_str(b: &mut [u8], at: usize, len: usize, s: &str) {
    let bytes = s.as_bytes();
    b[at..at + bytes.len().min(len)].copy_from_slice(&bytes[..bytes.len().min(len)]);
}

fn get_str(b: &[u8], at: usize, len: usize) -> String {
    let field = &b[at..at + len];
    let end = field.iter().position(|&c| c == 0).unwrap_or(len);
    String::from_utf8_lossy(&field[..end]).into_owned()
}

impl Header {
    /// Length in bytes of the block table.
    pub fn block_table_len(&self) -> u64 {
        (2 * self.blocks + 1) * 8 + 2 * self.blocks * 4
    }

    /// The 256 header bytes, checksum included.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        put_u32(&mut b, 8, VERSION);
        put_u32(&mut b, 12, HEADER_LEN as u32);
        put_str(&mut b, 16, 8, &self.game);
        put_str(&mut b, 24, 16, &self.material.to_string());
        put_u32(&mut b, 40, INDEX_SCHEME);
        put_u32(&mut b, 44, VALUE_ENCODING);
        put_u64(&mut b, 48, self.size);
        for (s, at) in [(0, 56), (1, 88)] {
            let st = &self.stats.sides[s];
            for (i, v) in [st.positions, st.win, st.draw, st.loss]
                .into_iter()
                .enumerate()
            {
                put_u64(&mut b, at + 8 * i, v);
            }
        }
        put_u32(&mut b, 120, self.stats.max_plies);
        put_u32(&mut b, 124, self.stats.max_side as u32);
        put_u64(&mut b, 128, self.stats.max_index);
        put_u32(&mut b, 136, COMPRESSION_ZSTD);
        put_u32(&mut b, 140, self.block_log);
        put_u64(&mut b, 144, self.blocks);
        put_u64(&mut b, 152, self.block_table.0);
        put_u32(&mut b, 160, self.block_table.1);
        let crc = crc32fast::hash(&b[..252]);
        put_u32(&mut b, 252, crc);
        b
    }

    /// Parses and checks a header; the error says what is wrong.
    pub fn from_bytes(b: &[u8]) -> Result<Header, String> {
        if b.len() < HEADER_LEN {
            return Err(format!(
                "file is {} bytes, shorter than a table header",
                b.len()
            ));
        }
        if b[0..8] != MAGIC {
            return Err("not a retrobook table (bad magic number)".into());
        }
        let version = get_u32(b, 8);
        if version != VERSION {
            return Err(format!(
                "table format version {version}, this program reads version {VERSION}"
            ));
        }
        if get_u32(b, 252) != crc32fast::hash(&b[..252]) {
            return Err("header checksum mismatch (file corrupted)".into());
        }
        if get_u32(b, 12) as usize != HEADER_LEN {
            return Err("unexpected header length".into());
        }
        let game = get_str(b, 16, 8);
        if game != "chess" {
            return Err(format!("table of game {game:?}, expected chess"));
        }
        let sig = get_str(b, 24, 16);
        let material: Material = sig
            .parse()
            .map_err(|e| format!("bad signature in header: {e}"))?;
        if get_u32(b, 40) != INDEX_SCHEME || get_u32(b, 44) != VALUE_ENCODING {
            return Err("unknown index scheme or value encoding".into());
        }
        if get_u32(b, 136) != COMPRESSION_ZSTD {
            return Err("unknown compression".into());
        }
        let mut stats = TableStats::default();
        for (s, at) in [(0, 56), (1, 88)] {
            stats.sides[s] = SideStats {
                positions: get_u64(b, at),
                win: get_u64(b, at + 8),
                draw: get_u64(b, at + 16),
                loss: get_u64(b, at + 24),
            };
        }
        stats.max_plies = get_u32(b, 120);
        stats.max_side = get_u32(b, 124) as u8;
        stats.max_index = get_u64(b, 128);
        let block_log = get_u32(b, 140);
        if !BLOCK_LOG_RANGE.contains(&block_log) {
            return Err(format!("unsupported block size 2^{block_log}"));
        }
        let size = get_u64(b, 48);
        let blocks = get_u64(b, 144);
        if blocks != size.div_ceil(1 << block_log) {
            return Err("block count does not match the table size".into());
        }
        Ok(Header {
            game,
            material,
            size,
            stats,
            block_log,
            blocks,
            block_table: (get_u64(b, 152), get_u32(b, 160)),
        })
    }
}

//! The table file layout (versions 3 and 4), all integers little-endian.
//!
//! A table holds two layers. The WDL layer has one stream per side to move with a code per
//! position (`WdlCode`); a search probes it without touching anything else. The DTM layer
//! has one stream, for one side to move only (the one that compresses better); the other
//! side's distances are found by a one-ply search over the stored side and the sub-tables.
//! Each stream lays out its side's values in its own order of the index parts (`Layout`),
//! chosen when the table is written, and is compressed as `codec::stream` describes: whole
//! in version 3, cut into segments (`codec::segments`) in version 4, which a table gets
//! when its streams hold more than 2^28 values (from KRPvKR on), in segments of 2^24 values
//! (2^25 or 2^28 in files of earlier builds; each file names its own).
//!
//! ```text
//! offset  size  field
//!      0     8  magic b"RBTABLE\x1a"
//!      8     4  format version (3: streams whole; 4: streams cut into segments)
//!     12     4  header length (512)
//!     16     8  game, zero-padded ASCII ("chess")
//!     24    16  signature, zero-padded ASCII (e.g. "KRvKN", canonical orientation)
//!     40     4  index scheme (1: king pairs x ranked piece groups, see `index`)
//!     44     4  value encoding (2: WDL codes and DTM moves, below)
//!     48     8  indices per side to move (N)
//!     56    48  white to move: positions, win, draw, loss, cursed win, cursed loss (u64)
//!    104    48  black to move: the same
//!    152     4  longest mate in plies
//!    156     4  side to move of a longest mate (0 white, 1 black)
//!    160     8  index of that position
//!    168     4  side to move the DTM layer stores (0 white, 1 black)
//!    172     4  reserved, zero
//!    176     8  layout of the white-to-move WDL stream (`Layout::to_bytes`)
//!    184     8  layout of the black-to-move WDL stream
//!    192     8  layout of the DTM stream
//!    200    16  white-to-move WDL stream: offset, length (u64 each)
//!    216    16  black-to-move WDL stream: offset, length
//!    232    16  DTM stream: offset, length
//!    248     4  DTZ layer: 0 none (tables of earlier builds), 1 + the side to move it
//!               stores (0 white, 1 black)
//!    252     4  reserved, zero
//!    256     8  layout of the DTZ stream
//!    264    16  DTZ stream: offset, length
//!    280   228  reserved, zero
//!    508     4  CRC-32 of bytes 0..508
//!    512        the streams, each starting at a multiple of 64
//! ```
//!
//! Value encoding 2. A WDL stream holds a code from 0 to 9 per layout number: 0 loss,
//! 1 blessed loss, 2 draw, 3 cursed win, 4 win, and 5 to 9 the same values meaning "this,
//! or better through a capture or promotion": the probe then takes the best of the code's
//! value and the values of the position's conversions (read from the sub-tables). The DTM
//! stream holds a number of moves m per layout number: with the position's WDL value, a win
//! in 2m - 1 plies or a loss in 2m plies (m = 0 with a win: no value here); the distance is
//! the better of that and the best conversion. Holes and illegal positions hold whatever
//! compresses best, and so may positions whose value a conversion gives.
//!
//! The DTZ layer (`retro::dtz`) is one stream for one side to move, as the DTM layer: a
//! number of moves per layout number, a win in 2m - 1 plies to the next reset of the move
//! count (a capture, a pawn move) or mate, a loss in 2m (m = 0 with a win: no value here;
//! with a loss, a loss forced to reset at once), the better of that and the best reset
//! the position has (`retro::dtz` says how the plies count, as Syzygy counts them).

use super::error::FileFault;
use super::stats::{SideStats, TableStats};
use crate::field;
use crate::game::Game;
use crate::index::{Layout, TableIndex, LAYOUT_BYTES};
use crate::material::Material;
use crate::side::Side;

/// Identifies a retrobook table file.
pub const MAGIC: [u8; 8] = *b"RBTABLE\x1a";
/// The format version of tables whose streams are cut into segments.
pub const VERSION: u32 = 4;
/// The format version of tables whose streams are whole, the layout otherwise the same:
/// tables of few values keep it, and their files are as before segments came.
pub(super) const WHOLE_VERSION: u32 = 3;
/// Header length in bytes.
pub const HEADER_LEN: usize = 512;
/// Index scheme number of `index::TableIndex`.
pub(super) const INDEX_SCHEME: u32 = 1;
/// Value encoding number described above.
pub(super) const VALUE_ENCODING: u32 = 2;
/// File name extension of table files.
pub const EXTENSION: &str = "rbt";

/// Where one stream lies in the file.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Extent {
    /// Offset from the start of the file.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
}

/// Everything the header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The game.
    pub game: Game,
    /// Canonical material.
    pub material: Material,
    /// Indices per side to move.
    pub size: u64,
    /// Statistics (counted as `docs/design.md`, Values, says).
    pub stats: TableStats,
    /// Side to move whose distances the DTM layer stores (0 white, 1 black in the file).
    pub dtm_side: Side,
    /// Layouts of the white and black WDL streams and of the DTM stream.
    pub layouts: [[u8; LAYOUT_BYTES]; 3],
    /// Extents of the same three streams.
    pub streams: [Extent; 3],
    /// Whether the streams are cut into segments (version 4).
    pub segmented: bool,
    /// The DTZ layer, if the table has one: the side to move it stores, its layout and
    /// where its stream lies.
    pub dtz: Option<DtzLayer>,
}

/// Where a table's DTZ layer is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DtzLayer {
    /// The side to move whose distances it stores (1 white, 2 black in the file).
    pub side: Side,
    /// Its layout (`Layout::to_bytes`).
    pub layout: [u8; LAYOUT_BYTES],
    /// Its stream.
    pub stream: Extent,
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

const STATS_AT: [usize; 2] = [56, 104];
const LAYOUTS_AT: usize = 176;
const STREAMS_AT: usize = 200;
const DTZ_AT: usize = 248;
const CRC_AT: usize = HEADER_LEN - 4;

impl Header {
    /// The 512 header bytes, checksum included.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        let version = if self.segmented {
            VERSION
        } else {
            WHOLE_VERSION
        };
        field::put::<u32>(&mut b, 8, version);
        field::put::<u32>(&mut b, 12, HEADER_LEN as u32);
        put_str(&mut b, 16, 8, self.game.name());
        put_str(&mut b, 24, 16, &self.material.to_string());
        field::put::<u32>(&mut b, 40, INDEX_SCHEME);
        field::put::<u32>(&mut b, 44, VALUE_ENCODING);
        field::put::<u64>(&mut b, 48, self.size);
        for (st, at) in self.stats.sides.iter().zip(STATS_AT) {
            for (i, v) in [
                st.positions,
                st.win,
                st.draw,
                st.loss,
                st.cursed_win,
                st.blessed_loss,
            ]
            .into_iter()
            .enumerate()
            {
                field::put::<u64>(&mut b, at + 8 * i, v);
            }
        }
        field::put::<u32>(&mut b, 152, self.stats.max_plies);
        field::put::<u32>(&mut b, 156, self.stats.max_side as u32);
        field::put::<u64>(&mut b, 160, self.stats.max_index);
        field::put::<u32>(&mut b, 168, self.dtm_side.index() as u32);
        for (i, l) in self.layouts.iter().enumerate() {
            b[LAYOUTS_AT + LAYOUT_BYTES * i..][..LAYOUT_BYTES].copy_from_slice(l);
        }
        for (i, e) in self.streams.iter().enumerate() {
            field::put::<u64>(&mut b, STREAMS_AT + 16 * i, e.offset);
            field::put::<u64>(&mut b, STREAMS_AT + 16 * i + 8, e.len);
        }
        if let Some(dtz) = &self.dtz {
            field::put::<u32>(&mut b, DTZ_AT, 1 + dtz.side.index() as u32);
            b[DTZ_AT + 8..][..LAYOUT_BYTES].copy_from_slice(&dtz.layout);
            field::put::<u64>(&mut b, DTZ_AT + 16, dtz.stream.offset);
            field::put::<u64>(&mut b, DTZ_AT + 24, dtz.stream.len);
        }
        let crc = crc32fast::hash(&b[..CRC_AT]);
        field::put::<u32>(&mut b, CRC_AT, crc);
        b
    }

    /// Parses and checks a header; the error says what is wrong.
    pub fn from_bytes(b: &[u8]) -> Result<Header, FileFault> {
        let short = FileFault::ShorterThanHeader {
            len: b.len() as u64,
        };
        if b.len() < 12 || b[0..8] != MAGIC {
            return Err(if b.len() < HEADER_LEN {
                short
            } else {
                FileFault::NotATable
            });
        }
        let version = field::get::<u32>(b, 8);
        if !(WHOLE_VERSION..=VERSION).contains(&version) {
            return Err(FileFault::Version {
                found: version,
                oldest: WHOLE_VERSION,
                newest: VERSION,
            });
        }
        if b.len() < HEADER_LEN {
            return Err(short);
        }
        if field::get::<u32>(b, CRC_AT) != crc32fast::hash(&b[..CRC_AT]) {
            return Err(FileFault::Checksum { part: "header" });
        }
        if field::get::<u32>(b, 12) as usize != HEADER_LEN {
            return Err(FileFault::corrupt("unexpected header length"));
        }
        let game = get_str(b, 16, 8);
        // Chess tables only: a xiangqi table has a format of its own (`table::xiangqi`).
        let game: Game = match game.parse() {
            Ok(Game::Chess) => Game::Chess,
            _ => {
                return Err(FileFault::Game {
                    found: game,
                    expected: "chess",
                })
            }
        };
        let sig = get_str(b, 24, 16);
        let material: Material = sig
            .parse()
            .map_err(|e| FileFault::corrupt(format!("bad signature in header: {e}")))?;
        if field::get::<u32>(b, 40) != INDEX_SCHEME || field::get::<u32>(b, 44) != VALUE_ENCODING {
            return Err(FileFault::corrupt("unknown index scheme or value encoding"));
        }
        let mut stats = TableStats::default();
        for (side, at) in stats.sides.iter_mut().zip(STATS_AT) {
            *side = SideStats {
                positions: field::get::<u64>(b, at),
                win: field::get::<u64>(b, at + 8),
                draw: field::get::<u64>(b, at + 16),
                loss: field::get::<u64>(b, at + 24),
                cursed_win: field::get::<u64>(b, at + 32),
                blessed_loss: field::get::<u64>(b, at + 40),
            };
        }
        stats.max_plies = field::get::<u32>(b, 152);
        stats.max_side = field::get::<u32>(b, 156) as u8;
        stats.max_index = field::get::<u64>(b, 160);
        let dtm_side = Side::try_from_index(field::get::<u32>(b, 168) as usize)
            .ok_or_else(|| FileFault::corrupt("bad DTM side in header"))?;
        let mut layouts = [[0u8; LAYOUT_BYTES]; 3];
        for (i, l) in layouts.iter_mut().enumerate() {
            l.copy_from_slice(&b[LAYOUTS_AT + LAYOUT_BYTES * i..][..LAYOUT_BYTES]);
        }
        let mut streams = [Extent::default(); 3];
        for (i, e) in streams.iter_mut().enumerate() {
            e.offset = field::get::<u64>(b, STREAMS_AT + 16 * i);
            e.len = field::get::<u64>(b, STREAMS_AT + 16 * i + 8);
        }
        let dtz = match field::get::<u32>(b, DTZ_AT) {
            0 => None,
            side @ 1..=2 => Some(DtzLayer {
                side: Side::from_index(side as usize - 1),
                layout: b[DTZ_AT + 8..][..LAYOUT_BYTES]
                    .try_into()
                    .expect("a layout's bytes"),
                stream: Extent {
                    offset: field::get::<u64>(b, DTZ_AT + 16),
                    len: field::get::<u64>(b, DTZ_AT + 24),
                },
            }),
            _ => return Err(FileFault::corrupt("bad DTZ side in header")),
        };
        Ok(Header {
            game,
            material,
            size: field::get::<u64>(b, 48),
            stats,
            dtm_side,
            layouts,
            streams,
            segmented: version == VERSION,
            dtz,
        })
    }

    /// The three layouts (WDL white, WDL black, DTM) for a table of `index`.
    pub fn layouts(&self, index: &TableIndex) -> Result<[Layout; 3], FileFault> {
        let l = |i: usize| {
            Layout::from_bytes(index, &self.layouts[i])
                .map_err(|e| FileFault::corrupt(e.to_string()).within("bad header"))
        };
        Ok([l(0)?, l(1)?, l(2)?])
    }
}

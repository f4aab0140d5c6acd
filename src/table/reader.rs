//! Opens a table file through a memory map and checks what can be checked cheaply at open:
//! the header, each stream's index tables and the file length. Each check group of blocks
//! is checksummed the first time a probe reads it, so a damaged block makes its probes
//! fail, never answer.

use super::codec::{Segments, StreamError};
use super::error::{FileFault, TableError};
use super::format::Header;
use crate::index::{Digits, Layout, TableIndex};
use crate::material::Material;
use crate::regular_file::open_regular;
use crate::side::Side;
use crate::zeroed::{from_atomic, zeroed, Atomic};
use memmap2::Mmap;
use std::path::{Path, PathBuf};

/// Names the streams in messages.
const STREAM_NAMES: [&str; 4] = ["white-to-move WDL", "black-to-move WDL", "DTM", "DTZ"];

/// The number of the DTZ stream, after the WDL streams and the DTM stream.
const DTZ: usize = 3;

/// An open, checked table file.
pub struct TableFile {
    path: PathBuf,
    header: Header,
    index: TableIndex,
    /// The layouts of the streams: WDL white and black, DTM, and DTZ where the table has a
    /// DTZ layer.
    layouts: Vec<Layout>,
    streams: Vec<Segments>,
    map: Mmap,
    /// The DTZ stream decoded whole, in its own order, while a caller holds it
    /// (`hold_dtz`): a search that reads it at random, as `verify` does, then reads a
    /// value where a probe decodes up to a block.
    dtz_held: Option<Moves>,
}

/// The order a stream is decoded into.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Order {
    /// By solver index (`Layout::for_each_index`).
    Index,
    /// As the stream holds its values (a layout's numbers).
    Stream,
}

impl TableFile {
    /// Opens and checks `path`; errors name the file and the problem.
    pub fn open(path: &Path) -> Result<TableFile, TableError> {
        let io = |source| TableError::Io {
            path: path.to_path_buf(),
            source,
        };
        let refused = |fault| TableError::Refused {
            path: path.to_path_buf(),
            fault,
        };
        let file = open_regular(path).map_err(io)?;
        // SAFETY: the file is only read; tables are written under a temporary name and
        // renamed, so a finished file is not modified in place by this program.
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        // Probes land anywhere: no read-ahead.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Random);
        let header = Header::from_bytes(&map).map_err(refused)?;
        let index = TableIndex::new(header.material);
        if header.size != index.size() {
            return Err(refused(FileFault::corrupt(format!(
                "header says {} indices, the index scheme {}",
                header.size,
                index.size()
            ))));
        }
        let mut layouts = header.layouts(&index).map_err(refused)?.to_vec();
        let mut extents = header.streams.to_vec();
        if let Some(dtz) = &header.dtz {
            let layout = Layout::from_bytes(&index, &dtz.layout)
                .map_err(|e| refused(FileFault::corrupt(e.to_string()).within("bad header")))?;
            layouts.push(layout);
            extents.push(dtz.stream);
        }
        let len = map.len() as u64;
        let mut end = 0;
        let mut open = |i: usize| -> Result<Segments, FileFault> {
            let e = extents[i];
            let name = STREAM_NAMES[i];
            let stop = e.offset.checked_add(e.len).filter(|&s| s <= len);
            let Some(stop) = stop else {
                return Err(FileFault::truncated(format!(
                    "file is {len} bytes, its {name} values end at {} (truncated?)",
                    e.offset.saturating_add(e.len)
                )));
            };
            end = end.max(stop);
            let part = || format!("{name} values");
            let s = Segments::open(&map, e.offset as usize, e.len as usize, header.segmented)
                .map_err(|why| why.within(part()))?;
            if s.len() != layouts[i].size() {
                return Err(FileFault::corrupt(format!(
                    "{} of them, the layout has {}",
                    s.len(),
                    layouts[i].size()
                ))
                .within(part()));
            }
            Ok(s)
        };
        let streams = (0..extents.len())
            .map(&mut open)
            .collect::<Result<Vec<_>, _>>()
            .map_err(refused)?;
        if end != len {
            return Err(refused(FileFault::truncated(format!(
                "file is {len} bytes, its streams end at {end} (truncated or extended?)"
            ))));
        }
        Ok(TableFile {
            path: path.to_path_buf(),
            header,
            index,
            layouts,
            streams,
            map,
            dtz_held: None,
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

    /// Takes the file's pages out of this process's resident memory (they stay in the page
    /// cache and come back on the next read): a build decodes its sub-tables whole, and
    /// their mapped pages would otherwise count against its peak until it ends.
    pub fn release_pages(&self) {
        #[cfg(unix)]
        // SAFETY: the map is a read-only shared mapping of a file; dropping its pages only
        // makes later reads fetch them again from the file.
        let _ = unsafe {
            self.map
                .unchecked_advise(memmap2::UncheckedAdvice::DontNeed)
        };
    }

    /// The index scheme of the table.
    pub fn index(&self) -> &TableIndex {
        &self.index
    }

    /// Size of the file in bytes.
    pub fn bytes(&self) -> u64 {
        self.map.len() as u64
    }

    /// Bytes of the WDL layer (both sides), of the DTM layer and of the DTZ layer (0 for a
    /// table without one).
    pub fn layer_bytes(&self) -> (u64, u64, u64) {
        let s = &self.header.streams;
        let dtz = self.header.dtz.as_ref().map_or(0, |d| d.stream.len);
        (s[0].len + s[1].len, s[2].len, dtz)
    }

    /// The side to move whose distances to zeroing the DTZ layer stores; None for a table
    /// of an earlier build, which has no DTZ layer.
    pub fn dtz_side(&self) -> Option<Side> {
        self.header.dtz.as_ref().map(|d| d.side)
    }

    /// The moves the DTZ layer stores for the position with these digits (its side to
    /// move is `dtz_side()`); None without a DTZ layer.
    #[inline]
    pub fn dtz_moves(&self, d: &Digits) -> Option<Result<u16, TableError>> {
        let layout = self.layouts.get(DTZ)?;
        let j = layout.index(d);
        Some(match &self.dtz_held {
            None => self.streams[DTZ]
                .get(&self.map, j)
                .map_err(|e| self.error(DTZ, e)),
            Some(held) => Ok(held.get(j)),
        })
    }

    /// Decodes the DTZ layer whole (every block checked) and reads `dtz_moves` from it until
    /// `release_dtz`: a byte or two per position of the stored side. Nothing to do without
    /// a DTZ layer.
    pub fn hold_dtz(&mut self) -> Result<(), TableError> {
        if self.layouts.get(DTZ).is_none() || self.dtz_held.is_some() {
            return Ok(());
        }
        self.dtz_held = Some(self.decode_moves(DTZ, Order::Stream)?);
        Ok(())
    }

    /// Frees what `hold_dtz` decoded; probes decode blocks again.
    pub fn release_dtz(&mut self) {
        self.dtz_held = None;
    }

    /// The side to move whose distances the DTM layer stores.
    pub fn dtm_side(&self) -> Side {
        self.header.dtm_side
    }

    fn error(&self, stream: usize, block: StreamError) -> TableError {
        TableError::Block {
            path: self.path.clone(),
            stream: STREAM_NAMES[stream],
            block,
        }
    }

    /// The WDL code (`values`) of the position with these digits and `side` to move.
    #[inline]
    pub fn wdl_code(&self, side: Side, d: &Digits) -> Result<u8, TableError> {
        let stream = side.index();
        let j = self.layouts[stream].index(d);
        match self.streams[stream].get(&self.map, j) {
            Ok(c) => Ok(c as u8),
            Err(e) => Err(self.error(stream, e)),
        }
    }

    /// The moves the DTM layer stores for the position with these digits (its side to
    /// move is `dtm_side()`).
    #[inline]
    pub fn dtm_moves(&self, d: &Digits) -> Result<u16, TableError> {
        let j = self.layouts[2].index(d);
        self.streams[2]
            .get(&self.map, j)
            .map_err(|e| self.error(2, e))
    }

    /// Every value of stream `stream` (0, 1: WDL codes of white and black to move, 2: DTM
    /// moves, 3: DTZ moves) as `convert` makes it, in `order`: each block is decoded and
    /// its values go straight to their places, so that nothing but the result is held. By
    /// solver index, indices no number of the layout reaches (broken ones) read 0.
    fn decode_stream<T: Atomic>(
        &self,
        stream: usize,
        order: Order,
        convert: impl Fn(u16) -> T + Sync,
    ) -> Result<Vec<T>, TableError> {
        let len = match order {
            Order::Index => self.index.size(),
            Order::Stream => self.streams[stream].len(),
        };
        let out: Vec<T::Atomic> = zeroed(len as usize);
        let layout = &self.layouts[stream];
        self.streams[stream]
            .for_each_block(&self.map, |first, values| {
                if order == Order::Stream {
                    for (a, &v) in out[first as usize..].iter().zip(values) {
                        T::set(a, convert(v));
                    }
                    return;
                }
                let mut values = values.iter();
                let range = first..first + values.len() as u64;
                layout.for_each_index(&self.index, range, |idx| {
                    let v = values.next().expect("a value per number");
                    if let Some(i) = idx {
                        T::set(&out[i as usize], convert(*v));
                    }
                });
            })
            .map_err(|e| self.error(stream, e))?;
        Ok(from_atomic(out))
    }

    /// All WDL codes with `side` to move, by solver index, every block checked.
    pub fn decode_wdl(&self, side: Side) -> Result<Vec<u8>, TableError> {
        self.decode_stream(side.index(), Order::Index, |c| c as u8)
    }

    /// All DTM moves of the stored side, by solver index, every block checked: a byte each
    /// where every number fits one (every table of up to five pieces).
    pub fn decode_dtm(&self) -> Result<Moves, TableError> {
        self.decode_moves(2, Order::Index)
    }

    /// The numbers of moves of stream `stream` (DTM or DTZ) in `order`, a byte each where
    /// every number fits one.
    fn decode_moves(&self, stream: usize, order: Order) -> Result<Moves, TableError> {
        Ok(match self.streams[stream].max_value() {
            m if m <= u8::MAX as u16 => {
                Moves::Bytes(self.decode_stream(stream, order, |m| m as u8)?)
            }
            _ => Moves::Wide(self.decode_stream(stream, order, |m| m)?),
        })
    }
}

/// A layer's numbers of moves decoded whole (`TableFile::decode_dtm`: the DTM moves of the
/// stored side by solver index; `TableFile::hold_dtz`: the DTZ stream in its own order).
pub enum Moves {
    /// Every number below 256.
    Bytes(Vec<u8>),
    /// Some number of 256 or more (mates beyond 255 moves).
    Wide(Vec<u16>),
}

impl Moves {
    /// The moves stored at place `at`.
    #[inline]
    pub fn get(&self, at: u64) -> u16 {
        match self {
            Moves::Bytes(v) => v[at as usize].into(),
            Moves::Wide(v) => v[at as usize],
        }
    }
}

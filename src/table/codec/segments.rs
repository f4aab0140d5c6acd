//! A stream cut into segments: each segment a stream of its own (`stream`), of 2^s values
//! (the last fewer), behind a small directory. A writer gathers and compresses one segment
//! at a time, so it holds one segment's values rather than the whole stream's: a byte per
//! value of a six-piece side is gigabytes. A probe finds its segment by a shift.
//!
//! Layout, all integers little-endian, offsets relative to the start of the directory:
//!
//! ```text
//! offset  size  field
//!      0     4  segments K (at least 1)
//!      4     4  s, log2 of the values per segment
//!      8     8  values N; K = ceil(N / 2^s)
//!     16   16K  each segment's offset (a multiple of 64) and length (u64 each)
//!  16+16K    4  CRC-32 of the bytes before it
//!               zero padding to a multiple of 64, then the segments in order
//! ```

use super::stream::{Stream, StreamError};
use crate::field;
use crate::table::error::FileFault;

/// The smallest and largest segment sizes a file may name (log2 of values).
const SEGMENT_LOGS: std::ops::RangeInclusive<u32> = 6..=40;

/// The streams of a segmented stream, or one whole stream.
#[derive(Debug)]
pub struct Segments {
    streams: Vec<Stream>,
    /// log2 of the values per segment (64 for a whole stream: every value in the first).
    log: u32,
    n: u64,
}

impl Segments {
    /// The stream at `at` in `file`, of at most `len` bytes: whole, or, when `cut`, a
    /// directory and its segments.
    pub fn open(file: &[u8], at: usize, len: usize, cut: bool) -> Result<Segments, FileFault> {
        if !cut {
            let s = Stream::open(file, at, len)?;
            let n = s.len();
            return Ok(Segments {
                streams: vec![s],
                log: 64,
                n,
            });
        }
        let bytes = file.get(at..at.saturating_add(len)).ok_or_else(|| {
            FileFault::truncated("segments run past the end of the file (truncated?)")
        })?;
        if bytes.len() < 20 {
            return Err(FileFault::truncated("segment directory truncated"));
        }
        let (k, log, n) = (
            field::get::<u32>(bytes, 0) as usize,
            field::get::<u32>(bytes, 4),
            field::get::<u64>(bytes, 8),
        );
        if !SEGMENT_LOGS.contains(&log) || k == 0 || n.div_ceil(1 << log) != k as u64 {
            return Err(FileFault::corrupt(format!(
                "segment directory names {k} segments of 2^{log} for {n} values (corrupted)"
            )));
        }
        let crc_at = 16 + 16 * k;
        if bytes.len() < crc_at + 4
            || field::get::<u32>(bytes, crc_at) != crc32fast::hash(&bytes[..crc_at])
        {
            return Err(FileFault::Checksum {
                part: "segment directory",
            });
        }
        let mut streams = Vec::with_capacity(k);
        let mut end = crc_at + 4;
        for j in 0..k {
            let (off, seg_len) = (
                field::get::<u64>(bytes, 16 + 16 * j),
                field::get::<u64>(bytes, 24 + 16 * j),
            );
            let stop = off
                .checked_add(seg_len)
                .filter(|&s| s <= bytes.len() as u64);
            if off < end as u64 || off % 64 != 0 || stop.is_none() {
                return Err(FileFault::corrupt(format!(
                    "segment {j} lies outside its stream (corrupted)"
                )));
            }
            let s = Stream::open(file, at + off as usize, seg_len as usize)
                .map_err(|why| why.within(format!("segment {j}")))?;
            let expected = (n - ((j as u64) << log)).min(1 << log);
            if s.len() != expected {
                return Err(FileFault::corrupt(format!(
                    "segment {j} holds {} values, {expected} expected (corrupted)",
                    s.len()
                )));
            }
            end = stop.expect("checked") as usize;
            streams.push(s);
        }
        Ok(Segments { streams, log, n })
    }

    /// Number of values.
    pub fn len(&self) -> u64 {
        self.n
    }

    /// True when no value is held.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The number of the first value of segment `k`.
    #[inline]
    fn first_of(&self, k: usize) -> u64 {
        (k as u64).checked_shl(self.log).unwrap_or(0)
    }

    /// The segment holding value `idx` (< N) and the offset of `idx` in it.
    #[inline]
    fn locate(&self, idx: u64) -> (usize, u64) {
        let k = idx.checked_shr(self.log).unwrap_or(0) as usize;
        (k, idx - self.first_of(k))
    }

    /// The error `e` of segment `k`, its block numbered among all segments' blocks.
    fn renumber(&self, k: usize, e: StreamError) -> StreamError {
        let before: u32 = self.streams[..k].iter().map(Stream::blocks).sum();
        match e {
            StreamError::Checksum(b) => StreamError::Checksum(before + b),
            StreamError::Corrupt(b) => StreamError::Corrupt(before + b),
        }
    }

    /// The value at `idx` (< N).
    #[inline]
    pub fn get(&self, file: &[u8], idx: u64) -> Result<u16, StreamError> {
        let (k, off) = self.locate(idx);
        self.streams[k]
            .get(file, off)
            .map_err(|e| self.renumber(k, e))
    }

    /// The largest value held.
    pub fn max_value(&self) -> u16 {
        self.streams
            .iter()
            .map(Stream::max_value)
            .max()
            .unwrap_or(0)
    }

    /// `Stream::for_each_block` over every segment in turn, values numbered in the whole.
    pub fn for_each_block(
        &self,
        file: &[u8],
        f: impl Fn(u64, &[u16]) + Sync,
    ) -> Result<(), StreamError> {
        for (k, s) in self.streams.iter().enumerate() {
            let first = self.first_of(k);
            s.for_each_block(file, |at, values| f(first + at, values))
                .map_err(|e| self.renumber(k, e))?;
        }
        Ok(())
    }
}

/// The bytes of a segmented stream of `n` values from its segments' streams, each of
/// 2^`log` values but the last.
pub fn join(n: u64, log: u32, segments: Vec<Vec<u8>>) -> Vec<u8> {
    let k = segments.len();
    assert!(SEGMENT_LOGS.contains(&log) && n.div_ceil(1 << log) == k as u64);
    let crc_at = 16 + 16 * k;
    let mut out = vec![0u8; (crc_at + 4).next_multiple_of(64)];
    field::put::<u32>(&mut out, 0, k as u32);
    field::put::<u32>(&mut out, 4, log);
    field::put::<u64>(&mut out, 8, n);
    let mut at = out.len();
    for (j, s) in segments.iter().enumerate() {
        field::put::<u64>(&mut out, 16 + 16 * j, at as u64);
        field::put::<u64>(&mut out, 24 + 16 * j, s.len() as u64);
        at = (at + s.len()).next_multiple_of(64);
    }
    let crc = crc32fast::hash(&out[..crc_at]);
    field::put::<u32>(&mut out, crc_at, crc);
    for s in segments {
        out.extend_from_slice(&s);
        out.resize(out.len().next_multiple_of(64), 0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::stream::{encode, StreamOptions};
    use super::*;

    fn values(n: usize) -> Vec<u8> {
        (0..n).map(|i| ((i / 7 + i / 300) % 5) as u8).collect()
    }

    fn cut(v: &[u8], log: u32) -> Vec<u8> {
        let leaves: Vec<u16> = (0..5).collect();
        let opts = StreamOptions::default();
        let segments = v
            .chunks(1 << log)
            .map(|c| encode(c.to_vec(), &leaves, &opts))
            .collect();
        join(v.len() as u64, log, segments)
    }

    /// Every value reads back, by probe and by blocks, however the values fall on
    /// segments (one, several, the last short or full).
    #[test]
    fn values_read_back_across_segments() {
        for (n, log) in [(1000, 10), (1024, 10), (5000, 10), (70_000, 14)] {
            let v = values(n);
            let bytes = cut(&v, log);
            let s = Segments::open(&bytes, 0, bytes.len(), true).unwrap();
            assert_eq!(s.len(), n as u64);
            for (i, &x) in v.iter().enumerate() {
                assert_eq!(s.get(&bytes, i as u64), Ok(u16::from(x)), "{n} {log} {i}");
            }
            let seen = std::sync::Mutex::new(vec![u16::MAX; n]);
            s.for_each_block(&bytes, |first, block| {
                let mut seen = seen.lock().unwrap();
                seen[first as usize..first as usize + block.len()].copy_from_slice(block);
            })
            .unwrap();
            let expected: Vec<u16> = v.iter().map(|&x| u16::from(x)).collect();
            assert_eq!(seen.into_inner().unwrap(), expected);
            assert_eq!(s.max_value(), 4);
        }
    }

    /// A damaged directory or segment is refused at open, never read as values.
    #[test]
    fn damaged_directories_are_refused() {
        let bytes = cut(&values(5000), 10);
        assert!(Segments::open(&bytes, 0, 100, true).is_err());
        for at in [0, 4, 8, 16, 24, 40] {
            let mut bad = bytes.clone();
            bad[at] ^= 1;
            assert!(
                Segments::open(&bad, 0, bad.len(), true).is_err(),
                "byte {at}"
            );
        }
        // A segment's own descriptor, checked by its stream.
        let first = field::get::<u64>(&bytes, 16) as usize;
        let mut bad = bytes.clone();
        bad[first] ^= 1;
        let err = Segments::open(&bad, 0, bad.len(), true).unwrap_err();
        assert!(
            matches!(&err, FileFault::In { part, .. } if part == "segment 0"),
            "{err}"
        );
        assert!(err.to_string().starts_with("segment 0: "), "{err}");
    }
}

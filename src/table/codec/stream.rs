//! A compressed stream of small values with random access: a pair grammar over the values,
//! Huffman codes of the grammar's symbols, packed whole into blocks of a fixed number of
//! bytes. A value is found by locating its block (a hint per span of values narrows a binary
//! search over the blocks' first values), decoding codes from the block's start until the
//! symbol that covers it, and walking down that symbol's pairs. Nothing is decompressed
//! into memory: one probe reads one block of the mapped file.
//!
//! Layout, all integers little-endian, offsets relative to the start of the stream:
//!
//! ```text
//! offset  size  field
//!      0     8  values N
//!      8     4  leaf symbols L (the distinct values)
//!     12     4  symbols S (leaves and pairs)
//!     16     4  blocks K (0: every value is leaf 0)
//!     20     1  log2 of the bytes per block
//!     21     1  log2 of the values per hint span
//!     22     1  log2 of the bytes per check group
//!     23     1  bytes W of each block's first value: 0 (meaning 4) or 8; 8 when N is
//!               2^32 or more
//!     24     4  offset of the blocks (a multiple of 64)
//!     28     4  offset of the check-group CRC-32s
//!     32     4  total length of the stream
//!     36     4  CRC-32 of the group CRC-32s
//!     40    20  reserved, zero
//!     60     4  CRC-32 of bytes 0..60 and of everything from 64 up to the blocks
//!     64  2L    value of each leaf symbol (u16)
//!         S     code length of each symbol (0: the symbol has no code)
//!     4(S-L)    the pair of each symbol from L on (two u16, both smaller symbols)
//!         WK    first value of each block (u32, or u64 when W is 8)
//!     4(H+1)    block holding value j * 2^hint for j = 0..H, H = ceil(N / 2^hint),
//!               and K - 1 last
//!               zero padding to a multiple of 64
//!  blocks 2^b K  the blocks: canonical Huffman codes, most significant bit first, padded
//!               with zero bits; a block holds whole codes only
//!         8     zero (a decoder reads 8 bytes at a time)
//!   crcs  4G    CRC-32 of each check group of 2^c bytes of the blocks (the last shorter)
//! ```
//!
//! The blocks are checked lazily: the first probe into a check group checksums the group
//! and remembers it in a bitmap; a damaged group fails every probe into it.

use super::huffman::{canonical_codes, code_lengths, Decoder};
use super::pairs::{self, Grammar, PairOptions, Symbol};
use crate::field;
use crate::table::error::FileFault;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

const DESCRIPTOR_LEN: usize = 64;
/// Bytes a decoder may read past the last block.
const SLACK: usize = 8;

/// How a stream is compressed.
#[derive(Copy, Clone, Debug)]
pub struct StreamOptions {
    /// log2 of the bytes per block.
    pub block_log: u32,
    /// log2 of the bytes per check group (at least `block_log`).
    pub check_log: u32,
    /// Average number of blocks per hint span (a power of two).
    pub blocks_per_hint: u64,
    /// The pair grammar's limits.
    pub pairs: PairOptions,
    /// Block starts as u64 even when they fit in a u32 (a stream of 2^32 values or more
    /// has them so in any case): for tests of the wide form on small streams.
    pub wide_starts: bool,
}

impl Default for StreamOptions {
    fn default() -> Self {
        StreamOptions {
            block_log: 5,
            check_log: 12,
            blocks_per_hint: 8,
            pairs: PairOptions::default(),
            wide_starts: false,
        }
    }
}

/// Why a value could not be read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StreamError {
    /// The checksum of the check group holding block `.0` does not match.
    Checksum(u32),
    /// Block `.0` does not decode as its index says (the file is damaged).
    Corrupt(u32),
}

impl StreamError {
    /// The block at fault.
    pub fn block(&self) -> u32 {
        match *self {
            StreamError::Checksum(b) | StreamError::Corrupt(b) => b,
        }
    }

    /// What is wrong with it, as messages say.
    pub fn why(&self) -> &'static str {
        match self {
            StreamError::Checksum(_) => "checksum mismatch",
            StreamError::Corrupt(_) => "does not decode",
        }
    }
}

/// Compresses `values`, numbers of any size, as leaf symbols numbered by frequency, most
/// frequent first (a stream's values then read back as the numbers themselves).
pub fn encode_by_frequency<S: Symbol>(mut values: Vec<S>, opts: &StreamOptions) -> Vec<u8> {
    let top = values.par_iter().map(|v| v.get()).max().unwrap_or(0);
    let mut freq = vec![0u64; top + 1];
    for v in &values {
        freq[v.get()] += 1;
    }
    let mut leaves: Vec<u16> = (0..=top as u16).filter(|&m| freq[m as usize] > 0).collect();
    leaves.sort_by_key(|&m| std::cmp::Reverse(freq[m as usize]));
    let mut symbol = vec![0usize; top + 1];
    for (s, &m) in leaves.iter().enumerate() {
        symbol[m as usize] = s;
    }
    values
        .par_iter_mut()
        .for_each(|v| *v = S::from_usize(symbol[v.get()]));
    encode(values, &leaves, opts)
}

/// Compresses `values` (each below `leaf_values.len()`, which name the value of each leaf
/// symbol) into a stream's bytes.
pub fn encode<S: Symbol>(values: Vec<S>, leaf_values: &[u16], opts: &StreamOptions) -> Vec<u8> {
    let n = values.len() as u64;
    let leaves = leaf_values.len() as u16;
    if values.par_iter().all(|&v| v == values[0]) {
        // Every value is the same: no blocks, and leaf symbol 0 names the value.
        let mut lv = leaf_values.to_vec();
        lv.swap(0, values.first().map_or(0, |v| v.get()));
        let g = Grammar {
            leaves,
            pairs: Vec::new(),
        };
        return write(
            n,
            &lv,
            &g,
            &vec![0; leaves as usize],
            Vec::new(),
            &[],
            0,
            opts,
        );
    }
    let (grammar, values) = pairs::build(values, leaves, &opts.pairs);
    let mut freq = vec![0u64; grammar.symbols()];
    for &s in &values {
        freq[s as usize] += 1;
    }
    let lengths = code_lengths(&freq);
    let (blocks, starts) = pack(&values, &grammar, &lengths, opts.block_log);
    // The symbols are not read again: their memory goes before the stream's bytes come.
    drop(values);
    let k = starts.len() as u64;
    let hint_log = (n * opts.blocks_per_hint)
        .div_ceil(k.max(1))
        .next_power_of_two()
        .trailing_zeros();
    write(
        n,
        leaf_values,
        &grammar,
        &lengths,
        blocks,
        &starts,
        hint_log,
        opts,
    )
}

/// Packs the codes of `seq` into blocks; returns the blocks and each block's first value.
fn pack(seq: &[u16], g: &Grammar, lengths: &[u8], block_log: u32) -> (Vec<u8>, Vec<u64>) {
    let codes = canonical_codes(lengths);
    let sym_len = g.lengths();
    let block_bits = 8u32 << block_log;
    let mut blocks: Vec<u8> = Vec::new();
    let mut starts = Vec::new();
    let mut block = vec![0u8; 1 << block_log];
    let mut used = block_bits; // no block open yet
    let mut value = 0u64;
    for &s in seq {
        let (code, l) = (codes[s as usize], lengths[s as usize] as u32);
        if used + l > block_bits {
            if !starts.is_empty() {
                blocks.extend_from_slice(&block);
            }
            block.fill(0);
            starts.push(value);
            used = 0;
        }
        for i in 0..l {
            if code >> (l - 1 - i) & 1 == 1 {
                let at = used + i;
                block[(at / 8) as usize] |= 0x80 >> (at % 8);
            }
        }
        used += l;
        value += sym_len[s as usize];
    }
    if !starts.is_empty() {
        blocks.extend_from_slice(&block);
    }
    (blocks, starts)
}

/// The hint table: for each span of 2^`hint_log` values, the block holding its first value.
fn hints(n: u64, starts: &[u64], hint_log: u32) -> Vec<u32> {
    let spans = n.div_ceil(1 << hint_log);
    let mut out = Vec::with_capacity(spans as usize + 1);
    let mut b = 0usize;
    for j in 0..spans {
        let v = j << hint_log;
        while b + 1 < starts.len() && starts[b + 1] <= v {
            b += 1;
        }
        out.push(b as u32);
    }
    out.push(starts.len().saturating_sub(1) as u32);
    out
}

#[allow(clippy::too_many_arguments)]
fn write(
    n: u64,
    leaf_values: &[u16],
    g: &Grammar,
    lengths: &[u8],
    mut blocks: Vec<u8>,
    starts: &[u64],
    hint_log: u32,
    opts: &StreamOptions,
) -> Vec<u8> {
    let wide = opts.wide_starts || n >= 1 << 32;
    let mut out = vec![0u8; DESCRIPTOR_LEN];
    for v in leaf_values {
        field::push(&mut out, *v);
    }
    out.extend_from_slice(lengths);
    for p in &g.pairs {
        field::push(&mut out, p[0]);
        field::push(&mut out, p[1]);
    }
    for &s in starts {
        if wide {
            field::push(&mut out, s);
        } else {
            field::push(&mut out, s as u32);
        }
    }
    if !starts.is_empty() {
        for h in hints(n, starts, hint_log) {
            field::push(&mut out, h);
        }
    }
    out.resize(out.len().next_multiple_of(64), 0);
    let blocks_at = out.len();
    let group = 1usize << opts.check_log;
    let crcs: Vec<u32> = blocks.par_chunks(group).map(crc32fast::hash).collect();
    // The blocks become the stream's bytes where they lie, moved up behind the tables
    // rather than copied: at six pieces they are a gigabyte.
    blocks.reserve_exact(blocks_at + SLACK + 4 * crcs.len());
    blocks.splice(0..0, out);
    let mut out = blocks;
    out.extend_from_slice(&[0; SLACK]);
    let crcs_at = out.len();
    for c in &crcs {
        field::push(&mut out, *c);
    }
    let d = &mut out[..DESCRIPTOR_LEN];
    field::put::<u64>(d, 0, n);
    field::put::<u32>(d, 8, leaf_values.len() as u32);
    field::put::<u32>(d, 12, g.symbols() as u32);
    field::put::<u32>(d, 16, starts.len() as u32);
    d[20] = opts.block_log as u8;
    d[21] = hint_log as u8;
    d[22] = opts.check_log as u8;
    d[23] = if wide { 8 } else { 0 };
    field::put::<u32>(d, 24, blocks_at as u32);
    field::put::<u32>(d, 28, crcs_at as u32);
    let total = out.len();
    // The offsets are u32: a stream stays under 4 GiB (KRNvKNN's DTM layer, 7.6 billion
    // positions, would take about a third of that at KQRvKR's 1.8 bits each).
    assert!(total < 1 << 32, "a stream of {total} bytes");
    field::put::<u32>(&mut out, 32, total as u32);
    let crcs_crc = crc32fast::hash(&out[crcs_at..]);
    field::put::<u32>(&mut out, 36, crcs_crc);
    let crc = index_crc(&out, blocks_at);
    field::put::<u32>(&mut out, 60, crc);
    out
}

/// CRC-32 of the descriptor (without its own checksum) and the tables after it.
fn index_crc(bytes: &[u8], blocks_at: usize) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&bytes[..60]);
    h.update(&bytes[DESCRIPTOR_LEN..blocks_at]);
    h.finalize()
}

/// An open stream: its tables decoded at open, its blocks read in place from the file.
#[derive(Debug)]
pub(super) struct Stream {
    n: u64,
    leaf_values: Vec<u16>,
    leaves: u16,
    pairs: Vec<[u16; 2]>,
    /// Values each symbol expands to.
    lengths: Vec<u32>,
    decoder: Decoder,
    blocks: u32,
    block_log: u32,
    hint_log: u32,
    check_log: u32,
    /// Bytes per block start: 4 or 8.
    start_width: usize,
    /// Absolute offsets (in the file) of the block starts, hints, blocks and group CRCs.
    starts_at: usize,
    hints_at: usize,
    blocks_at: usize,
    crcs_at: usize,
    /// One bit per check group: checked and found sound.
    checked: Box<[AtomicU64]>,
}

impl Stream {
    /// Parses and checks the stream at `at` in `file`, of at most `len` bytes.
    pub(super) fn open(file: &[u8], at: usize, len: usize) -> Result<Stream, FileFault> {
        let bytes = file.get(at..at.saturating_add(len)).ok_or_else(|| {
            FileFault::truncated("stream runs past the end of the file (truncated?)")
        })?;
        if bytes.len() < DESCRIPTOR_LEN {
            return Err(FileFault::truncated("stream descriptor truncated"));
        }
        let n = field::get::<u64>(bytes, 0);
        let leaves = field::get::<u32>(bytes, 8) as usize;
        let symbols = field::get::<u32>(bytes, 12) as usize;
        let blocks = field::get::<u32>(bytes, 16);
        let (block_log, hint_log, check_log) =
            (bytes[20] as u32, bytes[21] as u32, bytes[22] as u32);
        let start_width = match bytes[23] {
            0 => 4,
            8 => 8,
            _ => {
                return Err(FileFault::corrupt(
                    "stream descriptor out of range (file corrupted)",
                ))
            }
        };
        let blocks_at = field::get::<u32>(bytes, 24) as usize;
        let crcs_at = field::get::<u32>(bytes, 28) as usize;
        let total = field::get::<u32>(bytes, 32) as usize;
        if total != len {
            return Err(FileFault::truncated(format!(
                "stream is {len} bytes, its descriptor says {total} (truncated?)"
            )));
        }
        if n >= 1 << 48
            || (start_width == 4 && n >= 1 << 32)
            || leaves == 0
            || leaves > 1 << 16
            || symbols < leaves
            || symbols > 1 << 16
            || !(3..=16).contains(&block_log)
            || !(block_log..=24).contains(&check_log)
            || hint_log > 40
        {
            return Err(FileFault::corrupt(
                "stream descriptor out of range (file corrupted)",
            ));
        }
        let spans = if blocks == 0 {
            0
        } else {
            n.div_ceil(1 << hint_log) as usize + 1
        };
        let tables_len = 2 * leaves
            + symbols
            + 4 * (symbols - leaves)
            + start_width * blocks as usize
            + 4 * spans;
        let block_bytes = (blocks as usize) << block_log;
        let groups = block_bytes.div_ceil(1 << check_log);
        if DESCRIPTOR_LEN + tables_len > blocks_at
            || blocks_at % 64 != 0
            || blocks_at + block_bytes + SLACK != crcs_at
            || crcs_at + 4 * groups != total
        {
            return Err(FileFault::corrupt(
                "stream layout does not add up (file corrupted)",
            ));
        }
        if index_crc(bytes, blocks_at) != field::get::<u32>(bytes, 60) {
            return Err(FileFault::Checksum {
                part: "stream index",
            });
        }
        if crc32fast::hash(&bytes[crcs_at..]) != field::get::<u32>(bytes, 36) {
            return Err(FileFault::corrupt(
                "stream block checksums damaged (file corrupted)",
            ));
        }
        let mut p = DESCRIPTOR_LEN;
        let leaf_values: Vec<u16> = (0..leaves)
            .map(|i| field::get::<u16>(bytes, p + 2 * i))
            .collect();
        p += 2 * leaves;
        let code_lengths = &bytes[p..p + symbols];
        p += symbols;
        let mut pairs = Vec::with_capacity(symbols - leaves);
        let mut lengths: Vec<u32> = vec![1; leaves];
        for s in leaves..symbols {
            let a = field::get::<u16>(bytes, p);
            let b = field::get::<u16>(bytes, p + 2);
            p += 4;
            if a as usize >= s || b as usize >= s {
                return Err(FileFault::corrupt(
                    "stream grammar refers forward (file corrupted)",
                ));
            }
            let len = u64::from(lengths[a as usize]) + u64::from(lengths[b as usize]);
            lengths.push(
                u32::try_from(len).map_err(|_| FileFault::corrupt("stream symbol too long"))?,
            );
            pairs.push([a, b]);
        }
        let decoder =
            Decoder::new(code_lengths).map_err(|e| FileFault::corrupt(format!("stream {e}")))?;
        let starts_at = at + p;
        let hints_at = starts_at + start_width * blocks as usize;
        let s = Stream {
            n,
            leaf_values,
            leaves: leaves as u16,
            pairs,
            lengths,
            decoder,
            blocks,
            block_log,
            hint_log,
            check_log,
            start_width,
            starts_at,
            hints_at,
            blocks_at: at + blocks_at,
            crcs_at: at + crcs_at,
            checked: (0..groups.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
        };
        s.check_index(file)?;
        Ok(s)
    }

    /// Block starts increase from 0 and stay below N; hints point to blocks that exist.
    fn check_index(&self, file: &[u8]) -> Result<(), FileFault> {
        let mut prev = 0;
        for b in 0..self.blocks {
            let s = self.start(file, b);
            if (b == 0 && s != 0) || (b > 0 && s <= prev) || s >= self.n {
                return Err(FileFault::corrupt(
                    "stream block index out of order (file corrupted)",
                ));
            }
            prev = s;
        }
        if self.blocks > 0 {
            let spans = self.n.div_ceil(1 << self.hint_log) as usize;
            for j in 0..=spans {
                if self.hint(file, j) >= self.blocks {
                    return Err(FileFault::corrupt(
                        "stream hint out of range (file corrupted)",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Number of values.
    pub(super) fn len(&self) -> u64 {
        self.n
    }

    /// Number of blocks.
    pub(super) fn blocks(&self) -> u32 {
        self.blocks
    }

    #[inline]
    fn start(&self, file: &[u8], b: u32) -> u64 {
        let at = self.starts_at + self.start_width * b as usize;
        match self.start_width {
            4 => u64::from(field::get::<u32>(file, at)),
            _ => field::get::<u64>(file, at),
        }
    }

    #[inline]
    fn hint(&self, file: &[u8], j: usize) -> u32 {
        field::get::<u32>(file, self.hints_at + 4 * j)
    }

    /// The block holding value `idx` (< N).
    #[inline]
    fn locate(&self, file: &[u8], idx: u64) -> u32 {
        let j = (idx >> self.hint_log) as usize;
        let (mut lo, mut hi) = (self.hint(file, j), self.hint(file, j + 1));
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if self.start(file, mid) <= idx {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }

    /// Checks the check group holding block `b` once.
    #[inline]
    fn check_block(&self, file: &[u8], b: u32) -> Result<(), StreamError> {
        let g = ((b as usize) << self.block_log) >> self.check_log;
        let (word, bit) = (&self.checked[g / 64], 1u64 << (g % 64));
        if word.load(Relaxed) & bit != 0 {
            return Ok(());
        }
        let from = self.blocks_at + (g << self.check_log);
        let to = (from + (1 << self.check_log)).min(self.crcs_at - SLACK);
        if crc32fast::hash(&file[from..to]) != field::get::<u32>(file, self.crcs_at + 4 * g) {
            return Err(StreamError::Checksum(b));
        }
        word.fetch_or(bit, Relaxed);
        Ok(())
    }

    /// The value at `idx` (< N).
    #[inline]
    pub(super) fn get(&self, file: &[u8], idx: u64) -> Result<u16, StreamError> {
        if self.blocks == 0 {
            return Ok(self.leaf_values[0]);
        }
        let b = self.locate(file, idx);
        self.check_block(file, b)?;
        let mut off = idx - self.start(file, b);
        let base = self.blocks_at + ((b as usize) << self.block_log);
        let end = 8u32 << self.block_log;
        let mut bit = 0u32;
        while bit < end {
            let at = base + (bit >> 3) as usize;
            let w = field::get_be::<u64>(file, at) << (bit & 7);
            let Some((sym, l)) = self.decoder.decode(w) else {
                break;
            };
            bit += l;
            let len = u64::from(self.lengths[sym as usize]);
            if off < len {
                if bit > end {
                    break;
                }
                return Ok(self.leaf_values[self.descend(sym, off as u32) as usize]);
            }
            off -= len;
        }
        Err(StreamError::Corrupt(b))
    }

    /// The leaf at offset `off` of the expansion of `sym`.
    #[inline]
    fn descend(&self, mut sym: u16, mut off: u32) -> u16 {
        while sym >= self.leaves {
            let [a, b] = self.pairs[(sym - self.leaves) as usize];
            let la = self.lengths[a as usize];
            if off < la {
                sym = a;
            } else {
                off -= la;
                sym = b;
            }
        }
        sym
    }

    /// The largest value the stream holds.
    pub(super) fn max_value(&self) -> u16 {
        self.leaf_values.iter().copied().max().unwrap_or(0)
    }

    /// Decodes every value, blocks in parallel, every check group checked, and hands each
    /// block's values to `f` with the number of its first: a reader that puts them in
    /// another order needs no copy of the stream in its own.
    pub(super) fn for_each_block(
        &self,
        file: &[u8],
        f: impl Fn(u64, &[u16]) + Sync,
    ) -> Result<(), StreamError> {
        if self.blocks == 0 {
            // One value throughout, handed over in runs of a bounded length.
            const RUN: u64 = 1 << 16;
            let run = vec![self.leaf_values[0]; RUN.min(self.n) as usize];
            (0..self.n.div_ceil(RUN)).into_par_iter().for_each(|r| {
                let first = r * RUN;
                f(first, &run[..(self.n - first).min(RUN) as usize]);
            });
            return Ok(());
        }
        (0..self.blocks)
            .into_par_iter()
            .try_for_each_init(Vec::new, |values, b| {
                let first = self.start(file, b);
                let end = match b + 1 < self.blocks {
                    true => self.start(file, b + 1),
                    false => self.n,
                };
                values.clear();
                values.resize((end - first) as usize, 0);
                self.decode_block(file, b, values)?;
                f(first, values);
                Ok(())
            })
    }

    /// Decodes block `b` whole into `out`, which has exactly its number of values.
    fn decode_block(&self, file: &[u8], b: u32, out: &mut [u16]) -> Result<(), StreamError> {
        self.check_block(file, b)?;
        let base = self.blocks_at + ((b as usize) << self.block_log);
        let end = 8u32 << self.block_log;
        let (mut bit, mut filled) = (0u32, 0usize);
        let mut stack = Vec::new();
        while filled < out.len() {
            let at = base + (bit >> 3) as usize;
            let w = field::get_be::<u64>(file, at) << (bit & 7);
            let (sym, l) = self.decoder.decode(w).ok_or(StreamError::Corrupt(b))?;
            bit += l;
            if bit > end || filled + self.lengths[sym as usize] as usize > out.len() {
                return Err(StreamError::Corrupt(b));
            }
            stack.push(sym);
            while let Some(s) = stack.pop() {
                if s < self.leaves {
                    out[filled] = self.leaf_values[s as usize];
                    filled += 1;
                } else {
                    let [x, y] = self.pairs[(s - self.leaves) as usize];
                    stack.push(y);
                    stack.push(x);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Every value in order, through `for_each_block`.
    fn decode_all(s: &Stream, file: &[u8]) -> Result<Vec<u16>, StreamError> {
        let out = Mutex::new(vec![0u16; s.len() as usize]);
        s.for_each_block(file, |first, values| {
            let first = first as usize;
            out.lock().unwrap()[first..first + values.len()].copy_from_slice(values);
        })?;
        Ok(out.into_inner().unwrap())
    }

    fn sample(n: usize, seed: u64) -> Vec<u16> {
        let mut next = crate::testing::xorshift(seed);
        let mut out = Vec::with_capacity(n);
        let mut run = 0u16;
        for i in 0..n {
            let x = next();
            if x % 17 == 0 {
                run = (x >> 20) as u16 % 6;
            }
            out.push(if i % 64 < 3 { 5 } else { run });
        }
        out
    }

    fn check(values: &[u16], leaf_values: &[u16], opts: &StreamOptions) -> usize {
        let bytes = encode(values.to_vec(), leaf_values, opts);
        let mut file = vec![0xAAu8; 8];
        file.extend_from_slice(&bytes);
        let s = Stream::open(&file, 8, bytes.len()).unwrap();
        assert_eq!(s.len(), values.len() as u64);
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(
                s.get(&file, i as u64),
                Ok(leaf_values[v as usize]),
                "value {i}"
            );
        }
        if !values.is_empty() {
            assert_eq!(s.max_value(), *leaf_values.iter().max().unwrap());
        }
        let all = decode_all(&s, &file).unwrap();
        assert!(all
            .iter()
            .zip(values)
            .all(|(&a, &v)| a == leaf_values[v as usize]));
        bytes.len()
    }

    #[test]
    fn round_trips() {
        let leaf_values = [10, 11, 12, 13, 14, 15];
        let values = sample(200_000, 7);
        for block_log in [5, 6, 8] {
            let opts = StreamOptions {
                block_log,
                ..StreamOptions::default()
            };
            let size = check(&values, &leaf_values, &opts);
            assert!(size < values.len() / 8, "{size} bytes");
        }
        check(&[3], &leaf_values, &StreamOptions::default());
        check(&[1, 2], &leaf_values, &StreamOptions::default());
        check(&vec![4; 10_000], &leaf_values, &StreamOptions::default());
        check(&[], &leaf_values, &StreamOptions::default());
    }

    /// Streams of 2^32 values or more keep each block's first value in 8 bytes: the wide
    /// form, forced on small streams, reads back the same values, and only it says so in
    /// the descriptor (files of the narrow form keep their bytes).
    #[test]
    fn wide_block_starts_round_trip() {
        let leaf_values = [10, 11, 12, 13, 14, 15];
        let values = sample(200_000, 11);
        let narrow = StreamOptions::default();
        let wide = StreamOptions {
            wide_starts: true,
            ..narrow
        };
        let n = check(&values, &leaf_values, &narrow);
        let w = check(&values, &leaf_values, &wide);
        let blocks = |opts: &StreamOptions| {
            let bytes = encode(values.clone(), &leaf_values, opts);
            assert_eq!(bytes[23], if opts.wide_starts { 8 } else { 0 });
            field::get::<u32>(&bytes, 16) as usize
        };
        assert_eq!(blocks(&narrow), blocks(&wide));
        // Four more bytes per block, up to the padding of the tables to 64 bytes.
        let more = (w - n).abs_diff(4 * blocks(&narrow));
        assert!(more < 64, "{w} bytes wide, {n} narrow");
        // A width other than 4 or 8 is refused.
        let mut bad = encode(values.clone(), &leaf_values, &wide);
        bad[23] = 5;
        assert!(Stream::open(&bad, 0, bad.len()).is_err());
    }

    #[test]
    fn damage_is_detected() {
        let leaf_values = [0, 1, 2, 3, 4, 5];
        let values = sample(100_000, 3);
        let bytes = encode(values.clone(), &leaf_values, &StreamOptions::default());
        let blocks_at = field::get::<u32>(&bytes, 24) as usize;
        let crcs_at = field::get::<u32>(&bytes, 28) as usize;
        // A flipped bit in the blocks: the probes into that group fail, the others answer.
        let mut bad = bytes.clone();
        let hit = blocks_at + (crcs_at - blocks_at) / 2;
        bad[hit] ^= 0x10;
        let s = Stream::open(&bad, 0, bad.len()).unwrap();
        let (mut failed, mut answered) = (0, 0);
        for (i, &v) in values.iter().enumerate() {
            match s.get(&bad, i as u64) {
                Ok(x) => {
                    assert_eq!(x, v);
                    answered += 1;
                }
                Err(StreamError::Checksum(_)) => failed += 1,
                Err(e) => panic!("{e:?}"),
            }
        }
        assert!(failed > 0 && answered > 0);
        assert!(decode_all(&s, &bad).is_err());
        // A flipped bit in the tables is refused at open.
        let mut bad = bytes.clone();
        bad[DESCRIPTOR_LEN + 3] ^= 1;
        assert!(Stream::open(&bad, 0, bad.len()).is_err());
        // A cut stream is refused.
        assert!(Stream::open(&bytes[..bytes.len() - 1], 0, bytes.len() - 1).is_err());
        assert!(Stream::open(&bytes, 0, bytes.len() + 1).is_err());
    }
}

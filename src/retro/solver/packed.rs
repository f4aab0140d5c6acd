//! Byte and bitmap arrays of a finished solution held compressed while a later pass needs the memory:
//! the 50-move pass solves a second game over the same indices, and reads of the first
//! solution only whether each position is won, drawn or lost (`fifty`). Values and best
//! exits compress well (long runs of draws, of "no exit", of equal distances), so holding
//! them packed takes a small fraction of their byte per index.
//!
//! Not a file format: nothing packed here outlives the process.

use super::solution::{or_bits_at, Solution};
use crate::side::{BySide, Side};
use crate::zeroed::release_pages;
use rayon::prelude::*;
use std::ops::Range;

/// Bytes per independently compressed piece: pieces are packed and unpacked in parallel.
const PIECE: usize = 1 << 22;

/// zstd's fastest level that still finds the long runs: packing is a pass over memory, not a
/// search for the smallest output.
const LEVEL: i32 = 1;

/// An array compressed in pieces of `PIECE` bytes.
pub(crate) struct Packed {
    len: usize,
    pieces: Vec<Vec<u8>>,
}

impl Packed {
    /// Compresses `bytes`, letting them go.
    pub(crate) fn pack(mut bytes: Vec<u8>) -> Packed {
        Packed::take_from(&mut bytes)
    }

    /// Compresses `bytes` and gives their pages back, piece by piece as each is packed (the
    /// array and its packed copy are never held whole together), until `unpack_into`
    /// writes them again (they read as zero meanwhile; in tests, as distances that are
    /// listed nowhere, so that a read of them fails).
    pub(crate) fn take_from(bytes: &mut [u8]) -> Packed {
        let pieces = bytes
            .par_chunks_mut(PIECE)
            .map_init(Squeezer::new, |squeezer, piece| {
                let packed = squeezer.squeeze(piece);
                #[cfg(test)]
                piece.fill(crate::value::Dtm::LONG);
                release_pages(piece);
                packed
            })
            .collect();
        Packed {
            len: bytes.len(),
            pieces,
        }
    }

    /// Compresses the `len` bytes that `fill` makes, given the offset of each piece's first
    /// byte: a piece at a time, so that the whole is never held. `fill` writes every byte
    /// of the piece it is given (which holds an earlier piece's bytes).
    pub(crate) fn build(len: usize, fill: impl Fn(usize, &mut [u8]) + Sync) -> Packed {
        let pieces = (0..len.div_ceil(PIECE))
            .into_par_iter()
            .map_init(
                || (Squeezer::new(), Vec::new()),
                |(squeezer, bytes), p| {
                    let first = p * PIECE;
                    let piece = scratch(bytes, (len - first).min(PIECE));
                    fill(first, piece);
                    squeezer.squeeze(piece)
                },
            )
            .collect();
        Packed { len, pieces }
    }

    /// Compresses `words` as their bytes in memory, letting them go piece by piece.
    pub(crate) fn pack_words(mut words: Vec<u64>) -> Packed {
        let pieces = words
            .par_chunks_mut(PIECE / 8)
            .map_init(Squeezer::new, |squeezer, piece| {
                let packed = squeezer.squeeze(as_bytes(piece));
                release_pages(piece);
                packed
            })
            .collect();
        Packed {
            len: 8 * words.len(),
            pieces,
        }
    }

    /// The words as they were packed (`pack_words`). Only words that are not zero are
    /// written: the pages of a freshly allocated zeroed array that nothing writes take no
    /// memory, and most bitmaps of a solution are empty over long stretches (or whole: the
    /// cursed ones of a table without cursed values).
    pub(crate) fn unpack_words(&self) -> Vec<u64> {
        let mut out: Vec<u64> = crate::zeroed::zeroed(self.len / 8);
        out.par_chunks_mut(PIECE / 8)
            .zip(self.pieces.par_iter())
            .for_each_init(
                || (Unsqueezer::new(), Vec::new()),
                |(unsqueezer, bytes), (piece, packed)| {
                    let bytes = scratch(bytes, 8 * piece.len());
                    unsqueezer.unsqueeze(packed, bytes);
                    for (w, b) in piece.iter_mut().zip(bytes.chunks_exact(8)) {
                        let word = u64::from_ne_bytes(b.try_into().expect("eight bytes"));
                        if word != 0 {
                            *w = word;
                        }
                    }
                },
            );
        out
    }

    /// Writes piece `k` of the bytes (`PIECE` bytes from `k * PIECE`, fewer at the end)
    /// into `out`, which has its length: a reader that goes a piece at a time never holds
    /// the whole.
    pub(crate) fn unpack_piece(&self, k: usize, out: &mut [u8]) {
        assert_eq!(
            out.len(),
            PIECE.min(self.len - k * PIECE),
            "a piece where it fits"
        );
        Unsqueezer::new().unsqueeze(&self.pieces[k], out);
    }

    /// Compresses the bytes that `fill` makes of each piece of `self`, given the offset
    /// of the piece's first byte and the piece as packed here: a piece at a time, so
    /// that neither whole is held.
    pub(crate) fn map_pieces(&self, fill: impl Fn(usize, &mut [u8]) + Sync) -> Packed {
        Packed::build(self.len, |first, piece| {
            self.unpack_piece(first / PIECE, piece);
            fill(first, piece);
        })
    }

    /// The bytes the pieces hold allocated, which is what packing saves on.
    #[cfg(test)]
    fn held_bytes(&self) -> usize {
        self.pieces.iter().map(Vec::capacity).sum()
    }

    /// The bytes as they were packed.
    pub(crate) fn unpack(self) -> Vec<u8> {
        let mut out = vec![0u8; self.len];
        self.unpack_into(&mut out);
        out
    }

    /// The bytes as they were packed, into `out`, which has their length. Only the bytes
    /// that differ from what `out` holds are written: pages that stay zero (given back, or
    /// never written) take no memory, such as those of the indices other processes keep
    /// (`peers::Owners`).
    pub(crate) fn unpack_into(&self, out: &mut [u8]) {
        assert_eq!(out.len(), self.len, "unpacked where they fit");
        out.par_chunks_mut(PIECE)
            .zip(self.pieces.par_iter())
            .for_each_init(
                || (Unsqueezer::new(), Vec::new()),
                |(unsqueezer, bytes), (piece, packed)| {
                    let bytes = scratch(bytes, piece.len());
                    unsqueezer.unsqueeze(packed, bytes);
                    for (o, &b) in piece.iter_mut().zip(bytes.iter()) {
                        if *o != b {
                            *o = b;
                        }
                    }
                },
            );
    }
}

/// A whole solution put together share by share (`Solution::place`), each share's values
/// and exit bits held packed from when it is placed until its side is read: a table with
/// pawns finds its distances to zeroing part by part, and reads them only when its DTZ
/// layer is written, a side at a time, which the whole table's values and bits would
/// outweigh from its first part on (2.25 bytes per index). Long distances go into the
/// whole solution as they come.
#[derive(Default)]
pub(crate) struct PackedShares(BySide<Vec<PackedShare>>);

/// One side of a share: where its values go, and they and its exit bits packed (None
/// once nothing will unpack them again: `PackedShares::forget`).
struct PackedShare {
    at: Range<usize>,
    packed: Option<(Packed, Packed)>,
}

impl PackedShares {
    /// Places `share` into `whole`, whose values and exit bits keep their pages untouched:
    /// they are held packed here instead.
    pub(crate) fn place(&mut self, whole: &mut Solution, mut share: Solution) {
        let at = share.first as usize;
        for (side, packed) in self.0.iter_mut() {
            let values = std::mem::take(&mut share.values[side]);
            let bits = std::mem::take(&mut share.exit_decides[side]);
            packed.push(PackedShare {
                at: at..at + values.len(),
                packed: Some((Packed::pack(values), Packed::pack_words(bits))),
            });
        }
        whole.place(share);
    }

    /// Writes the values and exit bits of side `side` into `whole`.
    pub(crate) fn unpack(&self, whole: &mut Solution, side: Side) {
        for share in &self.0[side] {
            let (values, bits) = share
                .packed
                .as_ref()
                .expect("a side unpacked after `forget`");
            values.unpack_into(&mut whole.values[side][share.at.clone()]);
            let bits = bits.unpack_words();
            or_bits_at(&mut whole.exit_decides[side], share.at.start as u64, &bits);
        }
    }

    /// `unpack` for the last time: the side's packed pieces go once it is whole.
    pub(crate) fn unpack_last(&mut self, whole: &mut Solution, side: Side) {
        self.unpack(whole, side);
        self.forget(side);
    }

    /// Lets go of side `side`'s packed pieces, which nothing will unpack again (where they
    /// go in `whole` stays known, for `release`).
    pub(crate) fn forget(&mut self, side: Side) {
        self.0[side]
            .iter_mut()
            .for_each(|share| share.packed = None);
    }

    /// Gives back the pages of side `side`'s values and exit bits in `whole`, which read
    /// as zero until `unpack` writes them again; where nothing is held packed here (a
    /// whole solution placed by no share), nothing.
    pub(crate) fn release(&self, whole: &mut Solution, side: Side) {
        if self.0[side].is_empty() {
            return;
        }
        for share in &self.0[side] {
            release_pages(&mut whole.values[side][share.at.clone()]);
        }
        release_pages(&mut whole.exit_decides[side]);
    }
}

/// What a solution holds for one side to move (`Solution`: values and bitmaps), held
/// compressed; its long distances stay where they are.
pub(crate) struct PackedSide {
    side: Side,
    values: Packed,
    /// Illegal, exit decides, exit same class, cursed, exit cursed.
    bitmaps: [Packed; 5],
}

impl PackedSide {
    /// Compresses side `side` of `solution`, leaving its arrays empty.
    pub(crate) fn take(solution: &mut Solution, side: Side) -> PackedSide {
        PackedSide {
            side,
            values: Packed::pack(std::mem::take(&mut solution.values[side])),
            bitmaps: bitmaps_of(solution, side).map(|b| Packed::pack_words(std::mem::take(b))),
        }
    }

    /// The same, the side's illegal and exit same class bitmaps given packed (its own
    /// empty).
    pub(crate) fn take_with(
        solution: &mut Solution,
        side: Side,
        [illegal, same]: [Packed; 2],
    ) -> PackedSide {
        debug_assert!(solution.illegal[side].is_empty() && solution.exit_same_wdl[side].is_empty());
        let mut packed = PackedSide::take(solution, side);
        [packed.bitmaps[0], packed.bitmaps[2]] = [illegal, same];
        packed
    }

    /// Puts the side's bitmaps back into `solution` and returns its values, still packed.
    pub(crate) fn into_values(self, solution: &mut Solution) -> Packed {
        for (b, packed) in bitmaps_of(solution, self.side)
            .into_iter()
            .zip(self.bitmaps)
        {
            *b = packed.unpack_words();
        }
        self.values
    }

    /// The side held.
    pub(crate) fn side(&self) -> Side {
        self.side
    }

    /// Puts the side back into `solution`.
    pub(crate) fn restore(self, solution: &mut Solution) {
        let side = self.side;
        solution.values[side] = self.values.unpack();
        for (b, packed) in bitmaps_of(solution, side).into_iter().zip(self.bitmaps) {
            *b = packed.unpack_words();
        }
    }
}

/// The bitmaps of side `side` of `solution`.
fn bitmaps_of(solution: &mut Solution, side: Side) -> [&mut Vec<u64>; 5] {
    let Solution {
        illegal,
        exit_decides,
        exit_same_wdl,
        cursed,
        exit_cursed,
        ..
    } = solution;
    [
        &mut illegal[side],
        &mut exit_decides[side],
        &mut exit_same_wdl[side],
        &mut cursed[side],
        &mut exit_cursed[side],
    ]
}

/// A compressor kept from piece to piece by one task: a fresh one for each piece would
/// take its pages from the system again every time.
struct Squeezer(zstd::bulk::Compressor<'static>);

impl Squeezer {
    fn new() -> Squeezer {
        Squeezer(zstd::bulk::Compressor::new(LEVEL).expect("a compressor"))
    }

    /// One piece compressed, holding no more than its compressed bytes: the compressor's
    /// buffer has room for the worst case, as much as the piece, which would keep the
    /// whole solution's size allocated while it is packed. It is shrunk where it lies: its
    /// pages past the compressed bytes were never written, where a copy of them among the
    /// tasks' short-lived buffers raised KRPvKR's peak by 80 MiB.
    fn squeeze(&mut self, piece: &[u8]) -> Vec<u8> {
        let mut packed = self.0.compress(piece).expect("compressing to memory");
        packed.shrink_to_fit();
        packed
    }
}

/// A decompressor kept from piece to piece by one task (as `Squeezer`).
struct Unsqueezer(zstd::bulk::Decompressor<'static>);

impl Unsqueezer {
    fn new() -> Unsqueezer {
        Unsqueezer(zstd::bulk::Decompressor::new().expect("a decompressor"))
    }

    /// One piece unpacked into `out`, which it fills exactly.
    fn unsqueeze(&mut self, packed: &[u8], out: &mut [u8]) {
        let n = (self.0)
            .decompress_to_buffer(packed, out)
            .expect("unpacking what this process packed");
        assert_eq!(n, out.len(), "a packed piece unpacks to its length");
    }
}

/// The first `len` bytes of `buffer`, grown to hold them if need be; what they hold is
/// whatever the buffer held before.
fn scratch(buffer: &mut Vec<u8>, len: usize) -> &mut [u8] {
    if buffer.len() < len {
        buffer.resize(len, 0);
    }
    &mut buffer[..len]
}

/// The bytes of `words` as they lie in memory.
fn as_bytes(words: &[u64]) -> &[u8] {
    // SAFETY: a u64 has no padding, so its eight bytes are initialized; a byte has no
    // alignment to keep; the length is the same memory's.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), 8 * words.len()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A side taken is emptied, the other untouched, and restored as it was.
    #[test]
    fn a_side_is_restored_as_it_was_taken() {
        let n = 3 * PIECE / 2 + 5;
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        let mut bytes = || (0..n).map(|_| (next() % 7) as u8).collect::<Vec<u8>>();
        let mut solution = Solution::from_parts([bytes(), bytes()].into(), Default::default());
        let words = |k: u64| (0..n / 64).map(|i| i as u64 * k).collect::<Vec<u64>>();
        solution.illegal = [words(3), words(5)].into();
        solution.exit_decides = [words(7), words(11)].into();
        solution.exit_same_wdl = [words(13), words(17)].into();
        solution.cursed = [words(19), words(23)].into();
        solution.exit_cursed = [words(29), words(31)].into();
        let all = |s: &mut Solution, side: Side| {
            let mut out = vec![s.values[side].clone()];
            out.extend(
                bitmaps_of(s, side).map(|b| b.iter().flat_map(|w| w.to_le_bytes()).collect()),
            );
            out
        };
        let before = [
            all(&mut solution, Side::White),
            all(&mut solution, Side::Black),
        ];
        let held = PackedSide::take(&mut solution, Side::Black);
        assert!(all(&mut solution, Side::Black).iter().all(Vec::is_empty));
        assert_eq!(all(&mut solution, Side::White), before[0]);
        held.restore(&mut solution);
        assert_eq!(Side::ALL.map(|side| all(&mut solution, side)), before);
    }

    /// Shares placed packed come back as the shares placed whole do, a side at a time, as
    /// often as they are released and unpacked.
    #[test]
    fn shares_placed_packed_unpack_as_placed_whole() {
        let n = 2 * PIECE + 300;
        let mut next = crate::testing::xorshift(0x1234_5678_9abc_def1);
        // Shares that start and end inside pages and words, as parts do.
        let cuts = [0, 1000, PIECE + 77, n];
        let share = |from: usize, to: usize, next: &mut dyn FnMut() -> u64| {
            let values = BySide::new_with(|_| (from..to).map(|_| (next() % 5) as u8).collect());
            let mut share = Solution::from_parts(values, Default::default());
            share.first = from as u64;
            let words = (to - from).div_ceil(64);
            share.exit_decides =
                BySide::new_with(|_| (0..words).map(|_| next() & next()).collect());
            share
        };
        let mut shares = Vec::new();
        for w in cuts.windows(2) {
            shares.push(share(w[0], w[1], &mut next));
        }
        let (mut whole, mut packed_whole) = (
            Solution::empty_whole(n as u64),
            Solution::empty_whole(n as u64),
        );
        let mut packed = PackedShares::default();
        for s in shares {
            let mut copy = Solution::from_parts(s.values.clone(), Default::default());
            copy.first = s.first;
            copy.exit_decides = s.exit_decides.clone();
            whole.place(copy);
            packed.place(&mut packed_whole, s);
        }
        assert!(packed_whole
            .values
            .iter()
            .all(|(_, v)| v.iter().all(|&v| v == 0)));
        for side in [Side::White, Side::Black, Side::White] {
            packed.unpack(&mut packed_whole, side);
            assert_eq!(packed_whole.values[side], whole.values[side], "{side:?}");
            assert_eq!(packed_whole.exit_decides[side], whole.exit_decides[side]);
            packed.release(&mut packed_whole, side);
        }
        // The last unpack lets a side's packed pieces go, as `forget` does, and `release`
        // still knows where the side lies.
        packed.unpack_last(&mut packed_whole, Side::Black);
        assert_eq!(packed_whole.values.black, whole.values.black);
        packed.forget(Side::White);
        for side in Side::ALL {
            assert!(packed.0[side].iter().all(|share| share.packed.is_none()));
            assert_eq!(packed.0[side].len(), cuts.len() - 1);
            packed.release(&mut packed_whole, side);
        }
    }

    #[test]
    fn unpacks_what_was_packed() {
        for len in [0, 1, PIECE - 1, PIECE, 2 * PIECE + 17] {
            // Runs and noise, as values of a table have both.
            let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
            let bytes: Vec<u8> = (0..len)
                .map(|i| {
                    let x = next();
                    if i % 1000 < 700 {
                        0
                    } else {
                        x as u8
                    }
                })
                .collect();
            let packed = Packed::pack(bytes.clone());
            assert!(len < 1000 || packed.held_bytes() < len / 2, "{len}");
            assert_eq!(packed.unpack(), bytes, "{len}");
            let built = Packed::build(len, |first, piece| {
                piece.copy_from_slice(&bytes[first..first + piece.len()])
            });
            assert_eq!(built.unpack(), bytes, "{len}: built a piece at a time");
            let words: Vec<u64> = bytes
                .chunks(8)
                .map(|c| (u64::from(c[0]) * 0x0101_0000_0001) ^ c.len() as u64)
                .collect();
            assert_eq!(
                Packed::pack_words(words.clone()).unpack_words(),
                words,
                "{len}"
            );
        }
    }
}

//! Byte arrays of a finished solution held compressed while a later pass needs the memory:
//! the 50-move pass solves a second game over the same indices, and reads of the first
//! solution only whether each position is won, drawn or lost (`fifty`). Values and best
//! exits compress well (long runs of draws, of "no exit", of equal distances), so holding
//! them packed takes a small fraction of their byte per index.
//!
//! Not a file format: nothing packed here outlives the process.

use rayon::prelude::*;

/// Bytes per independently compressed piece: pieces are packed and unpacked in parallel.
const PIECE: usize = 1 << 22;

/// zstd's fastest level that still finds the long runs: packing is a pass over memory, not a
/// search for the smallest output.
const LEVEL: i32 = 1;

/// A byte array compressed in pieces of `PIECE` bytes.
pub struct Packed {
    len: usize,
    pieces: Vec<Vec<u8>>,
}

impl Packed {
    /// Compresses `bytes`, letting them go.
    pub fn pack(bytes: Vec<u8>) -> Packed {
        let pieces = bytes
            .par_chunks(PIECE)
            .map(|piece| zstd::bulk::compress(piece, LEVEL).expect("compressing to memory"))
            .collect();
        Packed {
            len: bytes.len(),
            pieces,
        }
    }

    /// Bytes held.
    #[cfg(test)]
    fn packed_bytes(&self) -> usize {
        self.pieces.iter().map(Vec::len).sum()
    }

    /// The bytes as they were packed.
    pub fn unpack(self) -> Vec<u8> {
        let mut out = vec![0u8; self.len];
        out.par_chunks_mut(PIECE)
            .zip(self.pieces.into_par_iter())
            .for_each(|(piece, packed)| {
                let n = zstd::bulk::decompress_to_buffer(&packed, piece)
                    .expect("unpacking what this process packed");
                assert_eq!(n, piece.len(), "a packed piece unpacks to its length");
            });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpacks_what_was_packed() {
        for len in [0, 1, PIECE - 1, PIECE, 2 * PIECE + 17] {
            // Runs and noise, as values of a table have both.
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            let bytes: Vec<u8> = (0..len)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if i % 1000 < 700 {
                        0
                    } else {
                        x as u8
                    }
                })
                .collect();
            let packed = Packed::pack(bytes.clone());
            assert!(len < 1000 || packed.packed_bytes() < len / 2, "{len}");
            assert_eq!(packed.unpack(), bytes, "{len}");
        }
    }
}

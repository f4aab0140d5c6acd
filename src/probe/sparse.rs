//! Bytes by index of which most are zero, held as the others with a bitmap of where they
//! stand. The sides of sub-tables that only promotions read hold values at under half of
//! their indices (the promoted piece stands on an edge): KRPvKR's promotion tables take
//! about half the memory this way.

/// Indices per piece (a power of two): pieces are squeezed on their own, in parallel, and
/// never copied into one whole.
pub(super) const PIECE_LOG: u32 = 22;
const PIECE: u64 = 1 << PIECE_LOG;

/// Bitmap words per entry of a piece's running counts.
const WORDS_PER_COUNT: usize = 8;

/// Zero wherever no byte is held.
pub(super) struct SparseBytes {
    pieces: Vec<Piece>,
}

/// The bytes of `PIECE` consecutive indices (fewer in the last piece).
pub(super) struct Piece {
    /// One bit per index, set where the byte is not zero.
    bits: Vec<u64>,
    /// The bits set before each run of `WORDS_PER_COUNT` words.
    counts: Vec<u32>,
    /// The bytes that are not zero, by index.
    bytes: Vec<u8>,
}

impl Piece {
    /// The piece holding `values`, the bytes of up to `PIECE` consecutive indices.
    pub(super) fn squeeze(values: &[u8]) -> Piece {
        assert!(
            values.len() as u64 <= PIECE,
            "a piece holds at most {PIECE}"
        );
        let bits: Vec<u64> = values
            .chunks(64)
            .map(|word| {
                (word.iter().enumerate())
                    .filter(|(_, &b)| b != 0)
                    .fold(0, |w, (k, _)| w | 1 << k)
            })
            .collect();
        let mut counts = Vec::with_capacity(bits.len().div_ceil(WORDS_PER_COUNT));
        let mut set = 0u32;
        for run in bits.chunks(WORDS_PER_COUNT) {
            counts.push(set);
            set += run.iter().map(|w| w.count_ones()).sum::<u32>();
        }
        let mut bytes = Vec::with_capacity(set as usize);
        bytes.extend(values.iter().filter(|&&b| b != 0));
        Piece {
            bits,
            counts,
            bytes,
        }
    }

    #[inline]
    fn get(&self, local: usize) -> u8 {
        let w = local / 64;
        let Some(&word) = self.bits.get(w) else {
            return 0;
        };
        let below = 1u64 << (local % 64);
        if word & below == 0 {
            return 0;
        }
        let run = w / WORDS_PER_COUNT;
        let before: u32 = (self.bits[run * WORDS_PER_COUNT..w].iter())
            .map(|x| x.count_ones())
            .sum();
        let rank = self.counts[run] + before + (word & (below - 1)).count_ones();
        self.bytes[rank as usize]
    }

    #[cfg(test)]
    fn bytes_held(&self) -> usize {
        self.bits.len() * 8 + self.counts.len() * 4 + self.bytes.len()
    }
}

impl SparseBytes {
    /// The bytes of `pieces`, piece `k` holding indices from `k << PIECE_LOG`.
    pub(super) fn new(pieces: Vec<Piece>) -> SparseBytes {
        SparseBytes { pieces }
    }

    /// The byte of index `idx` (zero beyond the last piece).
    #[inline]
    pub(super) fn get(&self, idx: u64) -> u8 {
        match self.pieces.get((idx >> PIECE_LOG) as usize) {
            Some(piece) => piece.get((idx & (PIECE - 1)) as usize),
            None => 0,
        }
    }

    /// The bytes this holds.
    #[cfg(test)]
    pub(super) fn bytes_held(&self) -> usize {
        self.pieces.iter().map(Piece::bytes_held).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every index reads back its byte, over pieces, partial words and runs of counts.
    #[test]
    fn bytes_read_back_as_they_were() {
        let n = PIECE as usize * 2 + 1000;
        // Zero at most indices, as a promotion side holds them; runs of both.
        let values: Vec<u8> = (0..n)
            .map(|i| {
                let h = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56;
                match i % 5000 {
                    0..=99 => 0,
                    100..=199 => 1 + (h as u8 % 200),
                    _ if h < 100 => h as u8 + 1,
                    _ => 0,
                }
            })
            .collect();
        let pieces = values.chunks(PIECE as usize).map(Piece::squeeze).collect();
        let sparse = SparseBytes::new(pieces);
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(sparse.get(i as u64), v, "index {i}");
        }
        assert_eq!(sparse.get(n as u64), 0);
        assert_eq!(sparse.get(u64::MAX), 0);
        let held = values.iter().filter(|&&v| v != 0).count();
        assert!(
            sparse.bytes_held() < held + n / 7,
            "{}",
            sparse.bytes_held()
        );
    }
}

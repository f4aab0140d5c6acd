//! Canonical Huffman codes: lengths from symbol frequencies, codes from lengths, and a
//! decoder that reads a left-aligned 64-bit window.
//!
//! Codes are canonical (shorter codes first, then by symbol), so a file stores only the
//! length of each symbol's code and the decoder finds a code's length by comparing the
//! window with one limit per length, starting from a guess read off its first 8 bits.

/// Longest code; a window always holds at least 57 unread bits, so any code fits.
pub(super) const MAX_CODE_LEN: usize = 32;

/// Code lengths (0: the symbol never occurs) of a Huffman code for `freq`, at most
/// `MAX_CODE_LEN` bits. A lone symbol gets a 1-bit code.
pub(super) fn code_lengths(freq: &[u64]) -> Vec<u8> {
    let mut freq = freq.to_vec();
    loop {
        let lengths = unlimited_lengths(&freq);
        if lengths.iter().all(|&l| l as usize <= MAX_CODE_LEN) {
            return lengths;
        }
        // Flatten the distribution and try again; rare (needs Fibonacci-like counts).
        for f in freq.iter_mut().filter(|f| **f > 0) {
            *f = (*f >> 1) | 1;
        }
    }
}

fn unlimited_lengths(freq: &[u64]) -> Vec<u8> {
    let mut lengths = vec![0u8; freq.len()];
    let mut used: Vec<(u64, usize)> = freq
        .iter()
        .enumerate()
        .filter(|(_, &f)| f > 0)
        .map(|(s, &f)| (f, s))
        .collect();
    match used.len() {
        0 => return lengths,
        1 => {
            lengths[used[0].1] = 1;
            return lengths;
        }
        _ => {}
    }
    used.sort_unstable();
    // Two-queue Huffman: leaves in frequency order, merged nodes in creation order.
    let n = used.len();
    let mut parent = vec![0usize; 2 * n - 1];
    let mut weight: Vec<u64> = used.iter().map(|&(f, _)| f).collect();
    let (mut leaf, mut node) = (0, n);
    let take = |weight: &Vec<u64>, leaf: &mut usize, node: &mut usize| {
        let built = weight.len();
        if *leaf < n && (*node >= built || weight[*leaf] <= weight[*node]) {
            *leaf += 1;
            *leaf - 1
        } else {
            *node += 1;
            *node - 1
        }
    };
    for _ in 0..n - 1 {
        let a = take(&weight, &mut leaf, &mut node);
        let b = take(&weight, &mut leaf, &mut node);
        let id = weight.len();
        weight.push(weight[a] + weight[b]);
        parent[a] = id;
        parent[b] = id;
    }
    let root = 2 * n - 2;
    let mut depth = vec![0u32; 2 * n - 1];
    for id in (0..root).rev() {
        depth[id] = depth[parent[id]] + 1;
    }
    for (i, &(_, s)) in used.iter().enumerate() {
        lengths[s] = depth[i].min(255) as u8;
    }
    lengths
}

/// The canonical code of every symbol (meaningless where the length is 0).
pub(super) fn canonical_codes(lengths: &[u8]) -> Vec<u32> {
    let mut count = [0u32; MAX_CODE_LEN + 1];
    for &l in lengths {
        count[l as usize] += 1;
    }
    count[0] = 0;
    // In 64 bits: past the last code of a length that fills its 32 bits, the next one is
    // 2^32 (never handed out).
    let mut next = [0u64; MAX_CODE_LEN + 2];
    let mut code = 0u64;
    for l in 1..=MAX_CODE_LEN {
        code = (code + u64::from(count[l - 1])) << 1;
        next[l] = code;
    }
    lengths
        .iter()
        .map(|&l| {
            if l == 0 {
                0
            } else {
                let c = next[l as usize];
                next[l as usize] += 1;
                u32::try_from(c).expect("lengths that Kraft's inequality allows")
            }
        })
        .collect()
}

/// Decodes canonical codes from a left-aligned window.
#[derive(Clone, Debug)]
pub(super) struct Decoder {
    max_len: usize,
    /// Left-aligned end of the codes of each length (the first code of the next length).
    limit: [u64; MAX_CODE_LEN + 1],
    /// Left-aligned first code of each length.
    base: [u64; MAX_CODE_LEN + 1],
    /// Number of codes of each length.
    count: [u32; MAX_CODE_LEN + 1],
    /// Where the symbols of each length start in `sorted`.
    offset: [u32; MAX_CODE_LEN + 1],
    /// Symbols by code length, then by symbol.
    sorted: Vec<u16>,
    /// The shortest length a code starting with these 8 bits can have.
    start: [u8; 256],
}

impl Decoder {
    /// Tables for codes of these lengths; an error if the lengths are not a prefix code.
    #[allow(clippy::needless_range_loop)] // four tables indexed by code length
    pub(super) fn new(lengths: &[u8]) -> Result<Decoder, &'static str> {
        let mut count = [0u32; MAX_CODE_LEN + 1];
        for &l in lengths {
            if l as usize > MAX_CODE_LEN {
                return Err("code longer than 32 bits");
            }
            count[l as usize] += 1;
        }
        count[0] = 0;
        let kraft: u64 = (1..=MAX_CODE_LEN)
            .map(|l| (count[l] as u64) << (MAX_CODE_LEN - l))
            .sum();
        if kraft > 1 << MAX_CODE_LEN {
            return Err("code lengths do not form a prefix code");
        }
        let max_len = (1..=MAX_CODE_LEN)
            .rev()
            .find(|&l| count[l] > 0)
            .unwrap_or(1);
        let mut sorted: Vec<u16> = (0..lengths.len() as u32)
            .filter(|&s| lengths[s as usize] > 0)
            .map(|s| s as u16)
            .collect();
        sorted.sort_by_key(|&s| (lengths[s as usize], s));
        let mut d = Decoder {
            max_len,
            limit: [0; MAX_CODE_LEN + 1],
            base: [0; MAX_CODE_LEN + 1],
            count,
            offset: [0; MAX_CODE_LEN + 1],
            sorted,
            start: [0; 256],
        };
        let (mut code, mut at) = (0u128, 0u32);
        for l in 1..=MAX_CODE_LEN {
            code <<= 1;
            d.base[l] = (code << (64 - l)) as u64;
            d.offset[l] = at;
            code += count[l] as u128;
            at += count[l];
            d.limit[l] = (code << (64 - l)).min(u64::MAX as u128) as u64;
        }
        for (p, s) in d.start.iter_mut().enumerate() {
            let w = (p as u64) << 56;
            *s = (1..max_len).find(|&l| w < d.limit[l]).unwrap_or(max_len) as u8;
        }
        Ok(d)
    }

    /// The symbol whose code starts the window `w` and the code's length, or None if no
    /// code starts this way.
    #[inline]
    pub(super) fn decode(&self, w: u64) -> Option<(u16, u32)> {
        let mut l = self.start[(w >> 56) as usize] as usize;
        while l < self.max_len && w >= self.limit[l] {
            l += 1;
        }
        let i = (w.wrapping_sub(self.base[l]) >> (64 - l)) as u32;
        if w < self.base[l] || i >= self.count[l] {
            return None;
        }
        Some((self.sorted[(self.offset[l] + i) as usize], l as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(freq: &[u64]) {
        let lengths = code_lengths(freq);
        let codes = canonical_codes(&lengths);
        let d = Decoder::new(&lengths).unwrap();
        for (s, (&l, &c)) in lengths.iter().zip(&codes).enumerate() {
            assert_eq!(l == 0, freq[s] == 0);
            if l > 0 {
                // The code followed by arbitrary bits decodes to the symbol.
                let w = ((c as u64) << (64 - l)) | (0x5555_5555_5555_5555 >> l);
                assert_eq!(d.decode(w), Some((s as u16, l as u32)));
            }
        }
    }

    #[test]
    fn codes_round_trip() {
        round_trip(&[5]);
        round_trip(&[0, 7, 0]);
        round_trip(&[1, 1]);
        round_trip(&[10, 1, 1, 3, 0, 50, 2]);
        let fib: Vec<u64> = (0..60)
            .scan((1u64, 1u64), |s, _| {
                *s = (s.1, s.0 + s.1);
                Some(s.0)
            })
            .collect();
        let lengths = code_lengths(&fib);
        assert!(lengths.iter().all(|&l| l as usize <= MAX_CODE_LEN));
        round_trip(&fib);
        let many: Vec<u64> = (0..4000).map(|i| 1 + (i * i % 977)).collect();
        round_trip(&many);
    }

    #[test]
    fn lone_symbol_rejects_other_bits() {
        let d = Decoder::new(&[0, 1]).unwrap();
        assert_eq!(d.decode(0), Some((1, 1)));
        assert_eq!(d.decode(1 << 63), None);
    }

    #[test]
    fn rejects_oversubscribed_lengths() {
        assert!(Decoder::new(&[1, 1, 1]).is_err());
        assert!(Decoder::new(&[40]).is_err());
    }
}

//! Ranking of sets of identical pieces: k squares out of n are numbered 0..C(n, k) in
//! colexicographic order, so identical pieces are counted once. Sets of chess squares are
//! bitboards; larger boards (xiangqi's 90 squares) give their places as sorted lists.

/// The largest n of the table: xiangqi's 90 squares.
const MAX_N: usize = 90;

/// Binomial coefficients C(n, k) for n <= 90, k <= 6.
const fn binomials() -> [[u64; 7]; MAX_N + 1] {
    let mut t = [[0u64; 7]; MAX_N + 1];
    let mut n = 0;
    while n <= MAX_N {
        t[n][0] = 1;
        let mut k = 1;
        while k <= 6 {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
}

const BINOMIAL: [[u64; 7]; MAX_N + 1] = binomials();

/// C(n, k) for n <= 90, k <= 6.
#[inline]
pub(crate) fn binomial(n: u32, k: u32) -> u64 {
    BINOMIAL[n as usize][k as usize]
}

/// Rank of the set of bits of `set` (at most 6 bits, all below `n`).
#[inline]
pub(crate) fn rank(set: u64) -> u64 {
    let mut r = 0;
    let mut s = set;
    let mut i = 1;
    while s != 0 {
        let sq = s.trailing_zeros();
        r += BINOMIAL[sq as usize][i];
        s &= s - 1;
        i += 1;
    }
    r
}

/// The set of `k` elements below `n` with rank `r`.
#[inline]
pub(crate) fn unrank(mut r: u64, k: u32, n: u32) -> u64 {
    if k == 1 {
        // C(e, 1) = e: a single piece's rank is its square.
        return 1 << r;
    }
    let mut set = 0u64;
    let mut top = n;
    for i in (1..=k as usize).rev() {
        // Largest element e < top with C(e, i) <= r.
        let mut e = top - 1;
        while BINOMIAL[e as usize][i] > r {
            e -= 1;
        }
        r -= BINOMIAL[e as usize][i];
        set |= 1 << e;
        top = e;
    }
    set
}

/// Rank of the sorted, distinct places `places` (at most 6, each below 90: a byte each).
#[inline]
pub(crate) fn rank_sorted(places: &[u8]) -> u64 {
    (1..)
        .zip(places)
        .map(|(i, &p)| BINOMIAL[p as usize][i])
        .sum()
}

/// The `out.len()` sorted places below `n` with rank `r` (the inverse of `rank_sorted`).
#[inline]
pub(crate) fn unrank_sorted(mut r: u64, n: u32, out: &mut [u8]) {
    let mut top = n;
    for i in (2..=out.len()).rev() {
        let mut e = top - 1;
        while BINOMIAL[e as usize][i] > r {
            e -= 1;
        }
        r -= BINOMIAL[e as usize][i];
        out[i - 1] = e as u8;
        top = e;
    }
    // C(e, 1) = e: the lowest place is what is left of the rank (a lone piece's place is
    // its digit), found without a walk down from the top.
    if let Some(first) = out.first_mut() {
        *first = r as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_places_round_trip_and_agree_with_bitboards() {
        for (k, n) in [(1usize, 90u32), (2, 90), (3, 55), (5, 55), (2, 7)] {
            let mut places = vec![0u8; k];
            for r in 0..binomial(n, k as u32) {
                unrank_sorted(r, n, &mut places);
                assert!(places.windows(2).all(|w| w[0] < w[1]) && u32::from(places[k - 1]) < n);
                assert_eq!(rank_sorted(&places), r);
                if n <= 64 {
                    let set = places.iter().fold(0u64, |s, &p| s | 1 << p);
                    assert_eq!(rank(set), r);
                }
            }
        }
    }

    #[test]
    fn round_trip() {
        for (k, n) in [(1u32, 64u32), (2, 64), (3, 48), (2, 48)] {
            for r in 0..binomial(n, k) {
                let s = unrank(r, k, n);
                assert_eq!(s.count_ones(), k);
                assert!(n == 64 || s < (1u64 << n));
                assert_eq!(rank(s), r);
            }
        }
    }
}

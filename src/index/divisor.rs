//! Division by a number fixed when an index is built, by a shift or a multiplication:
//! splitting an index into its digits divides once per piece group, and a hardware division
//! costs several times a multiplication. A lone piece's 64 squares divide by a shift;
//! indices of up to five pieces stay below 2^32, where one 64-bit multiplication gives the
//! exact quotient; larger ones divide in hardware.

/// A divisor from 2 up, below 2^32.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Divisor {
    d: u64,
    /// ceil(2^64 / d): for n and d below 2^32, floor(n * magic / 2^64) = n / d exactly
    /// (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019).
    magic: u64,
    /// log2(d) where d is a power of two.
    shift: Option<u32>,
}

impl Divisor {
    /// The divisor `d` (2 <= d < 2^32).
    pub(crate) fn new(d: u64) -> Divisor {
        assert!((2..1 << 32).contains(&d), "divisor {d} out of range");
        Divisor {
            d,
            magic: u64::MAX / d + 1,
            shift: d.is_power_of_two().then(|| d.trailing_zeros()),
        }
    }

    /// n / d.
    #[inline]
    pub(crate) fn div(self, n: u64) -> u64 {
        if let Some(shift) = self.shift {
            n >> shift
        } else if n >> 32 == 0 {
            ((u128::from(self.magic) * u128::from(n)) >> 64) as u64
        } else {
            n / self.d
        }
    }

    /// (n / d, n % d).
    #[inline]
    pub(crate) fn div_rem(self, n: u64) -> (u64, u64) {
        let q = self.div(n);
        (q, n - q * self.d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotients_and_remainders_equal_the_hardware_ones() {
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut divisors: Vec<u64> = vec![2, 3, 7, 48, 64, 462, 1806, 2016, (1 << 32) - 1];
        divisors.extend((0..200).map(|_| 2 + next() % ((1 << 32) - 2)));
        divisors.extend((2..300).map(|k| k * k));
        for d in divisors {
            let div = Divisor::new(d);
            let edges = [0, 1, d - 1, d, d + 1, (1 << 32) - 1, 1 << 32, u64::MAX];
            let random = (0..200).map(|i| if i % 2 == 0 { next() >> 32 } else { next() });
            for n in edges.into_iter().chain(random) {
                assert_eq!(div.div_rem(n), (n / d, n % d), "{n} / {d}");
            }
        }
    }
}

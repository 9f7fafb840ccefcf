//! The cardinality estimator of Redis >= 5 (Ertl's improved estimator), in
//! the same f64 operations in the same order, so results match PFCOUNT
//! exactly; plus the `sqrt` and rounding it needs without `std`.

use crate::REGISTERS;

/// 0.721347520444481703680 as the servers write it; this is the same f64.
const ALPHA_INF: f64 = 0.721_347_520_444_481_7;

/// The count for a register histogram (`h[v]` = registers holding `v`;
/// values 52..=63 only occur in crafted dense strings and are ignored, as
/// servers ignore them).
pub(crate) fn estimate(h: &[u32; 64]) -> u64 {
    let m = REGISTERS as f64;
    let mut z = m * tau((m - f64::from(h[51])) / m);
    for j in (1..=50).rev() {
        z += f64::from(h[j]);
        z *= 0.5;
    }
    z += m * sigma(f64::from(h[0]) / m);
    to_reply(ALPHA_INF * m * m / z)
}

/// What the servers' `(uint64_t)(double)llroundl(e)` yields for `e >= 0`
/// (including +inf when `z == 0`): the rounded value below 2^63, else the
/// x86-64 "integer indefinite" 0x8000_0000_0000_0000, which a server
/// replies as -9223372036854775808.
fn to_reply(e: f64) -> u64 {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    // NaN is not reachable (z > 0, or z == 0 under a finite positive
    // numerator); it maps like the servers would map it.
    if e.is_nan() || e >= TWO_63 {
        return 1 << 63;
    }
    round_half_away(e) as u64
}

/// `round()` for `0 <= x < 2^63` without `std`: values from 2^52 up are
/// already integers; below, the truncation and the fraction are exact.
fn round_half_away(x: f64) -> f64 {
    if x >= 4_503_599_627_370_496.0 {
        return x;
    }
    let t = x as u64 as f64;
    if x - t >= 0.5 {
        t + 1.0
    } else {
        t
    }
}

fn sigma(mut x: f64) -> f64 {
    if x == 1.0 {
        return f64::INFINITY;
    }
    let mut y = 1.0;
    let mut z = x;
    loop {
        x *= x;
        let zp = z;
        z += x * y;
        y += y;
        if zp == z {
            return z;
        }
    }
}

fn tau(mut x: f64) -> f64 {
    if x == 0.0 || x == 1.0 {
        return 0.0;
    }
    let mut y = 1.0;
    let mut z = 1.0 - x;
    loop {
        x = sqrt(x);
        let zp = z;
        y *= 0.5;
        // C uses pow(1 - x, 2); glibc returns the correctly rounded square
        // here, which is what one multiplication gives.
        let d = 1.0 - x;
        z -= d * d * y;
        if zp == z {
            return z / 3.0;
        }
    }
}

/// Correctly rounded square root of a positive normal `x` (tau only sees
/// values in [1/16384, 1)), from the integer square root of the scaled
/// mantissa: the same result as IEEE `sqrt`, available in `core`.
pub(crate) fn sqrt(x: f64) -> f64 {
    debug_assert!(x.is_normal() && x > 0.0);
    let bits = x.to_bits();
    let mut exp = ((bits >> 52) & 0x7ff) as i64 - 1075; // x = mant * 2^exp
    let mut mant = u128::from((bits & ((1 << 52) - 1)) | (1 << 52));
    if exp & 1 != 0 {
        mant <<= 1;
        exp -= 1;
    }
    // sqrt(mant * 2^exp) = sqrt(mant << 54) * 2^((exp - 54) / 2); mant << 54
    // has 107..=108 bits, so its root has 54 bits: one more than needed.
    let n = mant << 54;
    let r = n.isqrt(); // floor, 2^53 <= r < 2^54
    let e2 = (exp - 54) / 2 + 1;
    // Drop the extra bit with round-to-nearest. There is no tie: the root
    // lies exactly halfway only if r is odd and r^2 == n, but n is a
    // multiple of 2^54 and r^2 is odd. Nor does rounding up carry into a
    // 54th bit: that needs r = 2^54 - 1, so n >= (2^54 - 1)^2, i.e. a
    // mantissa of 2^54 - 1, while a shifted mantissa is even and an
    // unshifted one below 2^53.
    let q = (r >> 1) + (r & 1);
    debug_assert!(q >> 53 == 0 && (r & 1 == 0 || r * r != n));
    let biased = (e2 + 1075) as u64;
    f64::from_bits((biased << 52) | (q as u64 & ((1 << 52) - 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_is_zero() {
        let mut h = [0u32; 64];
        h[0] = REGISTERS as u32;
        assert_eq!(estimate(&h), 0);
    }

    #[test]
    fn degenerate_all_high() {
        let mut h = [0u32; 64];
        h[63] = REGISTERS as u32;
        assert_eq!(estimate(&h), 1 << 63);
        let mut h = [0u32; 64];
        h[51] = REGISTERS as u32;
        assert_eq!(estimate(&h), 1 << 63);
    }

    #[test]
    fn alpha_literal() {
        // The servers' 21-digit literal rounds to the same f64.
        assert_eq!(ALPHA_INF, "0.721347520444481703680".parse::<f64>().unwrap());
    }

    #[test]
    fn rounding() {
        assert_eq!(round_half_away(2.5), 3.0);
        assert_eq!(round_half_away(2.4999999999999996), 2.0);
        assert_eq!(round_half_away(0.5), 1.0);
        assert_eq!(round_half_away(1e17), 1e17);
    }

    #[test]
    fn sqrt_matches_std() {
        let mut rng = simd_core::testing::Rng::new(7);
        for _ in 0..simd_core::testing::scaled(200_000, 200) {
            let x = f64::from_bits(rng.next_u64() >> 2 | 0x0010_0000_0000_0000);
            assert_eq!(sqrt(x).to_bits(), x.sqrt().to_bits(), "{x:e}");
        }
        for k in 1..16384u32 {
            let x = f64::from(k) / 16384.0;
            assert_eq!(sqrt(x).to_bits(), x.sqrt().to_bits(), "{x:e}");
        }
        assert_eq!(sqrt(4.0), 2.0);
        // Exact squares, and the largest doubles below powers of four (the
        // roots nearest a carry into the next binade) and above them.
        for e in -40i32..40 {
            let p = 4f64.powi(e);
            for x in [
                p,
                f64::from_bits(p.to_bits() - 1),
                f64::from_bits(p.to_bits() + 1),
            ] {
                assert_eq!(sqrt(x).to_bits(), x.sqrt().to_bits(), "{x:e}");
            }
            let r = 1.5 * 2f64.powi(e);
            assert_eq!(sqrt(r * r), r);
        }
    }
}

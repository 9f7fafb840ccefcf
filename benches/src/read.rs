//! The read-bandwidth baseline of the `bitcount` benchmarks (criterion's
//! `read-bandwidth` rows and `bitcount_timing --long`): the bytes summed as
//! `u64` words with aligned vector adds over eight accumulators, the fastest
//! the core can read them, which a count is compared against.

#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    /// Sums with AVX-512 adds, eight 64-byte accumulators (512 bytes per
    /// iteration): one add per load, so loads are the only limit. Every
    /// vector load is aligned, as in the count kernels (a load that crosses
    /// a cache line costs a second one and would understate the bandwidth):
    /// the bytes before the first 64-byte boundary are one masked load, the
    /// last 0..512 bytes 64-byte steps and one masked load, so that no
    /// size pays for a scalar head or tail the count kernels do not have.
    ///
    /// # Safety
    /// The CPU must support AVX-512F and AVX-512BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn avx512(bytes: &[u8]) -> u64 {
        // The masked loads read only the bytes their mask selects, all of
        // them inside `bytes`.
        let masked = |b: &[u8]| {
            debug_assert!(b.len() < 64);
            let mask = if b.is_empty() {
                0
            } else {
                u64::MAX >> (64 - b.len())
            };
            // SAFETY: AVX-512BW (this function's features); the mask
            // selects the b.len() bytes of b.
            unsafe { _mm512_maskz_loadu_epi8(mask, b.as_ptr().cast()) }
        };
        let (head, bytes) = bytes.split_at(super::to_boundary(bytes, 64));
        let p = bytes.as_ptr();
        let mut acc = [_mm512_setzero_si512(); 8];
        acc[7] = masked(head);
        let mut at = 0;
        // The `avx512` count kernel's prefetch (same threshold and
        // distance), so that the baseline is as fast as that kernel can
        // read from memory. Not its L1 prefetch 256 bytes ahead on Zen 4
        // (from 4 MiB), which slows this loop by up to 11% there: at
        // 12.5 MB the count can run a few percent ahead of this baseline
        // on Zen 4.
        let prefetch = bytes.len() >= 32 << 20;
        while at + 512 <= bytes.len() {
            if prefetch {
                for line in 0..8 {
                    // SAFETY: a prefetch is a hint that never faults
                    // (unsafe to call before Rust 1.90).
                    #[allow(unused_unsafe)]
                    unsafe {
                        _mm_prefetch::<_MM_HINT_T1>(p.wrapping_add(at + 4096 + 64 * line).cast())
                    };
                }
            }
            for (k, a) in acc.iter_mut().enumerate() {
                // SAFETY: AVX-512F (this function's features); in bounds
                // as at + 64 * k + 64 <= at + 512 <= len.
                let v = unsafe { _mm512_loadu_si512(p.add(at + 64 * k).cast()) };
                *a = _mm512_add_epi64(*a, v);
            }
            at += 512;
        }
        // (One accumulator: at most seven adds; indexing the array by a
        // counter would keep it in memory.)
        while at + 64 <= bytes.len() {
            // SAFETY: AVX-512F (this function's features); in bounds
            // as at + 64 <= len.
            let v = unsafe { _mm512_loadu_si512(p.add(at).cast()) };
            acc[0] = _mm512_add_epi64(acc[0], v);
            at += 64;
        }
        acc[6] = _mm512_add_epi64(acc[6], masked(&bytes[at..]));
        let mut s = acc[0];
        for a in &acc[1..] {
            s = _mm512_add_epi64(s, *a);
        }
        _mm512_reduce_add_epi64(s) as u64
    }

    /// Sums with AVX2 adds, eight 32-byte accumulators (256 bytes per
    /// iteration), aligned loads after a 32-byte-boundary head, then 32-byte
    /// steps; only the head and the last 0..32 bytes are summed as scalars.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn avx2(bytes: &[u8]) -> u64 {
        let (head, bytes) = bytes.split_at(super::to_boundary(bytes, 32));
        let p = bytes.as_ptr();
        let mut acc = [_mm256_setzero_si256(); 8];
        let mut at = 0;
        while at + 256 <= bytes.len() {
            for (k, a) in acc.iter_mut().enumerate() {
                // SAFETY: AVX2 (this function's features); in bounds as
                // at + 32 * k + 32 <= at + 256 <= len.
                let v = unsafe { _mm256_loadu_si256(p.add(at + 32 * k).cast()) };
                *a = _mm256_add_epi64(*a, v);
            }
            at += 256;
        }
        // (One accumulator: at most seven adds; indexing the array by a
        // counter would keep it in memory.)
        while at + 32 <= bytes.len() {
            // SAFETY: AVX2 (this function's features); in bounds as
            // at + 32 <= len.
            let v = unsafe { _mm256_loadu_si256(p.add(at).cast()) };
            acc[0] = _mm256_add_epi64(acc[0], v);
            at += 32;
        }
        let mut s = acc[0];
        for a in &acc[1..] {
            s = _mm256_add_epi64(s, *a);
        }
        let mut lanes = [0u64; 4];
        // SAFETY: AVX2 (this function's features); `lanes` is the 32
        // bytes written.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), s) };
        lanes.iter().fold(
            super::scalar(&bytes[at..]).wrapping_add(super::scalar(head)),
            |x, &y| x.wrapping_add(y),
        )
    }
}

/// The number of bytes before the first `align`-byte boundary of `bytes`
/// (all of them if it has none).
fn to_boundary(bytes: &[u8], align: usize) -> usize {
    ((bytes.as_ptr() as usize).wrapping_neg() & (align - 1)).min(bytes.len())
}

/// Four-accumulator scalar word sum (the baseline's tail, and the baseline
/// itself without AVX2).
fn scalar(bytes: &[u8]) -> u64 {
    let mut acc = [0u64; 4];
    let mut blocks = bytes.chunks_exact(32);
    for b in &mut blocks {
        for (k, a) in acc.iter_mut().enumerate() {
            *a = a.wrapping_add(u64::from_le_bytes(b[8 * k..8 * k + 8].try_into().unwrap()));
        }
    }
    let tail: u64 = blocks
        .remainder()
        .iter()
        .fold(0, |x, &y| x.wrapping_add(u64::from(y)));
    acc.iter().fold(tail, |x, &y| x.wrapping_add(y))
}

/// The read-bandwidth function for the best level the ceiling allows.
pub fn read_bandwidth() -> fn(&[u8]) -> u64 {
    {
        use cpu_detect::Level;
        let f = cpu_detect::features();
        let max = cpu_detect::max_level();
        if max.includes(Level::Avx512) && f.avx512f && f.avx512bw {
            // SAFETY: AVX-512F and AVX-512BW checked just above.
            return |b| unsafe { simd::avx512(b) };
        }
        if max.includes(Level::Avx2) && f.avx2 {
            // SAFETY: AVX2 checked just above.
            return |b| unsafe { simd::avx2(b) };
        }
    }
    scalar
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// The [`simd::avx512`] sum computed byte by byte: the head (the bytes
    /// before the first 64-byte boundary, one masked load from its start) and
    /// the rest each as wrapping sums of little-endian `u64` words from their
    /// starts. Equal for every length and start only if the vector version
    /// reads every byte exactly once.
    fn word_sum_reference(bytes: &[u8]) -> u64 {
        let words = |b: &[u8]| {
            b.iter().enumerate().fold(0u64, |s, (i, &x)| {
                s.wrapping_add(u64::from(x) << (8 * (i % 8)))
            })
        };
        let (head, body) = bytes.split_at(super::to_boundary(bytes, 64));
        words(head).wrapping_add(words(body))
    }

    /// The AVX-512 baseline reads every byte exactly once, at every start
    /// and length (its masked head and tail included).
    #[test]
    fn avx512_reads_every_byte_once() {
        let f = cpu_detect::features();
        if !(f.avx512f && f.avx512bw) {
            return;
        }
        let data = crate::bytes(7, 1300);
        for start in 0..64 {
            for len in 0..1200 {
                let d = &data[start..start + len];
                // SAFETY: AVX-512F and AVX-512BW checked at the top of
                // this test.
                let sum = unsafe { simd::avx512(d) };
                assert_eq!(sum, word_sum_reference(d), "{start} {len}");
            }
        }
    }
}

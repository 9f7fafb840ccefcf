//! The comparison rows of the BITOP benchmarks (`bitcount/bitop-*` and
//! `bitcount/bitop_count-*`) and the `bitop_timing` harness:
//!
//! - [`plain`]: BITOP as a user would write it, one pass per source over the
//!   destination (the compiler vectorizes each pass for the baseline CPU);
//! - [`stream_bound`]: the bandwidth bound of a one-pass BITOP: every source
//!   read once with vector loads, one vector add per load (the least work
//!   that consumes a load), the destination written once;
//! - [`read_bound`]: the same without the destination (the bound of
//!   `bitop_count`).

use bitcount::BitOp;

/// BITOP `op` one pass per source: `dest` starts as a zero-padded copy of
/// X, then each other source is folded in by its own loop (ONE keeps a
/// second "seen twice" buffer).
pub fn plain(op: BitOp, dest: &mut Vec<u8>, sources: &[&[u8]]) {
    let n = sources.iter().map(|s| s.len()).max().unwrap_or(0);
    dest.clear();
    dest.extend_from_slice(sources[0]);
    dest.resize(n, 0);
    let rest = &sources[1..];
    match op {
        BitOp::And => {
            for s in rest {
                for (d, b) in dest.iter_mut().zip(s.iter()) {
                    *d &= b;
                }
                dest[s.len()..].fill(0);
            }
        }
        BitOp::Or => {
            for s in rest {
                for (d, b) in dest.iter_mut().zip(s.iter()) {
                    *d |= b;
                }
            }
        }
        BitOp::Xor => {
            for s in rest {
                for (d, b) in dest.iter_mut().zip(s.iter()) {
                    *d ^= b;
                }
            }
        }
        BitOp::Not => {
            for d in dest.iter_mut() {
                *d = !*d;
            }
        }
        BitOp::Diff | BitOp::Diff1 | BitOp::AndOr => {
            let mut y = vec![0u8; n];
            for s in rest {
                for (d, b) in y.iter_mut().zip(s.iter()) {
                    *d |= b;
                }
            }
            for (d, y) in dest.iter_mut().zip(&y) {
                *d = match op {
                    BitOp::Diff => *d & !y,
                    BitOp::Diff1 => !*d & y,
                    _ => *d & y,
                };
            }
        }
        BitOp::One => {
            let mut twos = vec![0u8; n];
            for s in rest {
                for ((d, t), b) in dest.iter_mut().zip(twos.iter_mut()).zip(s.iter()) {
                    *t |= *d & b;
                    *d ^= b;
                }
            }
            for (d, t) in dest.iter_mut().zip(&twos) {
                *d &= !t;
            }
        }
    }
}

/// The stream bound: `dest` (as long as the sources, all of one length)
/// written once with the lane sums of all sources, each read once.
pub fn stream_bound(dest: &mut Vec<u8>, sources: &[&[u8]]) {
    let n = sources[0].len();
    assert!(sources.iter().all(|s| s.len() == n), "equal lengths only");
    // A reused destination of the right length is not rewritten first
    // (as `bitcount::bitop` writes each byte once).
    dest.resize(n, 0);
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") {
        // SAFETY: AVX-512F detected just above; every source is n bytes
        // (asserted at the top) and dest was resized to n.
        unsafe { x86::stream_avx512(dest, sources) };
        return;
    }
    stream_words(dest, sources);
}

/// The read-only bound: the lane sums of all sources (each read once).
pub fn read_bound(sources: &[&[u8]]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") {
        // SAFETY: AVX-512F detected just above (its only requirement).
        return unsafe { x86::read_avx512(sources) };
    }
    sources
        .iter()
        .map(|s| {
            s.chunks(8)
                .map(|w| w.iter().fold(0u64, |a, &b| a << 8 | u64::from(b)))
                .fold(0u64, u64::wrapping_add)
        })
        .fold(0, u64::wrapping_add)
}

fn stream_words(dest: &mut [u8], sources: &[&[u8]]) {
    for (i, d) in dest.chunks_mut(8).enumerate() {
        let mut acc = [0u8; 8];
        for s in sources {
            for (a, b) in acc.iter_mut().zip(&s[i * 8..]) {
                *a = a.wrapping_add(*b);
            }
        }
        d.copy_from_slice(&acc[..d.len()]);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// 256-byte blocks (four 64-byte vectors per source); sizes below a
    /// block and the tail go through the portable loop.
    ///
    /// # Safety
    /// The CPU supports AVX-512F; every source is `dest.len()` bytes.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn stream_avx512(dest: &mut [u8], sources: &[&[u8]]) {
        let n = dest.len();
        let full = n - n % 256;
        let mut at = 0;
        while at < full {
            let mut acc = [_mm512_setzero_si512(); 4];
            for s in sources {
                for (k, a) in acc.iter_mut().enumerate() {
                    // SAFETY: AVX-512F (this function's features); in bounds as
                    // at + 64 k + 64 <= full <= n = s.len() (every source is
                    // dest.len() bytes, this function's contract).
                    let v = unsafe { _mm512_loadu_si512(s.as_ptr().add(at + 64 * k).cast()) };
                    *a = _mm512_add_epi64(*a, v);
                }
            }
            for (k, a) in acc.iter().enumerate() {
                // SAFETY: AVX-512F (this function's features); in bounds as
                // at + 64 k + 64 <= full <= n = dest.len().
                unsafe { _mm512_storeu_si512(dest.as_mut_ptr().add(at + 64 * k).cast(), *a) };
            }
            at += 256;
        }
        let tails: Vec<&[u8]> = sources.iter().map(|s| &s[full..]).collect();
        super::stream_words(&mut dest[full..], &tails);
    }

    /// As [`stream_avx512`] without the stores.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn read_avx512(sources: &[&[u8]]) -> u64 {
        let n = sources.iter().map(|s| s.len()).min().unwrap_or(0);
        let full = n - n % 256;
        let mut acc = [_mm512_setzero_si512(); 4];
        let mut at = 0;
        while at < full {
            for s in sources {
                for (k, a) in acc.iter_mut().enumerate() {
                    // SAFETY: AVX-512F (this function's features); in bounds as
                    // at + 64 k + 64 <= full <= n, the shortest source's length.
                    let v = unsafe { _mm512_loadu_si512(s.as_ptr().add(at + 64 * k).cast()) };
                    *a = _mm512_add_epi64(*a, v);
                }
            }
            at += 256;
        }
        let s = _mm512_add_epi64(
            _mm512_add_epi64(acc[0], acc[1]),
            _mm512_add_epi64(acc[2], acc[3]),
        );
        let tail: u64 = sources
            .iter()
            .flat_map(|s| &s[full..])
            .map(|&b| u64::from(b))
            .sum();
        (_mm512_reduce_add_epi64(s) as u64).wrapping_add(tail)
    }
}

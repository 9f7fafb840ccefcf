//! Portable SWAR popcount and byte scan over `u64` words: the oracle the
//! other kernels are tested against, and the fallback on every target.
//!
//! The count does not call `u64::count_ones` per word (without a POPCNT
//! instruction that is ~12 operations per word): it stops the SWAR reduction
//! at 4-bit fields, adds three words there (fields reach 12 <= 15), widens to
//! bytes once per three words, and accumulates bytes for ten such groups (240
//! bytes of input, byte fields reach 240 <= 255) before one horizontal sum.

use crate::kernels::bitop;
use crate::kernels::Fns;
use simd_core::load::{tail_u64_le, u64_le};

const M1: u64 = 0x5555_5555_5555_5555;
const M2: u64 = 0x3333_3333_3333_3333;
const M4: u64 = 0x0f0f_0f0f_0f0f_0f0f;
const M8: u64 = 0x00ff_00ff_00ff_00ff;
const H16: u64 = 0x0001_0001_0001_0001;

/// Input bytes per flush of the byte accumulator: 10 groups of 3 words.
const BLOCK: usize = 240;

/// Each 4-bit field of the result holds the popcount of that field of `x`.
#[inline(always)]
fn nibble_counts(x: u64) -> u64 {
    let x = x - ((x >> 1) & M1);
    (x & M2) + ((x >> 2) & M2)
}

/// Sums the 8 byte fields of `acc` (each <= 255).
#[inline(always)]
fn sum_bytes(acc: u64) -> u64 {
    // Pairs of bytes into 16-bit fields (<= 510), then one multiply adds the
    // four fields into the top one (<= 2040, no overflow).
    let pairs = (acc & M8) + ((acc >> 8) & M8);
    pairs.wrapping_mul(H16) >> 48
}

/// Three words' popcounts as 8 byte fields (each <= 24).
#[inline(always)]
fn three(a: u64, b: u64, c: u64) -> u64 {
    let n = nibble_counts(a) + nibble_counts(b) + nibble_counts(c);
    (n & M4) + ((n >> 4) & M4)
}

/// Popcount of at most [`BLOCK`] bytes.
#[inline(always)]
fn block(bytes: &[u8]) -> u64 {
    debug_assert!(bytes.len() <= BLOCK);
    let mut acc = 0u64;
    let mut groups = bytes.chunks_exact(24);
    for g in &mut groups {
        acc += three(u64_le(g, 0), u64_le(g, 8), u64_le(g, 16));
    }
    // Up to 23 bytes left: at most 9 full groups came before (the block is
    // at most 240 bytes), so this 10th group keeps byte fields <= 240.
    let r = groups.remainder();
    if !r.is_empty() {
        let (a, rest) = r.split_at(r.len().min(8));
        let (b, c) = rest.split_at(rest.len().min(8));
        acc += three(tail_u64_le(a), tail_u64_le(b), tail_u64_le(c));
    }
    sum_bytes(acc)
}

/// The number of set bits in `bytes`, portable SWAR.
#[inline]
pub(crate) fn count(bytes: &[u8]) -> u64 {
    let mut total = 0u64;
    let mut blocks = bytes.chunks_exact(BLOCK);
    for b in &mut blocks {
        total += block(b);
    }
    total + block(blocks.remainder())
}

/// [`count`] as a kernel function.
///
/// # Safety
/// None: it runs on every CPU (`unsafe` only to fit the kernel type).
pub(crate) unsafe fn count_kernel(bytes: &[u8]) -> u64 {
    count(bytes)
}

/// The index of the first byte that is not `skip`, or `bytes.len()`.
#[inline]
pub(crate) fn find_not(bytes: &[u8], skip: u8) -> usize {
    let pattern = u64::from_le_bytes([skip; 8]);
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for w in &mut words {
        let diff = u64_le(w, 0) ^ pattern;
        if diff != 0 {
            // Little-endian load: the lowest differing byte comes first.
            return at + (diff.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    for &b in words.remainder() {
        if b != skip {
            return at;
        }
        at += 1;
    }
    at
}

/// [`find_not`] as a kernel function.
///
/// # Safety
/// None: it runs on every CPU (`unsafe` only to fit the kernel type).
pub(crate) unsafe fn find_not_kernel(bytes: &[u8], skip: u8) -> usize {
    find_not(bytes, skip)
}

/// The portable kernel's functions: every operation, on every CPU.
pub(crate) const FNS: Fns = Fns {
    count: count_kernel,
    find_not: find_not_kernel,
    bitop: bitop::scalar_combine_kernel,
    bitop_count: bitop::scalar_count_kernel,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(bytes: &[u8]) -> u64 {
        bytes.iter().map(|b| u64::from(b.count_ones())).sum()
    }

    #[test]
    fn swar_matches_count_ones() {
        let all_ones = [0xffu8; 1000];
        for len in 0..all_ones.len() {
            assert_eq!(count(&all_ones[..len]), 8 * len as u64);
        }
        let mut x = 0x1234_5678_9abc_def0u64;
        let data: [u8; 777] = core::array::from_fn(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        });
        for len in 0..data.len() {
            assert_eq!(count(&data[..len]), naive(&data[..len]), "len {len}");
            assert_eq!(count(&data[len..]), naive(&data[len..]), "from {len}");
        }
    }

    #[test]
    fn find_not_scans() {
        let mut b = [0u8; 40];
        assert_eq!(find_not(&b, 0), 40);
        for i in 0..40 {
            b[i] = 1;
            assert_eq!(find_not(&b, 0), i);
            assert_eq!(find_not(&b[..i], 0), i);
            b[i] = 0;
        }
        assert_eq!(find_not(&[0xff, 0xff, 0xfe], 0xff), 2);
    }
}

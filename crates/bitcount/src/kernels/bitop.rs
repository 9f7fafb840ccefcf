//! BITOP in one pass over all sources, written once over a vector type
//! ([`Lanes`]) and instantiated per instruction set; the `u64` instance here
//! is the portable kernel and the oracle.
//!
//! Each block of output (four vectors) folds every source into accumulators
//! held in registers and is then stored, or popcounted for `bitop_count`.
//! Blocks where every source is present load without checks; the blocks
//! after the shortest source load each source zero-padded (a full load, a
//! partial load that reads only the bytes inside the slice, or zero), so no
//! load reads past any slice and no operation needs a byte loop.
//!
//! Kernel contract (what makes every kernel safe for any input): the result
//! covers exactly `n` bytes (the destination's length), every one of them
//! written (the destination may start uninitialized); a source shorter
//! than `n` counts as zero-padded, a longer one is read only up to `n` (its
//! bytes beyond are never part of the result); the first source is X (a
//! missing one reads as zero); NOT reads X only.

use crate::op::BitOp;

/// Vectors per block: four independent accumulator chains per source.
pub(crate) const UNROLL: usize = 4;

/// The operations as constants, so each one compiles to its own loop.
pub(crate) const AND: u8 = 0;
pub(crate) const OR: u8 = 1;
pub(crate) const XOR: u8 = 2;
pub(crate) const NOT: u8 = 3;
pub(crate) const DIFF: u8 = 4;
pub(crate) const DIFF1: u8 = 5;
pub(crate) const ANDOR: u8 = 6;
pub(crate) const ONE: u8 = 7;

/// A vector of bytes and the bitwise operations the fold needs.
///
/// # Safety
/// Implementors' methods are `unsafe` because they execute instructions of
/// one instruction set: callers must run on a CPU that has it (the kernel
/// functions are `#[target_feature]` and only reachable through CPU-checked
/// candidates). Pointer arguments must be valid as each method states.
pub(crate) unsafe trait Lanes: Copy {
    /// Bytes per vector.
    const BYTES: usize;
    /// The popcount accumulator.
    type Acc: Copy;

    /// `BYTES` bytes at `p` (any alignment).
    ///
    /// # Safety
    /// `BYTES` bytes at `p` are readable; the CPU has the instruction set.
    unsafe fn load(p: *const u8) -> Self;
    /// The `n < BYTES` bytes at `p`, zero above; reads only those bytes.
    ///
    /// # Safety
    /// `n < BYTES` and `n` bytes at `p` are readable; the CPU has the set.
    unsafe fn load_partial(p: *const u8, n: usize) -> Self;
    /// Stores all `BYTES` bytes at `p`.
    ///
    /// # Safety
    /// `BYTES` bytes at `p` are writable; the CPU has the instruction set.
    unsafe fn store(self, p: *mut u8);
    /// Stores the first `n < BYTES` bytes at `p`, writing nothing else.
    ///
    /// # Safety
    /// `n < BYTES` and `n` bytes at `p` are writable; the CPU has the set.
    unsafe fn store_partial(self, p: *mut u8, n: usize);
    /// The vector with its bytes from `n` on cleared (`n < BYTES`).
    ///
    /// # Safety
    /// The CPU has the instruction set.
    unsafe fn keep_first(self, n: usize) -> Self;

    /// All zero bits. # Safety: the CPU has the instruction set.
    unsafe fn zero() -> Self;
    /// `a & b`. # Safety: the CPU has the instruction set.
    unsafe fn and(a: Self, b: Self) -> Self;
    /// `a | b`. # Safety: the CPU has the instruction set.
    unsafe fn or(a: Self, b: Self) -> Self;
    /// `a ^ b`. # Safety: the CPU has the instruction set.
    unsafe fn xor(a: Self, b: Self) -> Self;
    /// `a & !b`. # Safety: the CPU has the instruction set.
    unsafe fn and_not(a: Self, b: Self) -> Self;
    /// `!a`. # Safety: the CPU has the instruction set.
    unsafe fn not(a: Self) -> Self;

    /// `a & b & c` (one instruction where the set has a ternary one).
    ///
    /// # Safety
    /// The CPU has the instruction set.
    #[inline(always)]
    unsafe fn and3(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: the caller guarantees the CPU has the instruction set,
        // the only condition of the lane operations called here.
        unsafe { Self::and(Self::and(a, b), c) }
    }
    /// `a | b | c`.
    ///
    /// # Safety
    /// The CPU has the instruction set.
    #[inline(always)]
    unsafe fn or3(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: the caller guarantees the CPU has the instruction set,
        // the only condition of the lane operations called here.
        unsafe { Self::or(Self::or(a, b), c) }
    }
    /// `a ^ b ^ c`.
    ///
    /// # Safety
    /// The CPU has the instruction set.
    #[inline(always)]
    unsafe fn xor3(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: the caller guarantees the CPU has the instruction set,
        // the only condition of the lane operations called here.
        unsafe { Self::xor(Self::xor(a, b), c) }
    }
    /// `t | (a & b)`: ONE's "seen twice" update for one source.
    ///
    /// # Safety
    /// The CPU has the instruction set.
    #[inline(always)]
    unsafe fn or_and(t: Self, a: Self, b: Self) -> Self {
        // SAFETY: the caller guarantees the CPU has the instruction set,
        // the only condition of the lane operations called here.
        unsafe { Self::or(t, Self::and(a, b)) }
    }
    /// `t | majority(a, b, c)`: ONE's "seen twice" update for two sources
    /// at once (`a` the parity so far).
    ///
    /// # Safety
    /// The CPU has the instruction set.
    #[inline(always)]
    unsafe fn or_maj(t: Self, a: Self, b: Self, c: Self) -> Self {
        // SAFETY: the caller guarantees the CPU has the instruction set,
        // the only condition of the lane operations called here.
        unsafe { Self::or(t, Self::or(Self::and(a, b), Self::and(c, Self::or(a, b)))) }
    }

    /// A zero popcount accumulator.
    ///
    /// # Safety
    /// The CPU has the instruction set.
    unsafe fn acc_zero() -> Self::Acc;
    /// Adds the set bits of one block to the accumulator.
    ///
    /// # Safety
    /// The CPU has the instruction set.
    unsafe fn acc_add(acc: Self::Acc, block: &[Self; UNROLL]) -> Self::Acc;
    /// Adds the set bits of one vector.
    ///
    /// # Safety
    /// The CPU has the instruction set.
    unsafe fn acc_add1(acc: Self::Acc, v: Self) -> Self::Acc;
    /// The accumulated count.
    ///
    /// # Safety
    /// The CPU has the instruction set.
    unsafe fn acc_total(acc: Self::Acc) -> u64;
}

/// The vector `k` of the block at `at` of `s`, zero-padded past its end
/// when `PAD` (else read unchecked).
///
/// # Safety
/// The CPU has `V`'s instruction set; without `PAD`, `at + (k + 1) *
/// V::BYTES <= s.len()`.
#[inline(always)]
unsafe fn ld<V: Lanes, const PAD: bool>(s: &[u8], at: usize, k: usize) -> V {
    let i = at + k * V::BYTES;
    // SAFETY: without PAD the caller guarantees the vector is inside `s`;
    // with it, each branch reads only bytes below `s.len()`.
    unsafe {
        if !PAD || i + V::BYTES <= s.len() {
            V::load(s.as_ptr().add(i))
        } else if i < s.len() {
            V::load_partial(s.as_ptr().add(i), s.len() - i)
        } else {
            V::zero()
        }
    }
}

/// The OR of `ys` over the `W` vectors at `at` (zero when `ys` is empty).
///
/// # Safety
/// As [`block`].
#[inline(always)]
unsafe fn or_all<V: Lanes, const PAD: bool, const W: usize>(ys: &[&[u8]], at: usize) -> [V; W] {
    // SAFETY: the caller meets `block`'s conditions (`V`'s set; without
    // `PAD` every source holds the `W` vectors at `at`), which cover each
    // `ld` here (k < W).
    unsafe {
        let mut acc = [V::zero(); W];
        let mut pairs = ys.chunks_exact(2);
        for p in &mut pairs {
            for (k, a) in acc.iter_mut().enumerate() {
                *a = V::or3(*a, ld::<V, PAD>(p[0], at, k), ld::<V, PAD>(p[1], at, k));
            }
        }
        if let [s] = pairs.remainder() {
            for (k, a) in acc.iter_mut().enumerate() {
                *a = V::or(*a, ld::<V, PAD>(s, at, k));
            }
        }
        acc
    }
}

/// The result of `OP` over the `W` vectors at `at`: X is `sources[0]`
/// (zero if absent), the others fold in pairs.
///
/// # Safety
/// The CPU has `V`'s instruction set; without `PAD`, every source holds the
/// `W` vectors (`at + W * V::BYTES <= len`).
#[inline(always)]
unsafe fn block<V: Lanes, const OP: u8, const PAD: bool, const W: usize>(
    sources: &[&[u8]],
    at: usize,
) -> [V; W] {
    let (x, ys): (&[u8], &[&[u8]]) = match sources.split_first() {
        Some((x, ys)) => (x, ys),
        None => (&[], &[]),
    };
    // SAFETY: the caller's guarantees are what every `ld` needs; the other
    // calls only need the instruction set.
    unsafe {
        let mut acc = [V::zero(); W];
        for (k, a) in acc.iter_mut().enumerate() {
            *a = ld::<V, PAD>(x, at, k);
        }
        match OP {
            AND | OR | XOR => {
                let mut pairs = ys.chunks_exact(2);
                for p in &mut pairs {
                    for (k, a) in acc.iter_mut().enumerate() {
                        let (b, c) = (ld::<V, PAD>(p[0], at, k), ld::<V, PAD>(p[1], at, k));
                        *a = match OP {
                            AND => V::and3(*a, b, c),
                            OR => V::or3(*a, b, c),
                            _ => V::xor3(*a, b, c),
                        };
                    }
                }
                if let [s] = pairs.remainder() {
                    for (k, a) in acc.iter_mut().enumerate() {
                        let b = ld::<V, PAD>(s, at, k);
                        *a = match OP {
                            AND => V::and(*a, b),
                            OR => V::or(*a, b),
                            _ => V::xor(*a, b),
                        };
                    }
                }
                acc
            }
            NOT => acc.map(|a| V::not(a)),
            ONE => {
                // `acc` holds the parity, `twos` the bits seen at least
                // twice; while a bit is not in `twos`, its count is 0 or 1
                // and equals the parity.
                let mut twos = [V::zero(); W];
                let mut pairs = ys.chunks_exact(2);
                for p in &mut pairs {
                    for k in 0..W {
                        let (b, c) = (ld::<V, PAD>(p[0], at, k), ld::<V, PAD>(p[1], at, k));
                        twos[k] = V::or_maj(twos[k], acc[k], b, c);
                        acc[k] = V::xor3(acc[k], b, c);
                    }
                }
                if let [s] = pairs.remainder() {
                    for k in 0..W {
                        let b = ld::<V, PAD>(s, at, k);
                        twos[k] = V::or_and(twos[k], acc[k], b);
                        acc[k] = V::xor(acc[k], b);
                    }
                }
                for k in 0..W {
                    acc[k] = V::and_not(acc[k], twos[k]);
                }
                acc
            }
            _ => {
                let y = or_all::<V, PAD, W>(ys, at);
                for k in 0..W {
                    acc[k] = match OP {
                        DIFF => V::and_not(acc[k], y[k]),
                        DIFF1 => V::and_not(y[k], acc[k]),
                        _ => V::and(acc[k], y[k]),
                    };
                }
                acc
            }
        }
    }
}

/// `OP` over the first `n` bytes, stored at `dst` (`COUNT` false) or
/// popcounted (`COUNT` true, `dst` unused); returns the count (0 when
/// storing). Blocks of [`UNROLL`] vectors while every source holds them,
/// then single vectors while every source does, then single vectors with
/// zero-padded loads up to `n`.
///
/// # Safety
/// The CPU has `V`'s instruction set; unless `COUNT`, `n` bytes at `dst`
/// are writable and overlap no source.
#[inline(always)]
unsafe fn run<V: Lanes, const OP: u8, const COUNT: bool>(
    dst: *mut u8,
    n: usize,
    sources: &[&[u8]],
) -> u64 {
    let step = UNROLL * V::BYTES;
    let sources = if OP == NOT {
        &sources[..sources.len().min(1)]
    } else {
        sources
    };
    let shortest = sources.iter().map(|s| s.len()).min().unwrap_or(0).min(n);
    let blocks_end = shortest - shortest % step;
    let vectors_end = shortest - shortest % V::BYTES;
    // SAFETY: the instruction set is the caller's guarantee. Vectors below
    // `vectors_end` lie inside every source (<= shortest) and inside `dst`
    // (<= n); from there loads are padded and stores stop at `n`.
    unsafe {
        let mut acc = V::acc_zero();
        let mut at = 0;
        while at < blocks_end {
            let r = block::<V, OP, false, UNROLL>(sources, at);
            if COUNT {
                acc = V::acc_add(acc, &r);
            } else {
                for (k, v) in r.iter().enumerate() {
                    v.store(dst.add(at + k * V::BYTES));
                }
            }
            at += step;
        }
        while at < vectors_end {
            let [v] = block::<V, OP, false, 1>(sources, at);
            if COUNT {
                acc = V::acc_add1(acc, v);
            } else {
                v.store(dst.add(at));
            }
            at += V::BYTES;
        }
        while at < n {
            let [v] = block::<V, OP, true, 1>(sources, at);
            let m = n - at;
            if m >= V::BYTES {
                if COUNT {
                    acc = V::acc_add1(acc, v);
                } else {
                    v.store(dst.add(at));
                }
            } else if COUNT {
                acc = V::acc_add1(acc, v.keep_first(m));
            } else {
                v.store_partial(dst.add(at), m);
            }
            at += V::BYTES;
        }
        V::acc_total(acc)
    }
}

/// `op` over `dst.len()` bytes into `dst` (the kernel contract above).
///
/// # Safety
/// The CPU has `V`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn combine<V: Lanes>(
    op: BitOp,
    dst: &mut [core::mem::MaybeUninit<u8>],
    sources: &[&[u8]],
) -> usize {
    let (p, n) = (dst.as_mut_ptr().cast::<u8>(), dst.len());
    // SAFETY: `dst` is writable for `n` bytes and, borrowed mutably, overlaps
    // no source; the instruction set is the caller's guarantee.
    unsafe {
        match op {
            BitOp::And => run::<V, AND, false>(p, n, sources),
            BitOp::Or => run::<V, OR, false>(p, n, sources),
            BitOp::Xor => run::<V, XOR, false>(p, n, sources),
            BitOp::Not => run::<V, NOT, false>(p, n, sources),
            BitOp::Diff => run::<V, DIFF, false>(p, n, sources),
            BitOp::Diff1 => run::<V, DIFF1, false>(p, n, sources),
            BitOp::AndOr => run::<V, ANDOR, false>(p, n, sources),
            BitOp::One => run::<V, ONE, false>(p, n, sources),
        };
    }
    n
}

/// The set bits of `op` over the first `n` bytes (the kernel contract).
///
/// # Safety
/// The CPU has `V`'s instruction set.
#[inline(always)]
pub(crate) unsafe fn count<V: Lanes>(op: BitOp, sources: &[&[u8]], n: usize) -> u64 {
    let p = core::ptr::null_mut();
    // SAFETY: counting never touches `dst`; the instruction set is the
    // caller's guarantee.
    unsafe {
        match op {
            BitOp::And => run::<V, AND, true>(p, n, sources),
            BitOp::Or => run::<V, OR, true>(p, n, sources),
            BitOp::Xor => run::<V, XOR, true>(p, n, sources),
            BitOp::Not => run::<V, NOT, true>(p, n, sources),
            BitOp::Diff => run::<V, DIFF, true>(p, n, sources),
            BitOp::Diff1 => run::<V, DIFF1, true>(p, n, sources),
            BitOp::AndOr => run::<V, ANDOR, true>(p, n, sources),
            BitOp::One => run::<V, ONE, true>(p, n, sources),
        }
    }
}

/// [`run`] out of line: one function per operation, so that a caller
/// matching on the operation jumps into a loop whose prologue saves only
/// the registers that loop uses (small results, where those dominate).
///
/// # Safety
/// As [`run`]; `V` must be in the target's baseline (no target feature
/// reaches this function from its caller).
#[inline(never)]
unsafe fn run_outlined<V: Lanes, const OP: u8, const COUNT: bool>(
    dst: *mut u8,
    n: usize,
    sources: &[&[u8]],
) -> u64 {
    // SAFETY: the caller meets `run`'s conditions (the contract is the
    // same), and `V` needs no feature beyond the target's baseline.
    unsafe { run::<V, OP, COUNT>(dst, n, sources) }
}

/// [`combine`] for the small-result path: `V`'s instruction set is in the
/// target's baseline, each operation's loop its own function.
///
/// # Safety
/// `V`'s instruction set is statically enabled for the target.
#[inline(always)]
pub(crate) unsafe fn combine_small<V: Lanes>(
    op: BitOp,
    dst: &mut [core::mem::MaybeUninit<u8>],
    sources: &[&[u8]],
) {
    let (p, n) = (dst.as_mut_ptr().cast::<u8>(), dst.len());
    // SAFETY: as in `combine`.
    unsafe {
        match op {
            BitOp::And => run_outlined::<V, AND, false>(p, n, sources),
            BitOp::Or => run_outlined::<V, OR, false>(p, n, sources),
            BitOp::Xor => run_outlined::<V, XOR, false>(p, n, sources),
            BitOp::Not => run_outlined::<V, NOT, false>(p, n, sources),
            BitOp::Diff => run_outlined::<V, DIFF, false>(p, n, sources),
            BitOp::Diff1 => run_outlined::<V, DIFF1, false>(p, n, sources),
            BitOp::AndOr => run_outlined::<V, ANDOR, false>(p, n, sources),
            BitOp::One => run_outlined::<V, ONE, false>(p, n, sources),
        };
    }
}

// SAFETY: plain integer operations, valid on every CPU; the pointer
// conditions are those each method states.
unsafe impl Lanes for u64 {
    const BYTES: usize = 8;
    type Acc = u64;

    #[inline(always)]
    unsafe fn load(p: *const u8) -> u64 {
        // SAFETY: the caller guarantees 8 readable bytes.
        unsafe { p.cast::<u64>().read_unaligned() }
    }
    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> u64 {
        let mut b = [0u8; 8];
        // SAFETY: the caller guarantees `n < 8` readable bytes at `p`.
        unsafe { core::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), n) };
        u64::from_ne_bytes(b)
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: the caller guarantees 8 writable bytes.
        unsafe { p.cast::<u64>().write_unaligned(self) }
    }
    #[inline(always)]
    unsafe fn store_partial(self, p: *mut u8, n: usize) {
        let b = self.to_ne_bytes();
        // SAFETY: the caller guarantees `n < 8` writable bytes at `p`.
        unsafe { core::ptr::copy_nonoverlapping(b.as_ptr(), p, n) };
    }
    #[inline(always)]
    unsafe fn keep_first(self, n: usize) -> u64 {
        let mut b = self.to_ne_bytes();
        b[n..].fill(0);
        u64::from_ne_bytes(b)
    }
    #[inline(always)]
    unsafe fn zero() -> u64 {
        0
    }
    #[inline(always)]
    unsafe fn and(a: u64, b: u64) -> u64 {
        a & b
    }
    #[inline(always)]
    unsafe fn or(a: u64, b: u64) -> u64 {
        a | b
    }
    #[inline(always)]
    unsafe fn xor(a: u64, b: u64) -> u64 {
        a ^ b
    }
    #[inline(always)]
    unsafe fn and_not(a: u64, b: u64) -> u64 {
        a & !b
    }
    #[inline(always)]
    unsafe fn not(a: u64) -> u64 {
        !a
    }
    #[inline(always)]
    unsafe fn acc_zero() -> u64 {
        0
    }
    #[inline(always)]
    unsafe fn acc_add(acc: u64, block: &[u64; UNROLL]) -> u64 {
        acc + block.iter().map(|w| u64::from(w.count_ones())).sum::<u64>()
    }
    #[inline(always)]
    unsafe fn acc_add1(acc: u64, v: u64) -> u64 {
        acc + u64::from(v.count_ones())
    }
    #[inline(always)]
    unsafe fn acc_total(acc: u64) -> u64 {
        acc
    }
}

/// The portable kernel: `u64` words (also the oracle).
#[inline]
pub(crate) fn scalar_combine(
    op: BitOp,
    dst: &mut [core::mem::MaybeUninit<u8>],
    sources: &[&[u8]],
) -> usize {
    // SAFETY: the `u64` lanes run on every CPU.
    unsafe { combine::<u64>(op, dst, sources) }
}

/// The portable count kernel.
#[inline]
pub(crate) fn scalar_count(op: BitOp, sources: &[&[u8]], n: usize) -> u64 {
    // SAFETY: the `u64` lanes run on every CPU.
    unsafe { count::<u64>(op, sources, n) }
}

/// [`scalar_combine`] as a kernel function.
///
/// # Safety
/// None: it runs on every CPU (`unsafe` only to fit the kernel type).
pub(crate) unsafe fn scalar_combine_kernel(
    op: BitOp,
    dst: &mut [core::mem::MaybeUninit<u8>],
    sources: &[&[u8]],
) -> usize {
    scalar_combine(op, dst, sources)
}

/// [`scalar_count`] as a kernel function.
///
/// # Safety
/// None: it runs on every CPU (`unsafe` only to fit the kernel type).
pub(crate) unsafe fn scalar_count_kernel(op: BitOp, sources: &[&[u8]], n: usize) -> u64 {
    scalar_count(op, sources, n)
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// The spec's definition, one bit at a time (no allocation per bit:
    /// this runs under Miri).
    fn naive(op: BitOp, sources: &[&[u8]], n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| {
                (0..8).fold(0u8, |out, bit| {
                    let on = |s: &&[u8]| s.get(i).is_some_and(|b| b >> bit & 1 == 1);
                    let x = sources.first().is_some_and(on);
                    let any_y = sources.iter().skip(1).any(on);
                    let set = sources.iter().filter(|s| on(s)).count();
                    let r = match op {
                        BitOp::And => set == sources.len(),
                        BitOp::Or => set > 0,
                        BitOp::Xor => set % 2 == 1,
                        BitOp::Not => !x,
                        BitOp::Diff => x && !any_y,
                        BitOp::Diff1 => !x && any_y,
                        BitOp::AndOr => x && any_y,
                        BitOp::One => set == 1,
                    };
                    out | u8::from(r) << bit
                })
            })
            .collect()
    }

    /// The portable kernel (the oracle of the others) against the spec:
    /// every operation, 1-5 sources of unequal lengths around its 32-byte
    /// block, results shorter and longer than the sources; small enough for
    /// Miri.
    #[test]
    fn scalar_matches_the_spec() {
        let data: Vec<u8> = (0..200u32)
            .map(|i| (i.wrapping_mul(0x9e37_79b9) >> 13) as u8)
            .collect();
        let lens: &[usize] = if cfg!(miri) {
            &[0, 7, 33, 40]
        } else {
            &[0, 1, 7, 8, 31, 32, 33, 40, 65]
        };
        let most = if cfg!(miri) { 3 } else { 5 };
        for op in BitOp::ALL {
            for nsrc in 1..=most {
                for (r, &n) in lens.iter().enumerate() {
                    let srcs: Vec<&[u8]> = (0..nsrc)
                        .map(|j| &data[j * 13..][..lens[(r + j * 3) % lens.len()]])
                        .collect();
                    let srcs = if op == BitOp::Not {
                        &srcs[..1]
                    } else {
                        &srcs[..]
                    };
                    let want = naive(op, srcs, n);
                    let mut dst = std::vec![core::mem::MaybeUninit::new(0x77u8); n];
                    assert_eq!(scalar_combine(op, &mut dst, srcs), n);
                    // SAFETY: initialized above and overwritten with bytes.
                    let got: Vec<u8> = dst.iter().map(|b| unsafe { b.assume_init() }).collect();
                    assert_eq!(got, want, "{op} {nsrc} sources, n {n}");
                    let ones: u64 = want.iter().map(|b| u64::from(b.count_ones())).sum();
                    assert_eq!(scalar_count(op, srcs, n), ones, "{op} count, n {n}");
                }
            }
        }
    }
}

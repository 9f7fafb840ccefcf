//! x86_64 AVX-512 BITOP: the one-pass fold of `kernels/bitop.rs` over
//! 512-bit vectors (256-byte blocks). VPTERNLOGQ folds two sources into an
//! accumulator per instruction; each immediate is the boolean function
//! evaluated on the operand patterns 0xF0, 0xCC, 0xAA (a truth table, see
//! [`imm`]). Partial vectors use masked loads and stores (no stack copy);
//! `bitop_count` uses VPOPCNTQ into 64-bit lane sums.

use core::arch::x86_64::*;

use crate::kernels::bitop::{self, Lanes, UNROLL};
use crate::op::BitOp;

/// The VPTERNLOG immediate whose truth table is `table`: bit `4a + 2b + c`
/// of the immediate is the result for operand bits `a`, `b`, `c`, which is
/// exactly the boolean function applied bitwise to the operand patterns
/// [`A`], [`B`], [`C`].
const fn imm(table: u8) -> i32 {
    table as i32
}

/// The operand patterns of a truth table: bit `4a + 2b + c` of `A` is `a`,
/// of `B` is `b`, of `C` is `c`.
const A: u8 = 0xf0;
const B: u8 = 0xcc;
const C: u8 = 0xaa;

const fn and3(a: u8, b: u8, c: u8) -> u8 {
    a & b & c
}
const fn or3(a: u8, b: u8, c: u8) -> u8 {
    a | b | c
}
const fn xor3(a: u8, b: u8, c: u8) -> u8 {
    a ^ b ^ c
}
const fn or_and(t: u8, a: u8, b: u8) -> u8 {
    t | (a & b)
}
const fn maj(a: u8, b: u8, c: u8) -> u8 {
    (a & b) | (a & c) | (b & c)
}

/// `a & b & c`.
const IMM_AND3: i32 = imm(and3(A, B, C));
/// `a | b | c`.
const IMM_OR3: i32 = imm(or3(A, B, C));
/// `a ^ b ^ c`.
const IMM_XOR3: i32 = imm(xor3(A, B, C));
/// `t | (a & b)`.
const IMM_OR_AND: i32 = imm(or_and(A, B, C));
/// The majority of three.
const IMM_MAJ: i32 = imm(maj(A, B, C));

// SAFETY: every method executes AVX-512F/BW/VPOPCNTDQ instructions only,
// which the trait requires of its callers; the pointer conditions are those
// each states.
unsafe impl Lanes for __m512i {
    const BYTES: usize = 64;
    type Acc = __m512i;

    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 64 readable bytes; no alignment
        // requirement.
        unsafe { _mm512_loadu_si512(p.cast()) }
    }
    #[inline(always)]
    unsafe fn load_partial(p: *const u8, n: usize) -> Self {
        // SAFETY: the mask enables exactly the `n < 64` readable bytes the
        // caller guarantees; masked-off bytes are neither read nor fault.
        unsafe { _mm512_maskz_loadu_epi8(_bzhi_u64(u64::MAX, n as u32), p.cast()) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut u8) {
        // SAFETY: the caller guarantees 64 writable bytes.
        unsafe { _mm512_storeu_si512(p.cast(), self) }
    }
    #[inline(always)]
    unsafe fn store_partial(self, p: *mut u8, n: usize) {
        // SAFETY: the mask enables exactly the `n < 64` writable bytes the
        // caller guarantees; masked-off bytes are not written.
        unsafe { _mm512_mask_storeu_epi8(p.cast(), _bzhi_u64(u64::MAX, n as u32), self) }
    }
    #[inline(always)]
    unsafe fn keep_first(self, n: usize) -> Self {
        // SAFETY: register-only AVX-512BW.
        unsafe { _mm512_maskz_mov_epi8(_bzhi_u64(u64::MAX, n as u32), self) }
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: AVX-512F, the caller's guarantee.
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    unsafe fn and(a: Self, b: Self) -> Self {
        // SAFETY: AVX-512F, the caller's guarantee.
        unsafe { _mm512_and_si512(a, b) }
    }
    #[inline(always)]
    unsafe fn or(a: Self, b: Self) -> Self {
        // SAFETY: AVX-512F, the caller's guarantee.
        unsafe { _mm512_or_si512(a, b) }
    }
    #[inline(always)]
    unsafe fn xor(a: Self, b: Self) -> Self {
        // SAFETY: AVX-512F, the caller's guarantee.
        unsafe { _mm512_xor_si512(a, b) }
    }
    #[inline(always)]
    unsafe fn and_not(a: Self, b: Self) -> Self {
        // SAFETY: AVX-512F, the caller's guarantee (VPANDNQ: !first & second).
        unsafe { _mm512_andnot_si512(b, a) }
    }
    #[inline(always)]
    unsafe fn not(a: Self) -> Self {
        // SAFETY: AVX-512F, the caller's guarantee.
        unsafe { _mm512_xor_si512(a, _mm512_set1_epi8(-1)) }
    }
    #[inline(always)]
    unsafe fn and3(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: AVX-512F, the caller's guarantee.
        unsafe { _mm512_ternarylogic_epi64::<IMM_AND3>(a, b, c) }
    }
    #[inline(always)]
    unsafe fn or3(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: AVX-512F, the caller's guarantee.
        unsafe { _mm512_ternarylogic_epi64::<IMM_OR3>(a, b, c) }
    }
    #[inline(always)]
    unsafe fn xor3(a: Self, b: Self, c: Self) -> Self {
        // SAFETY: AVX-512F, the caller's guarantee.
        unsafe { _mm512_ternarylogic_epi64::<IMM_XOR3>(a, b, c) }
    }
    #[inline(always)]
    unsafe fn or_and(t: Self, a: Self, b: Self) -> Self {
        // SAFETY: AVX-512F, the caller's guarantee.
        unsafe { _mm512_ternarylogic_epi64::<IMM_OR_AND>(t, a, b) }
    }
    #[inline(always)]
    unsafe fn or_maj(t: Self, a: Self, b: Self, c: Self) -> Self {
        // SAFETY: AVX-512F, the caller's guarantee.
        unsafe { _mm512_or_si512(t, _mm512_ternarylogic_epi64::<IMM_MAJ>(a, b, c)) }
    }
    #[inline(always)]
    unsafe fn acc_zero() -> Self::Acc {
        // SAFETY: AVX-512F, the caller's guarantee.
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    unsafe fn acc_add(acc: Self::Acc, block: &[Self; UNROLL]) -> Self::Acc {
        // SAFETY: AVX-512F/VPOPCNTDQ, the caller's guarantee.
        unsafe {
            let s = _mm512_add_epi64(
                _mm512_add_epi64(_mm512_popcnt_epi64(block[0]), _mm512_popcnt_epi64(block[1])),
                _mm512_add_epi64(_mm512_popcnt_epi64(block[2]), _mm512_popcnt_epi64(block[3])),
            );
            _mm512_add_epi64(acc, s)
        }
    }
    #[inline(always)]
    unsafe fn acc_add1(acc: Self::Acc, v: Self) -> Self::Acc {
        // SAFETY: AVX-512F/VPOPCNTDQ, the caller's guarantee.
        unsafe { _mm512_add_epi64(acc, _mm512_popcnt_epi64(v)) }
    }
    #[inline(always)]
    unsafe fn acc_total(acc: Self::Acc) -> u64 {
        // SAFETY: AVX-512F, the caller's guarantee.
        unsafe { _mm512_reduce_add_epi64(acc) as u64 }
    }
}

/// BITOP `op` into `dst` (the contract in `kernels/bitop.rs`).
///
/// # Safety
/// The CPU supports AVX-512F, AVX-512BW, AVX-512VPOPCNTDQ and BMI2.
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq,bmi2")]
pub(crate) unsafe fn combine(
    op: BitOp,
    dst: &mut [core::mem::MaybeUninit<u8>],
    sources: &[&[u8]],
) -> usize {
    // SAFETY: this function's target features are the lanes' only condition.
    unsafe { bitop::combine::<__m512i>(op, dst, sources) }
}

/// BITCOUNT of BITOP `op` over `n` bytes.
///
/// # Safety
/// As [`combine`].
#[target_feature(enable = "avx512f,avx512bw,avx512vpopcntdq,bmi2")]
pub(crate) unsafe fn count(op: BitOp, sources: &[&[u8]], n: usize) -> u64 {
    // SAFETY: this function's target features are the lanes' only condition.
    unsafe { bitop::count::<__m512i>(op, sources, n) }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;

    /// What VPTERNLOG computes with immediate `imm`, bit by bit.
    fn ternlog_model(imm: i32, a: u64, b: u64, c: u64) -> u64 {
        (0..64).fold(0, |r, i| {
            let idx = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
            r | ((imm as u64 >> idx) & 1) << i
        })
    }

    /// Each immediate computes its function on all eight input rows and on
    /// random words, in the model and (where the CPU has AVX-512) in the
    /// instruction itself.
    #[test]
    fn immediates_match_their_functions() {
        type Boolean = fn(u64, u64, u64) -> u64;
        let cases: [(i32, Boolean); 5] = [
            (IMM_AND3, |a, b, c| a & b & c),
            (IMM_OR3, |a, b, c| a | b | c),
            (IMM_XOR3, |a, b, c| a ^ b ^ c),
            (IMM_OR_AND, |t, a, b| t | (a & b)),
            (IMM_MAJ, |a, b, c| (a & b) | (a & c) | (b & c)),
        ];
        let rows = [0u64, u64::MAX];
        let mut words = std::vec::Vec::new();
        for a in rows {
            for b in rows {
                for c in rows {
                    words.push((a, b, c));
                }
            }
        }
        let mut x = 0x1234_5678_9abc_def1u64;
        for _ in 0..64 {
            let mut next = || {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            };
            words.push((next(), next(), next()));
        }
        let hw = std::is_x86_feature_detected!("avx512f");
        for (imm, f) in cases {
            for &(a, b, c) in &words {
                assert_eq!(ternlog_model(imm, a, b, c), f(a, b, c), "imm {imm:#04x}");
                if hw {
                    // SAFETY: AVX-512F checked above; register-only.
                    let got = unsafe {
                        let (va, vb, vc) = (
                            _mm512_set1_epi64(a as i64),
                            _mm512_set1_epi64(b as i64),
                            _mm512_set1_epi64(c as i64),
                        );
                        let r = match imm {
                            IMM_AND3 => <__m512i as Lanes>::and3(va, vb, vc),
                            IMM_OR3 => <__m512i as Lanes>::or3(va, vb, vc),
                            IMM_XOR3 => <__m512i as Lanes>::xor3(va, vb, vc),
                            IMM_OR_AND => <__m512i as Lanes>::or_and(va, vb, vc),
                            _ => <__m512i as Lanes>::or_maj(_mm512_setzero_si512(), va, vb, vc),
                        };
                        _mm_cvtsi128_si64(_mm512_castsi512_si128(r)) as u64
                    };
                    assert_eq!(got, f(a, b, c), "imm {imm:#04x} on the CPU");
                }
            }
        }
    }
}

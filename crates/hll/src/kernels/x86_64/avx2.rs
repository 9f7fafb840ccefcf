//! AVX2 kernels. Unpack: one 32-byte load at `p - 4` gives each 128-bit
//! lane its 12 dense bytes (the first and last steps use two 16-byte loads
//! to stay in bounds), an in-lane byte shuffle puts each pair of registers
//! (12 bits) in a 16-bit word, odd pairs shift down by 4 (blend), and a
//! shift, two masks and an `or` split the pair into two bytes (not
//! `vpblendvb`, which is two or three µops on Intel cores).
//! Union of several bodies: each body's pairs only masked in place (two
//! `and`s after the shuffle), maxed as 16-bit words, split into bytes once
//! per step (fewer µops than unpacking each body).
//! Pack: `maddubs` and `madd` fold four bytes into a 24-bit word, an
//! in-lane shuffle compacts each lane's 16 bytes to 12, stored with two
//! overlapping 16-byte stores whose junk bytes the next store overwrites
//! (no cross-lane permute).
//! Histogram: for a 12-value window picked from the mean register, six
//! `pshufb` lookups per vector add two 4-bit counters per byte (one pair
//! of values per lookup), widened every 15 vectors; registers outside the
//! window (rare: the geometric tail) are counted one by one.

use crate::kernels::{assume_init, uninit, Aligned, Uninit};
use crate::{DENSE_BODY, REGISTERS};
use core::arch::x86_64::*;

/// Registers per 32-byte vector, dense bytes per vector of registers.
const REGS: usize = 32;
const BYTES: usize = 24;

/// `raw[i] = max(raw[i], dense register i)`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unpack_max(dense: &[u8; DENSE_BODY], raw: &mut [u8; REGISTERS]) {
    // SAFETY: raw is 16384 initialised bytes; same CPU requirement.
    unsafe { unpack_to::<true, Shift>(dense, raw.as_mut_ptr()) }
}

/// `raw[i] = dense register i`, every byte of `raw` written.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unpack(dense: &[u8; DENSE_BODY], raw: &mut Uninit<REGISTERS>) {
    // SAFETY: raw is 16384 writable bytes, only written; same CPU requirement.
    unsafe { unpack_to::<false, Shift>(dense, raw.as_mut_ptr().cast()) }
}

/// The union of dense bodies: `out[i]` = the largest register `i` of
/// `inputs` (0 if none). Up to four bodies per pass over `out`: each step
/// unpacks its 32 registers of every body of the group and stores their
/// max once, so a union of three runs one pass, not an unpack and two
/// unpack + max passes each storing (and reloading) all of `out`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn union(inputs: &[&[u8; DENSE_BODY]], out: &mut Uninit<REGISTERS>) {
    // SAFETY: same CPU requirement.
    unsafe { union_with::<Shift>(inputs, out) }
}

/// [`union`], with the groups of one body split by `S` (the groups of two
/// to four never split per body, so they take the [`Shift`] instance
/// whatever `S`).
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn union_with<S: Split>(
    inputs: &[&[u8; DENSE_BODY]],
    out: &mut Uninit<REGISTERS>,
) {
    let o = out.as_mut_ptr().cast::<u8>();
    let mut groups = inputs.chunks(4);
    let Some(first) = groups.next() else {
        out.fill(core::mem::MaybeUninit::new(0));
        return;
    };
    let p = |k: usize, g: &[&[u8; DENSE_BODY]]| g[k].as_ptr();
    // SAFETY: every call below needs AVX2, as ours does; each body is
    // DENSE_BODY bytes; `o` is 16384 writable bytes, read (`MAX`) only
    // after the first group wrote all of them.
    unsafe {
        match first.len() {
            1 => union_to::<1, false, S>([p(0, first)], o),
            2 => union_to::<2, false, Shift>([p(0, first), p(1, first)], o),
            3 => union_to::<3, false, Shift>([p(0, first), p(1, first), p(2, first)], o),
            _ => {
                union_to::<4, false, Shift>([p(0, first), p(1, first), p(2, first), p(3, first)], o)
            }
        }
        for g in groups {
            match g.len() {
                1 => union_to::<1, true, S>([p(0, g)], o),
                2 => union_to::<2, true, Shift>([p(0, g), p(1, g)], o),
                3 => union_to::<3, true, Shift>([p(0, g), p(1, g), p(2, g)], o),
                _ => union_to::<4, true, Shift>([p(0, g), p(1, g), p(2, g), p(3, g)], o),
            }
        }
    }
}

/// The unpack loop: with `MAX`, `out[i] = max(out[i], register i)`, else
/// `out[i] = register i`; each step split by `S`.
///
/// # Safety
/// AVX2; `out` valid for 16384 bytes of writes, and of reads of
/// initialised bytes when `MAX`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn unpack_to<const MAX: bool, S: Split>(dense: &[u8; DENSE_BODY], out: *mut u8) {
    // SAFETY: `union_to` needs what our caller vouches for (AVX2, `out`
    // writable for 16384 bytes, initialised when `MAX`), and `dense` is
    // DENSE_BODY readable bytes.
    unsafe { union_to::<1, MAX, S>([dense.as_ptr()], out) }
}

/// `out[i] = max(register i of each of the `K` dense bodies at `src`)`,
/// with `MAX` also of `out[i]`: one pass, each body read once, `out`
/// written once (and read once with `MAX`).
///
/// Interior steps: one 32-byte load at p - 4 puts the step's 24 bytes in
/// place for both lanes (lane 0 holds p..p+12 at 4..16, lane 1 holds
/// p+12..p+24 at 0..12), so no cross-lane insert is needed. The first and
/// last steps would read 4 bytes out of bounds that way and use two
/// 16-byte loads instead (lane 0 then holds p..p+12 at 0..12).
///
/// # Safety
/// AVX2; each `src[k]` valid for `DENSE_BODY` bytes of reads; `out` as
/// for [`unpack_to`].
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn union_to<const K: usize, const MAX: bool, S: Split>(src: [*const u8; K], out: *mut u8) {
    let last = REGISTERS / REGS - 1;
    let edge = |c: usize| {
        let p = c * BYTES;
        let regs = |s: *const u8| {
            // SAFETY: p + 8 + 16 <= 12288 for c = 0 and c = last.
            let (lo, hi) = unsafe {
                (
                    _mm_loadu_si128(s.add(p).cast()),
                    _mm_loadu_si128(s.add(p + 8).cast()),
                )
            };
            set_lanes(lo, hi)
        };
        // SAFETY: AVX2 and the output buffer, as ours.
        unsafe { store_max::<K, MAX, S>(src.map(regs), 0, out, c) };
    };
    let step = |c: usize| {
        let regs = |s: *const u8| {
            // SAFETY: 1 <= c < last: 24c - 4 >= 0 and 24c + 28 <= 24 * 510
            // + 28 <= 12288.
            unsafe { _mm256_loadu_si256(s.add(c * BYTES - 4).cast()) }
        };
        // SAFETY: AVX2 and the output buffer, as ours.
        unsafe { store_max::<K, MAX, S>(src.map(regs), 4, out, c) };
    };
    edge(0);
    // Eight steps per loop iteration: measured faster than one, four or
    // sixteen.
    let mut c = 1;
    while c + 8 <= last {
        for k in 0..8 {
            step(c + k);
        }
        c += 8;
    }
    while c < last {
        step(c);
        c += 1;
    }
    edge(last);
}

#[inline(always)]
fn set_lanes(lo: __m128i, hi: __m128i) -> __m256i {
    // SAFETY: the callers are AVX2 functions (target features inherited).
    unsafe { _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi) }
}

/// How the unpack loop splits one body's step into its 32 registers as
/// bytes; the loop is generic over it, so a set with another split (the
/// `avx2-mul` set) runs this file's loop without this file naming it.
pub(super) trait Split {
    /// The 32 registers of one step as bytes, from the dense bytes loaded
    /// in `x` in layout `off0` (see [`pair_words`]).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    unsafe fn split_pairs(x: __m256i, off0: i8) -> __m256i;
}

/// This set's split: [`split_pairs`].
pub(super) enum Shift {}

impl Split for Shift {
    #[inline(always)]
    unsafe fn split_pairs(x: __m256i, off0: i8) -> __m256i {
        // SAFETY: the caller guarantees AVX2.
        unsafe { split_pairs(x, off0) }
    }
}

/// Stores the register-wise max of the steps of `K` bodies loaded in `x`
/// (layout `off0`, see [`split_pairs`]) and, with `MAX`, of the 32 bytes
/// there, at `out + 32c`. One body: `S`'s split ([`Shift`]:
/// [`split_pairs`]). More: each body's [`pair_fields`] maxed as 16-bit
/// lanes, split into bytes once (three ALU operations per body and two per
/// max, against seven and one: for three bodies 19 operations per step
/// instead of 23).
///
/// # Safety
/// AVX2; `c < 512`; `out` as for [`unpack_to`].
#[inline(always)]
unsafe fn store_max<const K: usize, const MAX: bool, S: Split>(
    x: [__m256i; K],
    off0: i8,
    out: *mut u8,
    c: usize,
) {
    // SAFETY: the callers are AVX2 functions (target features inherited);
    // 32c + 32 <= 16384, read only when initialised (the caller).
    unsafe {
        let o = out.add(c * REGS).cast::<__m256i>();
        let mut v = if K == 1 {
            S::split_pairs(x[0], off0)
        } else {
            let [mut a, mut b] = pair_fields(pair_words(x[0], off0));
            for y in &x[1..] {
                let [ya, yb] = pair_fields(pair_words(*y, off0));
                a = _mm256_max_epu16(a, ya);
                b = _mm256_max_epu16(b, yb);
            }
            join_fields([a, b])
        };
        if MAX {
            v = _mm256_max_epu8(v, _mm256_loadu_si256(o));
        }
        _mm256_storeu_si256(o, v);
    }
}

/// The 32 registers of one step: lane 0 of `x` holds the first 12 dense
/// bytes from byte `off0` on, lane 1 the next 12 from byte `4 - off0`
/// (`off0` is 4 for one load at p - 4, 0 for the two-load layout). Each
/// 16-bit lane gets the two bytes holding a pair of registers (12 bits, at
/// bit 0 for even pairs, bit 4 for odd ones); odd pairs shift down by 4,
/// then the second register of the pair moves from bit 6 to bit 8. Six ALU
/// operations per 32 registers after the shuffle, against ten for
/// spreading 24-bit words with per-field shifts and masks. (Aligning both
/// pairs with one `vpmullw` by 16 / 1 and splitting with `p + 3 (p &
/// 0xfc0)` is one µop fewer: the `avx2-mul` set, faster on Intel once
/// LLVM is kept from rewriting the multiplies, see
/// [`super::avx2_mul`]; AMD cores were measured with this eight-µop form
/// only, and keep it. On Zen
/// 1 one `vpmullw` in place of the `vpsllw` measured the same, 1274
/// against 1278-1283 ns per `unpack_max`.)
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
unsafe fn split_pairs(x: __m256i, off0: i8) -> __m256i {
    // SAFETY: the callers are AVX2 functions (target features inherited).
    unsafe {
        let t = pair_words(x, off0);
        let t = _mm256_blend_epi16::<0xaa>(t, _mm256_srli_epi16::<4>(t));
        // lo | hi << 8 from the 12-bit pair lo | hi << 6 (junk above).
        _mm256_or_si256(
            _mm256_and_si256(t, _mm256_set1_epi16(0x003f)),
            _mm256_and_si256(_mm256_slli_epi16::<2>(t), _mm256_set1_epi16(0x3f00)),
        )
    }
}

/// The in-lane byte shuffle of [`split_pairs`]: each 16-bit lane gets the
/// two bytes holding a pair of registers (at bit 0 in even lanes, bit 4 in
/// odd ones, junk in the other four bits).
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
pub(super) unsafe fn pair_words(x: __m256i, off0: i8) -> __m256i {
    let o1 = 4 - off0;
    let o = off0;
    // SAFETY: the callers are AVX2 functions (target features inherited).
    unsafe {
        let shuf = _mm256_setr_epi8(
            o,
            o + 1,
            o + 1,
            o + 2,
            o + 3,
            o + 4,
            o + 4,
            o + 5, //
            o + 6,
            o + 7,
            o + 7,
            o + 8,
            o + 9,
            o + 10,
            o + 10,
            o + 11, //
            o1,
            o1 + 1,
            o1 + 1,
            o1 + 2,
            o1 + 3,
            o1 + 4,
            o1 + 4,
            o1 + 5, //
            o1 + 6,
            o1 + 7,
            o1 + 7,
            o1 + 8,
            o1 + 9,
            o1 + 10,
            o1 + 10,
            o1 + 11,
        );
        _mm256_shuffle_epi8(x, shuf)
    }
}

/// The two registers of each pair in [`pair_words`]' lanes, masked in
/// place: the first (bits 0..6 in even lanes, 4..10 in odd ones) and the
/// second (bits 6..12, 10..16). Either one's 16-bit lanes order like the
/// register they hold, so a union maxes them as 16-bit words and splits
/// the result into bytes once ([`join_fields`]) instead of once per body.
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
unsafe fn pair_fields(t: __m256i) -> [__m256i; 2] {
    // SAFETY: the callers are AVX2 functions (target features inherited).
    unsafe {
        [
            _mm256_and_si256(t, _mm256_set1_epi32(0x03f0_003f)),
            _mm256_and_si256(t, _mm256_set1_epi32(0xfc00_0fc0_u32 as i32)),
        ]
    }
}

/// Registers as bytes from [`pair_fields`]' two masks: even lanes `a | b
/// << 2`, odd lanes `a >> 4 | b >> 2`.
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
unsafe fn join_fields([a, b]: [__m256i; 2]) -> __m256i {
    // SAFETY: the callers are AVX2 functions (target features inherited).
    unsafe {
        let even = _mm256_or_si256(a, _mm256_slli_epi16::<2>(b));
        let odd = _mm256_or_si256(_mm256_srli_epi16::<4>(a), _mm256_srli_epi16::<2>(b));
        _mm256_blend_epi16::<0xaa>(even, odd)
    }
}

/// Packs the 32 registers at `p` (low 6 bits of each byte): each 128-bit
/// lane's 16 registers become its bytes 0..12 (bytes 12..16 are junk).
///
/// The junk is copies of byte 12, not zeros: with zeros there (`pshufb`
/// index -1) LLVM knows the top dword of the high lane is zero, and after
/// the `pext` pack's `vpermd` (which moves it to the top) it added a
/// `vpblendd` with zero, one more µop per step on the vector pipes that
/// bound that kernel (4-5% slower on Zen 4).
///
/// # Safety
/// AVX2; `p` valid for 32 bytes of reads.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn pack_lanes(p: *const u8) -> __m256i {
    let six = _mm256_set1_epi8(0x3f);
    let pair = _mm256_set1_epi16(0x4001); // bytes (1, 64): r0 + 64 r1
    let quad = _mm256_set1_epi32(0x1000_0001); // words (1, 4096)
    let shuf = _mm256_setr_epi8(
        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 12, 12, 12, 12, //
        0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 12, 12, 12, 12,
    );
    // SAFETY: the caller vouches for 32 readable bytes.
    let x = _mm256_and_si256(unsafe { _mm256_loadu_si256(p.cast()) }, six);
    let w = _mm256_madd_epi16(_mm256_maddubs_epi16(x, pair), quad);
    _mm256_shuffle_epi8(w, shuf)
}

/// Packs raw registers (low 6 bits of each byte) into the dense body.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn pack(raw: &[u8; REGISTERS], dense: &mut Uninit<DENSE_BODY>) {
    // SAFETY: 32c + 32 <= 16384 (c < 512); AVX2 as ours.
    let step = |c: usize| unsafe { pack_lanes(raw.as_ptr().add(c * REGS)) };
    let last = REGISTERS / REGS - 1;
    let out = dense.as_mut_ptr().cast::<u8>();
    // Each lane holds 12 result bytes and 4 junk bytes; stored at 24c and
    // 24c + 12 with 16-byte stores, the junk is overwritten by the next
    // store (no cross-lane permute; the high lane goes out with
    // `vextracti128 m128`, which needs no shuffle µop on Intel).
    let store = |c: usize, b: __m256i| {
        // SAFETY: 24c + 12 + 16 <= 24 * 510 + 28 <= 12288 (c < last).
        unsafe {
            let o = out.add(c * BYTES);
            _mm_storeu_si128(o.cast(), _mm256_castsi256_si128(b));
            _mm_storeu_si128(o.add(12).cast(), _mm256_extracti128_si256::<1>(b));
        }
    };
    // Four steps per iteration: the loop body is then long enough that
    // its placement in the instruction cache stops mattering (the one-step
    // loop measured 1.6 or 2.1 cycles per step on Zen 5 depending only on
    // its code alignment; this one 1.55 at every alignment tried).
    let mut c = 0;
    while c + 4 <= last {
        let (b0, b1, b2, b3) = (step(c), step(c + 1), step(c + 2), step(c + 3));
        store(c, b0);
        store(c + 1, b1);
        store(c + 2, b2);
        store(c + 3, b3);
        c += 4;
    }
    while c < last {
        store(c, step(c));
        c += 1;
    }
    let b = step(last);
    // SAFETY: the last 24 bytes: 12 (of a 16-byte store) at 12264, then 8
    // + 4 at 12276 and 12284.
    unsafe {
        let o = out.add(last * BYTES);
        let hi = _mm256_extracti128_si256::<1>(b);
        _mm_storeu_si128(o.cast(), _mm256_castsi256_si128(b));
        _mm_storel_epi64(o.add(12).cast(), hi);
        core::ptr::write_unaligned(o.add(20).cast::<i32>(), _mm_extract_epi32::<2>(hi));
    }
}

/// Histogram of the dense registers: unpack into a scratch array, then
/// count it.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn histogram_dense(dense: &[u8; DENSE_BODY]) -> [u32; 64] {
    // SAFETY: same CPU requirement.
    unsafe { histogram_dense_with::<Shift>(dense) }
}

/// [`histogram_dense`], with the unpack split by `S`.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn histogram_dense_with<S: Split>(dense: &[u8; DENSE_BODY]) -> [u32; 64] {
    let mut raw = Aligned(uninit());
    // SAFETY: raw is 16384 writable bytes, only written; same CPU
    // requirement as ours.
    unsafe { unpack_to::<false, S>(dense, raw.0.as_mut_ptr().cast()) };
    // SAFETY: unpack wrote every byte; same CPU requirement as ours.
    unsafe { histogram_raw(assume_init(&mut raw.0)) }
}

/// Values counted by the vector loop: a window of `WINDOW` values from a
/// base picked from the mean register; registers outside it (rare: the
/// geometric tail) are counted one by one.
const WINDOW: u8 = 12;

/// Vectors counted into the nibble counters before they are widened (a
/// nibble holds at most 15).
const ROUND: usize = 15;

/// One vector in this many picks the window.
const SAMPLE: usize = 8;

/// The `vpshufb` tables of [`histogram_raw`], the same in both lanes: table
/// `j` holds 1 and 16 at indices `2j + 4` and `2j + 5` (`d + 4` for
/// `d = 2j, 2j + 1`), 0 elsewhere.
static NIBBLE_TABLES: [[u8; 32]; WINDOW as usize / 2] = {
    let mut t = [[0u8; 32]; WINDOW as usize / 2];
    let mut j = 0;
    while j < t.len() {
        t[j][2 * j + 4] = 1;
        t[j][2 * j + 5] = 16;
        t[j][16 + 2 * j + 4] = 1;
        t[j][16 + 2 * j + 5] = 16;
        j += 1;
    }
    t
};

/// Histogram of raw registers (values `0..=63`).
///
/// Per 32 registers: `d = x - base`, and `idx = d + (0x80 - WINDOW)` with
/// unsigned saturation, whose top bit is set exactly for the registers
/// outside the window (`d >= WINDOW`, or `x < base`, which wraps). Six
/// `vpshufb` lookups on `idx` (low nibble `d + 4`) give, per register, 1 in
/// the low nibble of table `j` if `d == 2j`, 16 if `d == 2j + 1`; added
/// into six byte accumulators, each byte holds two 4-bit counters, widened
/// every [`ROUND`] vectors by `vpmaddubsw` into 16-bit sums of the whole
/// bytes and of the low nibbles. That is two operations per pair of
/// values per vector, where one `cmpeq` + `sub` per value cost four.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn histogram_raw(raw: &[u8; REGISTERS]) -> [u32; 64] {
    const PAIRS: usize = WINDOW as usize / 2;
    let vecs = REGISTERS / REGS;
    let load = |i: usize| {
        // SAFETY: i < 512, so 32i + 32 <= 16384.
        unsafe { _mm256_loadu_si256(raw.as_ptr().add(i * REGS).cast()) }
    };
    // Window start: the mean minus 4 (register values are roughly geometric
    // around log2(n / m), so most fall in [mean - 4, mean + 8)), the mean
    // of every eighth vector (2048 registers; registers are independent, a
    // worse window only sends more of them down the slow path).
    let zero = _mm256_setzero_si256();
    let mut sums = zero;
    for i in (0..vecs).step_by(SAMPLE) {
        sums = _mm256_add_epi64(sums, _mm256_sad_epu8(load(i), zero));
    }
    let mut s = [0u64; 4];
    // SAFETY: `s` is 32 bytes.
    unsafe { _mm256_storeu_si256(s.as_mut_ptr().cast(), sums) };
    let mean = (s.iter().sum::<u64>() / (REGISTERS / SAMPLE) as u64) as u8;
    let base = mean.saturating_sub(4).min(64 - WINDOW);

    let tables: [__m256i; PAIRS] = core::array::from_fn(|j| {
        // SAFETY: each table is 32 bytes.
        unsafe { _mm256_loadu_si256(NIBBLE_TABLES[j].as_ptr().cast()) }
    });
    let basev = _mm256_set1_epi8(base as i8);
    let offset = _mm256_set1_epi8((0x80 - WINDOW) as i8);
    let nibbles = _mm256_set1_epi8(0x0f);
    let ones = _mm256_set1_epi8(1);
    // Per pair of values, 16-bit lane sums of the accumulator bytes (`low
    // nibble + 16 high nibble`) and of their low nibbles alone: the high
    // nibbles' sum is (whole - low) / 16. A lane gains at most 2 * 255 per
    // round, 35 rounds: no overflow.
    let mut whole = [zero; PAIRS];
    let mut low = [zero; PAIRS];
    // Vectors with a register outside the window, counted after the loop
    // (no branch on them inside it).
    let mut slow = [0u16; REGISTERS / REGS];
    let mut slow_len = 0;
    let mut i = 0;
    while i < vecs {
        let end = (i + ROUND).min(vecs);
        let mut acc = [zero; PAIRS];
        while i < end {
            let x = load(i);
            let idx = _mm256_adds_epu8(_mm256_sub_epi8(x, basev), offset);
            slow[slow_len] = i as u16;
            slow_len += usize::from(_mm256_movemask_epi8(idx) != 0);
            for (a, t) in acc.iter_mut().zip(&tables) {
                *a = _mm256_add_epi8(*a, _mm256_shuffle_epi8(*t, idx));
            }
            i += 1;
        }
        for j in 0..PAIRS {
            let a = acc[j];
            whole[j] = _mm256_add_epi16(whole[j], _mm256_maddubs_epi16(a, ones));
            low[j] = _mm256_add_epi16(
                low[j],
                _mm256_maddubs_epi16(_mm256_and_si256(a, nibbles), ones),
            );
        }
    }
    let mut h = [0u32; 64];
    for &v in &slow[..slow_len] {
        let v = usize::from(v);
        let x = load(v);
        let idx = _mm256_adds_epu8(_mm256_sub_epi8(x, basev), offset);
        let mut bits = _mm256_movemask_epi8(idx) as u32;
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            h[usize::from(raw[v * REGS + j] & 63)] += 1;
            bits &= bits - 1;
        }
    }
    let lanes = |w: __m256i| {
        let mut q = [0u16; 16];
        // SAFETY: `q` is 32 bytes.
        unsafe { _mm256_storeu_si256(q.as_mut_ptr().cast(), w) };
        q.iter().map(|&x| u32::from(x)).sum::<u32>()
    };
    for j in 0..PAIRS {
        let (w, l) = (lanes(whole[j]), lanes(low[j]));
        h[usize::from(base) + 2 * j] += l;
        h[usize::from(base) + 2 * j + 1] += (w - l) / 16;
    }
    h
}

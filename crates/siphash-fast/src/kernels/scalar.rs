//! The portable SipHash-c-d core: state, rounds, message words, and the
//! scalar one-shot and batch kernels built on it.
//!
//! Every other kernel shares [`State`] (as the per-lane reference) and
//! [`final_word`]. How a message word is read from memory is a [`Loader`]:
//! [`Native`] uses `u64::from_le_bytes`, which is one unaligned load (`mov`,
//! `ldr`) on x86_64 and aarch64, and on riscv64 eight `lbu` plus shifts unless
//! the target enables `unaligned-scalar-mem` (then one `ld`). The riscv64 word
//! loader lives in `kernels/riscv64.rs`.

/// The SipHash state `v0..v3`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct State {
    pub(crate) v0: u64,
    pub(crate) v1: u64,
    pub(crate) v2: u64,
    pub(crate) v3: u64,
}

/// The two key words: the 16 key bytes as two little-endian `u64`.
#[inline(always)]
pub(crate) const fn keys(key: &[u8; 16]) -> (u64, u64) {
    let k0 = u64::from_le_bytes([
        key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
    ]);
    let k1 = u64::from_le_bytes([
        key[8], key[9], key[10], key[11], key[12], key[13], key[14], key[15],
    ]);
    (k0, k1)
}

impl State {
    /// The initial state; `wide` selects the 128-bit variant (`v1 ^= 0xee`).
    #[inline(always)]
    pub(crate) const fn new(k0: u64, k1: u64, wide: bool) -> State {
        State {
            v0: k0 ^ 0x736f_6d65_7073_6575,
            v1: k1 ^ 0x646f_7261_6e64_6f6d ^ if wide { 0xee } else { 0 },
            v2: k0 ^ 0x6c79_6765_6e65_7261,
            v3: k1 ^ 0x7465_6462_7974_6573,
        }
    }

    /// One SipRound. Written as two half-rounds whose independent pairs
    /// (v0/v1 and v2/v3) the CPU overlaps.
    #[inline(always)]
    pub(crate) fn round(&mut self) {
        self.v0 = self.v0.wrapping_add(self.v1);
        self.v2 = self.v2.wrapping_add(self.v3);
        self.v1 = self.v1.rotate_left(13) ^ self.v0;
        self.v3 = self.v3.rotate_left(16) ^ self.v2;
        self.v0 = self.v0.rotate_left(32);
        self.v2 = self.v2.wrapping_add(self.v1);
        self.v0 = self.v0.wrapping_add(self.v3);
        self.v1 = self.v1.rotate_left(17) ^ self.v2;
        self.v3 = self.v3.rotate_left(21) ^ self.v0;
        self.v2 = self.v2.rotate_left(32);
    }

    /// Absorbs one message word with `C` rounds.
    #[inline(always)]
    pub(crate) fn compress<const C: usize>(&mut self, m: u64) {
        self.v3 ^= m;
        for _ in 0..C {
            self.round();
        }
        self.v0 ^= m;
    }

    /// The 64-bit result after `D` finalization rounds.
    #[inline(always)]
    pub(crate) fn finish64<const D: usize>(mut self) -> u64 {
        self.v2 ^= 0xff;
        for _ in 0..D {
            self.round();
        }
        self.v0 ^ self.v1 ^ self.v2 ^ self.v3
    }

    /// The 128-bit result (first output half in the low 64 bits, so the
    /// `u128`'s little-endian bytes are the reference output bytes).
    #[inline(always)]
    pub(crate) fn finish128<const D: usize>(mut self) -> u128 {
        self.v2 ^= 0xee;
        for _ in 0..D {
            self.round();
        }
        let lo = self.v0 ^ self.v1 ^ self.v2 ^ self.v3;
        self.v1 ^= 0xdd;
        for _ in 0..D {
            self.round();
        }
        let hi = self.v0 ^ self.v1 ^ self.v2 ^ self.v3;
        u128::from(lo) | (u128::from(hi) << 64)
    }
}

/// ASCII `A`-`Z` to `a`-`z` in all eight bytes of a word at once (Redis's
/// `siphash_nocase` folds with `tolower()` in the C locale: only ASCII
/// letters change, bytes from 0x80 up stay).
///
/// SWAR: with the top bit cleared, adding 0x3f sets bit 7 exactly for bytes
/// from 0x41 ('A') up and adding 0x25 sets it for bytes from 0x5b (past 'Z');
/// no carry crosses a byte because 0x7f + 0x3f < 0x100. Bytes whose own top bit
/// was set are excluded, and bit 7 shifted down by 2 is the 0x20 case bit.
#[inline(always)]
pub(crate) const fn fold_ascii(x: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let low = x & LOW7;
    let ge_a = low + 0x3f3f_3f3f_3f3f_3f3f;
    let gt_z = low + 0x2525_2525_2525_2525;
    let upper = ge_a & !gt_z & !x & HIGH;
    x | (upper >> 2)
}

/// How message words are read from memory.
pub(crate) trait Loader {
    /// The little-endian word in `b`.
    fn word(b: &[u8; 8]) -> u64;

    /// The word at `data[at..at + 8]` (panics if out of bounds).
    #[inline(always)]
    fn word_at(data: &[u8], at: usize) -> u64 {
        let b: [u8; 8] = simd_core::load::array(data, at);
        Self::word(&b)
    }

    /// Fewer than 8 bytes as a zero-extended little-endian word.
    fn small(b: &[u8]) -> u64;

    /// Absorbs every 8-byte block of `data` (`data.len()` is a multiple of 8).
    #[inline(always)]
    fn blocks<const C: usize, const FOLD: bool>(s: &mut State, data: &[u8]) {
        for chunk in data.chunks_exact(8) {
            let m = Self::word(chunk.try_into().expect("chunks_exact(8)"));
            s.compress::<C>(if FOLD { fold_ascii(m) } else { m });
        }
    }
}

/// Plain Rust loads: one unaligned load per word on x86_64 and aarch64.
pub(crate) struct Native;

impl Loader for Native {
    #[inline(always)]
    fn word(b: &[u8; 8]) -> u64 {
        u64::from_le_bytes(*b)
    }

    #[inline(always)]
    fn small(b: &[u8]) -> u64 {
        simd_core::load::tail_u64_le(b)
    }
}

/// The last message word: the `len % 8` trailing bytes, zero-extended, with
/// the length's low byte in the top byte.
///
/// When the input has at least 8 bytes the tail is one load of the last 8
/// bytes shifted right (overlapping the previous block), otherwise at most
/// two overlapping small loads: never a byte loop, never past the end.
#[inline(always)]
pub(crate) fn final_word<L: Loader, const FOLD: bool>(data: &[u8]) -> u64 {
    let len = data.len();
    let rem = len % 8;
    let tail = if len >= 8 {
        // A branch, not a select: it skips the load when the tail is empty,
        // and lengths repeat in practice (keys of one size), so it predicts.
        if rem == 0 {
            0
        } else {
            L::word_at(data, len - 8) >> (64 - 8 * rem as u32)
        }
    } else {
        L::small(data)
    };
    let tail = if FOLD { fold_ascii(tail) } else { tail };
    tail | ((len as u64) << 56)
}

/// SipHash-C-D of `data`, 64-bit.
#[inline(always)]
pub(crate) fn hash64<L: Loader, const C: usize, const D: usize, const FOLD: bool>(
    key: &[u8; 16],
    data: &[u8],
) -> u64 {
    let (k0, k1) = keys(key);
    let mut s = State::new(k0, k1, false);
    L::blocks::<C, FOLD>(&mut s, &data[..data.len() & !7]);
    s.compress::<C>(final_word::<L, FOLD>(data));
    s.finish64::<D>()
}

/// SipHash-C-D of `data`, 128-bit.
#[inline(always)]
pub(crate) fn hash128<L: Loader, const C: usize, const D: usize>(
    key: &[u8; 16],
    data: &[u8],
) -> u128 {
    let (k0, k1) = keys(key);
    let mut s = State::new(k0, k1, true);
    L::blocks::<C, false>(&mut s, &data[..data.len() & !7]);
    s.compress::<C>(final_word::<L, false>(data));
    s.finish128::<D>()
}

/// Batch by one-shots, the reference every SIMD batch kernel is tested
/// against.
#[inline(always)]
pub(crate) fn batch<L: Loader, const C: usize, const D: usize>(
    key: &[u8; 16],
    inputs: &[&[u8]],
    out: &mut [u64],
) {
    for (o, data) in out.iter_mut().zip(inputs) {
        *o = hash64::<L, C, D, false>(key, data);
    }
}

/// The one-shot functions of the scalar kernel, as the safe inline code the
/// public API calls directly on x86_64 and aarch64 (no dispatch: one SipHash
/// is a serial dependency chain that SIMD does not shorten).
pub(crate) mod oneshot {
    use super::{hash128, hash64, Native};

    /// SipHash-1-2.
    #[inline]
    pub(crate) fn sip12(key: &[u8; 16], data: &[u8]) -> u64 {
        hash64::<Native, 1, 2, false>(key, data)
    }
    /// SipHash-1-2 of the ASCII-lowercased input.
    #[inline]
    pub(crate) fn sip12_nocase(key: &[u8; 16], data: &[u8]) -> u64 {
        hash64::<Native, 1, 2, true>(key, data)
    }
    /// SipHash-1-3.
    #[inline]
    pub(crate) fn sip13(key: &[u8; 16], data: &[u8]) -> u64 {
        hash64::<Native, 1, 3, false>(key, data)
    }
    /// SipHash-2-4.
    #[inline]
    pub(crate) fn sip24(key: &[u8; 16], data: &[u8]) -> u64 {
        hash64::<Native, 2, 4, false>(key, data)
    }
    /// SipHash-1-3, 128-bit.
    #[inline]
    pub(crate) fn sip13_128(key: &[u8; 16], data: &[u8]) -> u128 {
        hash128::<Native, 1, 3>(key, data)
    }
    /// SipHash-2-4, 128-bit.
    #[inline]
    pub(crate) fn sip24_128(key: &[u8; 16], data: &[u8]) -> u128 {
        hash128::<Native, 2, 4>(key, data)
    }
}

/// The scalar kernel's function table.
pub(crate) const FNS: super::Fns = super::Fns {
    sip12: |k, d| hash64::<Native, 1, 2, false>(k, d),
    sip12_nocase: |k, d| hash64::<Native, 1, 2, true>(k, d),
    sip13: |k, d| hash64::<Native, 1, 3, false>(k, d),
    sip24: |k, d| hash64::<Native, 2, 4, false>(k, d),
    sip13_128: |k, d| hash128::<Native, 1, 3>(k, d),
    sip24_128: |k, d| hash128::<Native, 2, 4>(k, d),
    batch12: |k, i, o| batch::<Native, 1, 2>(k, i, o),
    batch13: |k, i, o| batch::<Native, 1, 3>(k, i, o),
    batch24: |k, i, o| batch::<Native, 2, 4>(k, i, o),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_matches_bytewise() {
        for b in 0..=255u8 {
            let w = u64::from_le_bytes([b, b'A', b'Z', b'a', b'@', b'[', 0xc1, b]);
            let want = u64::from_le_bytes(
                [b, b'A', b'Z', b'a', b'@', b'[', 0xc1, b].map(|c| c.to_ascii_lowercase()),
            );
            assert_eq!(fold_ascii(w), want, "byte {b:#x}");
        }
    }

    #[test]
    fn reference_vector_len0() {
        let key: [u8; 16] = core::array::from_fn(|i| i as u8);
        assert_eq!(
            hash64::<Native, 2, 4, false>(&key, &[]),
            0x726f_db47_dd0e_0e31
        );
    }
}

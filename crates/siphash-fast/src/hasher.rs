//! Streaming SipHash (`core::hash::Hasher`) and the `BuildHasher` for maps.
//!
//! The streaming hasher keeps up to 7 pending bytes in a word; a `write`
//! first completes that word, then absorbs whole blocks straight from the
//! caller's slice with the same block loop as the one-shot functions, so any
//! way of splitting the input gives the one-shot result. It always uses plain
//! Rust loads (on riscv64 byte loads unless the target enables
//! `unaligned-scalar-mem`).

use core::fmt;
use core::hash::{BuildHasher, Hasher};

use crate::kernels::scalar::{keys, Loader, Native, State};

/// SipHash-`C`-`D` as a streaming [`Hasher`] with a 64-bit result; use the
/// aliases [`SipHasher12`], [`SipHasher13`], [`SipHasher24`].
///
/// ```
/// use core::hash::Hasher;
/// let key = [7u8; 16];
/// let mut h = siphash_fast::SipHasher13::new_with_key(&key);
/// h.write(b"hello ");
/// h.write(b"world");
/// assert_eq!(h.finish(), siphash_fast::siphash13(&key, b"hello world"));
/// ```
#[derive(Clone)]
pub struct SipHasher<const C: usize, const D: usize> {
    state: State,
    /// Pending bytes (fewer than 8), little-endian, zero above `ntail`.
    tail: u64,
    ntail: usize,
    /// Total bytes written; only its low byte enters the hash.
    length: u64,
}

/// SipHash-1-2 (Redis's dict hash) as a streaming [`Hasher`].
pub type SipHasher12 = SipHasher<1, 2>;
/// SipHash-1-3 (std's `DefaultHasher` algorithm) as a streaming [`Hasher`].
pub type SipHasher13 = SipHasher<1, 3>;
/// SipHash-2-4 (the reference parameters) as a streaming [`Hasher`].
pub type SipHasher24 = SipHasher<2, 4>;

impl<const C: usize, const D: usize> SipHasher<C, D> {
    /// A hasher keyed with the 16 key bytes (two little-endian `u64`).
    #[inline]
    #[must_use]
    pub const fn new_with_key(key: &[u8; 16]) -> Self {
        let (k0, k1) = keys(key);
        Self::new_with_keys(k0, k1)
    }

    /// A hasher keyed with `k0`, `k1` (the key's two little-endian halves).
    #[inline]
    #[must_use]
    pub const fn new_with_keys(k0: u64, k1: u64) -> Self {
        SipHasher {
            state: State::new(k0, k1, false),
            tail: 0,
            ntail: 0,
            length: 0,
        }
    }
}

impl<const C: usize, const D: usize> fmt::Debug for SipHasher<C, D> {
    /// Shows the parameters and the length, never the keyed state.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SipHasher")
            .field("c", &C)
            .field("d", &D)
            .field("length", &self.length)
            .finish_non_exhaustive()
    }
}

impl<const C: usize, const D: usize> Hasher for SipHasher<C, D> {
    #[inline]
    fn write(&mut self, msg: &[u8]) {
        self.length = self.length.wrapping_add(msg.len() as u64);
        let mut msg = msg;
        if self.ntail != 0 {
            let need = 8 - self.ntail;
            if msg.len() < need {
                self.tail |= Native::small(msg) << (8 * self.ntail);
                self.ntail += msg.len();
                return;
            }
            let m = self.tail | (Native::small(&msg[..need]) << (8 * self.ntail));
            self.state.compress::<C>(m);
            msg = &msg[need..];
        }
        let full = msg.len() & !7;
        Native::blocks::<C, false>(&mut self.state, &msg[..full]);
        self.tail = Native::small(&msg[full..]);
        self.ntail = msg.len() - full;
    }

    #[inline]
    fn finish(&self) -> u64 {
        let mut s = self.state;
        s.compress::<C>(self.tail | (self.length << 56));
        s.finish64::<D>()
    }
}

/// Builds [`SipHasher`]s with one key: the `S` of a `HashMap<K, V, S>`. Use
/// the aliases [`BuildSipHasher12`], [`BuildSipHasher13`],
/// [`BuildSipHasher24`].
///
/// With `std`, [`Default`] and [`BuildSipHasher::new`] draw a random key (from
/// std's `RandomState`), which is what a map needs against flooding; a fixed
/// key ([`BuildSipHasher::with_key`]) gives reproducible hashes.
///
/// ```
/// use std::collections::HashMap;
/// let mut m: HashMap<&str, u32, siphash_fast::BuildSipHasher13> = HashMap::default();
/// m.insert("one", 1);
/// assert_eq!(m["one"], 1);
///
/// let fixed = siphash_fast::BuildSipHasher13::with_key(&[0; 16]);
/// let mut m = HashMap::with_hasher(fixed);
/// m.insert(1u64, "one");
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct BuildSipHasher<const C: usize, const D: usize> {
    k0: u64,
    k1: u64,
}

/// [`BuildHasher`] of [`SipHasher12`].
pub type BuildSipHasher12 = BuildSipHasher<1, 2>;
/// [`BuildHasher`] of [`SipHasher13`].
pub type BuildSipHasher13 = BuildSipHasher<1, 3>;
/// [`BuildHasher`] of [`SipHasher24`].
pub type BuildSipHasher24 = BuildSipHasher<2, 4>;

impl<const C: usize, const D: usize> BuildSipHasher<C, D> {
    /// A builder with a fixed key (16 bytes, two little-endian `u64`).
    #[must_use]
    pub const fn with_key(key: &[u8; 16]) -> Self {
        let (k0, k1) = keys(key);
        BuildSipHasher { k0, k1 }
    }

    /// A builder with fixed key words `k0`, `k1`.
    #[must_use]
    pub const fn with_keys(k0: u64, k1: u64) -> Self {
        BuildSipHasher { k0, k1 }
    }

    /// A builder with a random key, drawn through std's `RandomState` (the
    /// OS random source, per-thread keys advanced on every call).
    #[cfg(feature = "std")]
    #[must_use]
    pub fn new() -> Self {
        let s = std::collections::hash_map::RandomState::new();
        BuildSipHasher {
            k0: s.hash_one(0x243f_6a88_85a3_08d3_u64),
            k1: s.hash_one(0x1319_8a2e_0370_7344_u64),
        }
    }

    /// The key, as the 16 bytes [`BuildSipHasher::with_key`] takes.
    #[must_use]
    pub fn key(&self) -> [u8; 16] {
        let mut k = [0u8; 16];
        k[..8].copy_from_slice(&self.k0.to_le_bytes());
        k[8..].copy_from_slice(&self.k1.to_le_bytes());
        k
    }
}

#[cfg(feature = "std")]
impl<const C: usize, const D: usize> Default for BuildSipHasher<C, D> {
    /// A random key: see [`BuildSipHasher::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl<const C: usize, const D: usize> fmt::Debug for BuildSipHasher<C, D> {
    /// Never shows the key.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuildSipHasher")
            .field("c", &C)
            .field("d", &D)
            .finish_non_exhaustive()
    }
}

impl<const C: usize, const D: usize> BuildHasher for BuildSipHasher<C, D> {
    type Hasher = SipHasher<C, D>;

    #[inline]
    fn build_hasher(&self) -> SipHasher<C, D> {
        SipHasher::new_with_keys(self.k0, self.k1)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::format;

    /// `Debug` names the variant and the length hashed so far, and shows no
    /// key material (a key 0x1111.. would print as 1229782938247303441).
    #[test]
    fn debug_shows_parameters_not_the_key() {
        let key = [0x11; 16];
        let mut h = SipHasher13::new_with_key(&key);
        h.write(b"hello");
        let s = format!("{h:?}");
        assert_eq!(s, "SipHasher { c: 1, d: 3, length: 5, .. }");
        let b = BuildSipHasher24::with_key(&key);
        assert_eq!(format!("{b:?}"), "BuildSipHasher { c: 2, d: 4, .. }");
    }
}

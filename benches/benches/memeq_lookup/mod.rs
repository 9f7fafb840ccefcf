//! The DPDK-style lookup table shared by the `memeq/lookup` benchmark
//! (`benches/memeq.rs`) and the min-of-N harness
//! (`examples/memeq_timing.rs`): one table, hash, key sets and bulk lookup,
//! and the `bound:first-byte` / `bound:first-last` stand-ins, so both
//! measure the same code. Only
//! the key compare passed to [`Table::lookup_bulk`] differs between the
//! variants.

use simd_core::testing::Rng;

/// Keys in the table.
pub const KEYS: usize = 1 << 20;
/// Lookups per pass.
pub const QUERIES: usize = 1 << 14;

/// The table's hash (the same for both variants): 8-byte words (overlapping
/// tail) folded with a multiply, then a final mix.
#[inline(always)]
pub fn hash(key: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let n = key.len();
    let mut h = (n as u64).wrapping_mul(K);
    let word = |i: usize| u64::from_le_bytes(key[i..i + 8].try_into().unwrap());
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            h = (h ^ word(i)).wrapping_mul(K).rotate_left(29);
            i += 8;
        }
        h = (h ^ word(n - 8)).wrapping_mul(K);
    } else {
        let mut w = 0u64;
        for (i, &x) in key.iter().enumerate() {
            w |= u64::from(x) << (8 * i);
        }
        h = (h ^ w).wrapping_mul(K);
    }
    h ^ (h >> 32)
}

/// Open addressing, linear probing, 2^21 slots for 1M keys (load 0.48).
/// A slot is `offset:32 | len:8 | tag:16` into one key arena (0 = empty;
/// keys are never empty, so an occupied slot is never 0); the 16-bit tag (as
/// DPDK's short signature) skips most key compares of other keys.
pub struct Table {
    slots: Vec<u64>,
    arena: Vec<u8>,
    mask: usize,
}

fn tag(h: u64) -> u64 {
    (h >> 48) & 0xffff
}

impl Table {
    /// A table holding `keys` (none empty, each at most 255 bytes).
    pub fn build(keys: &[&[u8]]) -> Table {
        let cap = (keys.len() * 2).next_power_of_two();
        let mut t = Table {
            slots: vec![0; cap],
            arena: Vec::new(),
            mask: cap - 1,
        };
        for k in keys {
            let h = hash(k);
            let mut pos = h as usize & t.mask;
            while t.slots[pos] != 0 {
                pos = (pos + 1) & t.mask;
            }
            let off = t.arena.len() as u64;
            t.arena.extend_from_slice(k);
            t.slots[pos] = off | ((k.len() as u64) << 32) | (tag(h) << 40);
        }
        t
    }

    #[inline(always)]
    fn key(&self, slot: u64) -> &[u8] {
        let off = (slot & 0xffff_ffff) as usize;
        let len = ((slot >> 32) & 0xff) as usize;
        &self.arena[off..off + len]
    }

    /// Bulk lookup in batches of 16 (DPDK's pipeline): hash all and prefetch
    /// their first slots; read the first slots and prefetch the candidate
    /// keys; then probe and compare. Returns how many were found.
    #[inline(always)]
    pub fn lookup_bulk(&self, queries: &[&[u8]], eq: impl Fn(&[u8], &[u8]) -> bool) -> usize {
        const B: usize = 16;
        let mut found = 0;
        for batch in queries.chunks(B) {
            let mut hs = [0u64; B];
            for (h, q) in hs.iter_mut().zip(batch) {
                *h = hash(q);
                simd_core::prefetch_read(
                    self.slots
                        .as_ptr()
                        .wrapping_add(*h as usize & self.mask)
                        .cast(),
                );
            }
            for h in &hs[..batch.len()] {
                let s = self.slots[*h as usize & self.mask];
                if s != 0 && (s >> 40) == tag(*h) {
                    simd_core::prefetch_read(
                        self.arena.as_ptr().wrapping_add((s & 0xffff_ffff) as usize),
                    );
                }
            }
            for (h, q) in hs.iter().zip(batch) {
                let t = tag(*h);
                let mut pos = *h as usize & self.mask;
                loop {
                    let s = self.slots[pos];
                    if s == 0 {
                        break;
                    }
                    if (s >> 40) == t && eq(self.key(s), q) {
                        found += 1;
                        break;
                    }
                    pos = (pos + 1) & self.mask;
                }
            }
        }
        found
    }
}

/// The `bound:first-byte` stand-in (the criterion rows in `memeq/lookup`
/// and `memeq/eq-mixed*`, and the harness's third column): the lengths and
/// the first byte only. Not a correct compare: it still waits for both
/// inputs to arrive, as any correct compare must, but compares almost
/// nothing, so how much less time it takes than `==` bounds what any
/// compare, however fast, could save.
#[inline(always)]
pub fn first_byte(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.first() == b.first()
}

/// The `bound:first-last` stand-in (the criterion rows in `memeq/lookup`
/// and the harness's fourth column): the lengths, the first and the last
/// byte. Not a correct compare either, but unlike [`first_byte`] it waits
/// for every cache line a key spans (a key of up to 64 bytes spans at most
/// two, holding its first and its last byte), as a correct compare must,
/// and does less work than any correct compare: how much less time it
/// takes than `==` bounds what a correct compare could save more tightly.
/// (In the arena a 32- or 64-byte key often straddles two lines and only
/// the first is prefetched, so `first_byte` skips a cache miss that every
/// correct compare pays.)
#[inline(always)]
pub fn first_last(a: &[u8], b: &[u8]) -> bool {
    first_byte(a, b) && a.last() == b.last()
}

/// Keys in one arena as `(offset, length)` spans.
pub struct Keys {
    raw: Vec<u8>,
    spans: Vec<(usize, usize)>,
}

impl Keys {
    /// The keys as slices.
    pub fn slices(&self) -> Vec<&[u8]> {
        self.spans
            .iter()
            .map(|&(o, n)| &self.raw[o..o + n])
            .collect()
    }
}

/// One key-length distribution: the table and two query sets.
pub struct Case {
    /// `"16"`, `"32"`, `"64"` or `"mixed"`.
    pub name: String,
    /// [`KEYS`] random keys.
    pub table: Table,
    /// [`QUERIES`] keys drawn from the table, copied into their own arena
    /// (as a request buffer).
    pub present: Keys,
    /// [`QUERIES`] fresh random keys of the same length distribution.
    pub absent: Keys,
}

fn random_keys(rng: &mut Rng, count: usize, len: &dyn Fn(&mut Rng) -> usize) -> Keys {
    let (mut raw, mut spans) = (Vec::new(), Vec::new());
    for _ in 0..count {
        let n = len(rng);
        spans.push((raw.len(), n));
        for _ in 0..n {
            raw.push(rng.next_u64() as u8);
        }
    }
    Keys { raw, spans }
}

/// The four cases: 16, 32, 64 and mixed 1..=64-byte keys.
pub fn cases() -> Vec<Case> {
    type LenFn = Box<dyn Fn(&mut Rng) -> usize>;
    let mut lens: Vec<(String, LenFn)> = Vec::new();
    for n in [16usize, 32, 64] {
        lens.push((n.to_string(), Box::new(move |_| n)));
    }
    lens.push(("mixed".to_string(), Box::new(|r| 1 + r.below(64) as usize)));
    lens.into_iter()
        .map(|(name, len)| {
            let mut rng = Rng::new(11);
            let keys = random_keys(&mut rng, KEYS, &*len);
            let table = Table::build(&keys.slices());
            let (mut raw, mut spans) = (Vec::new(), Vec::new());
            for _ in 0..QUERIES {
                let (o, n) = keys.spans[rng.below(KEYS as u64) as usize];
                spans.push((raw.len(), n));
                raw.extend_from_slice(&keys.raw[o..o + n]);
            }
            let present = Keys { raw, spans };
            let absent = random_keys(&mut rng, QUERIES, &*len);
            Case {
                name,
                table,
                present,
                absent,
            }
        })
        .collect()
}

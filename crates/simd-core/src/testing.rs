//! Test helpers shared by the kvprims crates (feature `testing`).

use std::vec::Vec;

/// Deterministic pseudo-random bytes (xorshift64*), so failures reproduce.
pub fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    (0..len).map(|_| rng.next_u64() as u8).collect()
}

/// A small deterministic generator for tests.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15 | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// The path of a file under the workspace's `testdata/` folder.
///
/// The environment variable `KVPRIMS_TESTDATA` (a folder) overrides the
/// compile-time location, so test executables copied to another machine
/// (`cargo xtask bundle`) still find their golden files.
pub fn testdata_path(relative: &str) -> std::path::PathBuf {
    match std::env::var_os("KVPRIMS_TESTDATA") {
        Some(dir) => std::path::PathBuf::from(dir).join(relative),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../testdata")
            .join(relative),
    }
}

/// Reads a file under `testdata/` (see [`testdata_path`]).
///
/// # Panics
/// If the file cannot be read, naming the path.
pub fn read_testdata(relative: &str) -> std::string::String {
    let path = testdata_path(relative);
    match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => panic!("cannot read test data {}: {e}", path.display()),
    }
}

/// Scales an exhaustive bound down under Miri, where every step is slow.
pub fn scaled(full: usize, miri: usize) -> usize {
    if cfg!(miri) {
        miri
    } else {
        full
    }
}

/// Calls `check(slice, offset)` for every length `0..=max_len` at every start
/// offset `0..64` (fewer under Miri) of one padded, pseudo-randomly filled
/// buffer. The slice is a real sub-slice, so a kernel that reads past its end
/// reads the padding (caught by Miri / AddressSanitizer, and by oracles when
/// the padding would change the answer).
pub fn for_each_len_offset(max_len: usize, seed: u64, mut check: impl FnMut(&[u8], usize)) {
    let offsets = scaled(64, 3);
    let buf = random_bytes(seed, max_len + offsets + 64);
    for offset in 0..offsets {
        for len in 0..=max_len {
            check(&buf[offset..offset + len], offset);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covers_every_length_and_offset() {
        let mut seen = 0usize;
        for_each_len_offset(10, 1, |s, off| {
            assert!(s.len() <= 10 && off < 64);
            seen += 1;
        });
        assert_eq!(seen, scaled(64, 3) * 11);
        assert_ne!(random_bytes(1, 32), random_bytes(2, 32));
    }
}

//! Test helpers shared by the kvprims crates (feature `testing`).

use std::vec::Vec;

// Not for users: the primitives' live cluster tests and benchmarks.
#[cfg(feature = "__cluster")]
#[doc(hidden)]
pub mod redis;

/// Deterministic pseudo-random bytes (xorshift64*), so failures reproduce.
#[must_use]
pub fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    (0..len).map(|_| rng.next_u64() as u8).collect()
}

/// A small deterministic generator for tests.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value, 0 included).
    #[must_use]
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

/// The path of a golden file of the crate whose tests call this:
/// `manifest_dir/testdata/relative`, where `manifest_dir` is that crate's
/// `env!("CARGO_MANIFEST_DIR")` (each crate keeps its golden files in its
/// own `testdata/`, so they ship in its package and its tests run from a
/// downloaded crate too).
///
/// The environment variable `KVPRIMS_TESTDATA` (a folder) overrides it with
/// `$KVPRIMS_TESTDATA/relative`, so test executables copied to another
/// machine (`cargo xtask bundle`, which gathers every crate's `testdata/`
/// into one folder) still find their golden files.
#[must_use]
pub fn testdata_path(manifest_dir: &str, relative: &str) -> std::path::PathBuf {
    match std::env::var_os("KVPRIMS_TESTDATA") {
        Some(dir) => std::path::PathBuf::from(dir).join(relative),
        None => std::path::Path::new(manifest_dir)
            .join("testdata")
            .join(relative),
    }
}

/// Reads a golden file (see [`testdata_path`]).
///
/// # Panics
/// If the file cannot be read, naming the path.
#[must_use]
pub fn read_testdata(manifest_dir: &str, relative: &str) -> std::string::String {
    let path = testdata_path(manifest_dir, relative);
    match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => panic!("cannot read test data {}: {e}", path.display()),
    }
}

/// The path of a golden file's sample: `dir/name.sample.ext` for
/// `dir/name.ext` (a subset of its cases, in the same format).
#[must_use]
pub fn sample_path(manifest_dir: &str, relative: &str) -> std::path::PathBuf {
    let full = testdata_path(manifest_dir, relative);
    let name = full
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let sample = match name.rsplit_once('.') {
        Some((stem, ext)) => std::format!("{stem}.sample.{ext}"),
        None => std::format!("{name}.sample"),
    };
    full.with_file_name(sample)
}

/// Reads a golden file, or its sample (see [`sample_path`]) where the full
/// file is absent: a published crate ships only the samples to stay small,
/// the repository has both. Returns the text and whether it is the full
/// file, so a test can check the number of cases it expects of each.
///
/// # Panics
/// If neither file can be read, naming both paths.
#[must_use]
pub fn read_golden(manifest_dir: &str, relative: &str) -> (std::string::String, bool) {
    let full = testdata_path(manifest_dir, relative);
    if let Ok(s) = std::fs::read_to_string(&full) {
        return (s, true);
    }
    let sample = sample_path(manifest_dir, relative);
    match std::fs::read_to_string(&sample) {
        Ok(s) => (s, false),
        Err(e) => panic!(
            "cannot read test data {} nor its sample {}: {e}",
            full.display(),
            sample.display()
        ),
    }
}

/// Runs `f(0)` .. `f(threads - 1)` on as many threads, released together
/// by a barrier, and waits for all of them (a panic in any is re-raised).
///
/// For the first calls of a dispatched function: called from a test binary
/// in which no other test calls that function, the threads race to resolve
/// and cache the kernel, and each must still get the scalar kernel's
/// answers. Under Miri that also checks the cache for data races.
pub fn on_threads_at_once(threads: usize, f: impl Fn(usize) + Sync) {
    let barrier = std::sync::Barrier::new(threads);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (f, barrier) = (&f, &barrier);
            s.spawn(move || {
                barrier.wait();
                f(t);
            });
        }
    });
}

/// Scales an exhaustive bound down under Miri, where every step is slow.
#[must_use]
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

/// A buffer fenced by inaccessible pages: [`Guarded::back`] gives bytes that
/// end exactly where an unmapped-for-access (`PROT_NONE`) page begins, and
/// [`Guarded::front`] bytes that start exactly where one ends. A kernel that
/// reads a single byte outside such a slice (an over-long vector load, an
/// unmasked tail) gets `SIGSEGV` instead of silently reading a neighbour,
/// whatever the allocator or sanitizer would have allowed.
///
/// On unix outside Miri the fences are real (`mmap` + `mprotect`); elsewhere
/// (and under Miri, where the heap itself is checked) it is a plain heap
/// buffer and [`Guarded::is_fenced`] says so.
pub struct Guarded {
    /// The readable bytes (`cap` of them) between the fences.
    data: *mut u8,
    cap: usize,
    #[cfg(all(unix, not(miri)))]
    map: (*mut libc::c_void, usize),
    /// Owns the bytes `data` points into (never read through the field).
    #[cfg(not(all(unix, not(miri))))]
    _heap: Vec<u8>,
}

impl Guarded {
    /// A fenced buffer with room for `cap` bytes, zero-filled.
    ///
    /// # Panics
    /// If the operating system refuses the mapping.
    #[cfg(all(unix, not(miri)))]
    #[must_use]
    pub fn new(cap: usize) -> Guarded {
        // SAFETY: sysconf has no memory-safety preconditions.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
        let body = cap.div_ceil(page).max(1) * page;
        let total = body + 2 * page;
        // SAFETY: a fresh private anonymous mapping; no existing memory is
        // touched.
        let base = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                total,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert!(base != libc::MAP_FAILED, "mmap of {total} bytes failed");
        // SAFETY: both ranges are whole pages inside the mapping just made.
        let fenced = unsafe {
            libc::mprotect(base, page, libc::PROT_NONE) == 0
                && libc::mprotect(
                    base.cast::<u8>().add(page + body).cast(),
                    page,
                    libc::PROT_NONE,
                ) == 0
        };
        assert!(fenced, "mprotect of the guard pages failed");
        Guarded {
            // SAFETY: page < total.
            data: unsafe { base.cast::<u8>().add(page) },
            cap: body,
            map: (base, total),
        }
    }

    /// A buffer with room for `cap` bytes (not fenced on this target).
    #[cfg(not(all(unix, not(miri))))]
    pub fn new(cap: usize) -> Guarded {
        let mut heap = std::vec![0u8; cap.max(1)];
        Guarded {
            data: heap.as_mut_ptr(),
            cap: heap.len(),
            _heap: heap,
        }
    }

    /// Whether reads outside the slices fault on this target.
    #[must_use]
    pub fn is_fenced(&self) -> bool {
        cfg!(all(unix, not(miri)))
    }

    /// The last `len` bytes before the upper fence.
    ///
    /// # Panics
    /// If `len` exceeds the capacity asked for (rounded up to pages).
    pub fn back(&mut self, len: usize) -> &mut [u8] {
        assert!(
            len <= self.cap,
            "Guarded::back({len}) over capacity {}",
            self.cap
        );
        // SAFETY: cap - len .. cap lies inside the readable, writable bytes,
        // borrowed mutably from `self`.
        unsafe { core::slice::from_raw_parts_mut(self.data.add(self.cap - len), len) }
    }

    /// The first `len` bytes after the lower fence.
    ///
    /// # Panics
    /// If `len` exceeds the capacity asked for (rounded up to pages).
    pub fn front(&mut self, len: usize) -> &mut [u8] {
        assert!(
            len <= self.cap,
            "Guarded::front({len}) over capacity {}",
            self.cap
        );
        // SAFETY: 0 .. len lies inside the readable, writable bytes,
        // borrowed mutably from `self`.
        unsafe { core::slice::from_raw_parts_mut(self.data, len) }
    }

    /// A copy of `bytes` flush against the upper fence (`at_back`) or the
    /// lower one: reading one byte past either end of it faults.
    ///
    /// # Panics
    /// If `bytes` is longer than the capacity asked for (rounded up to pages).
    pub fn place(&mut self, bytes: &[u8], at_back: bool) -> &mut [u8] {
        let s = if at_back {
            self.back(bytes.len())
        } else {
            self.front(bytes.len())
        };
        s.copy_from_slice(bytes);
        s
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        #[cfg(all(unix, not(miri)))]
        // SAFETY: the mapping made in `new`, unmapped once; no slice of it
        // outlives `self` (they borrow it).
        unsafe {
            libc::munmap(self.map.0, self.map.1);
        }
    }
}

/// Calls `check(slice)` for every length `0..=max_len` with the slice's
/// bytes (pseudo-random, from `seed`) placed against the upper fence of a
/// [`Guarded`] buffer and then against its lower fence, so that any read
/// past either end of the slice faults.
pub fn for_each_len_fenced(max_len: usize, seed: u64, mut check: impl FnMut(&[u8])) {
    let mut g = Guarded::new(max_len);
    let bytes = random_bytes(seed, max_len);
    for len in 0..=max_len {
        let s = g.back(len);
        s.copy_from_slice(&bytes[..len]);
        check(s);
        let s = g.front(len);
        s.copy_from_slice(&bytes[..len]);
        check(s);
    }
}

/// Sets the boolean feature flag `name` (a [`crate::Features`] field name,
/// e.g. `"avx512bw"`) of `f` to `on`.
///
/// # Panics
/// If `name` is not a boolean field of [`crate::Features`].
#[track_caller]
pub fn set_feature(f: &mut crate::Features, name: &str, on: bool) {
    let flag = match name {
        "sse2" => &mut f.sse2,
        "ssse3" => &mut f.ssse3,
        "sse41" => &mut f.sse41,
        "sse42" => &mut f.sse42,
        "popcnt" => &mut f.popcnt,
        "avx" => &mut f.avx,
        "avx2" => &mut f.avx2,
        "bmi1" => &mut f.bmi1,
        "bmi2" => &mut f.bmi2,
        "avx512f" => &mut f.avx512f,
        "avx512bw" => &mut f.avx512bw,
        "avx512vl" => &mut f.avx512vl,
        "avx512vpopcntdq" => &mut f.avx512vpopcntdq,
        "avx512bitalg" => &mut f.avx512bitalg,
        "avx512vbmi" => &mut f.avx512vbmi,
        "avx512vbmi2" => &mut f.avx512vbmi2,
        "neon" => &mut f.neon,
        "sve" => &mut f.sve,
        "zbb" => &mut f.zbb,
        "v" => &mut f.v,
        _ => panic!("no feature flag named {name:?}"),
    };
    *flag = on;
}

/// Checks a crate's candidate list against a table of kernel names (in
/// list order) and the feature flags each one needs ([`assert_needs`]).
///
/// # Panics
/// If a name, the list's length or a feature test disagrees.
#[track_caller]
pub fn assert_kernel_needs<F: Copy>(list: &[crate::Candidate<F>], table: &[(&str, &[&str])]) {
    let names: Vec<_> = list.iter().map(|c| c.name()).collect();
    let want: Vec<_> = table.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, want);
    for (candidate, (_, needs)) in list.iter().zip(table) {
        assert_needs(candidate, needs);
    }
}

/// Checks that `candidate`'s feature test asks for exactly the flags in
/// `needs` ([`crate::Features`] field names): it holds with those flags set
/// and every other one clear, and fails with any one of them cleared. A
/// CPU with a partial set (AVX-512F without BW, say) exists even where the
/// test machine has all or none.
///
/// # Panics
/// If the feature test disagrees, naming the flag.
#[track_caller]
pub fn assert_needs<F: Copy>(candidate: &crate::Candidate<F>, needs: &[&str]) {
    let mut all = crate::Features::default();
    for name in needs {
        set_feature(&mut all, name, true);
    }
    let who = candidate.name();
    assert!(
        candidate.supported_on(&all),
        "{who}: not supported with {needs:?}"
    );
    for name in needs {
        let mut less = all;
        set_feature(&mut less, name, false);
        assert!(
            !candidate.supported_on(&less),
            "{who}: supported without {name}"
        );
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

    /// xorshift64* with the shifts 12, 25, 27 (values from an independent
    /// Python model of the same generator), so seeds name the same data on
    /// every machine.
    #[test]
    fn generator_sequence() {
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0x0d83_b3e2_9a21_487a);
        assert_eq!(r.next_u64(), 0x54c4_4c79_f1fe_9d67);
        assert_eq!(r.next_u64(), 0xa845_f342_007a_0e78);
        assert_eq!(random_bytes(0, 3), [0x7a, 0x67, 0x78]);
        let mut r = Rng::new(5);
        let mut seen = [0u32; 10];
        for _ in 0..1000 {
            seen[r.below(10) as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n > 50), "{seen:?}");
        assert_eq!(scaled(7, 2), if cfg!(miri) { 2 } else { 7 });
    }

    #[test]
    #[cfg_attr(miri, ignore = "file system")]
    fn golden_files_are_found() {
        let dir = std::env::temp_dir().join(std::format!("simd-core-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("testdata")).unwrap();
        std::fs::write(dir.join("testdata/x.txt"), "golden").unwrap();
        let manifest = dir.to_str().unwrap();
        match std::env::var_os("KVPRIMS_TESTDATA") {
            Some(d) => assert_eq!(
                testdata_path(manifest, "x.txt"),
                std::path::Path::new(&d).join("x.txt")
            ),
            None => {
                assert_eq!(testdata_path(manifest, "x.txt"), dir.join("testdata/x.txt"));
                assert_eq!(read_testdata(manifest, "x.txt"), "golden");
                assert_eq!(read_golden(manifest, "x.txt"), ("golden".into(), true));
                std::fs::write(dir.join("testdata/y.sample.txt"), "sample").unwrap();
                assert_eq!(read_golden(manifest, "y.txt"), ("sample".into(), false));
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn needs_states_the_feature_test() {
        // SAFETY: the function is safe to call on every CPU.
        let list = unsafe {
            [crate::Candidate::new(
                "two",
                crate::Level::Avx2,
                |f| f.avx2 && f.bmi2,
                random_bytes as fn(u64, usize) -> Vec<u8>,
            )]
        };
        assert_needs(&list[0], &["avx2", "bmi2"]);
        assert_kernel_needs(&list, &[("two", &["bmi2", "avx2"])]);
        let renamed = std::panic::catch_unwind(|| assert_kernel_needs(&list, &[("one", &[])]));
        assert!(renamed.is_err());
        for wrong in [
            &["avx2"][..],
            &["avx2", "bmi2", "popcnt"][..],
            &["bmi2"][..],
        ] {
            let caught = std::panic::catch_unwind(|| assert_needs(&list[0], wrong));
            assert!(caught.is_err(), "{wrong:?}");
        }
        let mut f = crate::Features::default();
        for name in ["sse2", "avx512vbmi2", "neon", "v"] {
            set_feature(&mut f, name, true);
        }
        assert!(f.sse2 && f.avx512vbmi2 && f.neon && f.v && !f.avx2);
        assert!(std::panic::catch_unwind(move || set_feature(&mut f, "avx3", true)).is_err());
    }

    #[test]
    fn fenced_slices_sit_against_the_fences() {
        let mut g = Guarded::new(100);
        let end = {
            let s = g.back(10);
            s.fill(7);
            s.as_ptr() as usize + s.len()
        };
        let start = g.front(10).as_ptr() as usize;
        #[cfg(all(target_os = "linux", not(miri)))]
        assert!(g.is_fenced());
        if g.is_fenced() {
            // The fences are whole pages: the back slice ends and the front
            // slice starts on a page boundary.
            assert_eq!(end % 4096, 0);
            assert_eq!(start % 4096, 0);
        }
        assert_eq!(g.back(0).len(), 0);
        let mut lens = Vec::new();
        for_each_len_fenced(5, 3, |s| lens.push(s.len()));
        assert_eq!(lens, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
    }
}

//! Every kernel the CPU supports against the scalar oracle: random
//! registers over all of 0..=63 (52..=63 only exist in crafted strings),
//! HLL-like distributions, single registers at the edges (0 and 16383),
//! every constant value.

use hll::{Kernel, DENSE_BODY, REGISTERS};
use simd_core::testing::{scaled, Guarded, Rng};

fn scalar() -> Kernel {
    hll::kernels().find(|k| k.name() == "scalar").unwrap()
}

fn pack_ref(regs: &[u8; REGISTERS]) -> [u8; DENSE_BODY] {
    let mut d = [0u8; DENSE_BODY];
    scalar().pack(regs, &mut d);
    d
}

/// Register sets to try.
fn corpus() -> Vec<[u8; REGISTERS]> {
    let mut out = Vec::new();
    let mut rng = Rng::new(42);
    for _ in 0..scaled(6, 2) {
        out.push(core::array::from_fn(|_| rng.below(64) as u8));
    }
    // HLL-like: geometric around different centers, sometimes with zeros.
    for center in [0u32, 2, 5, 9, 14, 20, 30, 45] {
        out.push(core::array::from_fn(|_| {
            let g = (rng.next_u64() | 1 << 40).trailing_zeros();
            (center + g).min(63) as u8 * u8::from(rng.below(8) != 0)
        }));
    }
    for v in 0..64u8 {
        out.push([v; REGISTERS]);
    }
    for (i, v) in [
        (0usize, 1u8),
        (0, 63),
        (16383, 1),
        (16383, 63),
        (16382, 33),
        (1, 5),
    ] {
        let mut r = [0u8; REGISTERS];
        r[i] = v;
        out.push(r);
    }
    let mut edges = [0u8; REGISTERS];
    edges[0] = 63;
    edges[16383] = 63;
    out.push(edges);
    out
}

#[test]
fn every_kernel_matches_scalar() {
    let oracle = scalar();
    let corpus = corpus();
    let mut names = Vec::new();
    let mut rng = Rng::new(7);
    for k in hll::kernels() {
        names.push(k.name());
        for regs in &corpus {
            let dense = pack_ref(regs);
            // pack
            let mut d = [0xa5u8; DENSE_BODY];
            k.pack(regs, &mut d);
            assert_eq!(d[..], dense[..], "{} pack", k.name());
            // unpack into zeros = the registers; into random = the max.
            let mut raw = [0u8; REGISTERS];
            k.unpack_max(&dense, &mut raw);
            assert_eq!(raw[..], regs[..], "{} unpack_max into zeros", k.name());
            // Plain unpack writes every byte (0xff is no register value).
            let mut u = [0xffu8; REGISTERS];
            k.unpack(&dense, &mut u);
            assert_eq!(u[..], regs[..], "{} unpack", k.name());
            let init: [u8; REGISTERS] = core::array::from_fn(|_| rng.below(64) as u8);
            let (mut a, mut b) = (init, init);
            k.unpack_max(&dense, &mut a);
            oracle.unpack_max(&dense, &mut b);
            assert_eq!(a[..], b[..], "{} unpack_max", k.name());
            // histograms
            let want = oracle.histogram_raw(regs);
            assert_eq!(want.iter().sum::<u32>(), REGISTERS as u32);
            assert_eq!(k.histogram_raw(regs), want, "{} histogram_raw", k.name());
            assert_eq!(
                k.histogram_dense(&dense),
                want,
                "{} histogram_dense",
                k.name()
            );
        }
    }
    assert_eq!(names.last(), Some(&"scalar"));
    println!("kernels checked: {names:?}");
}

/// `len` bytes of `g` against its upper fence (`back`) or its lower one.
fn place(g: &mut Guarded, len: usize, back: bool) -> &mut [u8] {
    if back {
        g.back(len)
    } else {
        g.front(len)
    }
}

/// Every kernel with each of its inputs and outputs flush against a guard
/// page (see `simd_core::testing::Guarded`), all at the upper fences, then
/// all at the lower ones: a load or a store of one byte before or after a
/// dense body or a register array faults. The vector loops load whole
/// vectors around each group of registers (the `avx2` unpack reads 32
/// bytes from 4 before its group) and leave both ends to edge steps that
/// stay inside. A loop running one step too far (`c <= last` for `c <
/// last` in the `avx2` unpack, a mutant cargo-mutants found the other
/// tests blind to, as the last edge step overwrites its output) reads 4
/// bytes past the body and faults here. The answers equal the oracle's.
#[test]
fn every_kernel_stays_inside_its_buffers() {
    let oracle = scalar();
    let corpus = corpus();
    let regs = corpus[0];
    let dense = pack_ref(&regs);
    let others: Vec<[u8; DENSE_BODY]> = corpus[1..3].iter().map(pack_ref).collect();
    let mut want_union = [0u8; REGISTERS];
    oracle.union(&[&dense, &others[0], &others[1]], &mut want_union);
    let mut want_max = corpus[3];
    oracle.unpack_max(&dense, &mut want_max);
    let want_hist = oracle.histogram_raw(&regs);
    let mut g: Vec<Guarded> = (0..4).map(|_| Guarded::new(REGISTERS)).collect();
    let [ga, gb, gc, gout] = &mut g[..] else {
        unreachable!()
    };
    for k in hll::kernels() {
        let name = k.name();
        for back in [true, false] {
            // Registers in, a dense body out.
            let r: &mut [u8; REGISTERS] = place(ga, REGISTERS, back).try_into().unwrap();
            r.copy_from_slice(&regs);
            let d: &mut [u8; DENSE_BODY] = place(gout, DENSE_BODY, back).try_into().unwrap();
            k.pack(r, d);
            assert_eq!(d[..], dense[..], "{name} pack, back {back}");
            assert_eq!(k.histogram_raw(r), want_hist, "{name} histogram_raw");
            // Dense bodies in, registers out.
            let d: &mut [u8; DENSE_BODY] = place(ga, DENSE_BODY, back).try_into().unwrap();
            d.copy_from_slice(&dense);
            let b: &mut [u8; DENSE_BODY] = place(gb, DENSE_BODY, back).try_into().unwrap();
            b.copy_from_slice(&others[0]);
            let c: &mut [u8; DENSE_BODY] = place(gc, DENSE_BODY, back).try_into().unwrap();
            c.copy_from_slice(&others[1]);
            let out: &mut [u8; REGISTERS] = place(gout, REGISTERS, back).try_into().unwrap();
            out.fill(0xff);
            k.unpack(d, out);
            assert_eq!(out[..], regs[..], "{name} unpack, back {back}");
            out.copy_from_slice(&corpus[3]);
            k.unpack_max(d, out);
            assert_eq!(out[..], want_max[..], "{name} unpack_max, back {back}");
            assert_eq!(k.histogram_dense(d), want_hist, "{name} histogram_dense");
            out.fill(0xff);
            k.union(&[d, b, c], out);
            assert_eq!(out[..], want_union[..], "{name} union, back {back}");
        }
    }
}

/// `union` of 0..=9 dense bodies (the AVX2 kernel takes four per pass, so
/// one, two and three passes with every group size) against the
/// register-wise max of the register sets themselves; every byte of the
/// output is written (it starts as 0xff, no register value).
#[test]
fn union_matches_register_max() {
    let corpus = corpus();
    let bodies: Vec<[u8; DENSE_BODY]> = corpus.iter().map(pack_ref).collect();
    let mut rng = Rng::new(99);
    for k in hll::kernels() {
        for n in 0..=9usize {
            for _ in 0..scaled(4, 1) {
                let picks: Vec<usize> = (0..n)
                    .map(|_| rng.below(corpus.len() as u64) as usize)
                    .collect();
                let inputs: Vec<&[u8; DENSE_BODY]> = picks.iter().map(|&i| &bodies[i]).collect();
                let want: [u8; REGISTERS] = core::array::from_fn(|r| {
                    picks.iter().map(|&i| corpus[i][r]).max().unwrap_or(0)
                });
                let mut out = [0xffu8; REGISTERS];
                k.union(&inputs, &mut out);
                assert_eq!(out[..], want[..], "{} union of {n}", k.name());
            }
        }
    }
}

/// Pack drops bits above the sixth like the scalar kernel.
#[test]
fn pack_masks_high_bits() {
    let mut rng = Rng::new(9);
    let regs: [u8; REGISTERS] = core::array::from_fn(|_| rng.next_u64() as u8);
    let want = pack_ref(&regs);
    for k in hll::kernels() {
        let mut d = [0u8; DENSE_BODY];
        k.pack(&regs, &mut d);
        assert_eq!(d[..], want[..], "{}", k.name());
    }
}

/// The dispatcher follows the ceiling and uses a supported kernel.
#[test]
fn dispatcher_choice() {
    let chosen = hll::selected_kernel().name();
    let max = cpu_detect::max_level();
    let k = hll::kernels().find(|k| k.name() == chosen).unwrap();
    assert_eq!(k.level(), hll::selected_kernel().level());
    assert!(max.includes(k.level()), "{chosen} under {max}");
    // The best allowed one is chosen, except that the `pext` pack's set is
    // listed wherever AVX2 and BMI2 run it but picked only on AMD Zen 4
    // (family 0x19 with AVX-512) and from Zen 5 (family 0x1A) on, and the
    // multiply-split unpack's set is listed wherever AVX2 runs but picked
    // only on Intel.
    let f = cpu_detect::features();
    let pext_picked =
        f.vendor == cpu_detect::Vendor::Amd && (f.family >= 0x1A || f.splits_512bit_ops());
    let mul_picked = f.vendor == cpu_detect::Vendor::Intel;
    let best = hll::kernels()
        .filter(|k| pext_picked || k.name() != "avx2-pext")
        .filter(|k| mul_picked || k.name() != "avx2-mul")
        .find(|k| max.includes(k.level()))
        .unwrap();
    assert_eq!(best.name(), chosen);
    println!("dispatch: {chosen} (max level {max})");
}

/// Every batch hash kernel against `murmurhash64a`: every length 0..=128 at
/// every start offset 0..8, alone in a batch (the other lanes empty), eight
/// of one length together, all lengths mixed in one batch (in order and
/// shuffled, with elements past the kernels' long-element cut-over), and
/// an output shorter than the input.
#[test]
fn every_hash_kernel_matches_murmurhash64a() {
    let want = |e: &[u8]| hll::murmurhash64a(e, hll::SEED);
    let buf = simd_core::testing::random_bytes(54, 2048);
    let mut rng = Rng::new(54);
    let mut names = Vec::new();
    for k in hll::hash_kernels() {
        names.push(k.name());
        for offset in 0..8 {
            let all: Vec<&[u8]> = (0..=128).map(|len| &buf[offset..offset + len]).collect();
            for (len, &e) in all.iter().enumerate() {
                let mut one = [0u64; 1];
                k.hash_batch(&[e], &mut one);
                assert_eq!(one[0], want(e), "{} len {len} offset {offset}", k.name());
                let same = [e; 9];
                let mut out = [0u64; 9];
                k.hash_batch(&same, &mut out);
                assert_eq!(
                    out,
                    [want(e); 9],
                    "{} 9 x len {len} offset {offset}",
                    k.name()
                );
            }
            let mut mixed = all.clone();
            for len in [255, 256, 257, 300, 1000, 2000 - offset] {
                mixed.push(&buf[offset..offset + len]);
            }
            for round in 0..scaled(8, 2) {
                if round > 0 {
                    for i in (1..mixed.len()).rev() {
                        mixed.swap(i, rng.below(i as u64 + 1) as usize);
                    }
                }
                let mut out = vec![0u64; mixed.len()];
                k.hash_batch(&mixed, &mut out);
                for (i, (&e, &h)) in mixed.iter().zip(&out).enumerate() {
                    assert_eq!(h, want(e), "{} mixed #{i} len {}", k.name(), e.len());
                }
            }
            // Only as many as `out` holds are hashed.
            let mut short = [7u64; 3];
            k.hash_batch(&all[..10], &mut short);
            assert_eq!(short, [want(all[0]), want(all[1]), want(all[2])]);
        }
        let mut none: [u64; 0] = [];
        k.hash_batch(&[], &mut none);
    }
    assert_eq!(names.last(), Some(&"scalar"));
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        names.contains(&"avx512"),
        cpu_detect::features().avx512f,
        "{names:?}"
    );
    // Listed, not picked: the multi-lane kernel measured no faster.
    assert_eq!(hll::selected_hash_kernel().name(), "scalar");
}

/// The batch hash kernels read nothing past any element: each lane's
/// element sits against a fence page (upper or lower), for every length
/// 0..=128, eight lanes of different lengths in one batch.
#[test]
fn every_hash_kernel_stays_inside_each_element() {
    let bytes = simd_core::testing::random_bytes(5454, 128);
    let mut fences: Vec<Guarded> = (0..8).map(|_| Guarded::new(128)).collect();
    for k in hll::hash_kernels() {
        for len in 0..=128usize {
            let lens: Vec<usize> = (0..8).map(|l| (len + 17 * l) % 129).collect();
            let elements: Vec<&[u8]> = fences
                .iter_mut()
                .zip(&lens)
                .enumerate()
                .map(|(l, (g, &n))| &*g.place(&bytes[..n], (len + l) % 2 == 0))
                .collect();
            let mut out = [0u64; 8];
            k.hash_batch(&elements, &mut out);
            for (e, h) in elements.iter().zip(out) {
                assert_eq!(h, hll::hash(e), "{} len {}", k.name(), e.len());
            }
        }
    }
}

//! The register-wise max of many HLLs, each read once: what `PFCOUNT k1 k2
//! ..` ([`count_union`](crate::count_union)) and `PFMERGE`
//! ([`Hll::merge`]) build their result from.

use crate::{dense, dispatch, kernels, Hll, REGISTERS};

/// The register-wise max of `hlls` in `buf`, each input read once. The
/// dense inputs (the first [`UNION_AT_ONCE`]) go through one union kernel
/// call, which writes every byte of the uninitialised buffer (that spares
/// zeroing 16 KiB first; with no dense input the kernel writes zeros);
/// the sparse inputs and any further dense ones are maxed in after.
pub(crate) fn union_registers<'a, 'h>(
    hlls: impl Iterator<Item = &'h Hll> + Clone,
    buf: &'a mut kernels::Uninit<REGISTERS>,
) -> &'a mut [u8; REGISTERS] {
    let mut bodies = hlls
        .clone()
        .filter(|h| !h.is_sparse())
        .map(|h| dense::body(&h.bytes));
    let n = match bodies.next() {
        Some(first) => {
            let mut dense = [first; UNION_AT_ONCE];
            let mut n = 1;
            for (d, b) in dense[1..].iter_mut().zip(bodies) {
                *d = b;
                n += 1;
            }
            dispatch::union(&dense[..n], buf);
            n
        }
        None => {
            dispatch::union(&[], buf);
            0
        }
    };
    // SAFETY: union wrote every byte of buf.
    let raw = unsafe { kernels::assume_init(buf) };
    let mut dense_seen = 0;
    for h in hlls {
        if !h.is_sparse() {
            dense_seen += 1;
            if dense_seen <= n {
                continue;
            }
        }
        h.max_into(raw);
    }
    raw
}

/// How many dense inputs [`union_registers`] hands to one union kernel call
/// (a stack array of references; the AVX2 kernel takes four per pass).
const UNION_AT_ONCE: usize = 16;

#[cfg(test)]
mod tests {
    use crate::{count_union, Hll, DENSE_BYTES, REGISTERS};

    /// Small enough for Miri, which checks the uninitialised-buffer paths
    /// (the first dense input unpacked without a zeroed accumulator, the
    /// promotion packed into spare capacity) with the scalar kernels.
    #[test]
    fn union_seeded_by_first_dense_input() {
        let mut sparse = Hll::new();
        let mut dense_a = Hll::new().with_sparse_max_bytes(0);
        let mut dense_b = Hll::new().with_sparse_max_bytes(0);
        for i in 0..40u64 {
            sparse.add_hash((i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            dense_a.add_hash(i.wrapping_mul(0xc2b2_ae3d_27d4_eb4f));
            dense_b.add_hash(i ^ 0x1234_5678);
        }
        assert!(sparse.is_sparse() && !dense_a.is_sparse() && !dense_b.is_sparse());
        let all = [&sparse, &dense_a, &dense_b];
        let mut want = [0u8; REGISTERS];
        for h in all {
            for (w, r) in want.iter_mut().zip(h.registers()) {
                *w = (*w).max(r);
            }
        }
        for r in 0..3 {
            let order: [&Hll; 3] = core::array::from_fn(|i| all[(i + r) % 3]);
            let mut m = order[0].clone();
            m.merge(&order[1..]);
            assert_eq!(m.registers(), want, "rotation {r}");
            assert_eq!(m.as_bytes().len(), DENSE_BYTES);
            assert_eq!(count_union(&order), m.estimate(), "rotation {r}");
        }
        let mut promoted = sparse.clone();
        promoted.merge(&[&dense_a]);
        assert_eq!(&promoted.as_bytes()[..4], b"HYLL");
        assert_eq!(count_union(&[]), 0);
    }
}

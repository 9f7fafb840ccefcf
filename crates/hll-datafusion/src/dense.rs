//! A dense HyperLogLog kept as one byte per register while a single group
//! aggregates: a dense add is then a hash and a byte max, instead of the
//! read-modify-write of a 6-bit field in the packed string. Once an `Hll`
//! is dense its bytes depend only on its header and registers, so packing
//! these registers under that header gives exactly the string the same
//! adds would have left.

use hll::{Hll, DENSE_BODY, HEADER_BYTES, REGISTERS};

/// Dense registers, one byte each, under the header of the `Hll` they
/// came from.
pub(crate) struct Registers {
    header: [u8; HEADER_BYTES],
    regs: Box<[u8; REGISTERS]>,
}

impl Registers {
    /// Takes over a dense `Hll` (`None` if it is sparse).
    pub(crate) fn from_dense(h: &Hll) -> Option<Registers> {
        if h.is_sparse() {
            return None;
        }
        let mut header = [0u8; HEADER_BYTES];
        header.copy_from_slice(&h.as_bytes()[..HEADER_BYTES]);
        Some(Registers {
            header,
            regs: Box::new(h.registers()),
        })
    }

    /// `PFADD` of one element.
    #[inline]
    pub(crate) fn add(&mut self, element: &[u8]) {
        let h = hll::hash(element);
        let index = (h & (REGISTERS as u64 - 1)) as usize;
        let count = ((h >> 14) | (1u64 << 50)).trailing_zeros() as u8 + 1;
        let r = &mut self.regs[index];
        if count > *r {
            *r = count;
            self.invalidate();
        }
    }

    /// `PFMERGE` of another HLL into this one.
    pub(crate) fn merge(&mut self, other: &Hll) {
        for (r, o) in self.regs.iter_mut().zip(other.registers()) {
            *r = (*r).max(o);
        }
        self.invalidate();
    }

    /// Marks the cached count invalid (bit 7 of header byte 15), as every
    /// change does.
    #[inline]
    fn invalidate(&mut self) {
        self.header[15] |= 0x80;
    }

    /// The dense string: the header, then four registers per three bytes
    /// (a 24-bit little-endian word `r0 | r1 << 6 | r2 << 12 | r3 << 18`).
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_BYTES + DENSE_BODY);
        out.extend_from_slice(&self.header);
        for r in self.regs.chunks_exact(4) {
            let w = u32::from(r[0])
                | u32::from(r[1]) << 6
                | u32::from(r[2]) << 12
                | u32::from(r[3]) << 18;
            out.extend_from_slice(&w.to_le_bytes()[..3]);
        }
        out
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        REGISTERS
    }
}

#[cfg(test)]
mod tests {
    use super::Registers;
    use hll::Hll;

    #[test]
    fn same_bytes_as_hll_adds_and_merges() {
        let mut h = Hll::new();
        h.add_all((0..5000u32).map(|i| i.to_le_bytes()));
        assert!(!h.is_sparse());
        let mut r = Registers::from_dense(&h).unwrap();
        assert_eq!(r.to_bytes(), h.as_bytes());
        for i in 5000..200_000u32 {
            let e = i.wrapping_mul(2_654_435_761).to_be_bytes();
            h.add(&e);
            r.add(&e);
        }
        assert_eq!(r.to_bytes(), h.as_bytes());
        let mut other = Hll::new();
        other.add_all((0..100u32).map(|i| format!("o{i}")));
        h.merge(&[&other]);
        r.merge(&other);
        assert_eq!(r.to_bytes(), h.as_bytes());
        // A written cache: adds that change nothing keep it valid.
        h.count();
        let mut r = Registers::from_dense(&h).unwrap();
        r.add(&0u32.to_le_bytes());
        assert_eq!(r.to_bytes(), h.as_bytes());
        assert!(Registers::from_dense(&Hll::new()).is_none());
    }
}

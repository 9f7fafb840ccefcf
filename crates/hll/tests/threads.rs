//! First calls from many threads at once: the dispatched unpack, pack and
//! histogram behind `registers`, `merge` and `count` resolve their kernels
//! concurrently (no other test in this binary calls them, so nothing has
//! resolved them before) and must give the scalar kernel's answers on
//! every thread.

use hll::{Hll, DENSE_BODY, HEADER_BYTES, REGISTERS};
use simd_core::testing::{on_threads_at_once, scaled};

fn body(h: &Hll) -> &[u8; DENSE_BODY] {
    h.as_bytes()[HEADER_BYTES..].try_into().unwrap()
}

#[test]
fn first_calls_race() {
    let n = scaled(20_000, 300) as u64;
    // (Under Miri each call over 16384 registers takes seconds: the CI
    // cell runs the other crates' `threads` tests there, not this one.)
    on_threads_at_once(4, |t| {
        // Dense from the start (sparse limit 0), so every call below goes
        // through the dense kernels.
        let mut a = Hll::new().with_sparse_max_bytes(0);
        let mut b = Hll::new().with_sparse_max_bytes(0);
        for i in 0..n {
            a.add(&(i + 1_000_000 * t as u64).to_le_bytes());
            b.add(&(i * 7 + 3).to_le_bytes());
        }
        // The dispatched calls come first: they race to fill the caches.
        let regs = a.registers();
        let mut merged = a.clone();
        merged.merge(&[&b]);
        let count = merged.count();

        // The list ends with the portable kernel.
        let s = hll::kernels().last().expect("never empty");
        assert_eq!(s.name(), "scalar");
        let mut want = [0u8; REGISTERS];
        s.unpack(body(&a), &mut want);
        assert_eq!(regs, want, "thread {t}");
        s.unpack_max(body(&b), &mut want);
        let mut packed = [0u8; DENSE_BODY];
        s.pack(&want, &mut packed);
        assert_eq!(body(&merged), &packed, "thread {t}");
        // The union's count takes other kernels (the union into registers,
        // their histogram) than the merged HLL's (its dense histogram).
        assert_eq!(hll::count_union(&[&a, &b]), count, "thread {t}");
        assert_eq!(
            s.histogram_dense(body(&merged)),
            s.histogram_raw(&want),
            "thread {t}"
        );
    });
}

/// The public types can be shared and sent between threads.
#[test]
fn types_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<hll::Hll>();
    send_sync::<hll::Kernel>();
    send_sync::<hll::Error>();
    send_sync::<hll::ErrorKind>();
}

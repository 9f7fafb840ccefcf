//! First calls from many threads at once: the dispatched `count` and
//! `bitpos` resolve their kernels concurrently (no other test in this
//! binary calls them, so nothing has resolved them before) and must give
//! the scalar kernel's answers on every thread.

use bitcount::BitposRange;
use simd_core::testing::{on_threads_at_once, random_bytes, scaled};

#[test]
fn first_calls_race() {
    let max = scaled(1100, 70);
    on_threads_at_once(8, |t| {
        let data = random_bytes(t as u64, max);
        // The dispatched calls come first: they race to fill the caches.
        let first = (
            bitcount::count(&data),
            bitcount::bitpos(&data, t % 2 == 0, BitposRange::All),
        );
        // The list ends with the portable kernel.
        let s = bitcount::kernels().last().expect("never empty");
        assert_eq!(s.name(), "scalar");
        assert_eq!(first.0, s.count(&data), "thread {t}");
        assert_eq!(
            first.1,
            s.bitpos(&data, t % 2 == 0, BitposRange::All),
            "thread {t}"
        );
        for n in (0..=max).step_by(7) {
            let b = &data[..n];
            assert_eq!(bitcount::count(b), s.count(b), "thread {t}, {n} bytes");
            for bit in [false, true] {
                assert_eq!(
                    bitcount::bitpos(b, bit, BitposRange::All),
                    s.bitpos(b, bit, BitposRange::All),
                    "thread {t}, {n} bytes, bit {bit}"
                );
            }
        }
    });
}

/// The dispatched BITOP functions resolve their kernels concurrently too.
#[cfg(feature = "alloc")]
#[test]
fn first_bitop_calls_race() {
    use bitcount::BitOp;
    let max = scaled(700, 90);
    on_threads_at_once(8, |t| {
        let a = random_bytes(t as u64, max);
        let b = random_bytes(t as u64 + 100, max / 2 + t);
        let op = BitOp::ALL[t % 8];
        let sources: &[&[u8]] = if op == BitOp::Not { &[&a] } else { &[&a, &b] };
        let mut dest = Vec::new();
        let first = (
            bitcount::bitop(op, &mut dest, sources),
            bitcount::bitop_count(op, sources),
        );
        let s = bitcount::kernels().last().expect("never empty");
        assert_eq!(s.name(), "scalar");
        let mut want = Vec::new();
        assert_eq!(first.0, s.bitop(op, &mut want, sources), "thread {t}");
        assert_eq!(dest, want, "thread {t}");
        assert_eq!(first.1, s.bitop_count(op, sources), "thread {t}");
    });
}

/// The public types can be shared and sent between threads.
#[test]
fn types_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<bitcount::Kernel>();
    send_sync::<bitcount::Unit>();
    send_sync::<bitcount::BitposRange>();
    send_sync::<bitcount::BitOp>();
    send_sync::<bitcount::BitopError>();
    send_sync::<bitcount::Level>();
}

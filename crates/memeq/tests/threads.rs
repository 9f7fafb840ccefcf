//! First calls from many threads at once: the dispatched `eq` and `cmp`
//! resolve their kernels concurrently (no other test in this binary calls
//! them, so nothing has resolved them before) and must agree with `==` and
//! `Ord` on every thread.

use simd_core::testing::{on_threads_at_once, random_bytes, scaled};

#[test]
fn first_calls_race() {
    let max = scaled(300, 70);
    on_threads_at_once(8, |t| {
        let a = random_bytes(t as u64, max);
        let mut b = a.clone();
        // The dispatched calls come first: they race to fill the caches.
        assert!(memeq::eq(&a, &b), "thread {t}");
        assert_eq!(memeq::cmp(&a, &b), a.cmp(&b), "thread {t}");
        for n in (0..=max).step_by(5) {
            if n > 0 {
                b[n - 1] ^= 0x20;
            }
            for len in [n, max] {
                let (x, y) = (&a[..len], &b[..len]);
                assert_eq!(memeq::eq(x, y), x == y, "thread {t}, {len} bytes");
                assert_eq!(memeq::cmp(x, y), x.cmp(y), "thread {t}, {len} bytes");
            }
            if n > 0 {
                b[n - 1] ^= 0x20;
            }
        }
    });
}

/// The public types can be shared and sent between threads.
#[test]
fn types_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<memeq::Kernel>();
    send_sync::<memeq::Comparer>();
}

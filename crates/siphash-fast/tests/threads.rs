//! First calls from many threads at once: the dispatched one-shot and batch
//! functions resolve their kernels concurrently (no other test in this
//! binary calls them, so nothing has resolved them before) and must give
//! the scalar kernel's answers on every thread.

use simd_core::testing::{on_threads_at_once, random_bytes, scaled};

#[test]
fn first_calls_race() {
    let max = scaled(200, 40);
    on_threads_at_once(8, |t| {
        let key: [u8; 16] = core::array::from_fn(|i| (i + t) as u8);
        let data = random_bytes(t as u64, max);
        let inputs: Vec<&[u8]> = (0..=max).step_by(9).map(|n| &data[..n]).collect();
        // The dispatched calls come first: they race to fill the caches.
        let one = siphash_fast::siphash12(&key, &data);
        let mut batch = vec![0; inputs.len()];
        siphash_fast::siphash13_batch(&key, &inputs, &mut batch);
        // The list ends with the portable kernel.
        let s = siphash_fast::kernels().last().expect("never empty");
        assert_eq!(s.name(), "scalar");
        assert_eq!(one, s.siphash12(&key, &data), "thread {t}");
        let mut want = vec![0; inputs.len()];
        s.siphash13_batch(&key, &inputs, &mut want);
        assert_eq!(batch, want, "thread {t}");
        for d in &inputs {
            assert_eq!(
                siphash_fast::siphash12_nocase(&key, d),
                s.siphash12_nocase(&key, d)
            );
            assert_eq!(siphash_fast::siphash13(&key, d), s.siphash13(&key, d));
            assert_eq!(siphash_fast::siphash24(&key, d), s.siphash24(&key, d));
            assert_eq!(
                siphash_fast::siphash24_128(&key, d),
                s.siphash24_128(&key, d)
            );
        }
    });
}

/// The public types can be shared and sent between threads.
#[test]
fn types_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<siphash_fast::Kernel>();
    send_sync::<siphash_fast::SipHasher13>();
    send_sync::<siphash_fast::BuildSipHasher12>();
}

//! hll::Hll::from_bytes on arbitrary strings, then count, merge and add on
//! whatever decodes: nothing may panic, and a decoded HLL must stay valid.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(mut h) = hll::Hll::from_bytes(data) else {
        return;
    };
    let regs = h.registers();
    assert!(regs.iter().all(|&r| r <= 63));
    let again = hll::Hll::from_bytes(h.as_bytes()).expect("own bytes must decode");
    assert_eq!(again.registers(), regs);
    let _ = h.count();
    let _ = hll::count_union(&[&h, &again]);
    let before = h.registers();
    h.add(b"fuzz");
    h.merge(&[&again]);
    let after = h.registers();
    assert!(before.iter().zip(after.iter()).all(|(b, a)| a >= b), "registers only grow");
    let _ = h.count();
    let dense_or_sparse = hll::Hll::from_bytes(h.as_bytes()).expect("bytes after ops decode");
    assert_eq!(dense_or_sparse.registers(), after);
    let _ = format!("{h}");
});

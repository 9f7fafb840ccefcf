//! A batch call with the wrong output length panics, and the panic names
//! the caller's line, not the library's.

use std::panic;
use std::sync::Mutex;

const KEY: [u8; 16] = *b"0123456789abcdef";

#[test]
#[should_panic(expected = "one output per input")]
fn batch_with_short_output_panics() {
    let inputs: [&[u8]; 3] = [b"a", b"b", b"c"];
    let mut out = [0u64; 2];
    siphash_fast::siphash12_batch(&KEY, &inputs, &mut out);
}

#[test]
#[should_panic(expected = "one output per input")]
fn kernel_batch_with_long_output_panics() {
    let inputs: [&[u8]; 1] = [b"a"];
    let mut out = [0u64; 8];
    let k = siphash_fast::kernels().next().expect("at least scalar");
    k.siphash24_batch(&KEY, &inputs, &mut out);
}

/// Where the panic of `f` was reported (file, line), caught.
fn panic_location(f: impl FnOnce() + panic::UnwindSafe) -> (String, u32) {
    static SEEN: Mutex<Option<(String, u32)>> = Mutex::new(None);
    let old = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        let at = info.location().expect("location");
        *SEEN.lock().unwrap() = Some((at.file().to_string(), at.line()));
    }));
    let caught = panic::catch_unwind(f);
    panic::set_hook(old);
    assert!(caught.is_err(), "no panic");
    SEEN.lock().unwrap().take().expect("hook ran")
}

/// Every batch function and method reports the caller's line. (One test
/// only in this binary sets a panic hook, so the hooks cannot interleave.)
#[test]
fn panics_name_the_callers_line() {
    use siphash_fast::{siphash12_batch, siphash13_batch, siphash24_batch};
    let inputs: [&[u8]; 2] = [b"a", b"b"];
    let k = siphash_fast::selected_kernel();
    let mut out = [0u64; 5];
    // `line!()` in a macro gives the line of the macro's call, where the
    // batch call's tokens are too.
    macro_rules! case {
        ($call:expr) => {
            (
                line!(),
                Box::new(move || $call) as Box<dyn FnOnce() + panic::UnwindSafe>,
            )
        };
    }
    let cases = [
        case!(siphash12_batch(&KEY, &inputs, &mut out)),
        case!(siphash13_batch(&KEY, &inputs, &mut out)),
        case!(siphash24_batch(&KEY, &inputs, &mut out)),
        case!(k.siphash12_batch(&KEY, &inputs, &mut out)),
        case!(k.siphash13_batch(&KEY, &inputs, &mut out)),
        case!(k.siphash24_batch(&KEY, &inputs, &mut out)),
    ];
    for (i, (line, f)) in cases.into_iter().enumerate() {
        let (file, at) = panic_location(f);
        assert_eq!((file.as_str(), at), (file!(), line), "case {i}");
    }
}

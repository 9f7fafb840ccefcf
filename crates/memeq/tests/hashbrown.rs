//! Lookups by `&[u8]` through `hashbrown::Equivalent` (`memeq::Bytes`):
//! right answers for every key type, and no allocation per lookup.
#![cfg(feature = "hashbrown")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts the allocations made by this thread (other test threads do not
/// disturb the count).
struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards every call to the system allocator unchanged; counting
// touches only a thread-local cell, which allocates nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's layout contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above, with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> usize {
    ALLOCS.with(Cell::get)
}

fn keys() -> Vec<Vec<u8>> {
    (0..200u32)
        .map(|i| format!("key:{i}:{}", "x".repeat(i as usize % 90)).into_bytes())
        .collect()
}

#[test]
fn vec_keys_by_bytes_without_allocating() {
    let keys = keys();
    let map: hashbrown::HashMap<Vec<u8>, usize> = keys
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, k)| (k, i))
        .collect();
    let absent: Vec<Vec<u8>> = keys.iter().map(|k| [k.as_slice(), b"!"].concat()).collect();
    let before = allocs();
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(map.get(&memeq::Bytes(k)), Some(&i));
        assert!(map.contains_key(&memeq::Bytes(k)));
    }
    for k in &absent {
        assert_eq!(map.get(&memeq::Bytes(k)), None);
    }
    assert_eq!(allocs(), before, "a lookup allocated");
    // The counter sees allocations (so the check above can fail).
    let v = vec![1u8; 3];
    assert!(allocs() > before);
    drop(v);
}

#[test]
fn boxed_array_and_slice_keys() {
    let keys = keys();
    let boxed: hashbrown::HashMap<Box<[u8]>, usize> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.clone().into_boxed_slice(), i))
        .collect();
    let borrowed: hashbrown::HashSet<&[u8]> = keys.iter().map(|k| k.as_slice()).collect();
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(boxed.get(&memeq::Bytes(k)), Some(&i));
        assert!(borrowed.contains(&memeq::Bytes(k)));
        assert!(!borrowed.contains(&memeq::Bytes(&k[..k.len() - 1])));
    }
    let arrays: hashbrown::HashSet<[u8; 4]> = [*b"abcd", *b"wxyz"].into_iter().collect();
    assert!(arrays.contains(&memeq::Bytes(b"abcd")));
    assert!(!arrays.contains(&memeq::Bytes(b"abce")));
    assert!(!arrays.contains(&memeq::Bytes(b"abc")));
}

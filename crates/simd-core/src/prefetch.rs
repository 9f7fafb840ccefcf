//! Software prefetch: a hint, never a memory access, so it cannot fault.

/// Hints that the cache line holding `ptr` will be read soon. Any address is
/// fine (even one past a slice's end): prefetches do not fault. A no-op on
/// targets without a stable prefetch.
#[inline(always)]
pub fn prefetch_read(ptr: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 is SSE (baseline on x86_64) and is only a hint: it
    // never faults, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(ptr.cast::<i8>())
    };
    #[cfg(target_arch = "aarch64")]
    // SAFETY: PRFM is a hint; it never faults and changes no state we see.
    unsafe {
        core::arch::asm!("prfm pldl1keep, [{0}]", in(reg) ptr, options(nostack, readonly, preserves_flags))
    };
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = ptr;
}

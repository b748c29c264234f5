//! Hints to the processor that cannot change a result.

/// A hint to bring `data[i]` into cache; no effect on results (and none off x86-64). Both
/// engines' hot loops use it (the tier engine's too).
#[inline(always)]
pub fn prefetch<T>(data: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        if i < data.len() {
            // SAFETY: a prefetch is a hint that never dereferences or faults, and SSE is part
            // of every x86-64 target; the address is in bounds anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(data.as_ptr().wrapping_add(i).cast::<i8>()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, i);
}

//! Handing freed memory back to the operating system.
//!
//! glibc's allocator keeps the pages of freed heap chunks for the process: a
//! view of 140 MB dropped mid-run leaves the resident size where it was, and
//! the next view grows it again. `report` forgets views as their last reader
//! finishes (`engine::views`), and asks the allocator here to return what is
//! free, so that the peak is what is held, not what was ever held.

/// Returns the allocator's free pages to the system where the allocator keeps
/// them (glibc on Linux); elsewhere nothing to do.
pub fn return_freed_memory() {
    let _timing = crate::timing::Phase::start("  return freed memory");
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of the allocator's own
    // arenas; it touches no live allocation and takes no pointer.
    unsafe {
        libc::malloc_trim(0);
    }
}

//! Handing freed memory back to the operating system.
//!
//! glibc's allocator keeps the pages of freed heap chunks for the process: a
//! view of 140 MB dropped mid-run leaves the resident size where it was, and
//! the next view grows it again. `report` forgets views as their last reader
//! finishes (`engine::views`), and asks the allocator here to return what is
//! free, so that the peak is what is held, not what was ever held.

/// Has the allocator give large blocks their own mappings, returned to the
/// system when freed, and trim the heap's free top past 1 MiB; call once,
/// first thing.
///
/// By default glibc raises its mmap threshold up to 32 MiB as large blocks are
/// freed, so the Arrow buffers of a load and of the queries' hash tables and
/// sorts end up inside the heap, where freed space stays with the process
/// (fragmented between live blocks, `malloc_trim` cannot give it back). On
/// the 1 GB benchmark a `report --out` held ~180 MB of such free heap at its
/// peak; with the thresholds fixed its peak RSS went from 918–977 to
/// 878–917 MB in the same run, for ~0.3 s more system time (page faults of
/// fresh mappings), ~2% of the CPU time on the default trace.
pub fn hand_back_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any other
    // thread exists, as glibc asks.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1024 * 1024);
    }
}

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

//! A reader's per-event work split in two: reading an event's input, which
//! borrows only what was read from the file, and applying it to the trace,
//! which must happen in event order. For a large trace the reading runs on
//! a second thread, a chunk at a time, while this one applies. Profiles of
//! the XPlane and Perfetto readers put more of the work in applying (rows,
//! interning, native rows) than in reading, so the applying thread reads
//! nothing.

use std::sync::mpsc::sync_channel;

/// Events are read and applied in chunks of this many.
pub const CHUNK: usize = 4096;

/// Whether `events` are enough for a second thread to pay: a few chunks.
pub fn worth_two_threads(events: usize) -> bool {
    events > 4 * CHUNK
}

/// Passes each of `chunks`, with what `read` makes of it, to `apply` in
/// order, stopping at `apply`'s first error. With `two_threads`, `read` runs
/// on a second thread at most two chunks ahead (what waits is bounded);
/// each thread has its own `S` for `read`'s buffers. The result is that of
/// reading and applying each chunk in turn on this thread.
pub fn read_and_apply<C, S, R, E>(
    chunks: impl Iterator<Item = C> + Clone + Send,
    two_threads: bool,
    read: impl Fn(&mut S, C) -> R + Sync,
    mut apply: impl FnMut(C, R) -> Result<(), E>,
) -> Result<(), E>
where
    C: Copy + Send,
    S: Default,
    R: Send,
{
    let mut scratch = S::default();
    if !two_threads {
        for chunk in chunks {
            apply(chunk, read(&mut scratch, chunk))?;
        }
        return Ok(());
    }
    let read = &read;
    std::thread::scope(|threads| {
        let (send, receive) = sync_channel(2);
        let ahead = chunks.clone();
        threads.spawn(move || {
            let mut scratch = S::default();
            for chunk in ahead {
                // The receiver is gone when applying stopped at an error.
                if send.send(read(&mut scratch, chunk)).is_err() {
                    break;
                }
            }
        });
        for chunk in chunks {
            // Should the reading thread have stopped, read here.
            let done = match receive.recv() {
                Ok(done) => done,
                Err(_) => read(&mut scratch, chunk),
            };
            apply(chunk, done)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_applied_in_order_and_stop_at_the_first_error() {
        let items: Vec<u32> = (0..50_000).collect();
        for two_threads in [false, true] {
            let mut seen = Vec::new();
            let done = read_and_apply(
                items.chunks(CHUNK),
                two_threads,
                |calls: &mut usize, chunk: &[u32]| {
                    *calls += 1;
                    chunk.iter().map(|x| x * 2).collect::<Vec<_>>()
                },
                |chunk, doubled| {
                    assert_eq!(chunk.len(), doubled.len());
                    seen.extend(doubled);
                    Ok::<_, String>(())
                },
            );
            assert!(done.is_ok());
            assert_eq!(seen, items.iter().map(|x| x * 2).collect::<Vec<_>>());
            let mut applied = 0;
            let failed = read_and_apply(
                items.chunks(CHUNK),
                two_threads,
                |_: &mut (), chunk: &[u32]| chunk[0],
                |_, first| {
                    applied += 1;
                    match first >= 3 * CHUNK as u32 {
                        true => Err(first),
                        false => Ok(()),
                    }
                },
            );
            assert_eq!((failed, applied), (Err(3 * CHUNK as u32), 4));
        }
        assert!(!worth_two_threads(4 * CHUNK) && worth_two_threads(4 * CHUNK + 1));
    }
}

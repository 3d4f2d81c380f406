//! Read-ahead decoding: a second thread decodes every other chunk of the document
//! while the main parser works through the chunk before it.
//!
//! Inflating is fast (zlib-rs inflates the 55 MB benchmark trace in about 25 ms)
//! and decoding events is what a load waits for, so during a load the second core
//! is mostly idle. A chunk is cut at an arbitrary byte, so the read-ahead thread
//! cannot know where its first event starts: it guesses (the first `{` that
//! follows `}` and `,`), decodes events from there to the last one complete in the
//! chunk, and hands them over as a [`Part`]. The main parser, which follows the
//! document from its start and so knows every true event boundary, takes a part
//! only when it stands at an event that starts exactly where the part starts. A
//! wrong guess is never taken, only wasted; and decoding from a true event start
//! is deterministic, so a part taken holds the very rows the main parser would
//! have pushed itself (the same one-pass reader, the same checks).

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread;

use super::decode;
use super::fast;
use crate::ingest::source::{AheadChunk, AheadChunks};
use crate::ingest::trace::RawTrace;

/// Events decoded ahead from one chunk.
pub struct Part {
    /// Document offset of the first event's `{`.
    pub start: u64,
    /// Document offset just past the last event's `}`.
    pub end: u64,
    /// The events, as rows numbered from 0.
    pub trace: RawTrace,
}

/// How many guesses at an event start to try in one chunk before giving it up.
const GUESSES: usize = 4;

/// The read-ahead thread's two ends.
pub struct Ahead {
    /// One message per chunk queued for read-ahead, in order, with the part
    /// decoded from it (None: no part).
    pub parts: Receiver<Option<Part>>,
    /// Emptied part columns going back for reuse: the thread then fills buffers
    /// that are already allocated and paged in instead of growing new ones.
    pub spare: SyncSender<RawTrace>,
}

/// Starts the read-ahead thread on the chunks it is sent; its parts hold every
/// event's args when `hold_all_args` (see [`RawTrace::hold_all_args`]).
pub fn spawn(input: AheadChunks, hold_all_args: bool) -> Ahead {
    let (tx, parts) = sync_channel(2);
    let (spare, spares) = sync_channel::<RawTrace>(4);
    thread::spawn(move || {
        let mut busy = crate::timing::Busy::new("  decode ahead (second thread)");
        // One message per chunk received, in order: the main parser waits for
        // the messages of the chunks it was told were queued, and only those.
        for chunk in input.chunks {
            let mut trace = spares.try_recv().unwrap_or_default();
            trace.hold_all_args = hold_all_args;
            let part = busy.time(|| decode_chunk(&chunk, trace));
            // The buffer goes back to the reader thread, as the main parser's do.
            let _ = input.spent.try_send(chunk.bytes);
            if tx.send(part).is_err() {
                break;
            }
        }
    });
    Ahead { parts, spare }
}

/// Decodes the run of complete events from the first plausible event start.
/// `trace` is empty; its buffers are reused.
fn decode_chunk(chunk: &AheadChunk, mut trace: RawTrace) -> Option<Part> {
    let bytes = chunk.bytes.as_slice();
    let mut from = 0;
    for _ in 0..GUESSES {
        let start = guess_event_start(bytes, from)?;
        if let Some(end) = decode_run(bytes, chunk.offset, start, &mut trace) {
            return Some(Part {
                start: chunk.offset + start as u64,
                end: chunk.offset + end as u64,
                trace,
            });
        }
        trace.clear();
        from = start + 1;
    }
    None
}

/// Decodes events from `start`, separated by commas, into `trace` until one is cut
/// off by the end of the chunk, the array ends, or anything the fast reader
/// declines. `bytes` start at document offset `offset`. Returns the offset past
/// the last event decoded (None if none was).
fn decode_run(bytes: &[u8], offset: u64, start: usize, trace: &mut RawTrace) -> Option<usize> {
    let mut at = start;
    let mut end = None;
    // Checked once for the chunk, not slice by slice in each event.
    let text = fast::valid_prefix(&bytes[start..]);
    while let Some((event, len)) =
        fast::read_event_in(&bytes[at..], text.get(at - start..).unwrap_or_default())
    {
        if decode::push_decoded(trace, &event, &bytes[at..], offset + at as u64).is_err() {
            break;
        }
        at += len;
        end = Some(at);
        let comma = skip_whitespace(bytes, at);
        if bytes.get(comma) != Some(&b',') {
            break;
        }
        at = skip_whitespace(bytes, comma + 1);
    }
    end
}

/// The first `{` at or after `from` that follows `}` and `,` (whitespace aside) and
/// opens an object with a key: how one event follows another in `traceEvents`.
fn guess_event_start(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    loop {
        i += bytes.get(i..)?.iter().position(|&b| b == b'{')?;
        let before = bytes[..i]
            .iter()
            .rev()
            .copied()
            .filter(|&b| !is_json_whitespace(b))
            .take(2)
            .collect::<Vec<u8>>();
        let opens_key = bytes.get(skip_whitespace(bytes, i + 1)) == Some(&b'"');
        if before == b",}" && opens_key {
            return Some(i);
        }
        i += 1;
    }
}

fn skip_whitespace(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(|&b| is_json_whitespace(b)) {
        i += 1;
    }
    i
}

/// JSON's four whitespace bytes (not form feed, which `is_ascii_whitespace` also
/// takes): between events the main parser accepts exactly these, so a part must
/// not step over anything else.
fn is_json_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guesses_the_event_after_a_separator() {
        let text = br#"ts": 1}, "x": {"a": 1}},
  {"ph": "X"}, {"ph": "i"}"#;
        let start = guess_event_start(text, 0).expect("an event start");
        assert_eq!(&text[start..start + 5], br#"{"ph""#);
        assert_eq!(guess_event_start(br#"{"a": 1}"#, 0), None);
    }

    #[test]
    fn decodes_complete_events_and_stops_at_a_cut_one() {
        let text = br#"1}, {"ph": "X", "cat": "cpu_op", "name": "a", "ts": 1, "dur": 2},
            {"ph": "X", "cat": "cpu_op", "name": "b", "ts": 3, "dur": 1}, {"ph": "X", "na"#;
        let chunk = AheadChunk {
            offset: 100,
            bytes: text.to_vec(),
        };
        let part = decode_chunk(&chunk, RawTrace::default()).expect("a part");
        assert_eq!(part.start, 100 + 4);
        let end = text.iter().rposition(|&b| b == b'}').expect("a brace") + 1;
        assert_eq!(part.end, 100 + end as u64);
        assert_eq!(part.trace.len(), 2);
        assert_eq!(part.trace.name_of(1), "b");
    }

    #[test]
    fn stops_at_the_end_of_the_array() {
        let text = br#"0}, {"ph": "i", "name": "a"}], "other": [{"ph": "i"}]"#;
        let chunk = AheadChunk {
            offset: 0,
            bytes: text.to_vec(),
        };
        let part = decode_chunk(&chunk, RawTrace::default()).expect("a part");
        assert_eq!(part.trace.len(), 1);
        assert_eq!(&text[part.end as usize..part.end as usize + 1], b"]");
    }
}

//! How deeply an encoded message nests, bounded before prost decodes it.
//!
//! prost refuses messages nested past 100 levels, but the cluster feature
//! turns that limit off for the whole binary (prost's `no-recursion-limit`:
//! Ballista's plans of whole reports nest deeper). There a file of tuple
//! shapes inside tuple shapes, or of groups inside groups, would have the
//! decoder recurse until the stack overflowed. So every message that prost
//! decodes from an XPlane file (the space, each HLO proto) goes through
//! [`check`] first, in every build, and gets the same one-line error; events
//! and stats are read by our own flat reader, which refuses groups.
//!
//! prost recurses in two places only: into a field its message declares as a
//! message (a [`Schema`] lists them, with their own schemas), and into the
//! groups nested inside an unknown group field, which it skips. The walk
//! follows the first and counts the second in a loop.

use super::proto::varint;

/// Deeper than this is refused: prost's own default limit.
pub const MAX_DEPTH: usize = 100;

/// The message-typed fields of one message type: their tags and schemas.
/// Every other field is skipped, as prost skips or reads it flat.
pub struct Schema {
    pub messages: &'static [(u64, &'static Schema)],
}

/// A message of scalars, strings and bytes only.
pub static FLAT: Schema = Schema { messages: &[] };

/// Ok when no message or group in `bytes`, read as `schema`, sits more than
/// [`MAX_DEPTH`] levels deep. Bytes that are not a message are left to prost,
/// which says what is wrong with them.
pub fn check(bytes: &[u8], schema: &Schema) -> Result<(), String> {
    walk(bytes, schema, 1)
}

fn walk(mut bytes: &[u8], schema: &Schema, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    // Groups open inside this message (skipped by prost, one level each).
    let mut groups = 0usize;
    while !bytes.is_empty() {
        let Some(key) = varint(&mut bytes) else {
            return Ok(());
        };
        let (tag, wire_type) = (key >> 3, key & 7);
        match wire_type {
            0 => {
                if varint(&mut bytes).is_none() {
                    return Ok(());
                }
            }
            1 | 5 => {
                let width = if wire_type == 1 { 8 } else { 4 };
                let Some(rest) = bytes.get(width..) else {
                    return Ok(());
                };
                bytes = rest;
            }
            2 => {
                let Some(len) = varint(&mut bytes).and_then(|n| usize::try_from(n).ok()) else {
                    return Ok(());
                };
                if len > bytes.len() {
                    return Ok(());
                }
                let (payload, rest) = bytes.split_at(len);
                bytes = rest;
                let field = schema.messages.iter().find(|(t, _)| *t == tag);
                if let (Some((_, inner)), 0) = (field, groups) {
                    walk(payload, inner, depth + 1)?;
                }
            }
            3 => {
                groups += 1;
                if depth + groups > MAX_DEPTH {
                    return Err(too_deep());
                }
            }
            4 => groups = groups.saturating_sub(1),
            _ => return Ok(()),
        }
    }
    Ok(())
}

fn too_deep() -> String {
    format!("its messages nest more than {MAX_DEPTH} levels deep")
}

//! The XPlane messages (spec formats.md §C.2), declared by hand for prost:
//! only the fields tracesql reads. Unknown fields are skipped on decoding, so
//! newer writers with more fields still decode. `oneof` members are declared as
//! `optional` fields, which is the same on the wire and keeps presence.
//!
//! Reading uses [`SpaceIn`], [`PlaneIn`] and [`LineIn`], which leave events
//! encoded ([`EventIn`] reads them in place); `XSpace`, `XPlane`,
//! `XLine` and `XEvent` are the same messages fully typed, the writing
//! side, which only the tests need (to encode the spaces they read back).

use std::collections::HashMap;

use super::nesting::{Schema, FLAT};

/// One profile: a file.
#[cfg(test)]
#[derive(Clone, PartialEq, prost::Message)]
pub struct XSpace {
    #[prost(message, repeated, tag = "1")]
    pub planes: Vec<XPlane>,
    #[prost(string, repeated, tag = "2")]
    pub errors: Vec<String>,
    #[prost(string, repeated, tag = "3")]
    pub warnings: Vec<String>,
    #[prost(string, repeated, tag = "4")]
    pub hostnames: Vec<String>,
}

/// One device (`/device:GPU:0`), the host (`/host:CPU`) or a metadata plane.
#[cfg(test)]
#[derive(Clone, PartialEq, prost::Message)]
pub struct XPlane {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(message, repeated, tag = "3")]
    pub lines: Vec<XLine>,
    #[prost(map = "int64, message", tag = "4")]
    pub event_metadata: HashMap<i64, XEventMetadata>,
    #[prost(map = "int64, message", tag = "5")]
    pub stat_metadata: HashMap<i64, XStatMetadata>,
    #[prost(message, repeated, tag = "6")]
    pub stats: Vec<XStat>,
}

/// A thread or a GPU stream.
#[cfg(test)]
#[derive(Clone, PartialEq, prost::Message)]
pub struct XLine {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(int64, tag = "3")]
    pub timestamp_ns: i64,
    #[prost(message, repeated, tag = "4")]
    pub events: Vec<XEvent>,
    #[prost(int64, tag = "9")]
    pub duration_ps: i64,
    #[prost(int64, tag = "10")]
    pub display_id: i64,
    #[prost(string, tag = "11")]
    pub display_name: String,
}

/// One slice. `offset_ps` and `num_occurrences` are a oneof.
#[cfg(test)]
#[derive(Clone, PartialEq, prost::Message)]
pub struct XEvent {
    #[prost(int64, tag = "1")]
    pub metadata_id: i64,
    #[prost(int64, optional, tag = "2")]
    pub offset_ps: Option<i64>,
    #[prost(int64, tag = "3")]
    pub duration_ps: i64,
    #[prost(message, repeated, tag = "4")]
    pub stats: Vec<XStat>,
    #[prost(int64, optional, tag = "5")]
    pub num_occurrences: Option<i64>,
}

/// One attribute; the value fields are a oneof.
#[derive(Clone, PartialEq, prost::Message)]
pub struct XStat {
    #[prost(int64, tag = "1")]
    pub metadata_id: i64,
    #[prost(double, optional, tag = "2")]
    pub double_value: Option<f64>,
    #[prost(uint64, optional, tag = "3")]
    pub uint64_value: Option<u64>,
    #[prost(int64, optional, tag = "4")]
    pub int64_value: Option<i64>,
    #[prost(string, optional, tag = "5")]
    pub str_value: Option<String>,
    #[prost(bytes = "vec", optional, tag = "6")]
    pub bytes_value: Option<Vec<u8>>,
    /// An interned string: the name of `stat_metadata[ref_value]`.
    #[prost(uint64, optional, tag = "7")]
    pub ref_value: Option<u64>,
}

/// An interned event name with the stats every event of that name shares.
#[derive(Clone, PartialEq, prost::Message)]
pub struct XEventMetadata {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(bytes = "vec", tag = "3")]
    pub metadata: Vec<u8>,
    #[prost(string, tag = "4")]
    pub display_name: String,
    #[prost(message, repeated, tag = "5")]
    pub stats: Vec<XStat>,
    #[prost(int64, repeated, tag = "6")]
    pub child_id: Vec<i64>,
}

/// An interned stat name (and interned string values, see [`XStat::ref_value`]).
#[derive(Clone, PartialEq, prost::Message)]
pub struct XStatMetadata {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(string, tag = "3")]
    pub description: String,
}

/// The reading side of `XSpace`: the same fields, but each line's events
/// are left encoded ([`LineIn::events`]) and read in place by [`EventIn`].
/// A JAX profile is mostly events, each with a handful of stats; decoded as
/// messages, each would cost a vector and a string per stat.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SpaceIn {
    #[prost(message, repeated, tag = "1")]
    pub planes: Vec<PlaneIn>,
    #[prost(string, repeated, tag = "2")]
    pub errors: Vec<String>,
    #[prost(string, repeated, tag = "3")]
    pub warnings: Vec<String>,
    #[prost(string, repeated, tag = "4")]
    pub hostnames: Vec<String>,
}

/// [`SpaceIn`]'s message-typed fields, for [`nesting::check`]: what prost
/// recurses into. Lines keep their events as bytes; map fields are messages
/// of a key and a value (tag 2).
pub static SPACE_IN: Schema = Schema {
    messages: &[(1, &PLANE_IN)],
};
static PLANE_IN: Schema = Schema {
    messages: &[
        (3, &FLAT),
        (4, &EVENT_METADATA_ENTRY),
        (5, &STAT_METADATA_ENTRY),
        (6, &FLAT),
    ],
};
static EVENT_METADATA_ENTRY: Schema = Schema {
    messages: &[(2, &EVENT_METADATA)],
};
static EVENT_METADATA: Schema = Schema {
    messages: &[(5, &FLAT)],
};
static STAT_METADATA_ENTRY: Schema = Schema {
    messages: &[(2, &FLAT)],
};

/// `XPlane` with [`LineIn`] lines.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PlaneIn {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(message, repeated, tag = "3")]
    pub lines: Vec<LineIn>,
    #[prost(map = "int64, message", tag = "4")]
    pub event_metadata: HashMap<i64, XEventMetadata>,
    #[prost(map = "int64, message", tag = "5")]
    pub stat_metadata: HashMap<i64, XStatMetadata>,
    #[prost(message, repeated, tag = "6")]
    pub stats: Vec<XStat>,
}

/// `XLine` with its events as their encoded bytes (slices of the file when
/// decoded from a [`bytes::Bytes`]).
#[derive(Clone, PartialEq, prost::Message)]
pub struct LineIn {
    #[prost(int64, tag = "1")]
    pub id: i64,
    #[prost(string, tag = "2")]
    pub name: String,
    #[prost(int64, tag = "3")]
    pub timestamp_ns: i64,
    #[prost(bytes = "bytes", repeated, tag = "4")]
    pub events: Vec<bytes::Bytes>,
    #[prost(int64, tag = "9")]
    pub duration_ps: i64,
    #[prost(int64, tag = "10")]
    pub display_id: i64,
    #[prost(string, tag = "11")]
    pub display_name: String,
}

/// One stat, borrowed: from an encoded event or from a decoded [`XStat`].
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub struct StatRef<'a> {
    pub metadata_id: i64,
    pub double_value: Option<f64>,
    pub uint64_value: Option<u64>,
    pub int64_value: Option<i64>,
    pub str_value: Option<&'a str>,
    pub ref_value: Option<u64>,
}

impl<'a> From<&'a XStat> for StatRef<'a> {
    fn from(s: &'a XStat) -> StatRef<'a> {
        StatRef {
            metadata_id: s.metadata_id,
            double_value: s.double_value,
            uint64_value: s.uint64_value,
            int64_value: s.int64_value,
            str_value: s.str_value.as_deref(),
            ref_value: s.ref_value,
        }
    }
}

/// One event read from its encoded bytes (`XEvent`'s fields). Reading it
/// allocates nothing: the stats are found again in `body` when asked for.
#[derive(Default, Debug, Clone, Copy)]
pub struct EventIn<'a> {
    pub metadata_id: i64,
    pub offset_ps: Option<i64>,
    pub duration_ps: i64,
    pub num_occurrences: Option<i64>,
    /// The whole encoded event, its stats (field 4) among the other fields.
    body: &'a [u8],
}

impl<'a> EventIn<'a> {
    /// Reads an event; the stats stay encoded until asked for.
    pub fn read(bytes: &'a [u8]) -> Result<EventIn<'a>, String> {
        let mut event = EventIn {
            body: bytes,
            ..EventIn::default()
        };
        let mut wire = Wire(bytes);
        while let Some((tag, value)) = wire.field()? {
            match (tag, value) {
                (1, Value::Varint(v)) => event.metadata_id = v as i64,
                (2, Value::Varint(v)) => event.offset_ps = Some(v as i64),
                (3, Value::Varint(v)) => event.duration_ps = v as i64,
                (4, Value::Bytes(_)) => {}
                (5, Value::Varint(v)) => event.num_occurrences = Some(v as i64),
                (1..=5, _) => {
                    return Err(format!("an event's field {tag} has the wrong wire type"))
                }
                _ => {}
            }
        }
        Ok(event)
    }

    /// The event's own stats, in the order written, appended to `out`.
    pub fn stats(&self, out: &mut Vec<StatRef<'a>>) -> Result<(), String> {
        // `read` walked these fields once already: they are well formed.
        let mut wire = Wire(self.body);
        while let Some((tag, value)) = wire.field()? {
            if let (4, Value::Bytes(bytes)) = (tag, value) {
                out.push(read_stat(bytes)?);
            }
        }
        Ok(())
    }
}

fn read_stat(bytes: &[u8]) -> Result<StatRef<'_>, String> {
    let mut stat = StatRef::default();
    let mut wire = Wire(bytes);
    while let Some((tag, value)) = wire.field()? {
        match (tag, value) {
            (1, Value::Varint(v)) => stat.metadata_id = v as i64,
            (2, Value::Fixed64(v)) => stat.double_value = Some(f64::from_bits(v)),
            (3, Value::Varint(v)) => stat.uint64_value = Some(v),
            (4, Value::Varint(v)) => stat.int64_value = Some(v as i64),
            (5, Value::Bytes(b)) => {
                let text = std::str::from_utf8(b).map_err(|_| "a stat's string is not UTF-8")?;
                stat.str_value = Some(text);
            }
            (6, Value::Bytes(_)) => {}
            (7, Value::Varint(v)) => stat.ref_value = Some(v),
            (1..=7, _) => return Err(format!("a stat's field {tag} has the wrong wire type")),
            _ => {}
        }
    }
    Ok(stat)
}

/// A protobuf field's value as written on the wire.
enum Value<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32,
    Bytes(&'a [u8]),
}

/// The fields of one encoded message, in order.
struct Wire<'a>(&'a [u8]);

/// A varint from the front of `bytes`, or None where it is cut off or longer
/// than ten bytes (`bytes` is then left as it was).
pub fn varint(bytes: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            *bytes = &bytes[i + 1..];
            return Some(value);
        }
    }
    None
}

impl<'a> Wire<'a> {
    fn varint(&mut self) -> Result<u64, String> {
        varint(&mut self.0).ok_or_else(|| "a varint is cut off or too long".into())
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if n > self.0.len() {
            return Err("a field runs past the end of its message".into());
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    /// The next field (None at the end of the message).
    fn field(&mut self) -> Result<Option<(u64, Value<'a>)>, String> {
        if self.0.is_empty() {
            return Ok(None);
        }
        let key = self.varint()?;
        let (tag, wire_type) = (key >> 3, key & 7);
        let value = match wire_type {
            0 => Value::Varint(self.varint()?),
            1 => Value::Fixed64(u64::from_le_bytes(
                self.take(8)?.try_into().map_err(|_| "cut off")?,
            )),
            2 => {
                let len = usize::try_from(self.varint()?).map_err(|_| "a length overflows")?;
                Value::Bytes(self.take(len)?)
            }
            5 => {
                self.take(4)?;
                Value::Fixed32
            }
            other => return Err(format!("unsupported wire type {other}")),
        };
        if tag == 0 {
            return Err("a field has tag 0".into());
        }
        Ok(Some((tag, value)))
    }
}

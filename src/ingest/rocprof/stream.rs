//! The document deserialized on one thread while another applies it.
//!
//! A process's `kernel_dispatch` array is nearly all of a rocprofv3 document
//! once its symbols are cut out (43,915 records in 21 MB for one real run).
//! Read into one vector first, the records cost their own copy of the run in
//! memory, and turning them into events waits for the last one. Here they go
//! to the applying thread in batches, in file order, as serde reads them,
//! with everything a process's records need before them ([`Part`]).
//!
//! The visitors accept only what `#[derive(Deserialize)]` on the same types
//! reads to the same values (objects for structs, each known field once,
//! unknown fields ignored, missing ones defaulted) and fail on anything else
//! (a struct written as an array, say), so the caller then reads the whole
//! document with the derived code, whose result or error stands.

use std::fmt;
use std::sync::mpsc::{Receiver, SyncSender};

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{AgentRecord, BufferRecords, DispatchRecord, Str, Symbol, Tool};

/// Dispatch records per batch: big enough that the channel costs nothing per
/// record, small enough that a few batches in flight hold little memory.
pub const BATCH: usize = 4096;

/// One piece of the document, in the order the applying thread uses it.
pub enum Part<'a> {
    /// A process's agents and symbols (the `[]` left in place of a cut-out
    /// array), sent before its dispatches when both come first in the file.
    Head {
        agents: Vec<AgentRecord>,
        symbols: Vec<Symbol<'a>>,
    },
    /// The next dispatch records of the process whose head was sent last.
    Dispatches(Vec<DispatchRecord>),
    /// A process, complete but for what its head and dispatches carried.
    Tool { rest: Box<Tool<'a>>, headed: bool },
}

/// Where the parts go, and where spent batches come back from for reuse.
pub struct Sink<'s, 'a> {
    pub parts: &'s SyncSender<Part<'a>>,
    pub spent: &'s Receiver<Vec<DispatchRecord>>,
}

impl<'a> Sink<'_, 'a> {
    /// Sends a part. A receiver that hung up has stopped applying; the
    /// document is still read to the end, whose error comes first.
    fn send(&self, part: Part<'a>) {
        let _ = self.parts.send(part);
    }

    fn batch(&self) -> Vec<DispatchRecord> {
        self.spent
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(BATCH))
    }
}

/// Deserializes the document `text`, sending its parts to `sink`.
pub fn deserialize<'a>(text: &'a str, sink: &Sink<'_, 'a>) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    Document(sink).deserialize(&mut de)?;
    de.end()
}

/// The known fields of a struct a visitor reads. A derived `Deserialize`
/// rejects a known field given twice, so these visitors do too.
struct Fields<const N: usize> {
    names: [&'static str; N],
    seen: [bool; N],
}

impl<const N: usize> Fields<N> {
    fn of(names: [&'static str; N]) -> Self {
        Fields {
            names,
            seen: [false; N],
        }
    }

    /// `key` back, or the derived code's error when it repeats a known field.
    fn first<'k, E: de::Error>(&mut self, key: &'k str) -> Result<&'k str, E> {
        if let Some(at) = self.names.iter().position(|name| *name == key) {
            if std::mem::replace(&mut self.seen[at], true) {
                return Err(E::duplicate_field(self.names[at]));
            }
        }
        Ok(key)
    }

    fn seen(&self, name: &str) -> bool {
        self.names
            .iter()
            .position(|known| *known == name)
            .is_some_and(|at| self.seen[at])
    }
}

struct Document<'s, 'x, 'a>(&'s Sink<'x, 'a>);

impl<'de: 'a, 'a> DeserializeSeed<'de> for Document<'_, '_, 'a> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for Document<'_, '_, 'a> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a rocprofv3 document")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        let mut fields = Fields::of(["rocprofiler-sdk-tool"]);
        while let Some(key) = map.next_key::<Str>()? {
            match fields.first(&key.0)? {
                "rocprofiler-sdk-tool" => map.next_value_seed(Tools(self.0))?,
                _ => map.next_value::<IgnoredAny>().map(drop)?,
            }
        }
        if !fields.seen("rocprofiler-sdk-tool") {
            return Err(de::Error::missing_field("rocprofiler-sdk-tool"));
        }
        Ok(())
    }
}

struct Tools<'s, 'x, 'a>(&'s Sink<'x, 'a>);

impl<'de: 'a, 'a> DeserializeSeed<'de> for Tools<'_, '_, 'a> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for Tools<'_, '_, 'a> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of processes")
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<(), S::Error> {
        while let Some(()) = seq.next_element_seed(OneTool(self.0))? {}
        Ok(())
    }
}

struct OneTool<'s, 'x, 'a>(&'s Sink<'x, 'a>);

impl<'de: 'a, 'a> DeserializeSeed<'de> for OneTool<'_, '_, 'a> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for OneTool<'_, '_, 'a> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("struct Tool")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        let mut rest = Tool::default();
        let (mut agents, mut symbols) = (None, None);
        let mut fields = Fields::of([
            "metadata",
            "agents",
            "kernel_symbols",
            "strings",
            "buffer_records",
        ]);
        let mut headed = false;
        while let Some(key) = map.next_key::<Str>()? {
            match fields.first(&key.0)? {
                "metadata" => rest.metadata = map.next_value()?,
                "agents" => agents = Some(map.next_value()?),
                "kernel_symbols" => symbols = Some(map.next_value()?),
                "strings" => rest.strings = map.next_value()?,
                "buffer_records" => {
                    // The records stream only once what they need is read;
                    // else they are held with the process.
                    headed = agents.is_some() && symbols.is_some();
                    if headed {
                        self.0.send(Part::Head {
                            agents: agents.take().unwrap_or_default(),
                            symbols: symbols.take().unwrap_or_default(),
                        });
                    }
                    rest.buffer_records = map.next_value_seed(Records {
                        sink: self.0,
                        stream: headed,
                    })?;
                }
                _ => map.next_value::<IgnoredAny>().map(drop)?,
            }
        }
        rest.agents = agents.unwrap_or_default();
        rest.kernel_symbols = symbols.unwrap_or_default();
        self.0.send(Part::Tool {
            rest: Box::new(rest),
            headed,
        });
        Ok(())
    }
}

/// A process's `buffer_records`, its dispatches streamed when `stream`.
struct Records<'s, 'x, 'a> {
    sink: &'s Sink<'x, 'a>,
    stream: bool,
}

impl<'de: 'a, 'a> DeserializeSeed<'de> for Records<'_, '_, 'a> {
    type Value = BufferRecords;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<BufferRecords, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for Records<'_, '_, 'a> {
    type Value = BufferRecords;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("struct BufferRecords")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<BufferRecords, M::Error> {
        let mut records = BufferRecords::default();
        let mut fields = Fields::of([
            "kernel_dispatch",
            "memory_copy",
            "hip_api",
            "hsa_api",
            "rccl_api",
            "marker_api",
        ]);
        while let Some(key) = map.next_key::<Str>()? {
            match fields.first(&key.0)? {
                "kernel_dispatch" if self.stream => map.next_value_seed(Dispatches(self.sink))?,
                "kernel_dispatch" => records.kernel_dispatch = map.next_value()?,
                "memory_copy" => records.memory_copy = map.next_value()?,
                "hip_api" => records.hip_api = map.next_value()?,
                "hsa_api" => records.hsa_api = map.next_value()?,
                "rccl_api" => records.rccl_api = map.next_value()?,
                "marker_api" => records.marker_api = map.next_value()?,
                _ => map.next_value::<IgnoredAny>().map(drop)?,
            }
        }
        Ok(records)
    }
}

/// A `kernel_dispatch` array, sent in batches of [`BATCH`].
struct Dispatches<'s, 'x, 'a>(&'s Sink<'x, 'a>);

impl<'de: 'a, 'a> DeserializeSeed<'de> for Dispatches<'_, '_, 'a> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for Dispatches<'_, '_, 'a> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of dispatch records")
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<(), S::Error> {
        let mut batch = self.0.batch();
        while let Some(record) = seq.next_element::<DispatchRecord>()? {
            batch.push(record);
            if batch.len() == BATCH {
                self.0.send(Part::Dispatches(batch));
                batch = self.0.batch();
            }
        }
        if !batch.is_empty() {
            self.0.send(Part::Dispatches(batch));
        }
        Ok(())
    }
}

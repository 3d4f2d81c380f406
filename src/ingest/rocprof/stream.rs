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

/// A struct's field seen twice: the derived code's error.
fn once<E: de::Error>(seen: &mut bool, field: &'static str) -> Result<(), E> {
    if std::mem::replace(seen, true) {
        return Err(E::duplicate_field(field));
    }
    Ok(())
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
        let mut tools = false;
        while let Some(key) = map.next_key::<Str>()? {
            if key.0 == "rocprofiler-sdk-tool" {
                once(&mut tools, "rocprofiler-sdk-tool")?;
                map.next_value_seed(Tools(self.0))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        if !tools {
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
        let mut seen = [false; 5];
        let mut headed = false;
        while let Some(key) = map.next_key::<Str>()? {
            match key.0.as_ref() {
                "metadata" => {
                    once(&mut seen[0], "metadata")?;
                    rest.metadata = map.next_value()?;
                }
                "agents" => {
                    once(&mut seen[1], "agents")?;
                    agents = Some(map.next_value()?);
                }
                "kernel_symbols" => {
                    once(&mut seen[2], "kernel_symbols")?;
                    symbols = Some(map.next_value()?);
                }
                "strings" => {
                    once(&mut seen[3], "strings")?;
                    rest.strings = map.next_value()?;
                }
                "buffer_records" => {
                    once(&mut seen[4], "buffer_records")?;
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
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
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
        let mut seen = [false; 6];
        while let Some(key) = map.next_key::<Str>()? {
            match key.0.as_ref() {
                "kernel_dispatch" => {
                    once(&mut seen[0], "kernel_dispatch")?;
                    if self.stream {
                        map.next_value_seed(Dispatches(self.sink))?;
                    } else {
                        records.kernel_dispatch = map.next_value()?;
                    }
                }
                "memory_copy" => {
                    once(&mut seen[1], "memory_copy")?;
                    records.memory_copy = map.next_value()?;
                }
                "hip_api" => {
                    once(&mut seen[2], "hip_api")?;
                    records.hip_api = map.next_value()?;
                }
                "hsa_api" => {
                    once(&mut seen[3], "hsa_api")?;
                    records.hsa_api = map.next_value()?;
                }
                "rccl_api" => {
                    once(&mut seen[4], "rccl_api")?;
                    records.rccl_api = map.next_value()?;
                }
                "marker_api" => {
                    once(&mut seen[5], "marker_api")?;
                    records.marker_api = map.next_value()?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
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

//! The subset of XLA's `HloProto` that the `hlo_instructions` table needs
//! (spec formats.md §C.4): modules, computations and instructions with their
//! names, opcodes, shapes, operands and custom-call fields. The metadata plane
//! of an XSpace keeps one serialised `HloProto` per compiled program.

use std::collections::HashMap;

use prost::Message as _;

use super::nesting::{self, Schema, FLAT};

use super::super::native::HloInstruction;

/// An `HloProto` from its bytes, refused where it nests past
/// [`nesting::MAX_DEPTH`] (tuple shapes are the one recursive message).
pub fn decode(bytes: &[u8]) -> Result<HloProto, String> {
    nesting::check(bytes, &HLO_PROTO)?;
    HloProto::decode(bytes).map_err(|e| e.to_string())
}

/// The message-typed fields of the messages below, for [`nesting::check`].
static HLO_PROTO: Schema = Schema {
    messages: &[(1, &HLO_MODULE)],
};
static HLO_MODULE: Schema = Schema {
    messages: &[(3, &HLO_COMPUTATION)],
};
static HLO_COMPUTATION: Schema = Schema {
    messages: &[(2, &HLO_INSTRUCTION)],
};
static HLO_INSTRUCTION: Schema = Schema {
    messages: &[(3, &SHAPE), (7, &FLAT)],
};
static SHAPE: Schema = Schema {
    messages: &[(4, &SHAPE), (5, &FLAT)],
};

#[derive(Clone, PartialEq, prost::Message)]
pub struct HloProto {
    #[prost(message, optional, tag = "1")]
    pub hlo_module: Option<HloModuleProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct HloModuleProto {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub entry_computation_name: String,
    #[prost(message, repeated, tag = "3")]
    pub computations: Vec<HloComputationProto>,
    #[prost(int64, tag = "5")]
    pub id: i64,
    #[prost(int64, tag = "6")]
    pub entry_computation_id: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct HloComputationProto {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, repeated, tag = "2")]
    pub instructions: Vec<HloInstructionProto>,
    #[prost(int64, tag = "5")]
    pub id: i64,
    #[prost(int64, tag = "6")]
    pub root_id: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct HloInstructionProto {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub opcode: String,
    #[prost(message, optional, tag = "3")]
    pub shape: Option<ShapeProto>,
    #[prost(message, optional, tag = "7")]
    pub metadata: Option<OpMetadata>,
    #[prost(string, tag = "11")]
    pub fusion_kind: String,
    #[prost(string, tag = "28")]
    pub custom_call_target: String,
    #[prost(int64, tag = "35")]
    pub id: i64,
    #[prost(int64, repeated, tag = "36")]
    pub operand_ids: Vec<i64>,
    #[prost(int64, repeated, tag = "38")]
    pub called_computation_ids: Vec<i64>,
    #[prost(bytes = "vec", tag = "43")]
    pub backend_config: Vec<u8>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct OpMetadata {
    #[prost(string, tag = "1")]
    pub op_type: String,
    #[prost(string, tag = "2")]
    pub op_name: String,
    #[prost(string, tag = "3")]
    pub source_file: String,
    #[prost(int32, tag = "4")]
    pub source_line: i32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ShapeProto {
    /// xla.PrimitiveType.
    #[prost(int32, tag = "2")]
    pub element_type: i32,
    #[prost(int64, repeated, tag = "3")]
    pub dimensions: Vec<i64>,
    #[prost(message, repeated, tag = "4")]
    pub tuple_shapes: Vec<ShapeProto>,
    #[prost(message, optional, tag = "5")]
    pub layout: Option<LayoutProto>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct LayoutProto {
    #[prost(int64, repeated, tag = "1")]
    pub minor_to_major: Vec<i64>,
}

/// xla.PrimitiveType as HLO text spells it.
pub fn element_type_name(t: i32) -> Option<&'static str> {
    Some(match t {
        1 => "pred",
        2 => "s8",
        3 => "s16",
        4 => "s32",
        5 => "s64",
        6 => "u8",
        7 => "u16",
        8 => "u32",
        9 => "u64",
        10 => "f16",
        11 => "f32",
        12 => "f64",
        14 => "opaque",
        15 => "c64",
        16 => "bf16",
        17 => "token",
        18 => "c128",
        19 => "f8e5m2",
        20 => "f8e4m3fn",
        21 => "s4",
        22 => "u4",
        23 => "f8e4m3b11fnuz",
        24 => "f8e5m2fnuz",
        25 => "f8e4m3fnuz",
        26 => "s2",
        27 => "u2",
        28 => "f8e4m3",
        29 => "f8e3m4",
        30 => "s1",
        31 => "u1",
        32 => "f4e2m1fn",
        33 => "f8e8m0fnu",
        _ => return None,
    })
}

/// Deeper tuples than this print as `(...)`: [`decode`] already refuses
/// more than 100 nested messages, this keeps the text (and the stack) small.
const MAX_TUPLE_DEPTH: usize = 32;

/// The HLO text of a shape (`HloModule::ToString`'s, with tuple elements
/// joined by `,` as TraceLens normalises them): `bf16[1,16,32]{2,1,0}`,
/// scalars `f32[]`, tuples `(a,b)`, with XLA's `/*index=5*/` before every
/// fifth element of a longer tuple.
pub fn shape_text(shape: &ShapeProto) -> String {
    let mut out = String::new();
    write_shape(&mut out, shape, 0);
    out
}

fn write_shape(out: &mut String, shape: &ShapeProto, depth: usize) {
    use std::fmt::Write as _;
    if shape.element_type == 13 {
        if depth >= MAX_TUPLE_DEPTH {
            out.push_str("(...)");
            return;
        }
        out.push('(');
        for (i, element) in shape.tuple_shapes.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            // XLA marks every fifth element of a long tuple.
            if i > 0 && i % 5 == 0 {
                let _ = write!(out, "/*index={i}*/");
            }
            write_shape(out, element, depth + 1);
        }
        out.push(')');
        return;
    }
    match element_type_name(shape.element_type) {
        Some(name) => out.push_str(name),
        None => {
            let _ = write!(out, "type{}", shape.element_type);
        }
    }
    out.push('[');
    join(out, &shape.dimensions);
    out.push(']');
    let layout = shape.layout.as_ref().map(|l| l.minor_to_major.as_slice());
    if let Some(m2m) = layout.filter(|_| !shape.dimensions.is_empty()) {
        out.push('{');
        join(out, m2m);
        out.push('}');
    }
}

fn join(out: &mut String, values: &[i64]) {
    use std::fmt::Write as _;
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{v}");
    }
}

/// One row per instruction of every computation of `module`.
pub fn instructions(module: &HloModuleProto, program_id: Option<i64>) -> Vec<HloInstruction> {
    let mut by_id: HashMap<i64, &HloInstructionProto> = HashMap::new();
    for computation in &module.computations {
        for instruction in &computation.instructions {
            by_id.insert(instruction.id, instruction);
        }
    }
    let shapes: HashMap<i64, String> = by_id
        .iter()
        .map(|(&id, i)| (id, i.shape.as_ref().map(shape_text).unwrap_or_default()))
        .collect();
    let computation_name: HashMap<i64, &str> = (module.computations.iter())
        .map(|c| (c.id, c.name.as_str()))
        .collect();
    let json = |v: Vec<serde_json::Value>| serde_json::Value::Array(v).to_string();
    let mut rows = Vec::new();
    for computation in &module.computations {
        let is_entry = computation.id == module.entry_computation_id
            || (!module.entry_computation_name.is_empty()
                && computation.name == module.entry_computation_name);
        for i in &computation.instructions {
            let operands = (i.operand_ids.iter())
                .map(|id| {
                    by_id
                        .get(id)
                        .map(|o| o.name.as_str().into())
                        .unwrap_or_default()
                })
                .collect();
            let operand_shapes = (i.operand_ids.iter())
                .map(|id| {
                    shapes
                        .get(id)
                        .map(|s| s.as_str().into())
                        .unwrap_or_default()
                })
                .collect();
            let called = (i.called_computation_ids.iter())
                .map(|id| {
                    computation_name
                        .get(id)
                        .map(|&n| n.into())
                        .unwrap_or_default()
                })
                .collect();
            let metadata = i.metadata.as_ref();
            let text = |s: &str| (!s.is_empty()).then(|| s.to_string());
            rows.push(HloInstruction {
                module: module.name.clone(),
                program_id,
                computation: computation.name.clone(),
                is_entry,
                name: i.name.clone(),
                id: i.id,
                opcode: i.opcode.clone(),
                shape: i.shape.as_ref().map(shape_text).unwrap_or_default(),
                operands: json(operands),
                operand_shapes: json(operand_shapes),
                called_computations: json(called),
                custom_call_target: text(&i.custom_call_target),
                backend_config: (!i.backend_config.is_empty())
                    .then(|| String::from_utf8_lossy(&i.backend_config).into_owned()),
                fusion_kind: text(&i.fusion_kind),
                op_type: metadata.and_then(|m| text(&m.op_type)),
                op_name: metadata.and_then(|m| text(&m.op_name)),
                source_file: metadata.and_then(|m| text(&m.source_file)),
                source_line: metadata
                    .filter(|m| m.source_line != 0)
                    .map(|m| i64::from(m.source_line)),
                is_root: i.id == computation.root_id,
            });
        }
    }
    rows
}

//! The XPlane reader on hand-built spaces, encoded with prost.

use std::collections::HashMap;

use prost::Message as _;
use serde_json::{json, Value};

use super::hlo::{self, HloComputationProto, HloInstructionProto, HloModuleProto, HloProto};
use super::hlo::{LayoutProto, OpMetadata, ShapeProto};
use super::proto::{
    PlaneIn, StatRef, XEvent, XEventMetadata, XLine, XPlane, XSpace, XStat, XStatMetadata,
};
use super::*;
use crate::ingest::dump::{assert_same, everything};
use crate::ingest::format;

fn stat_names(names: &[(i64, &str)]) -> HashMap<i64, XStatMetadata> {
    (names.iter())
        .map(|&(id, name)| {
            let meta = XStatMetadata {
                id,
                name: name.into(),
                ..Default::default()
            };
            (id, meta)
        })
        .collect()
}

fn event_names(names: &[(i64, &str, Vec<XStat>)]) -> HashMap<i64, XEventMetadata> {
    (names.iter())
        .map(|(id, name, stats)| {
            let meta = XEventMetadata {
                id: *id,
                name: name.to_string(),
                stats: stats.clone(),
                ..Default::default()
            };
            (*id, meta)
        })
        .collect()
}

fn uint(id: i64, v: u64) -> XStat {
    XStat {
        metadata_id: id,
        uint64_value: Some(v),
        ..Default::default()
    }
}

fn int(id: i64, v: i64) -> XStat {
    XStat {
        metadata_id: id,
        int64_value: Some(v),
        ..Default::default()
    }
}

fn interned(id: i64, r: u64) -> XStat {
    XStat {
        metadata_id: id,
        ref_value: Some(r),
        ..Default::default()
    }
}

fn text(id: i64, v: &str) -> XStat {
    XStat {
        metadata_id: id,
        str_value: Some(v.into()),
        ..Default::default()
    }
}

fn event(metadata_id: i64, offset_ps: i64, duration_ps: i64, stats: Vec<XStat>) -> XEvent {
    XEvent {
        metadata_id,
        offset_ps: Some(offset_ps),
        duration_ps,
        stats,
        ..Default::default()
    }
}

fn array(element_type: i32, dims: &[i64], m2m: &[i64]) -> ShapeProto {
    ShapeProto {
        element_type,
        dimensions: dims.to_vec(),
        layout: Some(LayoutProto {
            minor_to_major: m2m.to_vec(),
        }),
        ..Default::default()
    }
}

fn tuple(elements: Vec<ShapeProto>) -> ShapeProto {
    ShapeProto {
        element_type: 13,
        tuple_shapes: elements,
        ..Default::default()
    }
}

fn module() -> HloModuleProto {
    let param = HloInstructionProto {
        name: "p0".into(),
        opcode: "parameter".into(),
        shape: Some(array(16, &[1, 16, 32], &[2, 1, 0])),
        id: 1,
        ..Default::default()
    };
    let scalar = HloInstructionProto {
        name: "c".into(),
        opcode: "constant".into(),
        shape: Some(array(11, &[], &[])),
        id: 5_000_000_000,
        ..Default::default()
    };
    let conv = HloInstructionProto {
        name: "cudnn-conv.1.0".into(),
        opcode: "custom-call".into(),
        shape: Some(tuple(vec![
            array(16, &[1, 16, 32], &[2, 1, 0]),
            array(6, &[64], &[0]),
        ])),
        metadata: Some(OpMetadata {
            op_type: "conv_general_dilated".into(),
            op_name: "jit(f)/conv".into(),
            ..Default::default()
        }),
        custom_call_target: "__cudnn$convForward".into(),
        id: 7,
        operand_ids: vec![1, 5_000_000_000],
        backend_config: br#"{"operation_queue_id":"0"}"#.to_vec(),
        ..Default::default()
    };
    HloModuleProto {
        name: "jit_f".into(),
        entry_computation_name: "main.3".into(),
        computations: vec![HloComputationProto {
            name: "main.3".into(),
            instructions: vec![param, scalar, conv],
            id: 3,
            root_id: 7,
        }],
        id: 1,
        entry_computation_id: 3,
    }
}

/// A GPU with a stream (a kernel, a memcpy, a memset), the host with a
/// launch and a plain event, the HLO metadata and the task environment.
fn space() -> XSpace {
    // GPU stat names; ids 100+ are interned string values.
    let gpu_stats = stat_names(&[
        (1, "correlation_id"),
        (2, "hlo_op"),
        (3, "hlo_module"),
        (4, "program_id"),
        (5, "kernel_details"),
        (6, "memcpy_details"),
        (7, "core_count"),
        (8, "payload"),
        (100, "cudnn-conv.1.0"),
        (101, "jit_f"),
        (
            102,
            " grid:1024,2,1 block:256,1,1 private_mem:16 group_mem:49280 occ_pct:0",
        ),
        (103, "kind:Unknown size:655360 dest:2 async:1"),
    ]);
    let kernel_stats = vec![
        uint(1, 77),
        interned(2, 100),
        interned(3, 101),
        int(4, 9),
        interned(5, 102),
        XStat {
            metadata_id: 8,
            bytes_value: Some(vec![1, 2, 3]),
            ..Default::default()
        },
    ];
    let stream = XLine {
        id: 15,
        name: "Stream #15(Kernel)".into(),
        timestamp_ns: 1_000,
        events: vec![
            // Out of order in the file: sorted by ts, then longer first.
            event(2, 5_000, 1_000, vec![uint(1, 78), interned(6, 103)]),
            event(1, 1_234_567, 2_000_001, kernel_stats),
            event(3, 5_000, 3_000, vec![]),
        ],
        ..Default::default()
    };
    let gpu = XPlane {
        id: 1,
        name: "/device:GPU:2".into(),
        lines: vec![stream],
        event_metadata: event_names(&[
            (1, "conv_kernel.kd", vec![]),
            (2, "MemcpyD2D", vec![]),
            (3, "memset32", vec![]),
        ]),
        stat_metadata: gpu_stats,
        stats: vec![uint(7, 304)],
    };
    let host_line = XLine {
        // A 64-bit line id: the tid is its low 32 bits.
        id: (3 << 32) | 583,
        name: "py_xla_execute/abc".into(),
        timestamp_ns: 900,
        events: vec![
            event(1, 0, 50_000, vec![uint(1, 77)]),
            event(2, 10, 5, vec![]),
        ],
        ..Default::default()
    };
    let host = XPlane {
        id: 2,
        name: "/host:CPU".into(),
        lines: vec![host_line],
        // The launch's tf_op comes from its metadata, overridden by the event.
        event_metadata: event_names(&[
            (1, "hipModuleLaunchKernel", vec![text(2, "tf"), uint(1, 1)]),
            (2, "ThreadpoolListener::StartRegion", vec![]),
        ]),
        stat_metadata: stat_names(&[(1, "correlation_id"), (2, "tf_op")]),
        ..Default::default()
    };
    let hlo_bytes = HloProto {
        hlo_module: Some(module()),
    }
    .encode_to_vec();
    let metadata = XPlane {
        id: 3,
        name: "/host:metadata".into(),
        event_metadata: event_names(&[(
            1,
            "jit_f(9)",
            vec![XStat {
                metadata_id: 1,
                bytes_value: Some(hlo_bytes),
                ..Default::default()
            }],
        )]),
        stat_metadata: stat_names(&[(1, "Hlo Proto")]),
        ..Default::default()
    };
    let task = XPlane {
        id: 4,
        name: "Task Environment".into(),
        stat_metadata: stat_names(&[(1, "profile_start_time"), (2, "profile_stop_time")]),
        stats: vec![
            uint(1, 1_771_595_639_214_724_894),
            uint(2, 1_771_595_639_379_041_182),
        ],
        ..Default::default()
    };
    let idle_gpu = XPlane {
        id: 5,
        name: "/device:GPU:3".into(),
        ..Default::default()
    };
    XSpace {
        planes: vec![host, gpu, metadata, task, idle_gpu],
        hostnames: vec!["node7".into()],
        ..Default::default()
    }
}

fn built() -> RawTrace {
    let bytes = space().encode_to_vec();
    let decoded = decode(&bytes).expect("decodes");
    build("t.xplane.pb", &decoded).expect("builds")
}

fn args(trace: &RawTrace, uid: usize) -> Value {
    serde_json::from_str(trace.args_of(uid).expect("held args")).expect("JSON args")
}

#[test]
fn an_encoded_space_is_detected_as_jax() {
    let bytes = space().encode_to_vec();
    assert!(format::looks_like_xplane(&bytes));
    assert_eq!(format::sniff(&bytes), SourceFormat::Jax);
}

#[test]
fn events_come_in_xprof_order_with_its_pids_tids_and_times() {
    let trace = built();
    let rows: Vec<(String, String, String, f64, f64)> = (0..trace.len())
        .map(|u| {
            (
                trace.str(trace.pid.get(u)).unwrap().to_string(),
                trace.str(trace.tid.get(u)).unwrap().to_string(),
                trace.name_of(u).to_string(),
                trace.ts.get(u).unwrap(),
                trace.dur.get(u).unwrap(),
            )
        })
        .collect();
    let row = |p: &str, t: &str, n: &str, ts: f64, dur: f64| {
        (p.to_string(), t.to_string(), n.to_string(), ts, dur)
    };
    assert_eq!(
        rows,
        vec![
            // GPU 2 → pid 3; ts = (1000 ns · 1000 + offset) / 1e6.
            row("3", "15", "memset32", 1.005, 0.003),
            row("3", "15", "MemcpyD2D", 1.005, 0.001),
            row("3", "15", "conv_kernel.kd", 2.234567, 2.000001),
            row("701", "583", "hipModuleLaunchKernel", 0.9, 0.05),
            row(
                "701",
                "583",
                "ThreadpoolListener::StartRegion",
                0.90001,
                0.000005
            ),
        ]
    );
    let kinds = [
        EventKind::Memset,
        EventKind::Memcpy,
        EventKind::Kernel,
        EventKind::Runtime,
        EventKind::Other,
    ];
    assert_eq!(trace.kind, kinds);
    let cats: Vec<&str> = (0..5)
        .map(|u| trace.str(trace.cat.get(u)).unwrap())
        .collect();
    assert_eq!(cats, ["memset", "memcpy", "kernel", "launch", "host"]);
    // Kernels carry the GPU index (not the pid), the stream line and the
    // correlation that links them to the launch.
    assert_eq!(trace.device.get(2), Some(2));
    assert_eq!(trace.stream.get(2), Some(15));
    assert_eq!(trace.correlation.get(2), Some(77));
    assert_eq!(trace.correlation.get(3), Some(77));
    assert_eq!(trace.correlation.get(4), None);
    // Names: "<host> <plane>" and the line's name; idle planes name nothing.
    let pid = |p: &str| {
        let ids = 0..trace.strings.len() as u32;
        ids.into_iter()
            .find(|&i| trace.strings.get(i) == p)
            .unwrap()
    };
    assert_eq!(trace.process_names.len(), 2);
    assert_eq!(trace.process_names[&pid("3")], "node7 /device:GPU:2");
    assert_eq!(trace.process_names[&pid("701")], "node7 /host:CPU");
    let thread = &trace.thread_names[&(pid("701"), pid("583"))];
    assert_eq!(thread, "py_xla_execute/abc");
}

#[test]
fn args_are_the_resolved_stats() {
    let trace = built();
    assert_eq!(
        args(&trace, 2),
        json!({
            "correlation_id": 77,
            "hlo_op": "cudnn-conv.1.0",
            "hlo_module": "jit_f",
            "program_id": 9,
            "kernel_details": " grid:1024,2,1 block:256,1,1 private_mem:16 group_mem:49280 occ_pct:0",
        })
    );
    // Metadata stats under the event's own.
    assert_eq!(
        args(&trace, 3),
        json!({"correlation_id": 77, "tf_op": "tf"})
    );
    assert_eq!(args(&trace, 4), json!({}));
}

#[test]
fn native_rows_keep_the_exact_values() {
    let trace = built();
    let native = &trace.native;
    assert_eq!(native.format, SourceFormat::Jax);
    assert_eq!(native.dispatches.len(), 1);
    let d = &native.dispatches[0];
    assert_eq!(d.uid, 2);
    assert_eq!(d.gpu_index, Some(2));
    assert_eq!(d.stream_id, Some(15));
    assert_eq!(d.corr_id, Some(77));
    assert_eq!((d.begin_ps, d.end_ps), (Some(2_234_567), Some(4_234_568)));
    assert_eq!((d.begin_ns, d.end_ns), (Some(2_234), Some(4_234)));
    assert_eq!(d.grid, [Some(1024), Some(2), Some(1)]);
    assert_eq!(d.block, [Some(256), Some(1), Some(1)]);
    assert_eq!((d.grid_size, d.workgroup_size), (Some(2048), Some(256)));
    assert_eq!((d.lds, d.scratch), (Some(49280), Some(16)));
    assert_eq!(trace.str(d.hlo_module), Some("jit_f"));
    assert_eq!(trace.str(d.hlo_op), Some("cudnn-conv.1.0"));
    assert_eq!(trace.str(d.name), Some(trace.name_of(2)));
    assert_eq!(d.program_id, Some(9));
    assert_eq!(native.memory_copies.len(), 1);
    let m = &native.memory_copies[0];
    assert_eq!((m.uid, m.bytes, m.corr_id), (1, Some(655_360), Some(78)));
    assert_eq!(native.api_calls.len(), 1);
    let a = &native.api_calls[0];
    assert_eq!((a.uid, trace.str(a.domain)), (3, Some("xla_launch")));
    assert_eq!(a.thread_id, Some((3 << 32) | 583));
}

#[test]
fn hlo_instructions_come_from_the_metadata_plane() {
    let trace = built();
    let rows = &trace.native.hlo_instructions;
    assert_eq!(rows.len(), 3);
    let conv = rows.iter().find(|r| r.name == "cudnn-conv.1.0").unwrap();
    assert_eq!((conv.module.as_str(), conv.program_id), ("jit_f", Some(9)));
    assert_eq!(conv.computation, "main.3");
    assert!(conv.is_entry && conv.is_root);
    assert_eq!(conv.shape, "(bf16[1,16,32]{2,1,0},u8[64]{0})");
    assert_eq!(conv.operands, r#"["p0","c"]"#);
    assert_eq!(conv.operand_shapes, r#"["bf16[1,16,32]{2,1,0}","f32[]"]"#);
    assert_eq!(
        conv.custom_call_target.as_deref(),
        Some("__cudnn$convForward")
    );
    assert_eq!(
        conv.backend_config.as_deref(),
        Some(r#"{"operation_queue_id":"0"}"#)
    );
    assert_eq!(conv.op_type.as_deref(), Some("conv_general_dilated"));
    let scalar = rows.iter().find(|r| r.name == "c").unwrap();
    assert_eq!((scalar.id, scalar.is_root), (5_000_000_000, false));
}

#[test]
fn trace_meta_has_hosts_times_and_device_stats() {
    let trace = built();
    let meta: HashMap<&str, &str> = (trace.metadata.iter())
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(meta["hostnames"], r#"["node7"]"#);
    assert_eq!(meta["profile_start_time"], "1771595639214724894");
    assert_eq!(meta["profile_stop_time"], "1771595639379041182");
    assert_eq!(meta["device:GPU:2"], r#"{"core_count":304}"#);
    assert_eq!(meta["device:GPU:3"], "{}");
}

#[test]
fn shapes_print_as_hlo_text() {
    assert_eq!(
        hlo::shape_text(&array(16, &[1, 16, 32], &[2, 1, 0])),
        "bf16[1,16,32]{2,1,0}"
    );
    assert_eq!(hlo::shape_text(&array(11, &[], &[])), "f32[]");
    assert_eq!(hlo::shape_text(&array(1, &[], &[])), "pred[]");
    let no_layout = ShapeProto {
        element_type: 25,
        dimensions: vec![4, 8],
        ..Default::default()
    };
    assert_eq!(hlo::shape_text(&no_layout), "f8e4m3fnuz[4,8]");
    assert_eq!(hlo::shape_text(&array(99, &[2], &[0])), "type99[2]{0}");
    assert_eq!(hlo::shape_text(&tuple(vec![])), "()");
    let nested = tuple(vec![tuple(vec![array(4, &[], &[])]), array(6, &[3], &[0])]);
    assert_eq!(hlo::shape_text(&nested), "((s32[]),u8[3]{0})");
    let long = tuple((0..7).map(|i| array(4, &[i], &[0])).collect());
    assert_eq!(
        hlo::shape_text(&long),
        "(s32[0]{0},s32[1]{0},s32[2]{0},s32[3]{0},s32[4]{0},/*index=5*/s32[5]{0},s32[6]{0})"
    );
    // Deep tuples stop at a fixed depth.
    let mut deep = array(11, &[], &[]);
    for _ in 0..50 {
        deep = tuple(vec![deep]);
    }
    let text = hlo::shape_text(&deep);
    assert!(text.contains("(...)") && text.len() < 100, "{text}");
}

#[test]
fn kernel_details_and_module_keys_parse() {
    let old = KernelDetails::parse(
        "regs:32 static_shared:1024 dynamic_shared:2048 grid:10,1,1 block:128,1,1 occ_pct:50",
    );
    assert_eq!(old.grid, [Some(10), Some(1), Some(1)]);
    assert_eq!((old.lds, old.scratch), (Some(3072), None));
    assert_eq!(KernelDetails::parse(""), KernelDetails::default());
    let cut = KernelDetails::parse("grid:7 block:x,2");
    assert_eq!(
        (cut.grid, cut.block),
        ([Some(7), None, None], [None, Some(2), None])
    );
    // The first token of a key counts; a longer key is not the shorter one;
    // a value may hold colons; non-ASCII text splits on any whitespace.
    let odd =
        KernelDetails::parse("gridx:9 grid:4:5 grid:8 group_mem:12\u{a0}block:3 private_mem:é");
    assert_eq!(odd.grid, [None, None, None], "4:5 is not a number");
    assert_eq!(
        (odd.lds, odd.block[0], odd.scratch),
        (Some(12), Some(3), None)
    );
    let first = KernelDetails::parse("group_mem:1 group_mem:2 private_mem:7");
    assert_eq!((first.lds, first.scratch), (Some(1), Some(7)));
    assert_eq!(
        module_key("jit_forward_3d_conv(15)"),
        ("jit_forward_3d_conv", Some(15))
    );
    assert_eq!(module_key("jit_f(x)(2)"), ("jit_f(x)", Some(2)));
    assert_eq!(module_key("plain"), ("plain", None));
    assert_eq!(module_key("odd(1"), ("odd(1", None));
}

fn error_of(bytes: &[u8]) -> String {
    let message = match decode(bytes) {
        Err(e) => e,
        Ok(space) => build("x", &space).err().expect("an error"),
    };
    assert!(
        message.starts_with("not a valid JAX XPlane file: "),
        "{message}"
    );
    assert!(!message.contains('\n'), "{message}");
    message
}

#[test]
fn bad_input_is_one_line_naming_what_is_wrong() {
    let whole = space().encode_to_vec();
    // Cut anywhere in the middle of a message.
    for cut in [1, 2, 10, whole.len() / 2, whole.len() - 1] {
        let message = match decode(&whole[..cut]) {
            Err(e) => e,
            Ok(_) => continue, // a cut between two planes is a valid, shorter space
        };
        assert!(
            message.starts_with("not a valid JAX XPlane file: "),
            "{message}"
        );
    }
    assert!(decode(&whole[..whole.len() - 1]).is_err());
    // A plane whose name (field 2) is written as a varint.
    assert!(error_of(&[0x0a, 0x02, 0x10, 0x01]).contains("wire type"));
    // No plane at all; planes that are not a profile's.
    assert!(error_of(&[0x22, 0x01, b'h']).contains("no plane"));
    let other = XSpace {
        planes: vec![XPlane {
            name: "something else".into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    assert!(error_of(&other.encode_to_vec()).contains("no plane is named"));
    // A corrupt HLO proto names its module.
    let mut broken = space();
    let meta = broken
        .planes
        .iter_mut()
        .find(|p| p.name == "/host:metadata")
        .unwrap();
    let entry = meta.event_metadata.get_mut(&1).unwrap();
    entry.stats[0].bytes_value = Some(vec![0x0a, 0x05, 0x0a]);
    assert!(error_of(&broken.encode_to_vec()).contains("the HLO proto of jit_f(9)"));
    // Times that overflow i64 picoseconds.
    let mut late = space();
    late.planes[1].lines[0].timestamp_ns = i64::MAX / 10;
    assert!(error_of(&late.encode_to_vec()).contains("overflows"));
}

/// An HLO proto whose one instruction has `shape`.
fn hlo_with_shape(shape: ShapeProto) -> Vec<u8> {
    let instruction = HloInstructionProto {
        name: "t".into(),
        opcode: "tuple".into(),
        shape: Some(shape),
        ..Default::default()
    };
    let computation = HloComputationProto {
        name: "main".into(),
        instructions: vec![instruction],
        ..Default::default()
    };
    let module = HloModuleProto {
        name: "jit_f".into(),
        computations: vec![computation],
        ..Default::default()
    };
    HloProto {
        hlo_module: Some(module),
    }
    .encode_to_vec()
}

#[test]
fn deep_or_random_bytes_never_panic() {
    // Nesting is bounded in every build, the cluster's included (where
    // prost's own limit is off): tuple shapes 150 deep are refused, 90 deep
    // decode.
    let nest = |levels: usize| {
        let mut shape = array(11, &[], &[]);
        for _ in 0..levels {
            shape = tuple(vec![shape]);
        }
        hlo_with_shape(shape)
    };
    let refused = hlo::decode(&nest(150)).unwrap_err();
    assert_eq!(refused, "its messages nest more than 100 levels deep");
    let module = hlo::decode(&nest(90)).unwrap().hlo_module.unwrap();
    let mut shape = module.computations[0].instructions[0].shape.as_ref();
    let mut levels = 0;
    while let Some(inner) = shape.and_then(|s| s.tuple_shapes.first()) {
        levels += 1;
        shape = Some(inner);
    }
    assert_eq!(levels, 90);
    // Groups a million deep in an unknown field (prost skips them by
    // recursion): refused before prost sees them, so never a stack overflow.
    let depth = 1_000_000;
    let mut groups = vec![0x7b; depth]; // field 15, start group
    groups.extend(std::iter::repeat_n(0x7c, depth)); // its end
    let refused = decode(&groups).unwrap_err();
    assert!(
        refused.ends_with("nest more than 100 levels deep"),
        "{refused}"
    );
    let mut hlo = nest(1);
    hlo.extend(&groups);
    assert!(hlo::decode(&hlo).is_err());
    // A shallow unknown group is skipped as prost skips it.
    let mut shallow = space().encode_to_vec();
    shallow.extend([0x7b, 0x08, 0x01, 0x7c]);
    assert!(decode(&shallow).is_ok());
    // Byte soup: errors or spaces, never a panic.
    let whole = space().encode_to_vec();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for round in 0..300 {
        let mut bytes = whole.clone();
        for _ in 0..(1 + round % 8) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = (state as usize) % bytes.len();
            bytes[at] = (state >> 32) as u8;
        }
        if let Ok(space) = decode(&bytes) {
            let _ = build("x", &space);
        }
    }
}

#[test]
fn encoded_events_read_as_prost_decodes_them() {
    let stats = vec![
        XStat {
            metadata_id: 1,
            int64_value: Some(-5),
            ..Default::default()
        },
        XStat {
            metadata_id: 2,
            str_value: Some("a \"quoted\" \u{e9}".into()),
            ..Default::default()
        },
        XStat {
            metadata_id: 3,
            double_value: Some(0.25),
            ..Default::default()
        },
    ];
    let bytes = event(7, 1_500, 900, stats.clone()).encode_to_vec();
    let read = super::proto::EventIn::read(&bytes).expect("reads");
    assert_eq!(
        (read.metadata_id, read.offset_ps, read.duration_ps),
        (7, Some(1_500), 900)
    );
    assert_eq!(read.num_occurrences, None);
    let mut refs = Vec::new();
    read.stats(&mut refs).expect("stats");
    let expected: Vec<StatRef> = stats.iter().map(StatRef::from).collect();
    assert_eq!(refs, expected);
    // Cut anywhere: never a panic; a cut inside a field is an error (one
    // between fields is a shorter, valid event, as for any protobuf).
    for cut in 1..bytes.len() {
        if let Ok(e) = super::proto::EventIn::read(&bytes[..cut]) {
            let _ = e.stats(&mut Vec::new());
        }
    }
    assert!(super::proto::EventIn::read(&bytes[..bytes.len() - 1]).is_err());
    assert!(super::proto::EventIn::read(&bytes[..1]).is_err());
    // A stat's string written as a varint: the wrong wire type.
    let wrong = [0x22, 0x02, 0x28, 0x01];
    let event = super::proto::EventIn::read(&wrong).expect("the event reads");
    assert!(event
        .stats(&mut Vec::new())
        .unwrap_err()
        .contains("wire type"));
}

#[test]
fn event_args_are_the_json_serde_writes_for_the_stats() {
    // Two ids named alike (the later id wins), a repeated id (its later value
    // wins), escapes, a non-finite double (null), a reference to a missing name.
    let mut plane = PlaneIn::default();
    for (id, name) in [(1, "z\"key"), (2, "dup"), (3, "dup"), (4, "nan"), (5, "a")] {
        plane.stat_metadata.insert(
            id,
            XStatMetadata {
                id,
                name: name.into(),
                ..Default::default()
            },
        );
    }
    let stat = |id, f: &dyn Fn(&mut StatRef)| {
        let mut s = StatRef {
            metadata_id: id,
            ..Default::default()
        };
        f(&mut s);
        s
    };
    let stats = [
        stat(3, &|s| s.int64_value = Some(1)),
        stat(2, &|s| s.str_value = Some("first")),
        stat(1, &|s| s.str_value = Some("line\nbreak")),
        stat(4, &|s| s.double_value = Some(f64::NAN)),
        stat(2, &|s| s.uint64_value = Some(u64::MAX)),
        stat(5, &|s| s.ref_value = Some(99)),
        stat(6, &|s| s.double_value = Some(1e-7)),
    ];
    let mut text = Vec::new();
    super::Stats::new(&plane, &stats).write_json(&mut text);
    let expected = json!({
        "z\"key": "line\nbreak",
        "dup": u64::MAX,
        "nan": null,
        "a": null,
        "stat 6": 1e-7,
    });
    assert_eq!(String::from_utf8(text).unwrap(), expected.to_string());
}

#[test]
fn ranked_stats_write_and_find_what_named_stats_do() {
    // The per-event path (names ranked once per plane) against Stats::new
    // (names compared per event) on the same stats: ids named alike in both
    // orders, repeated ids, a bytes stat replacing a value, references.
    let mut plane = PlaneIn::default();
    let names = [
        (1, "z\"key"),
        (2, "dup"),
        (3, "dup"),
        (4, "correlation_id"),
        (5, "hlo_op"),
        (6, "b"),
        (7, "kernel_details"),
    ];
    for (id, name) in names {
        let meta = XStatMetadata {
            id,
            name: name.into(),
            ..Default::default()
        };
        plane.stat_metadata.insert(id, meta);
    }
    let stat = |id, f: &dyn Fn(&mut StatRef)| {
        let mut s = StatRef {
            metadata_id: id,
            ..Default::default()
        };
        f(&mut s);
        s
    };
    let cases: Vec<Vec<StatRef>> = vec![
        vec![
            stat(3, &|s| s.int64_value = Some(1)),
            stat(2, &|s| s.str_value = Some("first")),
            stat(1, &|s| s.str_value = Some("line\nbreak")),
            stat(2, &|s| s.uint64_value = Some(u64::MAX)),
            stat(4, &|s| s.uint64_value = Some(42)),
        ],
        vec![
            stat(2, &|s| s.int64_value = Some(-3)),
            stat(3, &|s| s.double_value = Some(0.5)),
            stat(5, &|s| s.ref_value = Some(6)),
            stat(6, &|s| s.double_value = Some(f64::INFINITY)),
            stat(7, &|s| s.str_value = Some("grid:2,1,1")),
        ],
        // A later stat of an id without a value (bytes) drops the id.
        vec![
            stat(4, &|s| s.int64_value = Some(9)),
            stat(5, &|s| s.str_value = Some("fusion.1")),
            stat(4, &|_| {}),
            stat(5, &|s| s.ref_value = Some(99)),
        ],
        vec![],
    ];
    let view = super::PlaneView::new(&plane);
    for stats in &cases {
        let (mut by_id, mut ranked) = (Vec::new(), Vec::new());
        assert!(super::rank_stats(&view, stats, &mut by_id, &mut ranked));
        let fast = super::EventStats::Ranked(&view, &ranked);
        let slow = super::EventStats::Named(super::Stats::new(&plane, stats));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        fast.write_json(&mut a);
        slow.write_json(&mut b);
        assert_eq!(String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap());
        for key in super::Key::ALL {
            assert_eq!(fast.get(key), slow.get(key), "{}", key.name());
        }
    }
    let mut text = Vec::new();
    let first = super::EventStats::Ranked(&view, &[]);
    first.write_json(&mut text);
    assert_eq!(text, b"{}");
    // The values the tables read, from the first two cases.
    let (mut by_id, mut ranked) = (Vec::new(), Vec::new());
    super::rank_stats(&view, &cases[0], &mut by_id, &mut ranked);
    let args = super::EventStats::Ranked(&view, &ranked);
    assert_eq!(args.int(super::Key::CorrelationId), Some(42));
    super::rank_stats(&view, &cases[1], &mut by_id, &mut ranked);
    let args = super::EventStats::Ranked(&view, &ranked);
    assert_eq!(args.text(super::Key::HloOp), Some("b"));
    assert_eq!(args.text(super::Key::KernelDetails), Some("grid:2,1,1"));
    assert_eq!(args.int(super::Key::ProgramId), None);
    // An id the plane does not name has no rank: the by-name path takes it.
    let unnamed = [stat(8, &|s| s.int64_value = Some(1))];
    assert!(!super::rank_stats(&view, &unnamed, &mut by_id, &mut ranked));
}

/// `space()` with each line's events repeated `copies` times, later copies
/// shifted in time, as a decoded space.
fn large_space(copies: i64) -> SpaceIn {
    let mut space = space();
    for plane in &mut space.planes {
        for line in &mut plane.lines {
            let one = std::mem::take(&mut line.events);
            for copy in 0..copies {
                for e in &one {
                    let mut e = e.clone();
                    e.offset_ps = e.offset_ps.map(|t| t + copy * 10_000_000);
                    line.events.push(e);
                }
            }
        }
    }
    decode(&space.encode_to_vec()).expect("decodes")
}

#[test]
fn two_reading_threads_build_what_one_does() {
    // 3 stream events and 2 host events per copy: 25,000 events, 7 chunks.
    let space = large_space(5_000);
    let one = build_with("t", &space, Some(false)).expect("builds");
    let two = build_with("t", &space, Some(true)).expect("builds");
    assert_eq!(one.len(), 25_000);
    assert_eq!(one.native.dispatches.len(), 5_000);
    // Rows for the kernels only, not for every stream event (a copy and a
    // memset a copy): sized by what the file holds, not by a bound.
    assert!(one.native.dispatches.capacity() < 10_000);
    assert_same(&everything(&one), &everything(&two));
    // The size picks the second thread; both sizes give the same as one.
    let auto = build("t", &space).expect("builds");
    assert_same(&everything(&one), &everything(&auto));
    let small = large_space(2);
    let (a, b) = (build_with("t", &small, Some(true)), build("t", &small));
    assert_same(
        &everything(&a.expect("builds")),
        &everything(&b.expect("builds")),
    );
}

/// The error of building `space`, which must fail.
fn build_error(space: &SpaceIn, two_threads: bool) -> String {
    match build_with("t", space, Some(two_threads)) {
        Ok(_) => panic!("the space builds"),
        Err(e) => e,
    }
}

#[test]
fn two_reading_threads_fail_on_the_first_bad_event() {
    // Two bad stats in GPU stream events, in different chunks (the host
    // plane comes after the GPU's in the sorted events): the one earlier in
    // time is the error, with either reading.
    let mut space = large_space(5_000);
    let gpu = (space.planes.iter_mut())
        .find(|p| p.name == "/device:GPU:2")
        .expect("gpu plane");
    let line = &mut gpu.lines[0];
    // An event of metadata 3 at `offset_ps`, 1 ps long, with one stat.
    let bad = |offset_ps: i64, stat: &[u8]| {
        let mut bytes = vec![0x08, 0x03, 0x10];
        let mut v = offset_ps as u64;
        while v >= 0x80 {
            bytes.push((v & 0x7f) as u8 | 0x80);
            v >>= 7;
        }
        bytes.extend_from_slice(&[v as u8, 0x18, 0x01, 0x22, stat.len() as u8]);
        bytes.extend_from_slice(stat);
        bytes::Bytes::from(bytes)
    };
    // At about the 13,000th and the 6,000th event (3 stream events a copy,
    // 10 µs apart): in chunks 3 and 1. Field 1 (the id) as bytes; field 5
    // (a string) as a varint.
    let at = |events: i64| events / 3 * 10_000_000;
    line.events.push(bad(at(13_000), &[0x0a, 0x01, 0x00]));
    line.events.push(bad(at(6_000), &[0x28, 0x01]));
    let one = build_error(&space, false);
    let two = build_error(&space, true);
    assert!(one.contains("field 5 has the wrong wire type"), "{one}");
    assert_eq!(one, two);
    // Without the early one, the late one is the error.
    let line = &mut (space.planes.iter_mut())
        .find(|p| p.name == "/device:GPU:2")
        .expect("gpu plane")
        .lines[0];
    line.events.pop();
    let two = build_error(&space, true);
    assert!(two.contains("field 1 has the wrong wire type"), "{two}");
}

/// Writes this module's space, which has every kind of plane the reader
/// knows (the HLO metadata among them), as a seed of the `xplane_reader` fuzz
/// target. Run by hand when the space changes:
/// `cargo test --lib write_xplane_fuzz_seed -- --ignored`.
#[test]
#[ignore]
fn write_xplane_fuzz_seed() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/corpus/xplane_reader/seed-test-space"
    );
    std::fs::write(path, space().encode_to_vec()).expect("seed written");
}

//! GPU platforms and their peaks: memory bandwidth and peak TFLOPS per compute spec.
//!
//! A compute spec is `<unit>_<precision>` as the perf models name it: `matrix_*` for
//! tensor/matrix cores (GEMM, convolution, attention), `vector_*` for the SIMD units
//! (elementwise, reduce, norm). Built-in values are vendor datasheet peaks for dense
//! math (no sparsity); where a datasheet gives no figure for a spec the spec is
//! absent, and ops of that spec get no roofline. Users add or override platforms
//! with a CSV or TOML file of the same columns ([`parse_platforms`]).

use std::collections::BTreeMap;

/// The compute specs a platform can list, in column order.
pub const SPECS: [&str; 10] = [
    "matrix_fp64",
    "matrix_fp32",
    "matrix_fp16",
    "matrix_bf16",
    "matrix_fp8",
    "matrix_fp4",
    "vector_fp64",
    "vector_fp32",
    "vector_fp16",
    "vector_bf16",
];

/// One platform.
#[derive(Debug, Clone, PartialEq)]
pub struct Platform {
    /// Canonical name, e.g. `MI300X`, `H100`.
    pub name: String,
    /// Peak HBM bandwidth, TB/s.
    pub memory_tb_s: f64,
    /// Peak TFLOPS by compute spec (see [`SPECS`]).
    pub peak_tflops: BTreeMap<String, f64>,
    /// Where the numbers come from.
    pub source: String,
    /// Peak GPU-to-GPU bandwidth inside a node, GB/s (10^9 B/s) per GPU and
    /// direction: what a collective's bus bandwidth (nccl-tests' busbw) can
    /// reach over NVLink / Infinity Fabric. None when unknown.
    pub intra_node_gb_s: Option<f64>,
    /// The same across nodes (the GPU's share of the network), GB/s. None when
    /// unknown: it is the cluster's, not the GPU's; a platforms file sets it.
    pub inter_node_gb_s: Option<f64>,
}

/// The link columns a platforms file may give beside the compute specs.
pub const LINK_COLUMNS: [&str; 2] = ["intra_node_gb_s", "inter_node_gb_s"];

/// Datasheet GPU-to-GPU bandwidth per GPU and direction, GB/s: NVLink 4 on
/// H100/H200 (900 GB/s bidirectional), NVLink 3 on A100 (600), NVLink 5 on
/// B200 (1800), NVLink 2 on V100 (300); Infinity Fabric on MI300X/MI325X (7
/// links × 64 GB/s) and MI355X/MI350X (7 × 76.8). NVLink 4 on H20 and GH200
/// (900), 400 GB/s on the export parts H800 and A800, NVLink 5 on B300/GB200
/// (1800), the A100 40GB row as SXM4 (600). PCIe cards (H100 PCIe/NVL, A100
/// 80GB PCIe, L40S, L4) have none: an NVLink bridge joins only pairs. MI250X
/// and MI300A: left unknown.
const BUILTIN_LINKS: &[(&str, f64)] = &[
    ("H100", 450.0),
    ("H200", 450.0),
    ("A100", 300.0),
    ("B200", 900.0),
    ("V100", 150.0),
    ("MI300X", 448.0),
    ("MI325X", 448.0),
    ("MI355X", 537.6),
    ("MI350X", 537.6),
    ("H800", 200.0),
    ("H20", 450.0),
    ("GH200", 450.0),
    ("A100 40GB", 300.0),
    ("A800", 200.0),
    ("B300", 900.0),
    ("GB200", 900.0),
];

impl Platform {
    pub fn peak(&self, spec: &str) -> Option<f64> {
        self.peak_tflops.get(spec).copied()
    }
}

type Row = (&'static str, f64, [Option<f64>; 10], &'static str);

/// Datasheet values; columns follow [`SPECS`].
const BUILTIN: &[Row] = &[
    (
        "MI300X",
        5.3,
        [Some(163.4), Some(163.4), Some(1307.4), Some(1307.4), Some(2614.9), None,
         Some(81.7), Some(163.4), Some(163.4), Some(163.4)],
        "AMD Instinct MI300X datasheet (dense); vector fp16/bf16 taken equal to vector fp32",
    ),
    (
        "MI325X",
        6.0,
        [Some(163.4), Some(163.4), Some(1307.4), Some(1307.4), Some(2614.9), None,
         Some(81.7), Some(163.4), Some(163.4), Some(163.4)],
        "AMD Instinct MI325X datasheet (dense); vector fp16/bf16 taken equal to vector fp32",
    ),
    (
        "MI355X",
        8.0,
        [Some(78.6), Some(157.3), Some(2516.6), Some(2516.6), Some(5033.2), Some(10066.3),
         Some(78.6), Some(157.3), Some(157.3), Some(157.3)],
        "AMD Instinct MI355X datasheet (dense); vector fp16/bf16 taken equal to vector fp32",
    ),
    (
        "MI400",
        19.6,
        [None, None, Some(10000.0), Some(10000.0), Some(20000.0), Some(40000.0),
         None, None, None, None],
        "AMD Instinct MI400 series announcement (HBM4 19.6 TB/s, 20 PF FP8, 40 PF FP4); fp16/bf16 taken as half of fp8; preliminary: AMD gives no dense/sparse basis, and press reports call it 2x MI350's sparse figures, so dense peaks may be half these",
    ),
    (
        "MI210",
        1.6,
        [Some(45.3), Some(45.3), Some(181.0), Some(181.0), None, None,
         Some(22.6), Some(22.6), Some(22.6), Some(22.6)],
        "AMD Instinct MI210 datasheet; vector fp16/bf16 taken equal to vector fp32",
    ),
    (
        "H100",
        3.35,
        [Some(67.0), Some(67.0), Some(989.4), Some(989.4), Some(1978.9), None,
         Some(34.0), Some(67.0), Some(133.8), Some(133.8)],
        "NVIDIA H100 SXM datasheet (dense tensor core); matrix fp32 = FP32 CUDA-core peak (TF32 off by default in PyTorch matmul)",
    ),
    (
        "H200",
        4.8,
        [Some(67.0), Some(67.0), Some(989.4), Some(989.4), Some(1978.9), None,
         Some(34.0), Some(67.0), Some(133.8), Some(133.8)],
        "NVIDIA H200 SXM datasheet (dense tensor core); compute as H100 SXM",
    ),
    (
        "A100",
        2.039,
        [Some(19.5), Some(19.5), Some(312.0), Some(312.0), None, None,
         Some(9.7), Some(19.5), Some(78.0), Some(39.0)],
        "NVIDIA A100 SXM 80GB datasheet (dense tensor core)",
    ),
    (
        "B200",
        8.0,
        [Some(37.0), Some(75.0), Some(2250.0), Some(2250.0), Some(4500.0), Some(9000.0),
         Some(37.0), Some(75.0), Some(150.0), Some(150.0)],
        "NVIDIA B200 datasheet (dense tensor core, half the sparse figures); FP64 37 and FP32 75 TFLOPS per GPU as NVIDIA's current HGX B200 table gives them (296 / 600 TF per 8 GPUs; earlier material said 40 / 80); memory 8 TB/s as the DGX B200 datasheet (that table says 7.7); vector fp16/bf16 taken as 2x fp32",
    ),
    (
        "V100",
        0.9,
        [Some(7.8), Some(15.7), Some(125.0), None, None, None,
         Some(7.8), Some(15.7), Some(31.4), None],
        "NVIDIA V100 SXM2 datasheet; no bf16 support",
    ),
    // Rows below: one per part, the parts `detect` tells apart. Dense figures are
    // half the datasheets' sparse (*) ones where only those are given.
    (
        "H100 PCIe",
        2.0,
        [Some(51.0), Some(51.0), Some(756.5), Some(756.5), Some(1513.0), None,
         Some(26.0), Some(51.0), Some(102.0), Some(102.0)],
        "NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe 80GB column (dense = half the sparse figures); matrix fp32 = FP32 CUDA-core peak; vector fp16/bf16 taken as 2x fp32 as on H100 SXM",
    ),
    (
        "H100 NVL",
        3.9,
        [Some(60.0), Some(60.0), Some(835.5), Some(835.5), Some(1670.5), None,
         Some(30.0), Some(60.0), Some(120.0), Some(120.0)],
        "NVIDIA H100 Tensor Core GPU datasheet, H100 NVL 94GB column (dense = half the sparse figures); matrix fp32 = FP32 CUDA-core peak; vector fp16/bf16 taken as 2x fp32",
    ),
    (
        "H800",
        3.35,
        [Some(1.0), Some(67.0), Some(989.4), Some(989.4), Some(1978.9), None,
         Some(1.0), Some(67.0), Some(133.8), Some(133.8)],
        "NVIDIA H800 SXM5 datasheet (China export part: FP64 and FP64 tensor 1 TFLOPS, NVLink 400 GB/s); other peaks as H100 SXM (dense)",
    ),
    (
        "H20",
        4.0,
        [Some(1.0), Some(44.0), Some(148.0), Some(148.0), Some(296.0), None,
         Some(1.0), Some(44.0), Some(88.0), Some(88.0)],
        "NVIDIA H20 product brief (96GB HBM3; dense: FP8 296, BF16/FP16 148, TF32 74, FP32 44, FP64 1 TFLOPS); no public NVIDIA datasheet page found, figures as the brief is widely quoted; vector fp16/bf16 taken as 2x fp32",
    ),
    (
        "GH200",
        4.0,
        [Some(67.0), Some(67.0), Some(989.4), Some(989.4), Some(1978.9), None,
         Some(34.0), Some(67.0), Some(133.8), Some(133.8)],
        "NVIDIA GH200 Grace Hopper Superchip datasheet, GPU side: 96GB HBM3 at 4 TB/s (the 144GB HBM3e part has 4.9 TB/s); compute as H100 SXM (dense)",
    ),
    (
        "A100 40GB",
        1.555,
        [Some(19.5), Some(19.5), Some(312.0), Some(312.0), None, None,
         Some(9.7), Some(19.5), Some(78.0), Some(39.0)],
        "NVIDIA A100 datasheet, 40GB columns (SXM4 and PCIe: 1,555 GB/s; dense tensor core)",
    ),
    (
        "A100 80GB PCIe",
        1.935,
        [Some(19.5), Some(19.5), Some(312.0), Some(312.0), None, None,
         Some(9.7), Some(19.5), Some(78.0), Some(39.0)],
        "NVIDIA A100 datasheet, A100 80GB PCIe column (1,935 GB/s; dense tensor core)",
    ),
    (
        "A800",
        2.039,
        [Some(19.5), Some(19.5), Some(312.0), Some(312.0), None, None,
         Some(9.7), Some(19.5), Some(78.0), Some(39.0)],
        "NVIDIA A800 SXM4 80GB datasheet (China export part: A100 80GB SXM peaks, NVLink 400 GB/s)",
    ),
    (
        "B300",
        8.0,
        [Some(1.25), Some(75.0), Some(2250.0), Some(2250.0), Some(4500.0), Some(13500.0),
         Some(1.25), Some(75.0), Some(150.0), Some(150.0)],
        "NVIDIA HGX B300 datasheet per GPU (1/8 of HGX; dense = sparse/2 except FP4 13.5 PF dense as given; FP64 1.25); vector fp16/bf16 taken as 2x fp32",
    ),
    (
        "GB200",
        8.0,
        [Some(40.0), Some(80.0), Some(2500.0), Some(2500.0), Some(5000.0), Some(10000.0),
         Some(40.0), Some(80.0), Some(160.0), Some(160.0)],
        "NVIDIA GB200 NVL72 datasheet per GPU (1/72 of the rack, one B200-class GPU of the superchip; dense = half the sparse figures; 186 GB HBM3e at 8 TB/s; FP64 40 and FP32 80 TFLOPS as NVIDIA's current table gives them, the GTC 2024 figures were 45 / 90); vector fp16/bf16 taken as 2x fp32",
    ),
    (
        "L40S",
        0.864,
        [None, Some(91.6), Some(362.05), Some(362.05), Some(733.0), None,
         None, Some(91.6), Some(91.6), Some(91.6)],
        "NVIDIA L40S datasheet (dense tensor core; 48GB GDDR6 at 864 GB/s); no FP64 figure; vector fp16/bf16 taken equal to fp32 (Ada runs them at the fp32 rate)",
    ),
    (
        "L4",
        0.3,
        [None, Some(30.3), Some(121.0), Some(121.0), Some(242.5), None,
         None, Some(30.3), Some(30.3), Some(30.3)],
        "NVIDIA L4 datasheet (dense = half the sparse figures; 24GB GDDR6 at 300 GB/s); no FP64 figure; vector fp16/bf16 taken equal to fp32",
    ),
    (
        "MI250X",
        1.6,
        [Some(47.9), Some(47.9), Some(191.5), Some(191.5), None, None,
         Some(23.9), Some(23.9), Some(23.9), Some(23.9)],
        "AMD Instinct MI250X datasheet, per GCD: half the OAM's 3.2 TB/s, 95.7 TF matrix fp64/fp32, 383 TF fp16/bf16, 47.9 TF vector (ROCm shows each GCD as a device); vector fp16/bf16 taken equal to vector fp32",
    ),
    (
        "MI300A",
        5.3,
        [Some(122.6), Some(122.6), Some(980.6), Some(980.6), Some(1961.2), None,
         Some(61.3), Some(122.6), Some(122.6), Some(122.6)],
        "AMD Instinct MI300A datasheet (dense; 128GB HBM3 shared with the CPU); vector fp16/bf16 taken equal to vector fp32",
    ),
    (
        "MI350X",
        8.0,
        [Some(72.1), Some(144.2), Some(2306.9), Some(2306.9), Some(4613.7), Some(9227.5),
         Some(72.1), Some(144.2), Some(144.2), Some(144.2)],
        "AMD Instinct MI350X datasheet (dense; 2.2 GHz vs MI355X's 2.4); vector fp16/bf16 taken equal to vector fp32",
    ),
];

/// The names of the built-in platforms.
pub fn builtin_names() -> Vec<String> {
    BUILTIN.iter().map(|r| r.0.to_string()).collect()
}

/// The built-in platforms.
pub fn builtin_platforms() -> Vec<Platform> {
    BUILTIN
        .iter()
        .map(|(name, bw, peaks, source)| Platform {
            name: name.to_string(),
            memory_tb_s: *bw,
            peak_tflops: SPECS
                .iter()
                .zip(peaks)
                .filter_map(|(s, p)| p.map(|p| (s.to_string(), p)))
                .collect(),
            source: source.to_string(),
            intra_node_gb_s: BUILTIN_LINKS
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, bw)| *bw),
            inter_node_gb_s: None,
        })
        .collect()
}

/// The platform a device name (from a trace's `deviceProperties`) is, if known:
/// `NVIDIA H100 80GB HBM3` → `H100`, `NVIDIA H100 PCIe` → `H100 PCIe`,
/// `AMD Instinct MI300X VF` → `MI300X`. By name only; with the other device
/// properties, [`super::detect::detect_platform`] also guesses from the
/// architecture.
pub fn platform_for_device(device: &str, platforms: &[Platform]) -> Option<String> {
    super::detect::platform_for_name(device, platforms)
}

/// Merges `extra` into `base`: same name (case-insensitive) replaces, new names add.
pub fn merge_platforms(base: &mut Vec<Platform>, extra: Vec<Platform>) {
    for p in extra {
        match base
            .iter_mut()
            .find(|b| b.name.eq_ignore_ascii_case(&p.name))
        {
            Some(existing) => *existing = p,
            None => base.push(p),
        }
    }
}

/// Parses a platforms file: CSV with a header `name,memory_tb_s,<specs...>,source`
/// (any subset of the spec columns), or TOML with `[[platform]]` tables of the same
/// keys. Errors name the line or key at fault.
pub fn parse_platforms(text: &str, is_toml: bool) -> Result<Vec<Platform>, String> {
    if is_toml {
        parse_toml(text)
    } else {
        parse_csv(text)
    }
}

fn parse_number(value: &str, what: &str) -> Result<f64, String> {
    let v: f64 = value
        .trim()
        .parse()
        .map_err(|_| format!("{what}: `{value}` is not a number"))?;
    if !v.is_finite() || v <= 0.0 {
        return Err(format!("{what}: {v} must be a positive number"));
    }
    Ok(v)
}

fn parse_csv(text: &str) -> Result<Vec<Platform>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines.next().ok_or("the file is empty")?;
    let columns: Vec<String> = header.split(',').map(|c| c.trim().to_string()).collect();
    for c in &columns {
        let known = c == "name" || c == "memory_tb_s" || c == "source";
        if !known && !SPECS.contains(&c.as_str()) && !LINK_COLUMNS.contains(&c.as_str()) {
            return Err(format!(
                "line 1: unknown column `{c}` (known: name, memory_tb_s, source, {}, {})",
                SPECS.join(", "),
                LINK_COLUMNS.join(", ")
            ));
        }
    }
    if !columns.iter().any(|c| c == "name") || !columns.iter().any(|c| c == "memory_tb_s") {
        return Err("line 1: the header needs `name` and `memory_tb_s` columns".into());
    }
    let mut out = Vec::new();
    for (i, line) in lines {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != columns.len() {
            return Err(format!(
                "line {}: {} fields, the header has {}",
                i + 1,
                fields.len(),
                columns.len()
            ));
        }
        let mut p = Platform {
            name: String::new(),
            memory_tb_s: 0.0,
            peak_tflops: BTreeMap::new(),
            source: "user file".into(),
            intra_node_gb_s: None,
            inter_node_gb_s: None,
        };
        for (column, value) in columns.iter().zip(fields) {
            let what = format!("line {}, {column}", i + 1);
            match column.as_str() {
                "name" if value.is_empty() => return Err(format!("{what}: empty name")),
                "name" => p.name = value.to_string(),
                "source" => p.source = value.to_string(),
                "memory_tb_s" => p.memory_tb_s = parse_number(value, &what)?,
                "intra_node_gb_s" if !value.is_empty() => {
                    p.intra_node_gb_s = Some(parse_number(value, &what)?)
                }
                "inter_node_gb_s" if !value.is_empty() => {
                    p.inter_node_gb_s = Some(parse_number(value, &what)?)
                }
                "intra_node_gb_s" | "inter_node_gb_s" => {}
                spec if !value.is_empty() => {
                    p.peak_tflops
                        .insert(spec.to_string(), parse_number(value, &what)?);
                }
                _ => {}
            }
        }
        out.push(p);
    }
    Ok(out)
}

fn parse_toml(text: &str) -> Result<Vec<Platform>, String> {
    let doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| one_line(&e.to_string()))?;
    let tables = match doc.get("platform") {
        Some(toml::Value::Array(items)) => items,
        _ => return Err("expected [[platform]] tables".into()),
    };
    let mut out = Vec::new();
    for (i, item) in tables.iter().enumerate() {
        let where_ = format!("platform #{}", i + 1);
        let table = item.as_table().ok_or(format!("{where_}: not a table"))?;
        let mut p = Platform {
            name: String::new(),
            memory_tb_s: 0.0,
            peak_tflops: BTreeMap::new(),
            source: "user file".into(),
            intra_node_gb_s: None,
            inter_node_gb_s: None,
        };
        for (key, value) in table {
            let what = format!("{where_}, {key}");
            let number = || match value {
                toml::Value::Float(f) => parse_number(&f.to_string(), &what),
                toml::Value::Integer(n) => parse_number(&n.to_string(), &what),
                _ => Err(format!("{what}: expected a number")),
            };
            match key.as_str() {
                "name" => {
                    p.name = value
                        .as_str()
                        .ok_or(format!("{what}: expected a string"))?
                        .into()
                }
                "source" => {
                    p.source = value
                        .as_str()
                        .ok_or(format!("{what}: expected a string"))?
                        .into()
                }
                "memory_tb_s" => p.memory_tb_s = number()?,
                "intra_node_gb_s" => p.intra_node_gb_s = Some(number()?),
                "inter_node_gb_s" => p.inter_node_gb_s = Some(number()?),
                spec if SPECS.contains(&spec) => {
                    p.peak_tflops.insert(spec.to_string(), number()?);
                }
                // Escaped: a quoted TOML key may hold a line break, and errors
                // are one line.
                other => {
                    let other = other.escape_debug();
                    return Err(format!("{where_}: unknown key `{other}`"));
                }
            }
        }
        if p.name.is_empty() || p.memory_tb_s == 0.0 {
            return Err(format!("{where_}: needs `name` and `memory_tb_s`"));
        }
        out.push(p);
    }
    Ok(out)
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_covers_the_required_platforms() {
        let names: Vec<String> = builtin_platforms().into_iter().map(|p| p.name).collect();
        for required in [
            "MI300X",
            "MI325X",
            "MI355X",
            "MI400",
            "H100",
            "H200",
            "A100",
            "B200",
            "A100 40GB",
            "A800",
            "H100 PCIe",
            "H800",
            "H20",
            "GH200",
            "B300",
            "GB200",
            "L40S",
            "L4",
            "MI250X",
            "MI300A",
            "MI350X",
            "MI210",
            "V100",
        ] {
            assert!(names.iter().any(|n| n == required), "{required} missing");
        }
        let h100 = builtin_platforms()
            .into_iter()
            .find(|p| p.name == "H100")
            .expect("H100");
        assert_eq!(h100.peak("matrix_bf16"), Some(989.4));
        assert_eq!(h100.memory_tb_s, 3.35);
    }

    #[test]
    fn device_names_map_to_platforms() {
        let all = builtin_platforms();
        assert_eq!(
            platform_for_device("NVIDIA H100 80GB HBM3", &all).as_deref(),
            Some("H100")
        );
        assert_eq!(
            platform_for_device("AMD Instinct MI300X VF", &all).as_deref(),
            Some("MI300X")
        );
        assert_eq!(
            platform_for_device("NVIDIA A100-PG509-200", &all).as_deref(),
            Some("A100")
        );
        assert_eq!(platform_for_device("ARTEMIS", &all), None);
    }

    #[test]
    fn csv_and_toml_files_add_and_override() {
        let csv = "name,memory_tb_s,matrix_bf16,source\nH100,3.0,900,measured\nMYGPU,1.5,100,lab\n";
        let extra = parse_platforms(csv, false).expect("valid csv");
        let mut all = builtin_platforms();
        let before = all.len();
        merge_platforms(&mut all, extra);
        assert_eq!(all.len(), before + 1);
        let h100 = all.iter().find(|p| p.name == "H100").expect("H100");
        assert_eq!(
            (h100.memory_tb_s, h100.peak("matrix_bf16")),
            (3.0, Some(900.0))
        );
        assert_eq!(
            h100.peak("matrix_fp16"),
            None,
            "an override replaces the whole row"
        );

        let toml = "[[platform]]\nname = \"X1\"\nmemory_tb_s = 2\nvector_fp32 = 50.5\n";
        let x1 = parse_platforms(toml, true).expect("valid toml");
        assert_eq!(x1[0].peak("vector_fp32"), Some(50.5));
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        let e = parse_platforms("name,memory_tb_s,matrix_bf17\n", false).expect_err("bad column");
        assert!(e.contains("unknown column `matrix_bf17`"), "{e}");
        let e = parse_platforms("name,memory_tb_s\nX,fast\n", false).expect_err("bad number");
        assert!(
            e.contains("line 2, memory_tb_s") && e.contains("not a number"),
            "{e}"
        );
        let e = parse_platforms("name,memory_tb_s\nX,-1\n", false).expect_err("negative");
        assert!(e.contains("positive"), "{e}");
        let e = parse_platforms("[[platform]]\nname = 3\n", true).expect_err("bad type");
        assert!(e.contains("expected a string"), "{e}");
        let e = parse_platforms("not toml = = =", true).expect_err("syntax");
        assert!(!e.contains('\n'));
        // A quoted key with a line break (made the error two lines).
        let e = parse_platforms("[[platform]]\n\"a\\nb\" = 1\n", true).expect_err("key");
        assert!(e.ends_with(r"unknown key `a\nb`"), "{e}");
    }
}

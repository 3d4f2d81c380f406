//! Which platform a trace's GPU is, from its `deviceProperties` entry.
//!
//! Three steps, first match wins:
//!
//! 1. **Name** (exact): the device name names a known part, e.g.
//!    `NVIDIA H100 80GB HBM3` → `H100`, `NVIDIA H100 PCIe` → `H100 PCIe`,
//!    `NVIDIA A100-SXM4-40GB` → `A100 40GB`, `AMD Instinct MI300X VF` → `MI300X`.
//!    A platform a user file adds is matched by its name's words appearing in
//!    the device name, before the built-in rules.
//! 2. **Architecture** (a guess, `guessed: true`): the name is generic or unknown
//!    (AMD traces often say `AMD Radeon Graphics` or nothing), so the GPU's class
//!    is read from its `gcnArchName` / compute capability, SM (CU) count and
//!    memory, e.g. `gfx942, 304 CUs → MI300X`. Where two parts share every
//!    property at hand, the one with the higher peaks is taken, so efficiency is
//!    never overstated, and the reason says which other part it could be.
//! 3. Otherwise no platform (None).

use super::platforms::Platform;

/// The `deviceProperties` fields detection reads (Kineto's names in brackets).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeviceProps {
    /// `name`, e.g. `NVIDIA H100 80GB HBM3`, `AMD Instinct MI300X`.
    pub name: String,
    /// `computeMajor` (NVIDIA compute capability; HIP reports the gfx major).
    pub compute_major: Option<i64>,
    /// `computeMinor`.
    pub compute_minor: Option<i64>,
    /// `gcnArchName` (AMD), e.g. `gfx942:sramecc+:xnack-`.
    pub gcn_arch_name: Option<String>,
    /// `numSms`: SMs (NVIDIA) or CUs (AMD).
    pub num_sms: Option<i64>,
    /// `totalGlobalMem`, bytes.
    pub total_global_mem: Option<i64>,
}

impl DeviceProps {
    /// Just a name (what [`super::platform_for_device`] has).
    pub fn named(name: &str) -> DeviceProps {
        DeviceProps {
            name: name.to_string(),
            ..DeviceProps::default()
        }
    }

    /// Reads one `deviceProperties` entry (a JSON object); numbers may be
    /// written as JSON numbers or numeric strings, missing fields are None.
    pub fn from_json(device: &serde_json::Value) -> DeviceProps {
        let int = |key: &str| match device.get(key)? {
            serde_json::Value::Number(n) => n
                .as_i64()
                .or_else(|| n.as_f64().filter(|f| f.is_finite()).map(|f| f as i64)),
            serde_json::Value::String(s) => s.trim().parse().ok(),
            _ => None,
        };
        let text = |key: &str| device.get(key).and_then(|v| v.as_str()).map(str::to_string);
        DeviceProps {
            name: text("name").unwrap_or_default(),
            compute_major: int("computeMajor"),
            compute_minor: int("computeMinor"),
            gcn_arch_name: text("gcnArchName").filter(|s| !s.trim().is_empty()),
            num_sms: int("numSms"),
            total_global_mem: int("totalGlobalMem"),
        }
    }
}

/// A detected platform and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Detection {
    /// The platform's name, as in the platform list.
    pub platform: String,
    /// One line: what it was detected from, e.g. `deviceProperties name 'NVIDIA
    /// H100 80GB HBM3'` or `gfx942, 304 CUs → MI300X (...)`.
    pub reason: String,
    /// True when taken from the GPU's class (architecture, SMs, memory) rather
    /// than from its name: the peaks may not be the GPU's.
    pub guessed: bool,
}

impl Detection {
    /// The one-line warning to print for a guess; None for an exact match.
    pub fn warning(&self) -> Option<String> {
        self.guessed.then(|| {
            format!(
                "warning: GPU not known by name; guessed platform {} from {}; choose another with --platform",
                self.platform, self.reason
            )
        })
    }

    /// For a report header: `H100 (deviceProperties name '...')`, or with
    /// `guessed from` for a guess.
    pub fn describe(&self) -> String {
        if self.guessed {
            format!("{} (guessed from {})", self.platform, self.reason)
        } else {
            format!("{} ({})", self.platform, self.reason)
        }
    }
}

/// The platform a GPU is: by name, else by architecture (a guess), else None.
pub fn detect_platform(props: &DeviceProps, platforms: &[Platform]) -> Option<Detection> {
    let name = props.name.trim();
    let shown = one_line(name);
    if let Some((platform, note)) = by_name(name, props.num_sms, platforms) {
        let mut reason = format!("deviceProperties name '{shown}'");
        let guessed = note.is_some();
        if let Some(note) = note {
            reason.push_str(&format!(" ({note})"));
        }
        return Some(Detection {
            platform,
            reason,
            guessed,
        });
    }
    let (target, why) = by_architecture(props)?;
    let platform = find(platforms, target)?;
    Some(Detection {
        platform,
        reason: format!("{why} (deviceProperties name '{shown}' not recognised)"),
        guessed: true,
    })
}

/// The platform a device name alone names (step 1), if any.
pub fn platform_for_name(device: &str, platforms: &[Platform]) -> Option<String> {
    by_name(device, None, platforms).map(|(p, _)| p)
}

/// The name of the platform in `platforms` called `name` (any case).
fn find(platforms: &[Platform], name: &str) -> Option<String> {
    platforms
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name))
        .map(|p| p.name.clone())
}

fn tokens(s: &str) -> Vec<String> {
    s.to_ascii_uppercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The longest platform (by words) whose name's words appear in a row in the
/// device name; `only` filters the candidates.
fn by_words(
    device: &[String],
    platforms: &[Platform],
    only: impl Fn(&Platform) -> bool,
) -> Option<String> {
    platforms
        .iter()
        .filter(|p| only(p))
        .filter_map(|p| {
            let words = tokens(&p.name);
            let hit =
                !words.is_empty() && device.windows(words.len()).any(|w| w == words.as_slice());
            hit.then_some((words.len(), p.name.len(), p))
        })
        .max_by_key(|(words, len, _)| (*words, *len))
        .map(|(_, _, p)| p.name.clone())
}

/// Step 1: (platform, note) from the device name; a note makes it a guess
/// (the name is known but has no row of its own).
fn by_name(
    device: &str,
    num_sms: Option<i64>,
    platforms: &[Platform],
) -> Option<(String, Option<String>)> {
    let t = tokens(device);
    if t.is_empty() {
        return None;
    }
    // A user's own platform whose name the device name spells out.
    let builtin: Vec<String> = super::platforms::builtin_names();
    if let Some(p) = by_words(&t, platforms, |p| {
        !builtin.iter().any(|b| b.eq_ignore_ascii_case(&p.name))
    }) {
        return Some((p, None));
    }
    if let Some((target, note)) = name_rule(&t, num_sms) {
        if let Some(p) = find(platforms, target) {
            return Some((p, note.map(str::to_string)));
        }
    }
    // Any other platform named by a word of the device name (e.g. MI400).
    by_words(&t, platforms, |_| true).map(|p| (p, None))
}

/// The built-in name rules: tokens of the upper-cased device name → platform.
fn name_rule(t: &[String], num_sms: Option<i64>) -> Option<(&'static str, Option<&'static str>)> {
    let has = |w: &str| t.iter().any(|x| x == w);
    // Memory size words as NVIDIA writes them: 40GB, 80GB, 141GB, ...
    let has_40gb = t.iter().any(|x| x == "40GB" || x == "40G");
    let exact = |p: &'static str| Some((p, None));
    // NVIDIA: superchips first (their names also hold no other part's word).
    if has("GH200") {
        return exact("GH200");
    }
    if has("GB200") {
        return exact("GB200");
    }
    if has("GB300") {
        return Some(("B300", Some("a GB300 GPU, taken as B300")));
    }
    if has("B300") {
        return exact("B300");
    }
    if has("B200") {
        return exact("B200");
    }
    if has("H200") {
        if has("NVL") {
            return Some((
                "H200",
                Some("H200 NVL, taken as H200 SXM: its compute peaks are higher"),
            ));
        }
        return exact("H200");
    }
    if has("H100") {
        if has("NVL") {
            return exact("H100 NVL");
        }
        if has("PCIE") {
            return exact("H100 PCIe");
        }
        return exact("H100");
    }
    if has("H800") {
        if has("PCIE") {
            return Some((
                "H100 PCIe",
                Some("H800 PCIe, taken as H100 PCIe: same but FP64 and NVLink"),
            ));
        }
        return exact("H800");
    }
    if has("H20") {
        return exact("H20");
    }
    if has("A100") {
        if has_40gb {
            return exact("A100 40GB");
        }
        if has("PCIE") {
            return exact("A100 80GB PCIe");
        }
        return exact("A100");
    }
    if has("A800") {
        if has_40gb {
            return Some((
                "A100 40GB",
                Some("A800 40GB, taken as A100 40GB: same peaks"),
            ));
        }
        return exact("A800");
    }
    if has("L40S") {
        return exact("L40S");
    }
    if has("L4") {
        return exact("L4");
    }
    if has("V100") {
        return exact("V100");
    }
    // AMD.
    for (word, platform) in [
        ("MI300X", "MI300X"),
        ("MI300A", "MI300A"),
        ("MI325X", "MI325X"),
        ("MI355X", "MI355X"),
        ("MI350X", "MI350X"),
        ("MI210", "MI210"),
    ] {
        if has(word) {
            return exact(platform);
        }
    }
    // ROCm names both MI250X and MI250 `AMD Instinct MI250X/MI250`: each GCD is a
    // device, 110 CUs on an MI250X, 104 on an MI250 (whose GCD has MI210's peaks).
    match (has("MI250X"), has("MI250"), num_sms) {
        (_, true, Some(104)) | (false, true, None) => {
            Some(("MI210", Some("an MI250 GCD, 104 CUs: MI210's peaks")))
        }
        (true, _, _) => exact("MI250X"),
        (false, true, Some(_)) => Some(("MI250X", Some("an MI250 GCD taken as MI250X"))),
        _ => None,
    }
}

const GIB: f64 = (1u64 << 30) as f64;

/// Step 2: (platform, why) from architecture, SM/CU count and memory.
fn by_architecture(p: &DeviceProps) -> Option<(&'static str, String)> {
    let upper = p.name.to_ascii_uppercase();
    let says_amd = ["AMD", "RADEON", "INSTINCT"]
        .iter()
        .any(|w| upper.contains(w));
    let says_nvidia = ["NVIDIA", "TESLA", "GEFORCE", "QUADRO"]
        .iter()
        .any(|w| upper.contains(w));
    let sms = p.num_sms.filter(|n| *n > 0);
    let gib = p
        .total_global_mem
        .filter(|m| *m > 0)
        .map(|m| m as f64 / GIB);
    let gfx = p
        .gcn_arch_name
        .as_deref()
        .and_then(|g| g.split(':').next())
        .map(|g| g.trim().to_ascii_lowercase())
        .filter(|g| g.starts_with("gfx"));
    let cc = p.compute_major.zip(p.compute_minor);

    // AMD's architecture: gcnArchName, else HIP's computeMajor/Minor (gfx9.4.2
    // reports 9.4, gfx950 9.5, gfx90a 9.0, which is also Hopper's 9.0: taken as
    // gfx90a only for an AMD name or an MI200 GCD's CU count).
    let gfx = gfx.or_else(|| {
        if says_nvidia {
            return None;
        }
        match cc? {
            (9, 4) => Some("gfx942".to_string()),
            (9, 5) => Some("gfx950".to_string()),
            (9, 0) if says_amd || matches!(sms, Some(104) | Some(110)) => {
                Some("gfx90a".to_string())
            }
            _ => None,
        }
    });

    let mut facts: Vec<String> = Vec::new();
    if let Some(gfx) = &gfx {
        facts.push(gfx.clone());
        if let Some(n) = sms {
            facts.push(format!("{n} CUs"));
        }
        let target = amd_by_arch(gfx, sms, gib, &mut facts)?;
        return Some((target.0, why(&facts, target.0, target.1)));
    }
    if says_amd {
        return None;
    }
    let (major, minor) = cc?;
    facts.push(format!("compute capability {major}.{minor}"));
    if let Some(n) = sms {
        facts.push(format!("{n} SMs"));
    }
    let target = nvidia_by_cc(major, minor, sms, gib, &mut facts)?;
    Some((target.0, why(&facts, target.0, target.1)))
}

fn why(facts: &[String], target: &str, note: Option<&str>) -> String {
    let mut s = format!("{} → {target}", facts.join(", "));
    if let Some(note) = note {
        s.push_str(&format!("; {note}"));
    }
    s
}

fn mem_fact(gib: f64) -> String {
    format!("{gib:.0} GiB")
}

fn amd_by_arch(
    gfx: &str,
    cus: Option<i64>,
    gib: Option<f64>,
    facts: &mut Vec<String>,
) -> Option<(&'static str, Option<&'static str>)> {
    match gfx {
        "gfx942" => {
            // MI300X and MI325X: 304 CUs, 192 vs 256 GB; MI300A: 228 CUs, 128 GB.
            let by_mem = |facts: &mut Vec<String>| {
                let g = gib?;
                facts.push(mem_fact(g));
                if g >= 224.0 {
                    Some("MI325X")
                } else if g >= 160.0 {
                    Some("MI300X")
                } else if cus.is_none() && (96.0..160.0).contains(&g) {
                    Some("MI300A")
                } else {
                    None
                }
            };
            match cus {
                Some(304) => match by_mem(facts) {
                    Some("MI325X") => Some(("MI325X", None)),
                    _ => Some(("MI300X", None)),
                },
                Some(228) => Some(("MI300A", None)),
                // Other CU counts: a partition (CPX/DPX/QPX) or an MI308X; its
                // peaks are not a whole MI300X's.
                Some(_) => None,
                None => by_mem(facts).map(|p| (p, None)),
            }
        }
        // MI355X and MI350X: the same 256 CUs and 288 GB, 2.4 vs 2.2 GHz.
        "gfx950" => match cus {
            Some(256) | None => Some((
                "MI355X",
                Some("MI350X has the same CUs and memory; MI355X's higher peaks taken"),
            )),
            Some(_) => None,
        },
        // One GCD of an MI250X (110 CUs) or MI250 (104), or an MI210 (104).
        "gfx90a" => match cus {
            Some(110) => Some(("MI250X", None)),
            Some(104) => Some(("MI210", Some("an MI250 GCD has the same peaks"))),
            None => Some((
                "MI250X",
                Some("MI210 and MI250 GCDs are the same class; MI250X's higher peaks taken"),
            )),
            Some(_) => None,
        },
        _ => None,
    }
}

fn nvidia_by_cc(
    major: i64,
    minor: i64,
    sms: Option<i64>,
    gib: Option<f64>,
    facts: &mut Vec<String>,
) -> Option<(&'static str, Option<&'static str>)> {
    match (major, minor) {
        // Hopper: H100 SXM / H800 (132 SMs, 80 GB), H100 PCIe (114), H100 NVL
        // (132, 94 GB), GH200 (132, 96 GB), H200 (132, 141 GB), H20 (78, 96 GB).
        (9, 0) => {
            if sms == Some(78) {
                return Some(("H20", None));
            }
            if sms == Some(114) {
                return Some(("H100 PCIe", None));
            }
            let Some(g) = gib else {
                return Some(("H100", Some("no memory size; H100 SXM taken")));
            };
            facts.push(mem_fact(g));
            if g >= 120.0 {
                Some(("H200", None))
            } else if g >= 86.0 {
                if sms.is_none() {
                    Some((
                        "GH200",
                        Some("H20 and H100 NVL have about as much memory; GH200's higher peaks taken"),
                    ))
                } else {
                    Some((
                        "GH200",
                        Some("H100 NVL has the same SMs and about as much memory; GH200's higher peaks taken"),
                    ))
                }
            } else {
                Some((
                    "H100",
                    Some("H800 has the same SMs and memory (not its FP64)"),
                ))
            }
        }
        // Blackwell: B200 (180 GB) or a GB200 GPU (186 GB).
        (10, 0) => match gib {
            Some(g) => {
                facts.push(mem_fact(g));
                if g >= 182.0 {
                    Some(("GB200", None))
                } else {
                    Some(("B200", None))
                }
            }
            None => Some(("B200", Some("no memory size; GB200's GPU is also 10.0"))),
        },
        (10, 3) => Some(("B300", None)),
        // Ampere: A100 / A800, 40 or 80 GB.
        (8, 0) => match gib {
            Some(g) => {
                facts.push(mem_fact(g));
                if g < 60.0 {
                    Some(("A100 40GB", None))
                } else {
                    Some(("A100", Some("A800 has the same peaks")))
                }
            }
            None => Some(("A100", Some("no memory size; the 80 GB part taken"))),
        },
        // Ada: L40S (142 SMs, 48 GB) or L4 (58 SMs, 24 GB); other Ada parts
        // (RTX 4090, ...) are neither.
        (8, 9) => match sms {
            Some(n) if (138..=146).contains(&n) => {
                Some(("L40S", Some("the L40 is the same class")))
            }
            Some(n) if (56..=60).contains(&n) => Some(("L4", None)),
            Some(_) => None,
            None => {
                let g = gib?;
                facts.push(mem_fact(g));
                if (40.0..50.0).contains(&g) {
                    Some(("L40S", None))
                } else if (20.0..25.0).contains(&g) {
                    Some(("L4", None))
                } else {
                    None
                }
            }
        },
        (7, 0) => Some(("V100", None)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::platforms::{builtin_platforms, platform_for_device};
    use super::*;

    const GB: i64 = 1_000_000_000;

    fn exact(name: &str) -> Option<String> {
        let d = detect_platform(&DeviceProps::named(name), &builtin_platforms())?;
        assert!(!d.guessed, "{name}: {d:?}");
        assert_eq!(d.reason, format!("deviceProperties name '{name}'"));
        assert!(d.warning().is_none());
        Some(d.platform)
    }

    fn guess(p: DeviceProps) -> Option<Detection> {
        let d = detect_platform(&p, &builtin_platforms())?;
        assert!(d.guessed, "{d:?}");
        assert!(!d.reason.contains('\n'));
        let w = d.warning().expect("a guess warns");
        assert!(!w.contains('\n') && w.contains(&d.platform), "{w}");
        Some(d)
    }

    fn nvidia(cc: (i64, i64), sms: Option<i64>, bytes: Option<i64>) -> DeviceProps {
        DeviceProps {
            name: String::new(),
            compute_major: Some(cc.0),
            compute_minor: Some(cc.1),
            num_sms: sms,
            total_global_mem: bytes,
            ..DeviceProps::default()
        }
    }

    fn amd(name: &str, gfx: &str, cus: Option<i64>, bytes: Option<i64>) -> DeviceProps {
        DeviceProps {
            name: name.into(),
            gcn_arch_name: Some(gfx.into()),
            num_sms: cus,
            total_global_mem: bytes,
            ..DeviceProps::default()
        }
    }

    #[test]
    fn real_device_names_map_exactly() {
        for (name, want) in [
            ("NVIDIA H100 80GB HBM3", "H100"),
            ("NVIDIA H100 PCIe", "H100 PCIe"),
            ("NVIDIA H100 NVL", "H100 NVL"),
            ("NVIDIA H800", "H800"),
            ("NVIDIA H20", "H20"),
            ("NVIDIA H200", "H200"),
            ("NVIDIA GH200 480GB", "GH200"),
            ("NVIDIA A100-SXM4-80GB", "A100"),
            ("NVIDIA A100-SXM4-40GB", "A100 40GB"),
            ("NVIDIA A100-PCIE-40GB", "A100 40GB"),
            ("NVIDIA A100 80GB PCIe", "A100 80GB PCIe"),
            ("NVIDIA A100-PG509-200", "A100"),
            ("NVIDIA A800-SXM4-80GB", "A800"),
            ("NVIDIA B200", "B200"),
            ("NVIDIA GB200", "GB200"),
            ("NVIDIA B300 SXM6 AC", "B300"),
            ("NVIDIA L40S", "L40S"),
            ("NVIDIA L4", "L4"),
            ("Tesla V100-SXM2-32GB", "V100"),
            ("AMD Instinct MI300X", "MI300X"),
            ("AMD Instinct MI300X VF", "MI300X"),
            ("AMD Instinct MI300A", "MI300A"),
            ("AMD Instinct MI325X", "MI325X"),
            ("AMD Instinct MI355X", "MI355X"),
            ("AMD Instinct MI350X", "MI350X"),
            ("AMD Instinct MI210", "MI210"),
            ("AMD Instinct MI250X", "MI250X"),
            ("AMD Instinct MI400", "MI400"),
        ] {
            assert_eq!(exact(name).as_deref(), Some(want), "{name}");
            assert_eq!(
                platform_for_device(name, &builtin_platforms()).as_deref(),
                Some(want),
                "{name}"
            );
        }
    }

    #[test]
    fn l4_is_not_l40s_and_h20_is_not_h200() {
        assert_eq!(exact("NVIDIA L4").as_deref(), Some("L4"));
        assert_eq!(exact("NVIDIA L40S").as_deref(), Some("L40S"));
        assert_eq!(exact("NVIDIA H20").as_deref(), Some("H20"));
        assert_eq!(exact("NVIDIA H200").as_deref(), Some("H200"));
        let l4 = guess(nvidia((8, 9), Some(58), Some(24 * GB))).unwrap();
        assert_eq!(l4.platform, "L4");
        let l40s = guess(nvidia((8, 9), Some(142), Some(48 * GB))).unwrap();
        assert_eq!(l40s.platform, "L40S");
    }

    #[test]
    fn mi250_names_go_by_cu_count() {
        let all = builtin_platforms();
        let d = |cus| {
            detect_platform(
                &DeviceProps {
                    num_sms: cus,
                    ..DeviceProps::named("AMD Instinct MI250X/MI250")
                },
                &all,
            )
            .unwrap()
        };
        let x = d(Some(110));
        assert_eq!((x.platform.as_str(), x.guessed), ("MI250X", false));
        let m = d(Some(104));
        assert_eq!((m.platform.as_str(), m.guessed), ("MI210", true));
        assert!(m.reason.contains("MI250 GCD"), "{}", m.reason);
        assert_eq!(d(None).platform, "MI250X");
    }

    #[test]
    fn amd_generic_names_fall_back_to_the_architecture() {
        let mi300x = guess(amd(
            "AMD Radeon Graphics",
            "gfx942:sramecc+:xnack-",
            Some(304),
            Some(206 * GB),
        ))
        .unwrap();
        assert_eq!(mi300x.platform, "MI300X");
        assert!(
            mi300x.reason.starts_with("gfx942, 304 CUs"),
            "{}",
            mi300x.reason
        );
        assert!(mi300x.reason.contains("→ MI300X"), "{}", mi300x.reason);
        assert!(
            mi300x.reason.contains("'AMD Radeon Graphics'"),
            "{}",
            mi300x.reason
        );
        let mi325x = guess(amd("", "gfx942", Some(304), Some(275 * GB))).unwrap();
        assert_eq!(mi325x.platform, "MI325X");
        assert_eq!(
            guess(amd("", "gfx942", Some(228), None)).unwrap().platform,
            "MI300A"
        );
        let mi355x = guess(amd("", "gfx950", Some(256), Some(309 * GB))).unwrap();
        assert_eq!(mi355x.platform, "MI355X");
        assert!(
            mi355x.reason.contains("MI350X"),
            "names the alternative: {}",
            mi355x.reason
        );
        assert_eq!(
            guess(amd("", "gfx90a:sramecc+:xnack-", Some(110), None))
                .unwrap()
                .platform,
            "MI250X"
        );
        assert_eq!(
            guess(amd("", "gfx90a", Some(104), None)).unwrap().platform,
            "MI210"
        );
        // A CPX partition (38 CUs) is not a whole MI300X.
        assert_eq!(
            guess(amd("AMD Radeon Graphics", "gfx942", Some(38), None)),
            None
        );
        // No gcnArchName: HIP's computeMajor/Minor stand in for it.
        let hip = DeviceProps {
            name: "AMD Radeon Graphics".into(),
            compute_major: Some(9),
            compute_minor: Some(4),
            num_sms: Some(304),
            ..DeviceProps::default()
        };
        assert_eq!(guess(hip).unwrap().platform, "MI300X");
        // 9.0 with an MI250X GCD's CUs and no name is gfx90a, not Hopper.
        assert_eq!(
            guess(nvidia((9, 0), Some(110), Some(64 * GB)))
                .unwrap()
                .platform,
            "MI250X"
        );
    }

    #[test]
    fn nvidia_unknown_names_fall_back_to_compute_capability() {
        let cases = [
            (nvidia((9, 0), Some(132), Some(85_029_158_912)), "H100"),
            (nvidia((9, 0), Some(132), Some(150_754_820_096)), "H200"),
            (nvidia((9, 0), Some(114), Some(85 * GB)), "H100 PCIe"),
            (nvidia((9, 0), Some(78), Some(102 * GB)), "H20"),
            (nvidia((9, 0), Some(132), Some(102 * GB)), "GH200"),
            (nvidia((9, 0), None, Some(102 * GB)), "GH200"),
            (nvidia((10, 0), Some(148), Some(192_265_846_784)), "B200"),
            (nvidia((10, 0), None, Some(198_700_000_000)), "GB200"),
            (nvidia((10, 3), Some(148), None), "B300"),
            (nvidia((8, 0), Some(108), Some(42_505_273_344)), "A100 40GB"),
            (nvidia((8, 0), Some(108), Some(85_899_345_920)), "A100"),
            (nvidia((8, 9), Some(58), None), "L4"),
            (nvidia((8, 9), Some(142), None), "L40S"),
            (nvidia((7, 0), Some(80), None), "V100"),
        ];
        for (props, want) in cases {
            let d = guess(props.clone()).unwrap_or_else(|| panic!("{props:?}"));
            assert_eq!(d.platform, want, "{props:?}: {}", d.reason);
            let cc = format!(
                "compute capability {}.{}",
                props.compute_major.unwrap(),
                props.compute_minor.unwrap()
            );
            assert!(d.reason.starts_with(&cc), "{}", d.reason);
        }
        let gh = guess(nvidia((9, 0), Some(132), Some(102 * GB))).unwrap();
        assert!(
            gh.reason.contains("H100 NVL"),
            "names the alternative: {}",
            gh.reason
        );
        // An Ada part that is neither (RTX 4090: 128 SMs) gets no platform.
        assert_eq!(guess(nvidia((8, 9), Some(128), Some(24 * GB))), None);
        assert_eq!(guess(nvidia((12, 0), Some(188), None)), None);
    }

    #[test]
    fn unknown_gpus_without_usable_properties_are_none() {
        let all = builtin_platforms();
        assert_eq!(detect_platform(&DeviceProps::named("ARTEMIS"), &all), None);
        assert_eq!(detect_platform(&DeviceProps::named(""), &all), None);
        assert_eq!(
            detect_platform(&DeviceProps::named("AMD Radeon Graphics"), &all),
            None
        );
        // An AMD name with NVIDIA-looking numbers is not taken for NVIDIA.
        let odd = DeviceProps {
            compute_major: Some(8),
            compute_minor: Some(0),
            ..DeviceProps::named("AMD Radeon Graphics")
        };
        assert_eq!(detect_platform(&odd, &all), None);
        assert_eq!(platform_for_device("NVIDIA GeForce RTX 4090", &all), None);
    }

    #[test]
    fn user_platforms_match_by_their_words_first() {
        let mut all = builtin_platforms();
        let mut mine = all.iter().find(|p| p.name == "H100").unwrap().clone();
        mine.name = "H100 SXM5 Lab".into();
        all.push(mine.clone());
        mine.name = "MYGPU".into();
        all.push(mine);
        assert_eq!(
            platform_for_device("NVIDIA H100 SXM5 LAB", &all).as_deref(),
            Some("H100 SXM5 Lab")
        );
        assert_eq!(
            platform_for_device("NVIDIA H100 80GB HBM3", &all).as_deref(),
            Some("H100")
        );
        assert_eq!(
            platform_for_device("acme MYGPU v2", &all).as_deref(),
            Some("MYGPU")
        );
        // A rule's platform missing from the list: a word of the name still
        // matches a listed platform (the old behaviour), else nothing.
        let only_h100: Vec<Platform> = all.into_iter().filter(|p| p.name == "H100").collect();
        assert_eq!(
            platform_for_device("NVIDIA H100 PCIe", &only_h100).as_deref(),
            Some("H100")
        );
        assert_eq!(platform_for_device("NVIDIA L4", &only_h100), None);
    }

    #[test]
    fn props_read_from_device_properties_json() {
        let v: serde_json::Value = serde_json::from_str(
            r#"{"id": 0, "name": "AMD Radeon Graphics", "totalGlobalMem": 206141652992,
                "computeMajor": 9, "computeMinor": 4, "numSms": 304,
                "gcnArchName": "gfx942:sramecc+:xnack-"}"#,
        )
        .unwrap();
        let p = DeviceProps::from_json(&v);
        assert_eq!(p.num_sms, Some(304));
        assert_eq!(p.total_global_mem, Some(206141652992));
        assert_eq!(p.gcn_arch_name.as_deref(), Some("gfx942:sramecc+:xnack-"));
        let d = detect_platform(&p, &builtin_platforms()).unwrap();
        assert_eq!(d.platform, "MI300X");
        assert!(
            d.describe()
                .starts_with("MI300X (guessed from gfx942, 304 CUs"),
            "{}",
            d.describe()
        );
        let empty = DeviceProps::from_json(&serde_json::json!({"id": 1}));
        assert_eq!(empty, DeviceProps::default());
    }

    #[test]
    fn every_builtin_row_has_a_source_and_positive_peaks() {
        for p in builtin_platforms() {
            assert!(!p.source.is_empty() && p.memory_tb_s > 0.0, "{}", p.name);
            assert!(p.peak_tflops.values().all(|v| *v > 0.0), "{}", p.name);
        }
        let names = super::super::platforms::builtin_names();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "duplicate names");
    }
}

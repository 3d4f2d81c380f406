//! Roofline: how far an op is from what its platform can do.
//!
//! For an op with `flops` and `bytes` on a platform with peak `P` TFLOPS for the
//! op's compute spec and `BW` TB/s of memory bandwidth, the roofline time is
//! `max(flops / P, bytes / BW)`: the op is compute-bound when the first term wins,
//! memory-bound otherwise (equivalently: its FLOPs/byte is above or below the
//! ridge point P/BW). Efficiency is roofline time / measured kernel time, in %.

pub mod detect;
pub mod platforms;
mod udf;

pub use detect::{detect_platform, Detection, DeviceProps};
pub use platforms::{
    builtin_platforms, merge_platforms, parse_platforms, platform_for_device, Platform,
};
pub use udf::{RooflineOutput, RooflineUdf};

/// Roofline time in µs, and whether compute bounds it; None without a peak for
/// `spec`, without bytes, or for ops with no FLOPs (spec §9).
pub fn roofline(
    platform: &Platform,
    spec: &str,
    flops: f64,
    bytes: Option<f64>,
) -> Option<(f64, bool)> {
    let peak = platform.peak(spec)?;
    let bytes = bytes?;
    if !(flops > 0.0) {
        return None;
    }
    let compute_us = (flops / (peak * 1e12)) * 1e6;
    let memory_us = (bytes / (platform.memory_tb_s * 1e12)) * 1e6;
    Some((compute_us.max(memory_us), compute_us >= memory_us))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_and_time_follow_the_ridge_point() {
        let h100 = builtin_platforms()
            .into_iter()
            .find(|p| p.name == "H100")
            .expect("H100");
        // bert addmm: 73,996,800 FLOPs, 814,080 bytes, bf16.
        let (t, compute) =
            roofline(&h100, "matrix_bf16", 73_996_800.0, Some(814_080.0)).expect("modelled");
        let compute_us: f64 = (73_996_800.0 / (989.4 * 1e12)) * 1e6;
        let memory_us: f64 = (814_080.0 / (3.35 * 1e12)) * 1e6;
        assert!(
            !compute,
            "FLOPs/byte 90.9 is below the ridge 989.4/3.35 = 295"
        );
        assert_eq!(t, memory_us.max(compute_us));
        assert!(
            roofline(&h100, "matrix_fp4", 1.0, Some(1.0)).is_none(),
            "no fp4 on H100"
        );
        assert!(
            roofline(&h100, "matrix_bf16", 0.0, Some(1.0)).is_none(),
            "no FLOPs"
        );
        assert!(
            roofline(&h100, "matrix_bf16", 1.0, None).is_none(),
            "no bytes"
        );
    }
}

//! numpy's float64 reductions, reproduced operation for operation.
//!
//! Why: `kernel_details` summaries are compared exactly after parsing, and numpy's
//! `sum`/`mean`/`std` use pairwise summation, whose rounding differs from a plain
//! left-to-right loop in the last bits (spec §10.2). `round` is `rint(x·10ᵈ)/10ᵈ`
//! with ties to even, not Python's correctly rounded `round`.

/// `np.sum` of a contiguous float64 array: numpy's pairwise summation.
///
/// Fewer than 8 values are added left to right from `0.0`. Up to 128 values use
/// eight interleaved accumulators combined as `((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))`,
/// then the tail is added sequentially. Longer arrays are split at `n/2` rounded
/// down to a multiple of 8 and summed recursively.
pub fn pairwise_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        a.iter().fold(0.0, |acc, x| acc + x)
    } else if n <= 128 {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let blocks_end = n - n % 8;
        let mut i = 8;
        while i < blocks_end {
            for (j, acc) in r.iter_mut().enumerate() {
                *acc += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for x in &a[blocks_end..] {
            res += x;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
    }
}

/// `np.mean`: the pairwise sum divided by the count. NaN for an empty slice.
pub fn mean(a: &[f64]) -> f64 {
    pairwise_sum(a) / a.len() as f64
}

/// `np.std` with `ddof=0` (population): `sqrt(pairwise(Σ(x − mean)²) / n)`.
pub fn population_std(a: &[f64]) -> f64 {
    let m = mean(a);
    let squares: Vec<f64> = a.iter().map(|x| (x - m) * (x - m)).collect();
    (pairwise_sum(&squares) / a.len() as f64).sqrt()
}

/// `np.median`: the middle value, or the mean `(a + b) / 2` of the two middle
/// values. NaN if any value is NaN or the slice is empty.
pub fn median(a: &[f64]) -> f64 {
    if a.is_empty() || a.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    let mut sorted = a.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        pairwise_sum(&sorted[mid - 1..=mid]) / 2.0
    }
}

/// `np.min`: NaN propagates, as in numpy. NaN for an empty slice.
pub fn min(a: &[f64]) -> f64 {
    reduce_nan_propagating(a, f64::min)
}

/// `np.max`: NaN propagates, as in numpy. NaN for an empty slice.
pub fn max(a: &[f64]) -> f64 {
    reduce_nan_propagating(a, f64::max)
}

fn reduce_nan_propagating(a: &[f64], pick: fn(f64, f64) -> f64) -> f64 {
    a.iter()
        .copied()
        .reduce(|m, x| {
            if m.is_nan() || x.is_nan() {
                f64::NAN
            } else {
                pick(m, x)
            }
        })
        .unwrap_or(f64::NAN)
}

/// `np.round(x, decimals)` for `decimals >= 0`: `rint(x · 10ᵈ) / 10ᵈ`, rounding
/// half to even. Unlike Python's `round`, `2.675` rounds to `2.68`.
pub fn round(x: f64, decimals: u32) -> f64 {
    let scale = 10f64.powi(decimals as i32);
    (x * scale).round_ties_even() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_sums_are_sequential() {
        assert_eq!(pairwise_sum(&[]), 0.0);
        assert_eq!(pairwise_sum(&[0.1, 0.2, 0.3]), (0.1 + 0.2) + 0.3);
    }

    #[test]
    fn eight_accumulators_between_8_and_128() {
        // At 1e16 the ulp is 2: adding a lone 1.0 is lost (ties to even), 2.0 is not.
        // n = 16: a[1] and a[9] meet in accumulator r1 = 2.0, and a[8] is lost in r0.
        let mut a = vec![0.0; 16];
        a[0] = 1e16;
        a[1] = 1.0;
        a[8] = 1.0;
        a[9] = 1.0;
        assert_eq!(pairwise_sum(&a), 1e16 + 2.0);
        assert_eq!(a.iter().fold(0.0, |s, x| s + x), 1e16); // a plain loop loses all three
                                                            // n = 10: a[8] and a[9] are the tail, added one at a time and lost.
        assert_eq!(pairwise_sum(&a[..10]), 1e16);
    }

    #[test]
    fn long_sums_split_at_a_multiple_of_8() {
        // n = 200: n2 = 100 - 100 % 8 = 96.
        let a: Vec<f64> = (0..200).map(|i| i as f64 * 0.1).collect();
        assert_eq!(
            pairwise_sum(&a),
            pairwise_sum(&a[..96]) + pairwise_sum(&a[96..])
        );
    }

    #[test]
    fn statistics_by_hand() {
        let a = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(mean(&a), 2.5);
        // Σ(x − 2.5)² = 2.25 + 0.25 + 0.25 + 2.25 = 5; 5 / 4 = 1.25.
        assert_eq!(population_std(&a), 1.25f64.sqrt());
        assert_eq!(median(&a), 2.5);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(min(&a), 1.0);
        assert_eq!(max(&a), 4.0);
        assert!(min(&[1.0, f64::NAN]).is_nan());
        assert!(max(&[f64::NAN, 1.0]).is_nan());
        assert_eq!(population_std(&[41.28]), 0.0);
    }

    #[test]
    fn round_is_numpy_rint() {
        assert_eq!(round(2.675, 2), 2.68); // 2.675 · 100 rounds up to 267.5, then to even
        assert_eq!(round(0.125, 2), 0.12); // 12.5 → 12 (half to even)
        assert_eq!(round(0.135, 2), 0.14);
        assert_eq!(round(5.8069411764705885, 2), 5.81);
        assert_eq!(round(0.828125, 2), 0.83);
        assert_eq!(round(83.65627083333332, 2), 83.66);
    }
}

//! Interval algebra over GPU activity, exactly as the reference tool computes it.
//!
//! Why exact: busy times are differences of huge timestamps (`ts ≈ 1.4e12 µs`), so
//! they are quantised to the f64 ulp at that magnitude. Reports only agree with the
//! reference when intervals are merged in the same order and summed left to right.

/// A half-open GPU activity interval `[start, end]` in microseconds.
pub type Interval = (f64, f64);

/// Merges intervals into a sorted, disjoint list.
///
/// Sorting is stable by start; touching intervals (`next.start == last.end`) merge.
pub fn merge(mut intervals: Vec<Interval>) -> Vec<Interval> {
    intervals.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut merged: Vec<Interval> = Vec::with_capacity(intervals.len());
    for (start, end) in intervals {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// Total length of merged intervals, summed sequentially from the first.
pub fn total_length(merged: &[Interval]) -> f64 {
    merged.iter().fold(0.0, |acc, (s, e)| acc + (e - s))
}

/// Length of the union of `intervals` (the "busy time" of a set of GPU events).
pub fn union_length(intervals: Vec<Interval>) -> f64 {
    total_length(&merge(intervals))
}

/// The parts of `b` not covered by `a`; both must be merged (sorted, disjoint).
pub fn subtract(a: &[Interval], b: &[Interval]) -> Vec<Interval> {
    let mut out = Vec::new();
    let mut i = 0;
    for &(bs, be) in b {
        while i < a.len() && a[i].1 <= bs {
            i += 1;
        }
        let mut cur = bs;
        let mut j = i;
        while j < a.len() && a[j].0 < be {
            if a[j].0 > cur {
                out.push((cur, be.min(a[j].0)));
            }
            cur = cur.max(a[j].1);
            if cur >= be {
                break;
            }
            j += 1;
        }
        if cur < be {
            out.push((cur, be));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_joins_overlapping_and_touching() {
        let m = merge(vec![
            (5.0, 7.0),
            (0.0, 2.0),
            (2.0, 3.0),
            (6.0, 9.0),
            (10.0, 11.0),
        ]);
        assert_eq!(m, vec![(0.0, 3.0), (5.0, 9.0), (10.0, 11.0)]);
    }

    #[test]
    fn union_length_is_quantised_like_the_reference() {
        let ts = 1_419_247_333_430.849_f64;
        let dur = 5.792;
        let len = union_length(vec![(ts, ts + dur)]);
        assert_eq!(len, 5.7919921875);
    }

    #[test]
    fn subtract_keeps_uncovered_parts() {
        let a = merge(vec![(1.0, 2.0), (4.0, 5.0)]);
        let b = merge(vec![(0.0, 6.0), (7.0, 8.0)]);
        assert_eq!(
            subtract(&a, &b),
            vec![(0.0, 1.0), (2.0, 4.0), (5.0, 6.0), (7.0, 8.0)]
        );
        assert!(subtract(&b, &a).is_empty());
    }

    #[test]
    fn empty_sets() {
        assert_eq!(union_length(vec![]), 0.0);
        assert!(subtract(&[], &[]).is_empty());
    }
}

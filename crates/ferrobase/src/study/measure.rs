//! Timing helpers: medians and percentiles of repeated measurements.

use std::time::{Duration, Instant};

/// The `p`-quantile (0..=1) of `samples` by nearest rank; zero when empty.
pub fn quantile(samples: &[Duration], p: f64) -> Duration {
    let mut s = samples.to_vec();
    s.sort_unstable();
    match s.len() {
        0 => Duration::ZERO,
        n => s[((n as f64 - 1.0) * p).round() as usize],
    }
}

/// The median of `values`; zero when empty.
pub fn median_f64(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if !n.is_multiple_of(2) => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Latencies of `ops` calls of `f(i)`, one sample per call.
pub fn latencies<E>(
    ops: usize,
    mut f: impl FnMut(usize) -> Result<(), E>,
) -> Result<Vec<Duration>, E> {
    let mut out = Vec::with_capacity(ops);
    for i in 0..ops {
        let t0 = Instant::now();
        f(i)?;
        out.push(t0.elapsed());
    }
    Ok(out)
}

/// Microseconds, for tables.
pub fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median_f64(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median_f64(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median_f64(&[]), 0.0);
    }

    #[test]
    fn quantile_by_nearest_rank() {
        let d: Vec<Duration> = (1..=5).map(Duration::from_micros).collect();
        assert_eq!(quantile(&d, 0.5), Duration::from_micros(3));
        assert_eq!(quantile(&d, 1.0), Duration::from_micros(5));
    }
}

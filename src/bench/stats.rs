//! Summary statistics over repeated runs.

/// Median, min, max and coefficient of variation of some samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// Sample standard deviation over the mean, in percent (0 for one sample).
    pub cv_pct: f64,
}

pub fn summarize(samples: &[f64]) -> Option<Summary> {
    if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let mut v = samples.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    let mean = v.iter().sum::<f64>() / n as f64;
    let cv_pct = if n < 2 || mean == 0.0 {
        0.0
    } else {
        let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        var.sqrt() / mean * 100.0
    };
    Some(Summary {
        median,
        min: v[0],
        max: v[n - 1],
        cv_pct,
    })
}

/// Throughput in decimal MB/s (10^6 bytes per second), as users compare.
pub fn mb_per_s(bytes: u64, seconds: f64) -> f64 {
    if seconds <= 0.0 {
        0.0
    } else {
        bytes as f64 / 1e6 / seconds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_and_even_medians() {
        let s = summarize(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        let s = summarize(&[4.0, 1.0, 2.0, 3.0]).unwrap();
        assert_eq!(s.median, 2.5);
    }

    #[test]
    fn coefficient_of_variation() {
        // mean 10, sample sd sqrt(((−2)²+0+2²)/2) = 2 → 20 %
        let s = summarize(&[8.0, 10.0, 12.0]).unwrap();
        assert!((s.cv_pct - 20.0).abs() < 1e-9, "{}", s.cv_pct);
        assert_eq!(summarize(&[5.0]).unwrap().cv_pct, 0.0);
        assert_eq!(summarize(&[5.0, 5.0]).unwrap().cv_pct, 0.0);
    }

    #[test]
    fn empty_and_nan_give_nothing() {
        assert!(summarize(&[]).is_none());
        assert!(summarize(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn decimal_megabytes() {
        assert_eq!(mb_per_s(2_000_000, 1.0), 2.0);
        assert_eq!(mb_per_s(1 << 30, 0.0), 0.0);
    }
}

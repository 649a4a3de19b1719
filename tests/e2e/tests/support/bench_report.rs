//! What the benchmarks report besides their own figures: nearest-rank statistics of samples, the machine's load
//! printed beside them, and the wall clock the page's timings are placed against.

use std::time::{SystemTime, UNIX_EPOCH};

/// KiB (as /proc reports memory) in MiB.
#[allow(clippy::cast_precision_loss, reason = "KiB to MiB for a report")]
pub(crate) fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Sorted samples: nearest-rank quantiles.
pub(crate) struct Stats(Vec<f64>);

impl Stats {
    pub(crate) fn new(mut values: Vec<f64>) -> Self {
        values.sort_by(f64::total_cmp);
        Stats(values)
    }

    pub(crate) fn quantile(&self, q: f64) -> f64 {
        if self.0.is_empty() {
            return f64::NAN;
        }
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss,
            reason = "a rank within a short list"
        )]
        let rank = ((q * self.0.len() as f64).ceil() as usize).clamp(1, self.0.len());
        self.0[rank - 1]
    }

    pub(crate) fn max(&self) -> f64 {
        self.0.last().copied().unwrap_or(f64::NAN)
    }

    pub(crate) fn summary(&self) -> String {
        format!(
            "median {:>7.1}  p95 {:>7.1}  max {:>7.1}  (n={})",
            self.quantile(0.5),
            self.quantile(0.95),
            self.max(),
            self.0.len()
        )
    }
}

/// The machine's load as /proc/loadavg has it (1, 5 and 15 minute averages, running/all tasks, last pid).
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// Milliseconds since the Unix epoch, the clock the page's `performance.timeOrigin` is on.
pub(crate) fn wall_clock_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1000.0
}

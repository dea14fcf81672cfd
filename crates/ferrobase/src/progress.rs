//! Progress of the long commands (`copy`, `export`, `import`, `import tsv`), one way for all:
//! on a terminal an indicatif bar on stderr (rows, cells, bytes, rate; a bar with ETA when the
//! total is known), elsewhere a plain line on stderr every two seconds (`FERROBASE_PROGRESS_EVERY_MS`
//! sets another interval); the command prints its
//! exact counts on stdout at the end. Ctrl-C asks the command to stop after the batch it is
//! writing ([`ferrobase_tools::StopFlag`]): it then reports what it had done and exits 130; a
//! second Ctrl-C ends the program at once.

use ferrobase_tools::StopFlag;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// What a command has done so far.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counts {
    /// Rows written (or read, for a command that writes files).
    pub rows: u64,
    /// Cells.
    pub cells: u64,
    /// Bytes: of the cells (copy), or of the input read (import; the bar's position when the
    /// total is known).
    pub bytes: u64,
}

/// How often a plain line is printed: every two seconds, or every `FERROBASE_PROGRESS_EVERY_MS`
/// milliseconds when that is set.
fn line_every() -> Duration {
    std::env::var("FERROBASE_PROGRESS_EVERY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(Duration::from_secs(2), Duration::from_millis)
}

/// One command's progress display and stop request.
pub struct Progress {
    label: &'static str,
    bar: Option<ProgressBar>,
    total_bytes: Option<u64>,
    started: Instant,
    last_line: Instant,
    line_every: Duration,
    stop: StopFlag,
    signals: Vec<signal_hook::SigId>,
}

fn human_bytes(b: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

impl Progress {
    /// Starts the display for command `label`; `total_bytes` when the input's size is known
    /// (then the bar shows a percentage and an ETA). Installs the Ctrl-C handler.
    pub fn start(label: &'static str, total_bytes: Option<u64>) -> Progress {
        let stop = StopFlag::new();
        let mut signals = Vec::new();
        // The second Ctrl-C (flag already set) ends the program; the first sets the flag.
        if let Ok(id) = signal_hook::flag::register_conditional_shutdown(
            signal_hook::consts::SIGINT,
            130,
            stop.shared(),
        ) {
            signals.push(id);
        }
        if let Ok(id) = signal_hook::flag::register(signal_hook::consts::SIGINT, stop.shared()) {
            signals.push(id);
        }
        let bar = std::io::stderr().is_terminal().then(|| {
            let (bar, template) = match total_bytes {
                Some(total) => (
                    ProgressBar::new(total),
                    "{spinner} {prefix} [{wide_bar}] {percent:>3}% {msg}, {binary_bytes_per_sec}, ETA {eta}",
                ),
                None => (
                    ProgressBar::new_spinner(),
                    "{spinner} {prefix}: {msg} ({elapsed})",
                ),
            };
            bar.set_draw_target(ProgressDrawTarget::stderr());
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_prefix(label);
            bar.set_message("starting");
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        let now = Instant::now();
        Progress {
            label,
            bar,
            total_bytes,
            started: now,
            last_line: now,
            line_every: line_every(),
            stop,
            signals,
        }
    }

    /// The flag Ctrl-C sets; give it to the operation.
    pub fn stop_flag(&self) -> StopFlag {
        self.stop.clone()
    }

    fn message(&self, c: Counts) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let mut m = format!("{} rows, {} cells", c.rows, c.cells);
        if self.total_bytes.is_none() {
            m.push_str(&format!(", {:.0} rows/s", c.rows as f64 / secs));
            // (An export knows its bytes once a file is complete.)
            if c.bytes > 0 {
                m.push_str(&format!(
                    ", {}, {}/s",
                    human_bytes(c.bytes as f64),
                    human_bytes(c.bytes as f64 / secs)
                ));
            }
        }
        m
    }

    /// Shows `c`: the bar at once, a plain line at most every two seconds.
    pub fn update(&mut self, c: Counts) {
        if let Some(bar) = &self.bar {
            if self.total_bytes.is_some() {
                bar.set_position(c.bytes);
            }
            bar.set_message(self.message(c));
            return;
        }
        if self.last_line.elapsed() < self.line_every {
            return;
        }
        self.last_line = Instant::now();
        let elapsed = self.started.elapsed().as_secs_f64();
        let mut line = format!("{}: {}", self.label, self.message(c));
        if let Some(total) = self.total_bytes.filter(|&t| t > 0) {
            let done = c.bytes.min(total) as f64 / total as f64;
            line.push_str(&format!(
                ", {:.0}% of {}",
                done * 100.0,
                human_bytes(total as f64)
            ));
            if done > 0.0 {
                line.push_str(&format!(", ETA {:.0} s", elapsed * (1.0 - done) / done));
            }
        }
        eprintln!("{line} ({elapsed:.0} s)");
    }

    /// Ends the display: the bar is left drawn with the last counts.
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish();
            // The bar's line ends here: what the command prints next starts on its own line.
            eprintln!();
        }
        for id in self.signals.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::human_bytes;

    #[test]
    fn bytes_read_as_people_read_them() {
        assert_eq!(human_bytes(512.0), "512 B");
        assert_eq!(human_bytes(1536.0), "1.5 KiB");
        assert_eq!(human_bytes(3.0 * 1024.0 * 1024.0 * 1024.0), "3.0 GiB");
    }
}

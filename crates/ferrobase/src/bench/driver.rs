//! The load driver the concurrency benchmarks share: `n` workers on their own threads, each
//! prepared (a connection opened, a table handle taken) before the clock starts, then calling
//! one operation in a loop for a number of calls or until a deadline, every call timed.

use anyhow::{anyhow, bail, Result};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// Stack of a worker thread: enough for an engine call, small enough for 1,000 workers.
const WORKER_STACK: usize = 512 * 1024;

/// How long each worker runs.
#[derive(Clone, Copy, Debug)]
pub enum Budget {
    /// This many calls.
    Calls(usize),
    /// Until this long after the start.
    Time(Duration),
}

/// What a run measured.
pub struct Measured {
    /// Operations done (a call may do several: a 100-row batch counts 100).
    pub ops: usize,
    /// From the start (every worker prepared) to the last worker's end.
    pub elapsed: Duration,
    /// Every call's time.
    pub latencies: Vec<Duration>,
    /// CPU time the whole process used meanwhile (user + system; the server's too when it runs
    /// in this process).
    pub cpu: Duration,
}

/// Runs `workers` workers: worker `w` is `prepare(w)`, then calls `worker(call_number)` (which
/// returns the operations the call did) within `budget`. Any worker's error ends the run with it.
pub fn drive<W, P>(workers: usize, budget: Budget, prepare: P) -> Result<Measured>
where
    P: Fn(usize) -> Result<W> + Sync,
    W: FnMut(u64) -> Result<usize>,
{
    let gate = StartGate::default();
    let mut start = Instant::now();
    let mut cpu_start = process_cpu();
    let results: Vec<Result<(usize, Vec<Duration>)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let (gate, prepare) = (&gate, &prepare);
                std::thread::Builder::new()
                    .name(format!("bench-worker-{w}"))
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(s, move || -> Result<(usize, Vec<Duration>)> {
                        let prepared = prepare(w);
                        // Everyone reports, prepared or not, so the start never waits forever.
                        if !gate.arrive() {
                            bail!("the run was called off");
                        }
                        let mut call = prepared?;
                        let mut lat = Vec::new();
                        let mut ops = 0;
                        let begin = Instant::now();
                        let mut i = 0u64;
                        loop {
                            match budget {
                                Budget::Calls(n) if i as usize >= n => break,
                                Budget::Time(d) if begin.elapsed() >= d => break,
                                _ => {}
                            }
                            let t0 = Instant::now();
                            ops += call(i)?;
                            lat.push(t0.elapsed());
                            i += 1;
                        }
                        Ok((ops, lat))
                    })
            })
            .collect();
        let started = handles.iter().filter(|h| h.is_ok()).count();
        let go = started == workers;
        gate.open(started, go);
        start = Instant::now();
        cpu_start = process_cpu();
        let mut out: Vec<Result<(usize, Vec<Duration>)>> = handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h.join().map_err(|_| anyhow!("a worker panicked"))?,
                Err(e) => Err(anyhow!("starting a worker thread: {e}")),
            })
            .collect();
        // The failure to start a thread first: the others only say they were called off.
        out.sort_by_key(|r| r.as_ref().map_or(0, |_| 1));
        out
    });
    let elapsed = start.elapsed();
    let cpu = process_cpu().saturating_sub(cpu_start);
    let mut ops = 0;
    let mut latencies = Vec::new();
    for r in results {
        let (o, l) = r?;
        ops += o;
        latencies.extend(l);
    }
    Ok(Measured {
        ops,
        elapsed,
        latencies,
        cpu,
    })
}

/// Holds prepared workers until all have arrived and the driver opens it (or calls the run off).
#[derive(Default)]
struct StartGate {
    /// Workers arrived, and the driver's decision once made.
    state: Mutex<(usize, Option<bool>)>,
    changed: Condvar,
}

impl StartGate {
    /// A worker arrives and waits for the decision: true to run.
    fn arrive(&self) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.0 += 1;
        self.changed.notify_all();
        loop {
            if let Some(go) = s.1 {
                return go;
            }
            s = self.changed.wait(s).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// The driver waits for `workers` arrivals, then lets them run (`go`) or calls it off.
    fn open(&self, workers: usize, go: bool) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        while s.0 < workers {
            s = self.changed.wait(s).unwrap_or_else(|p| p.into_inner());
        }
        s.1 = Some(go);
        self.changed.notify_all();
    }
}

/// The process's CPU time so far (user + system, from `/proc/self/stat`; zero where it is
/// unreadable).
pub fn process_cpu() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // The command name (field 2) may hold spaces; the fields after its ')' are plain.
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return Duration::ZERO;
    };
    let f: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the name, in clock ticks
    // (USER_HZ, 100 on Linux).
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}

/// The load average (1, 5 and 15 minutes) as `/proc/loadavg` says it, for the record.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

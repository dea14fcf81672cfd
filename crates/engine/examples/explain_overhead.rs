//! What scan explain costs: the same cached scans and gets with no recording, with a recording
//! in force (what every door's call does for the slow log), and with `explain` asked for.
//! Prints a table. `cargo run --release -p ferrobase-engine --example explain_overhead`.

use ferrobase_engine::*;
use std::time::Instant;

const ROWS: usize = 100_000;
const ROUNDS: usize = 15;
const GETS: usize = 50_000;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    engine
        .admin()
        .create_table(
            TableDescriptor::new(TableName::parse("t").unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf")),
        )
        .unwrap();
    let t = engine.table("t").unwrap();
    for chunk in (0..ROWS).collect::<Vec<_>>().chunks(1000) {
        let puts = chunk
            .iter()
            .map(|i| {
                Put::new(format!("row{i:08}"))
                    .add_column("cf", "a", "value-a")
                    .add_column("cf", "b", "value-b")
            })
            .collect();
        t.put_all(puts).unwrap();
    }
    engine.admin().flush("t").unwrap();
    // Warm the block cache.
    assert_eq!(t.scanner(&Scan::new()).unwrap().count(), ROWS);

    // Modes interleaved round by round, the best round of each kept: a shared machine's noise
    // falls on every mode alike.
    let modes = ["off", "recording", "explain"];
    let mut best_scan = [f64::MAX; 3];
    let mut best_get = [f64::MAX; 3];
    for _ in 0..ROUNDS {
        for (m, mode) in modes.iter().enumerate() {
            let started = Instant::now();
            let recording = (*mode == "recording").then(CostRecording::start);
            let mut s = t.scanner(&Scan::new().explain(*mode == "explain")).unwrap();
            assert_eq!(s.by_ref().count(), ROWS);
            drop(recording);
            best_scan[m] = best_scan[m].min(started.elapsed().as_secs_f64());

            let started = Instant::now();
            for i in 0..GETS {
                let g = Get::new(format!("row{:08}", (i * 7919) % ROWS));
                match *mode {
                    "off" => drop(t.get(&g).unwrap()),
                    "recording" => {
                        let r = CostRecording::start();
                        drop(t.get(&g).unwrap());
                        std::hint::black_box(r.finish());
                    }
                    _ => drop(std::hint::black_box(t.get_explained(&g).unwrap())),
                }
            }
            best_get[m] = best_get[m].min(started.elapsed().as_secs_f64());
        }
    }
    println!("{:<12} {:>14} {:>14}", "mode", "scan rows/s", "gets/s");
    for (m, mode) in modes.iter().enumerate() {
        println!(
            "{:<12} {:>14.0} {:>14.0}",
            mode,
            ROWS as f64 / best_scan[m],
            GETS as f64 / best_get[m]
        );
    }
}

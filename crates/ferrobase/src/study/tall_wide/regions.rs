//! A row larger than a region: both designs loaded, then every region holding more than the
//! split size in files is split at its middle row (HBase splits at the row of its largest
//! file's middle key), until no region can split any more. A region splits only between rows,
//! so a wide row stays whole in one region however large it grows.

use super::workload::{create_table, load, Design, Keys};
use anyhow::Result;
use ferrobase_engine::filter::FirstKeyOnlyFilter;
use ferrobase_engine::{Engine, EngineOptions, Scan};
use std::path::Path;

/// The regions a design ended with.
#[derive(Debug, Clone)]
pub struct RegionOutcome {
    /// The design.
    pub design: Design,
    /// Regions after splitting stopped.
    pub regions: usize,
    /// Bytes in files of the largest region.
    pub largest: u64,
    /// Bytes in files of the smallest region.
    pub smallest: u64,
}

/// Loads `users` x `records` into each design, splits regions past `split_bytes` at their
/// middle row while they have two rows or more, and returns where splitting stopped.
pub fn run(dir: &Path, users: u64, records: u64, split_bytes: u64) -> Result<Vec<RegionOutcome>> {
    let opts = EngineOptions {
        auto_split: false,
        ..EngineOptions::default()
    };
    let engine = Engine::open(dir, opts)?;
    let keys = Keys::new()?;
    let mut out = Vec::new();
    for design in Design::BOTH {
        let t = create_table(&engine, design)?;
        load(&t, &keys, design, users, records)?;
        let admin = engine.admin();
        admin.flush(design.table())?;
        admin.major_compact(design.table())?;
        loop {
            let mut split_any = false;
            for r in admin.regions(design.table())? {
                if r.file_bytes <= split_bytes {
                    continue;
                }
                let scan = Scan::new()
                    .with_start_row(r.start.clone())
                    .with_stop_row(r.end.clone())
                    .filter(Box::new(FirstKeyOnlyFilter::new()));
                let rows: Vec<Vec<u8>> = t
                    .scanner(&scan)?
                    .map(|row| row.map(|row| row.row().to_vec()))
                    .collect::<Result<_, _>>()?;
                if rows.len() >= 2 {
                    admin.split(design.table(), Some(&rows[rows.len() / 2]))?;
                    split_any = true;
                }
            }
            if !split_any {
                break;
            }
        }
        let regions = admin.regions(design.table())?;
        out.push(RegionOutcome {
            design,
            regions: regions.len(),
            largest: regions.iter().map(|r| r.file_bytes).max().unwrap_or(0),
            smallest: regions.iter().map(|r| r.file_bytes).min().unwrap_or(0),
        });
    }
    engine.close();
    Ok(out)
}

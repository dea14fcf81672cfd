//! The engine's figures of `/metrics` beside its plain counters (`metrics.rs`): data blocks read
//! from the cache and from the files per table and family, bloom negatives per family;
//! flushes' and compactions' bytes in and out and their time; the WAL's group commits as a
//! histogram of writes per group; write suspensions by cause. Read at scrape time from the
//! engine's [`Metrics`]; labels are bounded (tables and families as the schema has them, at
//! most [`super::metrics::MAX_TABLE_LABELS`] tables' worth; causes a fixed list).

use super::metrics::counter;
use ferrobase_engine::{Metrics, StallCause, WAL_GROUP_BOUNDS};
use prometheus_client::encoding::{DescriptorEncoder, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Unit;

/// (table, family, blocks from the cache, blocks from the files, bloom negatives).
type FamilyRow = (String, String, u64, u64, u64);

/// What a scrape reads of these figures, gathered before encoding.
#[derive(Debug)]
pub struct EngineFacts {
    families: Vec<FamilyRow>,
    flush: (u64, u64, f64),
    compaction: (u64, u64, f64),
    /// Groups per bucket (non-cumulative) and the writes they carried.
    wal_groups: Vec<u64>,
    wal_group_writes: u64,
    suspensions: Vec<(&'static str, u64)>,
}

impl EngineFacts {
    /// Reads the figures from `m`, at most `max_families` (table, family) pairs.
    pub fn read(m: &Metrics, max_families: usize) -> EngineFacts {
        let get = Metrics::get;
        EngineFacts {
            families: m
                .family_reads
                .list(max_families)
                .into_iter()
                .map(|(t, f, r)| {
                    (
                        t,
                        f,
                        get(&r.blocks_from_cache),
                        get(&r.blocks_from_disk),
                        get(&r.bloom_negatives),
                    )
                })
                .collect(),
            flush: (
                get(&m.flush_bytes_in),
                get(&m.flush_bytes_out),
                get(&m.flush_micros) as f64 / 1e6,
            ),
            compaction: (
                get(&m.compaction_bytes_in),
                get(&m.compaction_bytes_out),
                get(&m.compaction_micros) as f64 / 1e6,
            ),
            wal_groups: m.wal_group_sizes.iter().map(get).collect(),
            wal_group_writes: get(&m.wal_group_writes),
            suspensions: StallCause::ALL
                .iter()
                .zip(&m.write_suspensions_by_cause)
                .map(|(c, n)| (c.label(), get(n)))
                .collect(),
        }
    }

    /// Encodes the families.
    pub fn encode(&self, e: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let mut m = e.encode_descriptor(
            "ferrobase_family_blocks_read",
            "Data blocks reads took, by table, family and source (cache: the block cache; disk: \
             the family's files).",
            None,
            MetricType::Counter,
        )?;
        for (table, family, cache, disk, _) in &self.families {
            for (source, n) in [("cache", cache), ("disk", disk)] {
                let labels = [
                    ("table", table.as_str()),
                    ("family", family.as_str()),
                    ("source", source),
                ];
                m.encode_family(&labels)?
                    .encode_counter::<NoLabelSet, _, u64>(n, None)?;
            }
        }
        let mut m = e.encode_descriptor(
            "ferrobase_family_bloom_negatives",
            "Gets that left out one of a family's files on its bloom filter, by table and family.",
            None,
            MetricType::Counter,
        )?;
        for (table, family, _, _, n) in &self.families {
            let labels = [("table", table.as_str()), ("family", family.as_str())];
            m.encode_family(&labels)?
                .encode_counter::<NoLabelSet, _, u64>(n, None)?;
        }
        for (job, jobs, (bytes_in, bytes_out, seconds), input) in [
            ("flush", "flushes", self.flush, "memstore bytes flushed"),
            (
                "compaction",
                "compactions",
                self.compaction,
                "block-file bytes compacted",
            ),
        ] {
            counter(
                e,
                &format!("ferrobase_{job}_input"),
                &format!("Bytes {jobs} took in ({input})."),
                Some(Unit::Bytes),
                &bytes_in,
            )?;
            counter(
                e,
                &format!("ferrobase_{job}_output"),
                &format!("Block-file bytes {jobs} wrote."),
                Some(Unit::Bytes),
                &bytes_out,
            )?;
            let (name, help) = (
                format!("ferrobase_{job}_time"),
                format!("Time completed {jobs} ran."),
            );
            e.encode_descriptor(&name, &help, Some(&Unit::Seconds), MetricType::Counter)?
                .encode_counter::<NoLabelSet, _, u64>(&seconds, None)?;
        }
        let mut buckets: Vec<(f64, u64)> = WAL_GROUP_BOUNDS
            .iter()
            .zip(&self.wal_groups)
            .map(|(&b, &n)| (b as f64, n))
            .collect();
        buckets.push((f64::INFINITY, self.wal_groups.last().copied().unwrap_or(0)));
        let groups: u64 = self.wal_groups.iter().sum();
        e.encode_descriptor(
            "ferrobase_wal_group_size",
            "Writes carried by each WAL group commit (one write, or several sharing one write(2) \
             and fdatasync).",
            None,
            MetricType::Histogram,
        )?
        .encode_histogram::<NoLabelSet>(
            self.wal_group_writes as f64,
            groups,
            &buckets,
            None,
        )?;
        let mut m = e.encode_descriptor(
            "ferrobase_write_suspensions_by_cause",
            "Times writes were suspended, by cause (wal_write, flush_write, low_disk_space, \
             manifest_write).",
            None,
            MetricType::Counter,
        )?;
        for (cause, n) in &self.suspensions {
            m.encode_family(&[("cause", *cause)])?
                .encode_counter::<NoLabelSet, _, u64>(n, None)?;
        }
        Ok(())
    }
}

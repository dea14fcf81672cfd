//! What every door (Thrift1, Thrift2, REST, native) shares in `/metrics`, labelled by door:
//! `ferrobase_errors_total{door,class}` (failures by the class clients saw, one of
//! [`ferrobase_engine::ErrorClass`]'s labels), `ferrobase_open_scanners{door}` and
//! `ferrobase_scanner_leases_expired_total{door}`. Read at scrape time from the doors' own
//! counters (`docs/design/operations.md`).

use super::Ops;
use ferrobase_engine::ErrorClass;
use prometheus_client::encoding::{DescriptorEncoder, NoLabelSet};
use prometheus_client::metrics::MetricType;

/// One door's figures.
#[derive(Debug)]
pub(super) struct DoorFacts {
    /// `thrift`, `thrift2`, `rest` or `native`.
    pub door: &'static str,
    /// Failures by class, every class.
    pub errors: Vec<(ErrorClass, u64)>,
    /// Scanners open now.
    pub open_scanners: u64,
    /// Scanners closed by their lease, since the start.
    pub leases_expired: u64,
}

impl DoorFacts {
    /// Failures of every class added.
    pub fn error_total(&self) -> u64 {
        self.errors.iter().map(|e| e.1).sum()
    }
}

impl Ops {
    /// Every door that is on, in a fixed order.
    pub(super) fn door_facts(&self) -> Vec<DoorFacts> {
        let gateway = |door, h: &ferrobase_gateway::StopHandle| DoorFacts {
            door,
            errors: h.call_counters().errors(),
            open_scanners: h.open_scanners() as u64,
            leases_expired: h.scanner_leases_expired(),
        };
        let mut doors = vec![gateway("thrift", &self.thrift)];
        doors.extend(self.thrift2.as_ref().map(|t| gateway("thrift2", t)));
        doors.extend(self.rest.as_ref().map(|r| DoorFacts {
            door: "rest",
            errors: r.errors(),
            open_scanners: r.open_scanners() as u64,
            leases_expired: r.scanner_leases_expired(),
        }));
        doors.extend(self.native.as_ref().map(|n| DoorFacts {
            door: "native",
            errors: n.call_counters().errors(),
            open_scanners: n.open_scanners() as u64,
            leases_expired: n.scanner_leases_expired(),
        }));
        doors
    }
}

/// The three families, one series per door (and class).
pub(super) fn encode(
    e: &mut DescriptorEncoder,
    doors: &[DoorFacts],
) -> Result<(), std::fmt::Error> {
    let mut m = e.encode_descriptor(
        "ferrobase_errors",
        "Calls or requests that failed, by door and by the class of failure the client saw \
         (table_not_found, no_such_family, illegal_argument, access_denied, busy, timeout, ...).",
        None,
        MetricType::Counter,
    )?;
    for d in doors {
        for (class, n) in &d.errors {
            m.encode_family(&[("door", d.door), ("class", class.label())])?
                .encode_counter::<NoLabelSet, _, u64>(n, None)?;
        }
    }
    let mut m = e.encode_descriptor(
        "ferrobase_open_scanners",
        "Scanners open now, by door.",
        None,
        MetricType::Gauge,
    )?;
    for d in doors {
        m.encode_family(&[("door", d.door)])?
            .encode_gauge(&d.open_scanners)?;
    }
    let mut m = e.encode_descriptor(
        "ferrobase_scanner_leases_expired",
        "Scanners closed because no call used them for their lease, by door.",
        None,
        MetricType::Counter,
    )?;
    for d in doors {
        m.encode_family(&[("door", d.door)])?
            .encode_counter::<NoLabelSet, _, u64>(&d.leases_expired, None)?;
    }
    Ok(())
}

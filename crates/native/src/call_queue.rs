//! The call queues and their handler pools (HBase's `SimpleRpcScheduler`): a call is run by the
//! pool its priority picks, so a flood of user calls that fills the normal queue
//! (`CallQueueTooBigException`) never keeps the client's meta lookups or its `Admin` calls
//! waiting (`docs/design/native-protocol.md`, "Call priorities").
//!
//! A call's priority is HBase's (`AnnotationReadingPriorityFunction`): the method's own
//! (`ADMIN_QOS` for the `AdminService` calls HBase annotates), else the one the client put in its
//! `RequestHeader` (`SYSTEMTABLE_QOS` for `hbase:meta` and the other system tables, `HIGH_QOS`
//! for a scanner's close), else `SYSTEMTABLE_QOS` for a request naming a system table's region,
//! else `NORMAL_QOS`. Above `QOS_THRESHOLD` the call goes to the priority pool, as HBase's
//! scheduler sends it to its priority executor. `MasterService` and `ClientMetaService` calls
//! are the master's, which HBase serves in another process with its own handlers; here they take
//! the priority pool too.

use crate::proto::rpc::RequestHeader;
use crate::state::Job;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};

/// HBase's `HConstants.NORMAL_QOS`: user calls.
pub const NORMAL_QOS: i32 = 0;
/// `HConstants.QOS_THRESHOLD`: a call above it is run by the priority pool.
pub const QOS_THRESHOLD: i32 = 10;
/// `HConstants.ADMIN_QOS`: the region server's administrative calls.
pub const ADMIN_QOS: i32 = 100;
/// `HConstants.HIGH_QOS` and `SYSTEMTABLE_QOS`: system tables (`hbase:meta`), a scanner's close.
pub const HIGH_QOS: i32 = 200;

/// The `AdminService` methods HBase's `RSRpcServices` annotates `@QosPriority(ADMIN_QOS)`.
const ADMIN_METHODS: &[&str] = &[
    "CloseRegion",
    "CompactRegion",
    "FlushRegion",
    "GetOnlineRegion",
    "GetRegionInfo",
    "GetRegionLoad",
    "ClearCompactionQueues",
    "GetServerInfo",
    "GetStoreFile",
    "OpenRegion",
    "StopServer",
    "ExecuteProcedures",
    "GetSlowLogResponses",
    "GetLargeLogResponses",
    "ClearSlowLogsResponses",
];

/// Which pool runs a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pool {
    /// User calls (`--handlers`, `--max-queued-calls`).
    Normal,
    /// Meta lookups, system tables, the master's and administrative calls
    /// ([`crate::NativeOptions::priority_handlers`]).
    Priority,
}

/// The priority HBase gives a call of `service`'s `method` (its `PriorityFunction`);
/// `system_table` tells whether the request names a system table's region.
pub(crate) fn priority(
    service: &str,
    header: &RequestHeader,
    system_table: impl FnOnce() -> bool,
) -> i32 {
    let method = header.method_name.as_deref().unwrap_or_default();
    if service == "AdminService" && ADMIN_METHODS.contains(&method) {
        return ADMIN_QOS;
    }
    if let Some(p) = header.priority {
        return i32::try_from(p).unwrap_or(i32::MAX);
    }
    if system_table() {
        return HIGH_QOS;
    }
    NORMAL_QOS
}

/// The pool that runs a call of `service` with priority `level`.
pub(crate) fn pool(service: &str, level: i32) -> Pool {
    if level > QOS_THRESHOLD || matches!(service, "MasterService" | "ClientMetaService") {
        Pool::Priority
    } else {
        Pool::Normal
    }
}

/// The senders of the two queues.
pub(crate) struct CallQueues {
    normal: SyncSender<Job>,
    priority: SyncSender<Job>,
}

/// The receivers the handlers take calls from.
pub(crate) struct Handlers {
    normal: Arc<Mutex<Receiver<Job>>>,
    priority: Arc<Mutex<Receiver<Job>>>,
}

/// Two queues of `normal` and `priority` calls waiting at most.
pub(crate) fn call_queues(normal: usize, priority: usize) -> (CallQueues, Handlers) {
    let (ntx, nrx) = sync_channel::<Job>(normal.max(1));
    let (ptx, prx) = sync_channel::<Job>(priority.max(1));
    (
        CallQueues {
            normal: ntx,
            priority: ptx,
        },
        Handlers {
            normal: Arc::new(Mutex::new(nrx)),
            priority: Arc::new(Mutex::new(prx)),
        },
    )
}

impl CallQueues {
    /// Queues `job` for `pool`'s handlers; the job back when that queue is full.
    pub(crate) fn try_send(&self, pool: Pool, job: Job) -> Result<(), Job> {
        let queue = match pool {
            Pool::Normal => &self.normal,
            Pool::Priority => &self.priority,
        };
        queue.try_send(job).map_err(|e| match e {
            TrySendError::Full(j) | TrySendError::Disconnected(j) => j,
        })
    }
}

impl Handlers {
    /// Starts `normal` and `priority` handler threads; each runs calls until its queue closes.
    pub(crate) fn spawn(&self, normal: usize, priority: usize) -> std::io::Result<()> {
        for (jobs, n, name) in [
            (&self.normal, normal, "ferrobase-rpc-handler"),
            (&self.priority, priority, "ferrobase-rpc-priority"),
        ] {
            for _ in 0..n.max(1) {
                let jobs = jobs.clone();
                std::thread::Builder::new()
                    .name(name.into())
                    .spawn(move || loop {
                        let job = {
                            let rx = jobs.lock().unwrap_or_else(|p| p.into_inner());
                            rx.recv()
                        };
                        match job {
                            Ok(job) => job(),
                            Err(_) => return,
                        }
                    })?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(method: &str, priority: Option<u32>) -> RequestHeader {
        RequestHeader {
            method_name: Some(method.into()),
            priority,
            ..RequestHeader::default()
        }
    }

    #[test]
    fn priorities_pick_pools_as_hbase_does() {
        let p = |service, method, prio, system| {
            let level = priority(service, &header(method, prio), || system);
            (level, pool(service, level))
        };
        // User calls.
        assert_eq!(p("ClientService", "Get", None, false), (0, Pool::Normal));
        assert_eq!(
            p("ClientService", "Scan", Some(0), false),
            (0, Pool::Normal)
        );
        // Replication and bulk load levels stay under the threshold.
        assert_eq!(
            p("ClientService", "Multi", Some(5), false),
            (5, Pool::Normal)
        );
        // hbase:meta: the client says 200; a client that does not is judged by the region.
        assert_eq!(
            p("ClientService", "Scan", Some(200), false),
            (200, Pool::Priority)
        );
        assert_eq!(p("ClientService", "Get", None, true), (200, Pool::Priority));
        // The annotation wins over the header.
        assert_eq!(
            p("AdminService", "GetRegionInfo", Some(0), false),
            (100, Pool::Priority)
        );
        // The master's calls, whatever their level.
        assert_eq!(
            p("MasterService", "CreateTable", None, false),
            (0, Pool::Priority)
        );
        assert_eq!(
            p("ClientMetaService", "GetClusterId", None, false),
            (0, Pool::Priority)
        );
    }
}

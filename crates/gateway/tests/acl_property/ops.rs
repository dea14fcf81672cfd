//! The names every call is made of (with `,`, `:` and non-UTF-8 bytes), a seeded random
//! source, the random operations a user sends, and how each is run.

use crate::client::{Answer, Client};
use ferrobase_gateway::thrift::hbase::service::{
    FerrobaseAdminArgs, ScannerCloseArgs, ScannerGetArgs, ScannerGetListArgs,
    ScannerOpenWithScanArgs,
};
use ferrobase_gateway::thrift::hbase::{Call, TScan};
use ferrobase_gateway::thrift::TValue;

/// xorshift64*: a small seeded source, so a failing seed replays the same run.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent` %.
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The superuser's tables, seeded with cells: `(name, families)`.
pub(crate) const DATA_TABLES: &[(&str, &[&[u8]])] = &[
    ("t1", &[b"cf", b"x,y", b"sec"]),
    ("ns1:t2", &[b"cf", b"sec"]),
];
/// Tables a user may try to create.
pub(crate) const NEW_TABLES: &[&str] = &["t3", "ns1:t4", "hbase:x", "ns2:t5"];
/// The system tables as targets.
pub(crate) const SYSTEM_TABLES: &[&str] = &["hbase:acl", "hbase:meta", "hbase:namespace"];
/// Every table the superuser's read looks for besides the listed ones.
pub(crate) const CANDIDATES: &[&str] = &[
    "t1",
    "ns1:t2",
    "t3",
    "ns1:t4",
    "hbase:x",
    "ns2:t5",
    "hbase:acl",
];
pub(crate) const NAMESPACES: &[&str] = &["default", "ns1", "hbase", "ns2"];
pub(crate) const FAMILIES: &[&[u8]] = &[b"cf", b"x,y", b"sec", b"new", b"l", b"info"];
pub(crate) const QUALIFIERS: &[&[u8]] = &[b"a", b"b", b"a,b", b"k:v", b"\xff\xfe", b""];
pub(crate) const ROWS: &[&[u8]] = &[b"r1", b"r2", b"r,3", b"r:4", b"\xc3\x28", b"zz"];
pub(crate) const USERS: &[&str] = &["alice", "bob", "admin"];
/// The user whose calls are checked.
pub(crate) const ATTACKER: &str = "alice";

/// `family:qualifier`.
pub(crate) fn column(family: &[u8], qualifier: &[u8]) -> Vec<u8> {
    let mut c = family.to_vec();
    c.push(b':');
    c.extend_from_slice(qualifier);
    c
}

/// What a call is, for the checks.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    /// One call.
    Call(Call),
    /// Calls in order (disable, then drop or truncate).
    Sequence(Vec<Call>),
    /// A Thrift1 scanner: opened, read in batches of `batch` rows (`scannerGet` when 0) up to
    /// its end or 20 batches, closed.
    Scan { open: Call, batch: i32 },
    /// `scan_open` then `scan_next` in batches of `batch`.
    ExtScan {
        open: FerrobaseAdminArgs,
        batch: i32,
    },
    /// A scanner the superuser opened, used by the caller with `how` (0 scannerGet, 1
    /// scannerGetList, 2 scannerClose, 3 scan_next; 4.. the same on a `scan_open` scanner).
    Hijack { table: String, how: u8 },
}

/// The answer of an operation: one per call (a scan's: the open, then each batch).
pub(crate) type Answers = Vec<Answer>;

impl Op {
    /// True for an operation that reads and changes nothing (run twice, answers compared).
    pub(crate) fn is_read(&self) -> bool {
        match self {
            Op::Scan { .. } | Op::ExtScan { .. } => true,
            Op::Hijack { .. } | Op::Sequence(_) => false,
            Op::Call(c) => {
                matches!(
                    c,
                    Call::Get(_)
                        | Call::GetVer(_)
                        | Call::GetVerTs(_)
                        | Call::GetRow(_)
                        | Call::GetRowTs(_)
                        | Call::GetRows(_)
                        | Call::GetRowsTs(_)
                        | Call::GetRowWithColumns(_)
                        | Call::GetRowWithColumnsTs(_)
                        | Call::GetRowsWithColumns(_)
                        | Call::GetRowsWithColumnsTs(_)
                        | Call::GetColumnDescriptors(_)
                        | Call::GetTableNames(_)
                        | Call::GetTableNamesWithIsTableEnabled(_)
                        | Call::IsTableEnabled(_)
                        | Call::GetTableRegions(_)
                ) || matches!(c, Call::FerrobaseAdmin(a) if matches!(
                    a.operation.as_str(),
                    "table_attributes" | "family_attributes" | "user_permission"
                ))
            }
        }
    }

    /// Runs the operation as `user` (`admin`: the superuser, for a hijack's scanner).
    pub(crate) fn run(&self, user: &mut Client, admin: &mut Client) -> Answers {
        match self {
            Op::Call(c) => vec![call(user, c)],
            Op::Sequence(cs) => cs.iter().map(|c| call(user, c)).collect(),
            Op::Scan { open, batch } => {
                let opened = call(user, open);
                let Ok(Some(TValue::I32(id))) = opened else {
                    return vec![opened];
                };
                let mut out = vec![Ok(None)];
                for _ in 0..20 {
                    let next = if *batch == 0 {
                        call(user, &Call::ScannerGet(ScannerGetArgs { id }))
                    } else {
                        call(
                            user,
                            &Call::ScannerGetList(ScannerGetListArgs {
                                id,
                                nb_rows: *batch,
                            }),
                        )
                    };
                    let end = matches!(&next, Ok(Some(TValue::List(_, l))) if l.is_empty())
                        || next.is_err();
                    out.push(next);
                    if end {
                        break;
                    }
                }
                out.push(call(user, &Call::ScannerClose(ScannerCloseArgs { id })));
                out
            }
            Op::ExtScan { open, batch } => {
                let opened = call(user, &Call::FerrobaseAdmin(open.clone()));
                let Ok(Some(TValue::I32(id))) = opened else {
                    return vec![opened];
                };
                let mut out = vec![Ok(None)];
                for _ in 0..20 {
                    let next = call(
                        user,
                        &Call::FerrobaseAdmin(FerrobaseAdminArgs {
                            operation: "scan_next".into(),
                            table_name: open.table_name.clone(),
                            key: id.to_string().into_bytes(),
                            attributes: vec![(b"ROWS".to_vec(), batch.to_string().into_bytes())],
                        }),
                    );
                    let end = matches!(&next, Ok(Some(TValue::List(_, l))) if l.is_empty())
                        || next.is_err();
                    out.push(next);
                    if end {
                        break;
                    }
                }
                let _ = call(user, &Call::ScannerClose(ScannerCloseArgs { id }));
                out
            }
            Op::Hijack { table, how } => {
                let ext = *how >= 4;
                let open = if ext {
                    Call::FerrobaseAdmin(admin_args("scan_open", table, b"", &[]))
                } else {
                    Call::ScannerOpenWithScan(ScannerOpenWithScanArgs {
                        table_name: table.as_bytes().to_vec(),
                        scan: TScan::default(),
                        attributes: vec![],
                    })
                };
                let Ok(Some(TValue::I32(id))) = call(admin, &open) else {
                    return vec![];
                };
                let used = match how % 4 {
                    0 => Call::ScannerGet(ScannerGetArgs { id }),
                    1 => Call::ScannerGetList(ScannerGetListArgs { id, nb_rows: 10 }),
                    2 => Call::ScannerClose(ScannerCloseArgs { id }),
                    _ => Call::FerrobaseAdmin(FerrobaseAdminArgs {
                        operation: "scan_next".into(),
                        table_name: table.as_bytes().to_vec(),
                        key: id.to_string().into_bytes(),
                        attributes: vec![],
                    }),
                };
                let answer = call(user, &used);
                let _ = call(admin, &Call::ScannerClose(ScannerCloseArgs { id }));
                vec![answer]
            }
        }
    }
}

/// Sends `c` as its method with its arguments.
pub(crate) fn call(client: &mut Client, c: &Call) -> Answer {
    client.call(c.method(), c.to_struct())
}

/// `ferrobaseAdmin` arguments.
pub(crate) fn admin_args(
    op: &str,
    target: &str,
    key: &[u8],
    attrs: &[(&str, &[u8])],
) -> FerrobaseAdminArgs {
    FerrobaseAdminArgs {
        operation: op.into(),
        table_name: target.as_bytes().to_vec(),
        key: key.to_vec(),
        attributes: attrs
            .iter()
            .map(|(k, v)| (k.as_bytes().to_vec(), v.to_vec()))
            .collect(),
    }
}

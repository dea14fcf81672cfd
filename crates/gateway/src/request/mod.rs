//! The request model every door shares: a client's data request as typed engine values
//! ([`Request`]), the operations the access rule decides for it, derived from those values and
//! nothing else ([`Request::operations`]), and the one executor that authorizes a request and
//! runs it ([`Executor::execute`]).
//!
//! A door is a translator: it decodes its wire format into a [`Request`] (refusing what HBase
//! refuses in HBase's words, with its own error types) and encodes the [`Response`]. What the
//! request reads, writes and evaluates, and so what it needs, is read from the value that runs:
//! the permission cannot drift from the operation, as it could when each door worked out the
//! permission from its own reading of the call (an increment once passed as a plain write that
//! way). The layers, one line each, are in `docs/design/layout.md` ("The request path").
//!
//! The executor takes every door's data requests (Thrift1, Thrift2, REST, HBase's native RPC:
//! gets, existence checks, scanner opens, puts, deletes, increments, appends, check-and-mutate)
//! and their table, family, namespace, maintenance and snapshot changes, grants and revokes
//! ([`AdminRequest`]: authorized, run, and followed up by the owner's grant or the removal of a
//! dropped table's grants). A scanner's later calls (its owner is the rule), listings of grants,
//! descriptor reads and catalog listings (filtered per user) still run in each door, authorized
//! by the same rule ([`crate::access::AccessChecker::authorize`]) from operations the door
//! derives.

mod admin;
mod execute;

pub use admin::{AdminRequest, AuthorizedAdmin, TableChange};
pub use execute::{Authorized, Executor, Failure};

use crate::access::{FamilyMap, Operation};
use ferrobase_engine::{
    Check, CheckedWrite, Get, Mutation, ReadCost, ReadSpec, ResultScanner, RowResult, Scan,
};
use std::collections::BTreeSet;

/// A data request, as every door hands it to the [`Executor`]. `table` is the table as the
/// client named it (`t`, `default:t`, `ns:t`); the access rule sees its canonical form.
#[derive(Debug)]
pub enum Request {
    /// Rows read, one result per get, in order (HBase's `get`, `getMultiple`, a native `Get` or
    /// a `Multi`'s gets).
    Get {
        /// The table.
        table: String,
        /// The gets.
        gets: Vec<Get>,
        /// What a partly granted read does.
        partial: Partial,
    },
    /// A scanner opened (HBase's `openScanner`, `scannerOpen*`, a native `Scan`'s first call,
    /// a REST scanner): its later calls are the door's (the scanner's owner is the rule).
    Scan {
        /// The table.
        table: String,
        /// The scan.
        scan: Scan,
        /// What a partly granted scan does.
        partial: Partial,
    },
    /// One row read with what reading it cost (scan explain: regions, cells, files, blocks,
    /// seeks). A partly granted read is refused: the answer's cost would count the cells the
    /// user may not read.
    Explain {
        /// The table.
        table: String,
        /// The get.
        get: Get,
    },
    /// Whether each get finds a cell (HBase's `exists`, `existsAll`).
    Exists {
        /// The table.
        table: String,
        /// The gets.
        gets: Vec<Get>,
    },
    /// Cells written.
    Write {
        /// The table.
        table: String,
        /// What is written.
        write: Write,
    },
    /// A write applied when a check of its row holds (HBase's `checkAndMutate` and its
    /// `checkAndPut`/`checkAndDelete` forms).
    CheckAndWrite {
        /// The table.
        table: String,
        /// The row checked and written.
        row: Vec<u8>,
        /// The condition: one column's value, or a read of the row.
        check: Check,
        /// What is written when it holds.
        write: CheckedWrite,
    },
}

/// What a get does when the user may read only part of what it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partial {
    /// It reads the readable part (HBase's `AccessControlFilter`): the door's answer names
    /// each cell's column, so it shows what was read.
    Narrow,
    /// It is refused: the door's answer names no column (Thrift1's `get`, `getVer`), so a
    /// narrowed answer would pass for the whole column's.
    Refuse,
}

/// What a [`Request::Write`] writes.
#[derive(Debug)]
pub enum Write {
    /// Puts and deletes, each row's applied atomically (HBase's `put`, `delete`, their
    /// multiples, `mutateRow`).
    Mutations(Vec<Mutation>),
    /// `(family, qualifier, amount)` added to columns of `row` (8-byte big-endian longs).
    Increment {
        /// The row.
        row: Vec<u8>,
        /// The columns and amounts.
        columns: Vec<(Vec<u8>, Vec<u8>, i64)>,
        /// The new cells' TTL in milliseconds.
        ttl_ms: Option<i64>,
    },
    /// `(family, qualifier, suffix)` appended to columns of `row`.
    Append {
        /// The row.
        row: Vec<u8>,
        /// The columns and suffixes.
        columns: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
        /// The new cells' TTL in milliseconds.
        ttl_ms: Option<i64>,
    },
}

/// What a request answers.
pub enum Response {
    /// A [`Request::Get`]'s rows, one per get (empty for a row not found).
    Rows(Vec<RowResult>),
    /// A [`Request::Scan`]'s scanner.
    Scanner(Box<ResultScanner>),
    /// A [`Request::Explain`]'s row (empty when not found) and what reading it cost.
    Explained(RowResult, ReadCost),
    /// A [`Request::Exists`]'s answers, one per get.
    Exists(Vec<bool>),
    /// Puts and deletes applied.
    Written,
    /// An increment's or append's new cells, in the request's column order, with the
    /// timestamps they were written at.
    Cells(RowResult),
    /// Whether a [`Request::CheckAndWrite`] wrote, and an increment's or append's new cells.
    Checked {
        /// Whether the check held and the write was applied.
        applied: bool,
        /// The new cells of a checked increment or append.
        result: Option<RowResult>,
    },
}

impl std::fmt::Debug for Response {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Response::Rows(rows) => f.debug_tuple("Rows").field(rows).finish(),
            Response::Scanner(_) => f.write_str("Scanner"),
            Response::Explained(row, _) => f.debug_tuple("Explained").field(row).finish(),
            Response::Exists(e) => f.debug_tuple("Exists").field(e).finish(),
            Response::Written => f.write_str("Written"),
            Response::Cells(r) => f.debug_tuple("Cells").field(r).finish(),
            Response::Checked { applied, result } => f
                .debug_struct("Checked")
                .field("applied", applied)
                .field("result", result)
                .finish(),
        }
    }
}

/// Adds the column `family:qualifier` to `cells`.
fn add(cells: &mut FamilyMap, family: &[u8], qualifier: &[u8]) {
    if let Some(set) = cells
        .entry(family.to_vec())
        .or_insert_with(|| Some(BTreeSet::new()))
    {
        set.insert(qualifier.to_vec());
    }
}

/// The columns of an increment's or append's `(family, qualifier, operand)` triples.
fn operand_columns<T>(columns: &[(Vec<u8>, Vec<u8>, T)]) -> FamilyMap {
    let mut cells = FamilyMap::new();
    columns.iter().for_each(|(f, q, _)| add(&mut cells, f, q));
    cells
}

/// Adds every column of `from` to `into` (a whole family in either stays whole).
fn merge(into: &mut FamilyMap, from: FamilyMap) {
    for (f, qs) in from {
        match (into.entry(f).or_insert_with(|| Some(BTreeSet::new())), qs) {
            (Some(all), Some(qs)) => all.extend(qs),
            (slot, None) => *slot = None,
            (None, Some(_)) => {}
        }
    }
}

/// The columns of the cells `mutations` write; a whole-row delete writes a family marker of
/// every family of the table (`families`), as HBase adds them before its checks.
fn mutation_cells(mutations: &[Mutation], families: &dyn Fn() -> Vec<Vec<u8>>) -> FamilyMap {
    let mut cells = FamilyMap::new();
    for m in mutations {
        match m {
            Mutation::Put(p) => p
                .cells
                .iter()
                .for_each(|c| add(&mut cells, &c.family, &c.qualifier)),
            Mutation::Delete(d) if d.cells.is_empty() => {
                families().iter().for_each(|f| add(&mut cells, f, b""))
            }
            Mutation::Delete(d) => d
                .cells
                .iter()
                .for_each(|c| add(&mut cells, &c.family, &c.qualifier)),
        }
    }
    cells
}

/// The columns a read touches: those it names, or every family whole.
fn read_families(spec: &ReadSpec, families: &dyn Fn() -> Vec<Vec<u8>>) -> FamilyMap {
    if spec.columns.is_empty() {
        return families().into_iter().map(|f| (f, None)).collect();
    }
    spec.columns
        .iter()
        .map(|(f, qs)| {
            (
                f.clone(),
                (!qs.is_empty()).then(|| qs.iter().cloned().collect()),
            )
        })
        .collect()
}

impl Request {
    /// The table the request names.
    pub fn table(&self) -> &str {
        match self {
            Request::Get { table, .. }
            | Request::Explain { table, .. }
            | Request::Scan { table, .. }
            | Request::Exists { table, .. }
            | Request::Write { table, .. }
            | Request::CheckAndWrite { table, .. } => table,
        }
    }

    /// What the request reads, writes and evaluates, as the access rule decides it, derived
    /// from the values that run. `families` gives the table's families, for a request that
    /// touches them without naming them (a get of every column, a whole-row delete).
    ///
    /// Reads are filterable: a partly granted read runs narrowed to the readable columns
    /// ([`Executor::authorize`]). A check that reads the row through a filter is such a read,
    /// and the condition then compares no single column.
    pub fn operations(&self, families: &dyn Fn() -> Vec<Vec<u8>>) -> Vec<Operation> {
        self.operations_on(self.table(), families)
    }

    /// [`Request::operations`] naming `table` (the canonical form of the request's).
    fn operations_on(&self, table: &str, families: &dyn Fn() -> Vec<Vec<u8>>) -> Vec<Operation> {
        let table = table.to_string();
        match self {
            Request::Get { gets, partial, .. } => gets
                .iter()
                .map(|g| Operation::Read {
                    table: table.clone(),
                    families: read_families(&g.spec, families),
                    filterable: *partial == Partial::Narrow,
                })
                .collect(),
            Request::Explain { get, .. } => vec![Operation::Read {
                table,
                families: read_families(&get.spec, families),
                filterable: false,
            }],
            Request::Scan { scan, partial, .. } => vec![Operation::Read {
                table,
                families: read_families(&scan.spec, families),
                filterable: *partial == Partial::Narrow,
            }],
            // An existence check of a whole row needs READ on every family, unfiltered:
            // HBase's `preExists` runs before the region fills in the table's families, so
            // with none named it asks for the table's READ and refuses a partial grant (where
            // a get of the same row reads the granted columns).
            Request::Exists { gets, .. } => gets
                .iter()
                .map(|g| Operation::Read {
                    table: table.clone(),
                    families: read_families(&g.spec, families),
                    filterable: !g.spec.columns.is_empty(),
                })
                .collect(),
            Request::Write { write, .. } => vec![match write {
                Write::Mutations(mutations) => Operation::Write {
                    table,
                    cells: mutation_cells(mutations, families),
                },
                // An increment or append reads the cell it changes (its answer is the new
                // value): READ as well as WRITE.
                Write::Increment { columns, .. } => Operation::ReadModifyWrite {
                    table,
                    cells: operand_columns(columns),
                },
                Write::Append { columns, .. } => Operation::ReadModifyWrite {
                    table,
                    cells: operand_columns(columns),
                },
            }],
            Request::CheckAndWrite { check, write, .. } => {
                let mut ops = Vec::new();
                // HBase's preCheckAndPut/preCheckAndDelete: READ and WRITE on the compared
                // column. A filter condition reads the row as a get by the caller would.
                let mut compared = match check {
                    Check::Value {
                        family, qualifier, ..
                    } => FamilyMap::from([(
                        family.clone(),
                        Some(BTreeSet::from([qualifier.clone()])),
                    )]),
                    Check::Read(get) => {
                        ops.push(Operation::Read {
                            table: table.clone(),
                            families: read_families(&get.spec, families),
                            filterable: true,
                        });
                        FamilyMap::new()
                    }
                };
                // Then WRITE on every cell the write writes; an increment's or append's cells
                // are read too, so they join the compared (READ and WRITE) columns.
                let mut cells = FamilyMap::new();
                match write {
                    CheckedWrite::Mutations(mutations) => {
                        cells = mutation_cells(mutations, families)
                    }
                    CheckedWrite::Increment { columns, .. } => {
                        merge(&mut compared, operand_columns(columns))
                    }
                    CheckedWrite::Append { columns, .. } => {
                        merge(&mut compared, operand_columns(columns))
                    }
                }
                ops.push(Operation::CheckAndMutate {
                    table,
                    compared,
                    cells,
                });
                ops
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::{AccessChecker, Actions, Scope};
    use ferrobase_engine::filter::CompareOp;
    use ferrobase_engine::{
        ColumnFamilyDescriptor, Delete, Engine, EngineOptions, Error, Put, TableDescriptor,
        TableName, TimeRange,
    };
    use ferrobase_security::acl::AclStore;
    use std::sync::Arc;

    /// An engine with table `t` (families `a`, `b`; row `r` holding `a:x`, `a:secret`, `b:y`)
    /// and a checker where `reader` may read `a:x` only and `writer` may write family `a`.
    fn setup() -> (tempfile::TempDir, Engine, AccessChecker) {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        engine
            .admin()
            .create_table(
                TableDescriptor::new(TableName::parse("t").unwrap())
                    .with_family(ColumnFamilyDescriptor::new("a"))
                    .with_family(ColumnFamilyDescriptor::new("b")),
            )
            .unwrap();
        let t = engine.table("t").unwrap();
        t.put(
            Put::new("r")
                .add_column("a", "x", "1")
                .add_column("a", "secret", "s")
                .add_column("b", "y", "2"),
        )
        .unwrap();
        let store = Arc::new(AclStore::open(&engine).unwrap());
        let column = |f: &str, q: Option<&str>| Scope::Table {
            table: "t".into(),
            family: Some(f.as_bytes().to_vec()),
            qualifier: q.map(|q| q.as_bytes().to_vec()),
        };
        store
            .grant(
                "reader",
                &column("a", Some("x")),
                Actions::parse("R").unwrap(),
            )
            .unwrap();
        store
            .grant("writer", &column("a", None), Actions::parse("W").unwrap())
            .unwrap();
        (dir, engine, AccessChecker::new(store, ["root".to_string()]))
    }

    fn families() -> Vec<Vec<u8>> {
        vec![b"a".to_vec(), b"b".to_vec()]
    }

    fn cells(pairs: &[(&str, &str)]) -> FamilyMap {
        let mut m = FamilyMap::new();
        pairs
            .iter()
            .for_each(|(f, q)| add(&mut m, f.as_bytes(), q.as_bytes()));
        m
    }

    #[test]
    fn operations_come_from_the_values_that_run() {
        let whole_row_delete = Request::Write {
            table: "t".into(),
            write: Write::Mutations(vec![Mutation::Delete(Delete::new("r"))]),
        };
        assert_eq!(
            whole_row_delete.operations(&families),
            vec![Operation::Write {
                table: "t".into(),
                cells: cells(&[("a", ""), ("b", "")]),
            }]
        );
        let increment = Request::Write {
            table: "t".into(),
            write: Write::Increment {
                row: b"r".to_vec(),
                columns: vec![(b"a".to_vec(), b"n".to_vec(), 1)],
                ttl_ms: None,
            },
        };
        assert_eq!(
            increment.operations(&families),
            vec![Operation::ReadModifyWrite {
                table: "t".into(),
                cells: cells(&[("a", "n")]),
            }]
        );
        // A checked append reads what it appends to: its columns join the compared ones.
        let checked_append = Request::CheckAndWrite {
            table: "t".into(),
            row: b"r".to_vec(),
            check: Check::Value {
                family: b"b".to_vec(),
                qualifier: b"y".to_vec(),
                op: CompareOp::Equal,
                expected: Some(b"2".to_vec()),
                time_range: TimeRange::default(),
            },
            write: CheckedWrite::Append {
                columns: vec![(b"a".to_vec(), b"x".to_vec(), b"!".to_vec())],
                ttl_ms: None,
            },
        };
        assert_eq!(
            checked_append.operations(&families),
            vec![Operation::CheckAndMutate {
                table: "t".into(),
                compared: cells(&[("a", "x"), ("b", "y")]),
                cells: FamilyMap::new(),
            }]
        );
        // A filter condition is a read of the row (every family, whole).
        let filtered = Request::CheckAndWrite {
            table: "t".into(),
            row: b"r".to_vec(),
            check: Check::Read(Get::new("r")),
            write: CheckedWrite::Mutations(vec![Mutation::Put(
                Put::new("r").add_column("a", "z", "v"),
            )]),
        };
        let ops = filtered.operations(&families);
        assert_eq!(
            ops[0],
            Operation::Read {
                table: "t".into(),
                families: FamilyMap::from([(b"a".to_vec(), None), (b"b".to_vec(), None)]),
                filterable: true,
            }
        );
        assert_eq!(
            ops[1],
            Operation::CheckAndMutate {
                table: "t".into(),
                compared: FamilyMap::new(),
                cells: cells(&[("a", "z")]),
            }
        );
    }

    #[test]
    fn a_partly_granted_get_reads_only_the_granted_cells() {
        let (_d, engine, acl) = setup();
        let ex = Executor::new(&engine, Some(&acl), "reader");
        let Response::Rows(rows) = ex
            .execute(Request::Get {
                table: "t".into(),
                gets: vec![Get::new("r")],
                partial: Partial::Narrow,
            })
            .unwrap()
        else {
            panic!("a get answers rows")
        };
        let columns: Vec<_> = rows[0]
            .cells
            .iter()
            .map(|c| (c.family().to_vec(), c.qualifier().to_vec()))
            .collect();
        assert_eq!(columns, vec![(b"a".to_vec(), b"x".to_vec())]);
        // Nothing readable: refused.
        let e = Executor::new(&engine, Some(&acl), "writer")
            .execute(Request::Get {
                table: "t".into(),
                gets: vec![Get::new("r")],
                partial: Partial::Narrow,
            })
            .unwrap_err();
        assert!(matches!(e, Failure::Denied(_)), "{e:?}");
    }

    #[test]
    fn a_refused_request_runs_nothing() {
        let (_d, engine, acl) = setup();
        let t = engine.table("t").unwrap();
        // WRITE on `a` does not reach `b`: the whole batch is refused, nothing written.
        let batch = Request::Write {
            table: "t".into(),
            write: Write::Mutations(vec![
                Mutation::Put(Put::new("r2").add_column("a", "x", "w")),
                Mutation::Put(Put::new("r2").add_column("b", "y", "w")),
            ]),
        };
        let e = Executor::new(&engine, Some(&acl), "writer")
            .execute(batch)
            .unwrap_err();
        assert!(matches!(e, Failure::Denied(_)), "{e:?}");
        assert!(t.get(&Get::new("r2")).unwrap().is_empty());
        // WRITE alone does not allow an increment, which answers the value it read.
        let increment = Request::Write {
            table: "t".into(),
            write: Write::Increment {
                row: b"r".to_vec(),
                columns: vec![(b"a".to_vec(), b"n".to_vec(), 1)],
                ttl_ms: None,
            },
        };
        let e = Executor::new(&engine, Some(&acl), "writer")
            .execute(increment)
            .unwrap_err();
        assert!(matches!(e, Failure::Denied(_)), "{e:?}");
        assert!(t
            .get(&Get::new("r").add_column("a", "n"))
            .unwrap()
            .is_empty());
        // A check through a filter sees only what the caller may read: `reader` checking for
        // `a:secret` finds nothing, so a "row has cells" check on a narrowed read of
        // `a:secret` is refused outright (nothing of it is readable).
        let probe = Request::CheckAndWrite {
            table: "t".into(),
            row: b"r".to_vec(),
            check: Check::Read(Get::new("r").add_column("a", "secret")),
            write: CheckedWrite::Mutations(vec![Mutation::Put(
                Put::new("r").add_column("a", "x", "w"),
            )]),
        };
        let e = Executor::new(&engine, Some(&acl), "reader")
            .execute(probe)
            .unwrap_err();
        assert!(matches!(e, Failure::Denied(_)), "{e:?}");
    }

    #[test]
    fn a_batch_answers_each_part_and_applies_the_good_ones() {
        let (_d, engine, _acl) = setup();
        let ex = Executor::new(&engine, None, "anyone");
        let part = |f: &str| {
            ex.authorize(Request::Write {
                table: "t".into(),
                write: Write::Mutations(vec![Mutation::Put(
                    Put::new("r3").add_column(f, "q", "v"),
                )]),
            })
            .unwrap()
        };
        let answers = ex
            .run_batch(vec![part("a"), part("nosuch"), part("b")])
            .unwrap();
        assert!(answers[0].is_ok() && answers[2].is_ok(), "{answers:?}");
        assert!(
            matches!(answers[1], Err(Error::NoSuchColumnFamily { .. })),
            "{answers:?}"
        );
        let row = engine.table("t").unwrap().get(&Get::new("r3")).unwrap();
        assert_eq!(row.cells.len(), 2);
    }
}

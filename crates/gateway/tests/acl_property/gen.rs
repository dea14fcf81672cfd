//! Random operations of every kind, from the names of `ops` (mostly the seeded tables, often
//! ungranted columns, filters on them, system tables as targets).

use crate::ops::{
    admin_args, column, Op, Rng, FAMILIES, NAMESPACES, NEW_TABLES, QUALIFIERS, ROWS, SYSTEM_TABLES,
    USERS,
};
use ferrobase_gateway::thrift::hbase::service::{
    AppendArgs, AtomicIncrementArgs, CheckAndPutArgs, CompactArgs, CreateTableArgs, DeleteAllArgs,
    DeleteAllRowArgs, DeleteAllRowTsArgs, DeleteAllTsArgs, DeleteTableArgs, DisableTableArgs,
    EnableTableArgs, GetArgs, GetColumnDescriptorsArgs, GetRowArgs, GetRowTsArgs,
    GetRowWithColumnsArgs, GetRowWithColumnsTsArgs, GetRowsArgs, GetRowsTsArgs,
    GetRowsWithColumnsArgs, GetRowsWithColumnsTsArgs, GetTableNamesArgs,
    GetTableNamesWithIsTableEnabledArgs, GetTableRegionsArgs, GetVerArgs, GetVerTsArgs, GrantArgs,
    IncrementArgs, IncrementRowsArgs, IsTableEnabledArgs, MajorCompactArgs, MutateRowArgs,
    MutateRowTsArgs, MutateRowsArgs, MutateRowsTsArgs, RevokeArgs, ScannerOpenArgs,
    ScannerOpenTsArgs, ScannerOpenWithPrefixArgs, ScannerOpenWithScanArgs, ScannerOpenWithStopArgs,
    ScannerOpenWithStopTsArgs,
};
use ferrobase_gateway::thrift::hbase::{
    permission_scope, BatchMutation, Call, ColumnDescriptor, Mutation, TAccessControlEntity,
    TAppend, TIncrement, TScan,
};

/// The random pieces of operations.
pub(crate) struct Gen<'a> {
    pub(crate) rng: &'a mut Rng,
}

impl Gen<'_> {
    /// A table to aim at: mostly the seeded ones, also new and system tables.
    pub(crate) fn table(&mut self) -> String {
        let r = self.rng.below(100);
        if r < 45 {
            "t1".into()
        } else if r < 65 {
            "ns1:t2".into()
        } else if r < 80 {
            (*self.rng.pick(NEW_TABLES)).into()
        } else {
            (*self.rng.pick(SYSTEM_TABLES)).into()
        }
    }

    pub(crate) fn family(&mut self) -> Vec<u8> {
        // Mostly the seeded families.
        if self.rng.chance(80) {
            self.rng.pick(&FAMILIES[..3]).to_vec()
        } else {
            self.rng.pick(FAMILIES).to_vec()
        }
    }

    pub(crate) fn qualifier(&mut self) -> Vec<u8> {
        self.rng.pick(QUALIFIERS).to_vec()
    }

    pub(crate) fn row(&mut self) -> Vec<u8> {
        self.rng.pick(ROWS).to_vec()
    }

    /// `family:qualifier`, or (one in six) `family` alone.
    pub(crate) fn column(&mut self) -> Vec<u8> {
        let f = self.family();
        if self.rng.chance(17) {
            f
        } else {
            column(&f, &self.qualifier())
        }
    }

    fn columns(&mut self) -> Vec<Vec<u8>> {
        (0..self.rng.below(3)).map(|_| self.column()).collect()
    }

    fn rows(&mut self) -> Vec<Vec<u8>> {
        (0..1 + self.rng.below(3)).map(|_| self.row()).collect()
    }

    fn ts(&mut self) -> i64 {
        *self.rng.pick(&[1005, 1105, 1150, 2000, i64::MAX])
    }

    fn value(&mut self) -> Vec<u8> {
        self.rng
            .pick(&[&b"A"[..], b"v", b"\0\0\0\0\0\0\0\x01", b"p,q:\xff"])
            .to_vec()
    }

    fn mutation(&mut self) -> Mutation {
        Mutation {
            is_delete: self.rng.chance(30),
            column: self.column().into(),
            value: self.value().into(),
            write_to_wal: true,
        }
    }

    fn mutations(&mut self) -> Vec<Mutation> {
        (0..1 + self.rng.below(3))
            .map(|_| self.mutation())
            .collect()
    }

    fn batches(&mut self) -> Vec<BatchMutation> {
        (0..1 + self.rng.below(3))
            .map(|_| BatchMutation {
                row: self.row().into(),
                mutations: self.mutations(),
            })
            .collect()
    }

    /// A quoted name for the filter language (the non-UTF-8 qualifier left out).
    fn quoted(&mut self, name: &[u8]) -> String {
        String::from_utf8_lossy(name).replace('\'', "''")
    }

    /// A filter in HBase's language, on random (often ungranted) columns.
    pub(crate) fn filter(&mut self) -> String {
        let f = self.family();
        let f = self.quoted(&f);
        let q = *self.rng.pick(&[&b"a"[..], b"b", b"a,b", b"k:v"]);
        let q = self.quoted(q);
        let value = *self.rng.pick(&["v", "A", "p", "s"]);
        let one = match self.rng.below(14) {
            0 => format!("SingleColumnValueFilter('{f}','{q}',=,'binaryprefix:{value}',true,true)"),
            1 => {
                format!("SingleColumnValueFilter('{f}','{q}',=,'binaryprefix:{value}',false,true)")
            }
            2 => format!(
                "SingleColumnValueExcludeFilter('{f}','{q}',=,'binaryprefix:{value}',true,true)"
            ),
            3 => format!("ValueFilter(=,'substring:{value}')"),
            4 => format!("QualifierFilter(=,'binary:{q}')"),
            5 => format!("FamilyFilter(=,'binary:{f}')"),
            6 => "FirstKeyOnlyFilter()".into(),
            7 => "KeyOnlyFilter()".into(),
            8 => "ColumnCountGetFilter(1)".into(),
            9 => "ColumnPaginationFilter(1,0)".into(),
            10 => format!("SKIP ValueFilter(=,'substring:{value}')"),
            11 => format!("WHILE ValueFilter(=,'substring:{value}')"),
            12 => format!("DependentColumnFilter('{f}','{q}')"),
            _ => "PageFilter(2)".into(),
        };
        match self.rng.below(3) {
            0 => format!("{one} AND PrefixFilter('r')"),
            1 => format!("{one} OR ValueFilter(=,'substring:zzz')"),
            _ => one,
        }
    }

    /// A scope's `ferrobaseAdmin` target and its FAMILY/QUALIFIER attributes.
    pub(crate) fn scope(&mut self) -> (String, Vec<(&'static str, Vec<u8>)>) {
        match self.rng.below(10) {
            0 => (String::new(), vec![]),
            1 | 2 => (format!("@{}", self.rng.pick(NAMESPACES)), vec![]),
            3..=5 => (self.table(), vec![]),
            6 | 7 => {
                let f = self.family();
                (self.table(), vec![("FAMILY", f)])
            }
            _ => {
                let (f, q) = (self.family(), self.qualifier());
                (self.table(), vec![("FAMILY", f), ("QUALIFIER", q)])
            }
        }
    }

    /// Random actions, R and W more often.
    pub(crate) fn actions(&mut self) -> String {
        let mut s = String::new();
        for (c, p) in [('R', 50), ('W', 50), ('X', 20), ('C', 25), ('A', 25)] {
            if self.rng.chance(p) {
                s.push(c);
            }
        }
        if s.is_empty() {
            s.push(*self.rng.pick(&['R', 'W', 'C', 'A']));
        }
        s
    }

    fn ferrobase_admin(
        &mut self,
        op: &str,
        target: &str,
        key: &[u8],
        attrs: Vec<(&str, Vec<u8>)>,
    ) -> Op {
        let attrs: Vec<(&str, &[u8])> = attrs.iter().map(|(k, v)| (*k, v.as_slice())).collect();
        Op::Call(Call::FerrobaseAdmin(admin_args(op, target, key, &attrs)))
    }

    /// A random operation of any kind.
    pub(crate) fn op(&mut self) -> Op {
        // Reads of the seeded tables, where partly granted reads, filters and batches meet
        // cells the user may not read, a quarter of the time.
        if self.rng.chance(25) {
            let t = (*self.rng.pick(&["t1", "t1", "ns1:t2"])).to_string();
            return if self.rng.chance(80) {
                self.scan(t)
            } else {
                self.ext_scan(t)
            };
        }
        let t = self.table();
        let tb = t.as_bytes().to_vec();
        let row = self.row();
        let c = match self.rng.below(54) {
            0 => Call::Get(GetArgs {
                table_name: tb,
                row,
                column: self.column(),
                attributes: vec![],
            }),
            1 => Call::GetVer(GetVerArgs {
                table_name: tb,
                row,
                column: self.column(),
                num_versions: 3,
                attributes: vec![],
            }),
            2 => Call::GetVerTs(GetVerTsArgs {
                table_name: tb,
                row,
                column: self.column(),
                timestamp: self.ts(),
                num_versions: 3,
                attributes: vec![],
            }),
            3 => Call::GetRow(GetRowArgs {
                table_name: tb,
                row,
                attributes: vec![],
            }),
            4 => Call::GetRowTs(GetRowTsArgs {
                table_name: tb,
                row,
                timestamp: self.ts(),
                attributes: vec![],
            }),
            5 => Call::GetRows(GetRowsArgs {
                table_name: tb,
                rows: self.rows(),
                attributes: vec![],
            }),
            6 => Call::GetRowsTs(GetRowsTsArgs {
                table_name: tb,
                rows: self.rows(),
                timestamp: self.ts(),
                attributes: vec![],
            }),
            7 => Call::GetRowWithColumns(GetRowWithColumnsArgs {
                table_name: tb,
                row,
                columns: self.columns(),
                attributes: vec![],
            }),
            8 => Call::GetRowWithColumnsTs(GetRowWithColumnsTsArgs {
                table_name: tb,
                row,
                columns: self.columns(),
                timestamp: self.ts(),
                attributes: vec![],
            }),
            9 => Call::GetRowsWithColumns(GetRowsWithColumnsArgs {
                table_name: tb,
                rows: self.rows(),
                columns: self.columns(),
                attributes: vec![],
            }),
            10 => Call::GetRowsWithColumnsTs(GetRowsWithColumnsTsArgs {
                table_name: tb,
                rows: self.rows(),
                columns: self.columns(),
                timestamp: self.ts(),
                attributes: vec![],
            }),
            11..=15 => return self.scan(t),
            16 => return self.ext_scan(t),
            17 => Call::MutateRow(MutateRowArgs {
                table_name: tb,
                row,
                mutations: self.mutations(),
                attributes: vec![],
            }),
            18 => Call::MutateRowTs(MutateRowTsArgs {
                table_name: tb,
                row,
                mutations: self.mutations(),
                timestamp: self.ts(),
                attributes: vec![],
            }),
            19 => Call::MutateRows(MutateRowsArgs {
                table_name: tb,
                row_batches: self.batches().into(),
                attributes: vec![],
            }),
            20 => Call::MutateRowsTs(MutateRowsTsArgs {
                table_name: tb,
                row_batches: self.batches().into(),
                timestamp: self.ts(),
                attributes: vec![],
            }),
            21 => Call::AtomicIncrement(AtomicIncrementArgs {
                table_name: tb,
                row,
                column: self.column(),
                value: 1,
            }),
            22 => Call::DeleteAll(DeleteAllArgs {
                table_name: tb,
                row,
                column: self.column(),
                attributes: vec![],
            }),
            23 => Call::DeleteAllTs(DeleteAllTsArgs {
                table_name: tb,
                row,
                column: self.column(),
                timestamp: self.ts(),
                attributes: vec![],
            }),
            24 => Call::DeleteAllRow(DeleteAllRowArgs {
                table_name: tb,
                row,
                attributes: vec![],
            }),
            25 => Call::DeleteAllRowTs(DeleteAllRowTsArgs {
                table_name: tb,
                row,
                timestamp: self.ts(),
                attributes: vec![],
            }),
            26 => Call::Increment(IncrementArgs {
                increment: TIncrement {
                    table: tb,
                    row,
                    column: self.column(),
                    amount: 2,
                },
            }),
            27 => Call::IncrementRows(IncrementRowsArgs {
                increments: (0..2)
                    .map(|_| TIncrement {
                        table: self.table().into_bytes(),
                        row: self.row(),
                        column: self.column(),
                        amount: 1,
                    })
                    .collect(),
            }),
            28 => {
                let columns: Vec<Vec<u8>> =
                    (0..1 + self.rng.below(2)).map(|_| self.column()).collect();
                let values = columns.iter().map(|_| b"+".to_vec()).collect();
                Call::Append(AppendArgs {
                    append: TAppend {
                        table: tb,
                        row,
                        columns,
                        values,
                    },
                })
            }
            29 | 30 => Call::CheckAndPut(CheckAndPutArgs {
                table_name: tb,
                row,
                column: self.column(),
                value: if self.rng.chance(50) {
                    None
                } else {
                    Some(self.value())
                },
                mput: self.mutation(),
                attributes: vec![],
            }),
            31 => {
                let column = self.column();
                let op = if self.rng.chance(50) {
                    "increment"
                } else {
                    "append"
                };
                return self.ferrobase_admin(
                    op,
                    &t,
                    &row,
                    vec![
                        ("COLUMN", column),
                        ("AMOUNT", b"1".to_vec()),
                        ("VALUE", b"x".to_vec()),
                        ("TTL", b"100000".to_vec()),
                    ],
                );
            }
            32 => {
                let mut attrs = vec![];
                let kinds: [&[u8]; 4] = [
                    b"Delete",
                    b"DeleteColumn",
                    b"DeleteFamily",
                    b"DeleteFamilyVersion",
                ];
                for i in 0..self.rng.below(3) {
                    let key: &'static str = ["COLUMN.0", "COLUMN.1"][i];
                    let ty: &'static str = ["TYPE.0", "TYPE.1"][i];
                    attrs.push((key, self.column()));
                    attrs.push((ty, self.rng.pick(&kinds).to_vec()));
                }
                if self.rng.chance(50) {
                    attrs.push(("TIMESTAMP", b"1105".to_vec()));
                }
                return self.ferrobase_admin("delete", &t, &row, attrs);
            }
            33 => {
                let fams: Vec<ColumnDescriptor> = (0..1 + self.rng.below(2))
                    .map(|_| ColumnDescriptor {
                        name: column(&self.family(), b""),
                        ..ColumnDescriptor::default()
                    })
                    .collect();
                let name = if self.rng.chance(70) {
                    (*self.rng.pick(NEW_TABLES)).to_string()
                } else {
                    t
                };
                Call::CreateTable(CreateTableArgs {
                    table_name: name.into_bytes(),
                    column_families: fams,
                })
            }
            34 => {
                return Op::Sequence(vec![
                    Call::DisableTable(DisableTableArgs {
                        table_name: tb.clone(),
                    }),
                    Call::DeleteTable(DeleteTableArgs { table_name: tb }),
                ])
            }
            35 => Call::DisableTable(DisableTableArgs { table_name: tb }),
            36 => Call::EnableTable(EnableTableArgs { table_name: tb }),
            37 => {
                if self.rng.chance(50) {
                    Call::Compact(CompactArgs {
                        table_name_or_region_name: tb,
                    })
                } else {
                    Call::MajorCompact(MajorCompactArgs {
                        table_name_or_region_name: tb,
                    })
                }
            }
            38 => Call::GetColumnDescriptors(GetColumnDescriptorsArgs { table_name: tb }),
            39 => {
                if self.rng.chance(50) {
                    Call::GetTableNames(GetTableNamesArgs {})
                } else {
                    Call::GetTableNamesWithIsTableEnabled(GetTableNamesWithIsTableEnabledArgs {})
                }
            }
            40 => {
                if self.rng.chance(50) {
                    Call::IsTableEnabled(IsTableEnabledArgs { table_name: tb })
                } else {
                    Call::GetTableRegions(GetTableRegionsArgs { table_name: tb })
                }
            }
            41 => {
                let op = *self.rng.pick(&[
                    "flush",
                    "split",
                    "truncate",
                    "truncate_preserve",
                    "table_attributes",
                    "family_attributes",
                ]);
                let key = if op == "split" { row } else { vec![] };
                return self.ferrobase_admin(op, &t, &key, vec![]);
            }
            42 => {
                let f = self.family();
                let attrs = vec![("NAME", f.clone())];
                return if self.rng.chance(50) {
                    self.ferrobase_admin("put_family", &t, b"", attrs)
                } else {
                    self.ferrobase_admin("delete_family", &t, &f, vec![])
                };
            }
            43 => {
                let owner = self.rng.pick(USERS).as_bytes().to_vec();
                return if self.rng.chance(70) {
                    let (k, v) = if self.rng.chance(50) {
                        ("OWNER", owner)
                    } else {
                        ("K", b"v".to_vec())
                    };
                    self.ferrobase_admin("set_table_attributes", &t, b"", vec![(k, v)])
                } else {
                    let k: &[u8] = if self.rng.chance(50) { b"OWNER" } else { b"K" };
                    self.ferrobase_admin("unset_table_attribute", &t, k, vec![])
                };
            }
            44 => {
                let ns = *self.rng.pick(&["ns2", "ns1", "ns,3"]);
                let op = if self.rng.chance(60) {
                    "create_namespace"
                } else {
                    "drop_namespace"
                };
                return self.ferrobase_admin(op, ns, b"", vec![]);
            }
            45..=47 => {
                let (target, mut attrs) = self.scope();
                let user = self.rng.pick(USERS).as_bytes().to_vec();
                attrs.push(("USER", user));
                attrs.push(("ACTIONS", self.actions().into_bytes()));
                let op = if self.rng.chance(65) {
                    "grant"
                } else {
                    "revoke"
                };
                return self.ferrobase_admin(op, &target, b"", attrs);
            }
            48 => {
                let on_namespace = self.rng.chance(40);
                let info = TAccessControlEntity {
                    username: (*self.rng.pick(USERS)).into(),
                    scope: if on_namespace {
                        permission_scope::NAMESPACE
                    } else {
                        permission_scope::TABLE
                    },
                    actions: self.actions(),
                    table_name: (!on_namespace).then(|| tb.clone()),
                    ns_name: on_namespace.then(|| (*self.rng.pick(NAMESPACES)).to_string()),
                };
                if self.rng.chance(60) {
                    Call::Grant(GrantArgs { info })
                } else {
                    Call::Revoke(RevokeArgs { info })
                }
            }
            49 => {
                let (target, attrs) = self.scope();
                return self.ferrobase_admin("user_permission", &target, b"", attrs);
            }
            // The server-wide reads of the extension: global ADMIN.
            50 => {
                let op = *self.rng.pick(&["slow_log", "server_status"]);
                return self.ferrobase_admin(op, "", b"", vec![]);
            }
            // The extension's typed get (with its cost when asked): READ on the column,
            // refused when partly granted.
            51 => {
                let mut attrs = vec![("COLUMN.0", self.column())];
                if self.rng.chance(50) {
                    attrs.push(("EXPLAIN", b"true".to_vec()));
                }
                return self.ferrobase_admin("get", &t, &row, attrs);
            }
            _ => {
                return Op::Hijack {
                    table: t,
                    how: self.rng.below(8) as u8,
                }
            }
        };
        Op::Call(c)
    }

    fn scan(&mut self, t: String) -> Op {
        let tb = t.into_bytes();
        let start = self.row();
        let columns = self.columns();
        let open = match self.rng.below(7) {
            0..=2 => {
                let scan = TScan {
                    start_row: self.rng.chance(30).then(|| self.row()),
                    columns: (!columns.is_empty()).then_some(columns),
                    filter_string: self.rng.chance(80).then(|| self.filter().into_bytes()),
                    batch_size: self.rng.chance(20).then_some(1),
                    sort_columns: self.rng.chance(30).then_some(true),
                    timestamp: self.rng.chance(20).then(|| self.ts()),
                    reversed: self.rng.chance(15).then_some(true),
                    ..TScan::default()
                };
                Call::ScannerOpenWithScan(ScannerOpenWithScanArgs {
                    table_name: tb,
                    scan,
                    attributes: vec![],
                })
            }
            3 => Call::ScannerOpen(ScannerOpenArgs {
                table_name: tb,
                start_row: b"".to_vec(),
                columns,
                attributes: vec![],
            }),
            4 => Call::ScannerOpenWithStop(ScannerOpenWithStopArgs {
                table_name: tb,
                start_row: b"".to_vec(),
                stop_row: start,
                columns,
                attributes: vec![],
            }),
            5 => Call::ScannerOpenWithPrefix(ScannerOpenWithPrefixArgs {
                table_name: tb,
                start_and_prefix: b"r".to_vec(),
                columns,
                attributes: vec![],
            }),
            _ => {
                if self.rng.chance(50) {
                    Call::ScannerOpenTs(ScannerOpenTsArgs {
                        table_name: tb,
                        start_row: b"".to_vec(),
                        columns,
                        timestamp: self.ts(),
                        attributes: vec![],
                    })
                } else {
                    Call::ScannerOpenWithStopTs(ScannerOpenWithStopTsArgs {
                        table_name: tb,
                        start_row: b"".to_vec(),
                        stop_row: start,
                        columns,
                        timestamp: self.ts(),
                        attributes: vec![],
                    })
                }
            }
        };
        Op::Scan {
            open,
            batch: *self.rng.pick(&[0, 1, 1, 2]),
        }
    }

    fn ext_scan(&mut self, t: String) -> Op {
        let mut attrs: Vec<(&str, Vec<u8>)> = Vec::new();
        let keys = ["COLUMN.0", "COLUMN.1"];
        for key in keys.iter().take(self.rng.below(3)) {
            attrs.push((key, self.column()));
        }
        if self.rng.chance(50) {
            attrs.push(("RAW", b"true".to_vec()));
        }
        if self.rng.chance(50) {
            attrs.push(("VERSIONS", b"5".to_vec()));
        }
        if self.rng.chance(50) {
            attrs.push(("FILTER", self.filter().into_bytes()));
        }
        let attrs: Vec<(&str, &[u8])> = attrs.iter().map(|(k, v)| (*k, v.as_slice())).collect();
        Op::ExtScan {
            open: admin_args("scan_open", &t, b"", &attrs),
            batch: 1 + self.rng.below(2) as i32,
        }
    }
}

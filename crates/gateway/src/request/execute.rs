//! The one executor of data requests: authorize (every operation [`Request::operations`]
//! derives, a partly granted read narrowed to the readable columns), then run on the engine.

use super::{Partial, Request, Response, Write};
use crate::access::{canonical_table, AccessChecker, Denied, Operation, ReadAccess};
use ferrobase_engine::{Check, ColumnSelection, Engine, Error};

/// Why a request did not run, or failed running.
#[derive(Debug)]
pub enum Failure {
    /// The access rule refused it (HBase's `AccessDeniedException` message); nothing ran.
    Denied(Denied),
    /// The engine refused or failed it.
    Engine(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Engine(e)
    }
}

impl From<Denied> for Failure {
    fn from(d: Denied) -> Self {
        Failure::Denied(d)
    }
}

/// A request the access rule allowed for one user, as [`Executor::authorize`] answers it:
/// only an authorized request runs ([`Executor::run`], [`Executor::run_batch`]), and only on
/// that user's executor.
#[derive(Debug)]
pub struct Authorized {
    request: Request,
    user: String,
}

impl Authorized {
    /// The request, as authorized (a partly granted read narrowed).
    pub fn request(&self) -> &Request {
        &self.request
    }
}

/// Runs requests for one user on one engine: with ACLs on (`access`), each request is
/// authorized before anything of it runs.
pub struct Executor<'a> {
    pub(super) engine: &'a Engine,
    pub(super) access: Option<&'a AccessChecker>,
    pub(super) user: &'a str,
}

impl<'a> Executor<'a> {
    /// An executor for `user` (the door's identity of the caller; `ANONYMOUS` when it has
    /// none) on `engine`, checking with `access` when ACLs are on.
    pub fn new(engine: &'a Engine, access: Option<&'a AccessChecker>, user: &'a str) -> Self {
        Executor {
            engine,
            access,
            user,
        }
    }

    /// The families of `table` (none when it cannot be described: the request then fails on
    /// the table when it runs, and a grant of the whole table is what the rule asks for).
    pub(super) fn families(&self, table: &str) -> Vec<Vec<u8>> {
        self.engine
            .admin()
            .describe(table)
            .map(|d| d.families.iter().map(|f| f.name.clone()).collect())
            .unwrap_or_default()
    }

    /// The canonical name of `name` for the rule; `None` for a superuser's request naming a
    /// table the rule cannot read (an invalid name): it runs and fails on the name, as without
    /// ACLs (no such name is `hbase:acl`). Anyone else's is refused.
    pub(super) fn rule_name(
        &self,
        acl: &AccessChecker,
        name: &str,
    ) -> Result<Option<String>, Denied> {
        match canonical_table(name) {
            Ok(t) => Ok(Some(t)),
            Err(_) if acl.is_superuser(self.user) => Ok(None),
            Err(e) => Err(Denied(format!(
                "Insufficient permissions for user '{}': {e}",
                self.user
            ))),
        }
    }

    /// Authorizes `request` for the user (always, with ACLs off): every operation it performs
    /// under the shared rule; a partly granted read (a get's, a filter condition's) narrowed
    /// in place to the columns the user may read, so that no filter evaluates an unreadable
    /// cell (HBase's `AccessControlFilter` runs before the user's filter). A read with
    /// nothing readable is refused.
    pub fn authorize(&self, mut request: Request) -> Result<Authorized, Denied> {
        self.check(&mut request)?;
        Ok(Authorized {
            request,
            user: self.user.to_string(),
        })
    }

    fn check(&self, request: &mut Request) -> Result<(), Denied> {
        let Some(acl) = self.access else {
            return Ok(());
        };
        let Some(table) = self.rule_name(acl, request.table())? else {
            return Ok(());
        };
        let families = || self.families(&table);
        // The filterable reads first: each narrowed where partly granted.
        let narrow = |columns: &mut ColumnSelection| {
            acl.authorize_read_columns(self.user, &table, columns, families)
        };
        match request {
            Request::Get {
                gets,
                partial: Partial::Narrow,
                ..
            } => gets
                .iter_mut()
                .try_for_each(|g| narrow(&mut g.spec.columns))?,
            Request::Scan {
                scan,
                partial: Partial::Narrow,
                ..
            } => narrow(&mut scan.spec.columns)?,
            // An existence check naming columns is narrowed; one of a whole row must be granted
            // whole (`Request::operations`), below.
            Request::Exists { gets, .. } => gets
                .iter_mut()
                .filter(|g| !g.spec.columns.is_empty())
                .try_for_each(|g| narrow(&mut g.spec.columns))?,
            Request::CheckAndWrite {
                check: Check::Read(get),
                ..
            } => narrow(&mut get.spec.columns)?,
            // Refused unless granted whole: decided with the other operations below.
            Request::Get {
                partial: Partial::Refuse,
                ..
            }
            | Request::Scan {
                partial: Partial::Refuse,
                ..
            }
            | Request::Explain { .. }
            | Request::CheckAndWrite { .. }
            | Request::Write { .. } => {}
        }
        for op in request.operations_on(&table, &families) {
            // The filterable reads were decided above, narrowed; the rest must be granted whole.
            if let Operation::Read {
                filterable: true, ..
            } = op
            {
                continue;
            }
            // Only a filterable read is ever granted in part.
            if acl.authorize(self.user, &op)? != ReadAccess::All {
                return Err(Denied(format!(
                    "Insufficient permissions for user '{}' (table={table})",
                    self.user
                )));
            }
        }
        Ok(())
    }

    /// Runs an authorized request on the engine.
    pub fn run(&self, authorized: Authorized) -> Result<Response, Error> {
        let request = self.own(authorized)?;
        let table = self.engine.table(request.table())?;
        Ok(match request {
            Request::Get { gets, .. } => Response::Rows(table.get_all(&gets)?),
            Request::Explain { get, .. } => {
                let (row, cost) = table.get_explained(&get)?;
                Response::Explained(row, cost)
            }
            Request::Scan { scan, .. } => Response::Scanner(Box::new(table.scanner(&scan)?)),
            Request::Exists { gets, .. } => Response::Exists(
                gets.iter()
                    .map(|g| table.exists(g))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Request::Write { write, .. } => match write {
                Write::Mutations(mutations) => {
                    if !mutations.is_empty() {
                        table.mutate(mutations)?;
                    }
                    Response::Written
                }
                Write::Increment {
                    row,
                    columns,
                    ttl_ms,
                } => {
                    let cols: Vec<(&[u8], &[u8], i64)> = columns
                        .iter()
                        .map(|(f, q, a)| (f.as_slice(), q.as_slice(), *a))
                        .collect();
                    Response::Cells(table.increment_cells(&row, &cols, ttl_ms)?)
                }
                Write::Append {
                    row,
                    columns,
                    ttl_ms,
                } => {
                    let cols: Vec<(&[u8], &[u8], &[u8])> = columns
                        .iter()
                        .map(|(f, q, v)| (f.as_slice(), q.as_slice(), v.as_slice()))
                        .collect();
                    Response::Cells(table.append_with_ttl(&row, &cols, ttl_ms)?)
                }
            },
            Request::CheckAndWrite {
                row, check, write, ..
            } => {
                let (applied, result) = table.check_and_write(&row, &check, &write)?;
                Response::Checked { applied, result }
            }
        })
    }

    /// The request of `authorized`, when it was authorized for this executor's user.
    fn own(&self, authorized: Authorized) -> Result<Request, Error> {
        self.authorized_as(&authorized.user)?;
        Ok(authorized.request)
    }

    /// Refuses to run what was authorized for `user` unless it is this executor's user.
    pub(super) fn authorized_as(&self, user: &str) -> Result<(), Error> {
        if user != self.user {
            return Err(Error::IllegalArgument(format!(
                "a request authorized for user '{user}' cannot run as '{}'",
                self.user
            )));
        }
        Ok(())
    }

    /// Authorizes `request`, then runs it: nothing of a refused request runs.
    pub fn execute(&self, request: Request) -> Result<Response, Failure> {
        let authorized = self.authorize(request)?;
        Ok(self.run(authorized)?)
    }

    /// Runs authorized puts and deletes of one table as HBase's region server runs a batch
    /// (`Multi`): one engine batch (each row's applied atomically), answered one by one; when
    /// the engine refuses the batch before applying any of it (a missing family, an invalid or
    /// oversized cell), each is applied on its own, so only the bad ones fail. A part that is
    /// not puts and deletes of the first part's table fails alone. `Err`: the batch failed as a
    /// whole (its table is gone, the log failed), which every part answers.
    pub fn run_batch(&self, parts: Vec<Authorized>) -> Result<Vec<Result<(), Error>>, Error> {
        let table_name = match parts.first() {
            Some(p) => p.request.table().to_string(),
            None => return Ok(Vec::new()),
        };
        let mut answers: Vec<Option<Result<(), Error>>> = Vec::with_capacity(parts.len());
        let mut batch = Vec::new();
        let mut members = Vec::new();
        for (i, part) in parts.into_iter().enumerate() {
            match self.own(part)? {
                Request::Write {
                    table,
                    write: Write::Mutations(ms),
                } if table == table_name => {
                    members.push((i, ms.len()));
                    batch.extend(ms);
                    answers.push(None);
                }
                other => answers.push(Some(Err(Error::IllegalArgument(format!(
                    "a batch holds the puts and deletes of one table ({table_name}), not {:?}",
                    other.table()
                ))))),
            }
        }
        if !batch.is_empty() {
            let outcome = self.engine.table(&table_name).and_then(|t| {
                match t.mutate(batch.clone()) {
                    // Refused before anything was applied: each on its own.
                    Err(
                        Error::NoSuchColumnFamily { .. }
                        | Error::IllegalArgument(_)
                        | Error::TooLarge { .. },
                    ) => {
                        let mut rest = batch.into_iter();
                        for (i, n) in &members {
                            let ms: Vec<_> = rest.by_ref().take(*n).collect();
                            answers[*i] = Some(t.mutate(ms));
                        }
                        Ok(())
                    }
                    other => other.map(|()| {
                        for (i, _) in &members {
                            answers[*i] = Some(Ok(()));
                        }
                    }),
                }
            });
            outcome?;
        }
        Ok(answers.into_iter().map(|a| a.unwrap_or(Ok(()))).collect())
    }
}

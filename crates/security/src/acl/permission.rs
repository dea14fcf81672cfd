//! HBase's permission model: the five actions (READ, WRITE, EXEC, CREATE, ADMIN, written
//! `RWXCA`), the scopes a grant applies to (global, namespace, table, family, qualifier) and a
//! user's grant of actions at one scope (HBase's `Permission`, `TablePermission`,
//! `NamespacePermission`, `UserPermission`).

use std::fmt;

/// One action, as HBase's `Permission.Action`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// `R`: reads (get, scan).
    Read,
    /// `W`: mutations (put, delete, increment, append).
    Write,
    /// `X`: coprocessor endpoints (no Thrift1 call needs it).
    Exec,
    /// `C`: creating and changing tables.
    Create,
    /// `A`: administration, and granting.
    Admin,
}

impl Action {
    /// Every action, in HBase's order.
    pub const ALL: [Action; 5] = [
        Action::Read,
        Action::Write,
        Action::Exec,
        Action::Create,
        Action::Admin,
    ];

    /// The letter of the action in grants and in the ACL table (`R`, `W`, `X`, `C`, `A`).
    pub fn code(self) -> char {
        match self {
            Action::Read => 'R',
            Action::Write => 'W',
            Action::Exec => 'X',
            Action::Create => 'C',
            Action::Admin => 'A',
        }
    }

    /// The action of a letter.
    pub fn from_code(c: char) -> Option<Action> {
        Action::ALL.into_iter().find(|a| a.code() == c)
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for Action {
    /// HBase's names: `READ`, `WRITE`, `EXEC`, `CREATE`, `ADMIN`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Action::Read => "READ",
            Action::Write => "WRITE",
            Action::Exec => "EXEC",
            Action::Create => "CREATE",
            Action::Admin => "ADMIN",
        })
    }
}

/// A set of actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Actions(u8);

impl Actions {
    /// No action.
    pub const NONE: Actions = Actions(0);

    /// Every action (what a table's creator is granted on it).
    pub fn all() -> Actions {
        Action::ALL.into_iter().collect()
    }

    /// Parses letters such as `RW` (case-insensitive; repeats allowed), as the shell's
    /// `grant`. An unknown letter is an error naming it.
    pub fn parse(text: &str) -> Result<Actions, String> {
        text.chars()
            .map(|c| {
                Action::from_code(c.to_ascii_uppercase())
                    .ok_or_else(|| format!("unknown action {c:?}: actions are R, W, X, C and A"))
            })
            .collect()
    }

    /// True when `a` is in the set.
    pub fn contains(self, a: Action) -> bool {
        self.0 & a.bit() != 0
    }

    /// True for the empty set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The actions of `self` not in `other`.
    pub fn without(self, other: Actions) -> Actions {
        Actions(self.0 & !other.0)
    }

    /// The actions, in HBase's order.
    pub fn iter(self) -> impl Iterator<Item = Action> {
        Action::ALL.into_iter().filter(move |a| self.contains(*a))
    }
}

impl FromIterator<Action> for Actions {
    fn from_iter<I: IntoIterator<Item = Action>>(iter: I) -> Self {
        Actions(iter.into_iter().fold(0, |b, a| b | a.bit()))
    }
}

impl fmt::Display for Actions {
    /// The letters, in HBase's order (`RWXCA`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for a in self.iter() {
            write!(f, "{}", a.code())?;
        }
        Ok(())
    }
}

/// What a grant applies to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// Everything.
    Global,
    /// Every table of a namespace.
    Namespace(String),
    /// A table (HBase's spelling: `t` in the default namespace, `ns:t` otherwise), or one
    /// family of it, or one column (family and qualifier).
    Table {
        /// The table.
        table: String,
        /// The family, for a family or column grant.
        family: Option<Vec<u8>>,
        /// The qualifier, for a column grant (only with a family).
        qualifier: Option<Vec<u8>>,
    },
}

impl Scope {
    /// A whole-table scope.
    pub fn table(table: impl Into<String>) -> Scope {
        Scope::Table {
            table: table.into(),
            family: None,
            qualifier: None,
        }
    }

    /// The table of a table, family or column scope.
    pub fn table_name(&self) -> Option<&str> {
        match self {
            Scope::Table { table, .. } => Some(table),
            _ => None,
        }
    }
}

impl fmt::Display for Scope {
    /// As the shell's `user_permission` prints it: `GLOBAL`, `@ns`, `t`, `t,cf`, `t,cf:q`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Global => f.write_str("GLOBAL"),
            Scope::Namespace(ns) => write!(f, "@{ns}"),
            Scope::Table {
                table,
                family,
                qualifier,
            } => {
                f.write_str(table)?;
                if let Some(fam) = family {
                    write!(f, ",{}", String::from_utf8_lossy(fam))?;
                }
                if let Some(q) = qualifier {
                    write!(f, ":{}", String::from_utf8_lossy(q))?;
                }
                Ok(())
            }
        }
    }
}

/// A user's actions at one scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserPermission {
    /// The user (for a mutual-TLS connection, its certificate's subject CN).
    pub user: String,
    /// Where the actions apply.
    pub scope: Scope,
    /// The actions.
    pub actions: Actions,
}

impl fmt::Display for UserPermission {
    /// `user scope actions`, as one line of `user_permission`'s table: HBase prints
    /// `alice  column=t,cf:q, actions=READ,WRITE`-like rows; ferrobase prints
    /// `alice  t,cf:q  RW`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}", self.user, self.scope, self.actions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_parse_and_print_in_hbase_order() {
        let a = Actions::parse("acwr").unwrap();
        assert_eq!(a.to_string(), "RWCA");
        assert!(a.contains(Action::Create) && !a.contains(Action::Exec));
        assert_eq!(Actions::all().to_string(), "RWXCA");
        assert!(Actions::parse("RZ").unwrap_err().contains("'Z'"));
        assert_eq!(a.without(Actions::parse("RW").unwrap()).to_string(), "CA");
    }

    #[test]
    fn scopes_print_as_user_permission_shows_them() {
        let s = Scope::Table {
            table: "ns:t".into(),
            family: Some(b"cf".to_vec()),
            qualifier: Some(b"q".to_vec()),
        };
        assert_eq!(s.to_string(), "ns:t,cf:q");
        assert_eq!(Scope::Namespace("ns".into()).to_string(), "@ns");
        assert_eq!(Scope::Global.to_string(), "GLOBAL");
    }
}

//! HBase's side of the matrix: the answers `scripts/hbase-acl-matrix.sh` recorded from Apache
//! HBase 2.6.1 running its AccessController (tests/hbase-oracle `AclMatrix.java`), or, with
//! `FERROBASE_HBASE_ACL` set, its answers now; and the reader of their lines.

use crate::operations::OPERATIONS;
use crate::users::{GRANTS, SCOPES};

/// HBase 2.6.1's answers, one line per user and operation: `scope TAB actions TAB operation TAB
/// outcome`, the outcome `allowed [what it read]`, `denied TEXT` or `error TEXT`; `#` lines are
/// comments.
const HBASE_ANSWERS: &str = include_str!("../data/acl_matrix_hbase.tsv");

/// One recorded outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Recorded {
    /// `global`, `namespace`, `table`, `family` or `qualifier`.
    pub(crate) scope: String,
    /// The actions the user was granted there (`R`, `RW`, ...).
    pub(crate) actions: String,
    /// The operation, as `AclMatrix.java` names it.
    pub(crate) operation: String,
    /// What HBase answered.
    pub(crate) outcome: String,
}

/// The outcomes of a recording, in its order; an error names the first malformed line.
pub(crate) fn parse(text: &str) -> Result<Vec<Recorded>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.is_empty())
        .map(|(i, line)| {
            let mut f = line.splitn(4, '\t');
            match (f.next(), f.next(), f.next(), f.next()) {
                (Some(scope), Some(actions), Some(operation), Some(outcome))
                    if ["allowed", "denied ", "error "]
                        .iter()
                        .any(|p| outcome.starts_with(p)) =>
                {
                    Ok(Recorded {
                        scope: scope.into(),
                        actions: actions.into(),
                        operation: operation.into(),
                        outcome: outcome.into(),
                    })
                }
                _ => Err(format!("line {}: not a recorded outcome: {line:?}", i + 1)),
            }
        })
        .collect()
}

/// The recorded answers, or with `FERROBASE_HBASE_ACL` set, HBase's answers now (the oracle
/// started with its AccessController by `scripts/hbase-acl-matrix.sh`).
pub(crate) fn hbase_answers() -> Vec<Recorded> {
    if std::env::var_os("FERROBASE_HBASE_ACL").is_none() {
        return parse(HBASE_ANSWERS).unwrap();
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = tempfile::NamedTempFile::new().unwrap();
    let status = std::process::Command::new("bash")
        .arg(root.join("scripts/hbase-acl-matrix.sh"))
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success(), "scripts/hbase-acl-matrix.sh failed");
    parse(&std::fs::read_to_string(out.path()).unwrap()).unwrap()
}

#[test]
fn recording_has_each_operation_of_each_user_once_in_order() {
    let recorded = parse(HBASE_ANSWERS).unwrap();
    let mut expected = Vec::new();
    for at in SCOPES {
        for actions in GRANTS {
            for operation in OPERATIONS {
                expected.push((format!("{at:?}").to_lowercase(), actions, operation));
            }
        }
    }
    for (i, (r, (scope, actions, operation))) in recorded.iter().zip(&expected).enumerate() {
        assert_eq!(
            (r.scope.as_str(), r.actions.as_str(), r.operation.as_str()),
            (scope.as_str(), *actions, *operation),
            "outcome {i} of the recording"
        );
    }
    assert_eq!(recorded.len(), 30 * OPERATIONS.len());
}

#[test]
fn recording_reader_names_a_malformed_line() {
    let text = "# comment\nglobal\tR\tget cf:q\tallowed cf:q\nglobal\tR\tscan\n";
    assert_eq!(
        parse(text),
        Err("line 3: not a recorded outcome: \"global\\tR\\tscan\"".to_string())
    );
    let bad_outcome = "global\tR\tscan\tmaybe\n";
    assert!(parse(bad_outcome).unwrap_err().starts_with("line 1:"));
    assert_eq!(
        parse(text.lines().take(2).collect::<Vec<_>>().join("\n").as_str())
            .unwrap()
            .len(),
        1
    );
}

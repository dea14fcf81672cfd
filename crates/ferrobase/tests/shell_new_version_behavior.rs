//! NEW_VERSION_BEHAVIOR from the shell: `create`/`alter` set it, `describe` shows it as HBase
//! 2.6 does (`METADATA => {'NEW_VERSION_BEHAVIOR' => 'true'}`), it survives a reopen (the
//! manifest stores it), and reads follow it: a put written after a delete at an older
//! timestamp is seen.

mod shell_harness;

use shell_harness::shell;

const SHOWN: &str = "METADATA => {'NEW_VERSION_BEHAVIOR' => 'true'}";

#[test]
fn new_version_behavior_is_set_shown_kept_and_followed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let (out, ok) = shell(
        &["--data", &d],
        "create 'n', {NAME => 'f', NEW_VERSION_BEHAVIOR => true, VERSIONS => 3}, {NAME => 'g'}\n\
         describe 'n'\n\
         put 'n', 'r', 'f:q', 'old', 10\n\
         put 'n', 'r', 'g:q', 'old', 10\n\
         deleteall 'n', 'r', 'f:q', 20\n\
         deleteall 'n', 'r', 'g:q', 20\n\
         put 'n', 'r', 'f:q', 'written-after', 15\n\
         put 'n', 'r', 'g:q', 'written-after', 15\n\
         get 'n', 'r'\n",
    );
    assert!(ok, "{out}");
    assert_eq!(out.matches(SHOWN).count(), 1, "only f has it: {out}");
    let got = &out[out.rfind("COLUMN").unwrap()..];
    assert!(
        got.lines()
            .any(|l| l.contains(" f:q ") && l.contains("value=written-after")),
        "f (with it) shows the put written after the delete: {out}"
    );
    assert_eq!(
        out.matches("value=written-after").count(),
        1,
        "g (without it) masks the later put at 15 under its delete at 20: {out}"
    );
    // Kept across a reopen, then turned off by alter.
    let (out, ok) = shell(
        &["--data", &d],
        "describe 'n'\nalter 'n', NAME => 'f', NEW_VERSION_BEHAVIOR => 'false'\ndescribe 'n'\n",
    );
    assert!(ok, "{out}");
    assert_eq!(
        out.matches(SHOWN).count(),
        1,
        "shown before the alter only: {out}"
    );
    let after_alter = &out[out.find("Updating all regions").unwrap()..];
    assert!(!after_alter.contains(SHOWN), "{out}");
}

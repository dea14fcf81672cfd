//! The catalog transaction (`Inner::change_catalog`: clone the catalog, edit the clone, write
//! it as the manifest, publish it; "Commit protocol" in `docs/format/manifest.md`), which
//! every DDL goes through, tested once for all of them through the fault-injecting file system:
//!
//! - a power cut at each file-system step of each DDL (what was not synced dropped, or a
//!   random part of it kept): the engine reopens, and its catalog is the old one or the new
//!   one, never a mix; the new one whenever the DDL had returned `Ok`;
//! - a full disk (`ENOSPC` on the Nth append) and a failed sync or rename (`EIO`) at each
//!   step: a DDL that fails leaves the running engine's catalog as it was (unless the engine
//!   is poisoned, when it answers nothing), and after a power cut the engine reopens to the
//!   old or the new catalog, the old one when the failure was a full disk.

mod support;

use ferrobase_engine::fs::fault::{CutMode, Fault, FaultFileSystem, OpKind};
use ferrobase_engine::*;
use support::ddl::{catalog, ddls, options, present, setup, Ddl, DIR};

/// How many mutating file-system operations `ddl` makes on a fresh `setup`, and the catalog
/// it leaves.
fn steps_and_result(kind: &str, ddl: Ddl) -> (u64, String) {
    let fs = FaultFileSystem::new();
    let engine = setup(&fs);
    let before = fs.mutations();
    ddl(&engine.admin()).unwrap_or_else(|e| panic!("{kind}: {e}"));
    (fs.mutations() - before, catalog(&engine))
}

/// Reopens after a power cut and checks the catalog is `before` or `after` (`after` when
/// `must_be` says so), and that the bystander table kept its row.
fn reopen_and_check(
    fs: &FaultFileSystem,
    mode: CutMode,
    what: &str,
    before: &str,
    after: &str,
    must_be: Option<&str>,
) {
    fs.clear_faults();
    fs.power_cut(mode);
    let engine = Engine::open(DIR, options(fs)).unwrap_or_else(|e| panic!("{what}: reopen: {e}"));
    let got = catalog(&engine);
    assert!(
        got == before || got == after,
        "{what}: the catalog after the restart is neither the old nor the new one:\n{got}\n\
         old:\n{before}\nnew:\n{after}"
    );
    if let Some(expected) = must_be {
        assert_eq!(got, expected, "{what}: after the restart");
    }
    assert!(present(&engine, "other", "r1"), "{what}: `other` lost r1");
}

#[test]
fn a_power_cut_at_any_step_of_any_ddl_reopens_to_the_old_or_the_new_catalog() {
    let mut cuts = 0;
    for (kind, _, ddl) in ddls() {
        let (steps, after) = steps_and_result(kind, ddl);
        assert!(steps > 0, "{kind}: no file-system step");
        for step in 1..=steps {
            for mode in [
                CutMode::DropUnsynced,
                CutMode::KeepRandom { seed: step * 31 },
            ] {
                let fs = FaultFileSystem::new();
                let engine = setup(&fs);
                let before = catalog(&engine);
                fs.cut_power_after(step);
                let result = ddl(&engine.admin());
                drop(engine);
                let what = format!("{kind}, power cut at step {step} of {steps} ({mode:?})");
                // An acknowledged DDL is durable: its manifest was synced before it returned.
                let must_be = result.is_ok().then_some(after.as_str());
                reopen_and_check(&fs, mode, &what, &before, &after, must_be);
                cuts += 1;
            }
        }
    }
    eprintln!("{cuts} power cuts");
    assert!(cuts >= 50, "only {cuts} cut points");
}

#[test]
fn a_ddl_failing_at_any_step_leaves_the_running_catalog_as_it_was() {
    // A full disk at each append, and a failed sync, directory sync or rename at each one.
    let failures = [
        (OpKind::Append, libc::ENOSPC),
        (OpKind::Sync, libc::EIO),
        (OpKind::SyncDir, libc::EIO),
        (OpKind::Rename, libc::EIO),
    ];
    let mut failed = 0;
    for (kind, _, ddl) in ddls() {
        let (_, after) = steps_and_result(kind, ddl);
        for (op, errno) in failures {
            for nth in 1.. {
                let fs = FaultFileSystem::new();
                let engine = setup(&fs);
                let before = catalog(&engine);
                fs.inject(Fault {
                    kind: op,
                    path_contains: String::new(),
                    nth,
                    errno,
                });
                let result = ddl(&engine.admin());
                let what = format!("{kind}, {op:?} #{nth} failing with errno {errno}");
                if fs.injected() == 0 {
                    // The DDL makes fewer such operations: every one has been tried.
                    result.unwrap_or_else(|e| panic!("{what}: {e}"));
                    break;
                }
                failed += 1;
                let must_be = match &result {
                    Ok(()) => {
                        // The failure fell after the change was durable (a file removal's
                        // directory sync, say): the change stands.
                        assert_eq!(catalog(&engine), after, "{what}: returned Ok");
                        Some(after.as_str())
                    }
                    Err(e) if engine.poisoned().is_none() => {
                        assert_eq!(
                            catalog(&engine),
                            before,
                            "{what}: failed with {e}, yet the running catalog changed"
                        );
                        (errno == libc::ENOSPC).then_some(before.as_str())
                    }
                    // A poisoned engine answers nothing; what the disk holds is checked below.
                    Err(_) => None,
                };
                drop(engine);
                reopen_and_check(&fs, CutMode::DropUnsynced, &what, &before, &after, must_be);
            }
        }
    }
    eprintln!("{failed} failures injected");
    assert!(failed >= 40, "only {failed} failures injected");
}

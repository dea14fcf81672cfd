//! The fault file system's own tests: what a cut keeps, faults, locks, and each option of
//! `FaultModel` through the file system.

use super::*;

fn write(fs: &FaultFileSystem, path: &str, data: &[u8], sync: bool) {
    let f = fs.create(Path::new(path)).unwrap();
    f.append(data).unwrap();
    if sync {
        f.sync_data().unwrap();
    }
}

#[test]
fn a_power_cut_keeps_only_synced_bytes_and_synced_entries() {
    let fs = FaultFileSystem::new();
    fs.create_dir_all(Path::new("/db/d")).unwrap();
    fs.sync_dir(Path::new("/")).unwrap();
    fs.sync_dir(Path::new("/db")).unwrap();
    write(&fs, "/db/d/synced", b"abc", true);
    fs.sync_dir(Path::new("/db/d")).unwrap();
    write(&fs, "/db/d/entry_unsynced", b"xyz", true);
    let f = fs.open(Path::new("/db/d/synced")).unwrap();
    assert_eq!(f.len().unwrap(), 3);
    assert_eq!(
        fs.unsynced(Path::new("/db/d/entry_unsynced")),
        Some((0, true))
    );
    fs.power_cut(CutMode::DropUnsynced);
    assert_eq!(fs.read(Path::new("/db/d/synced")).unwrap(), b"abc");
    assert!(!fs.exists(Path::new("/db/d/entry_unsynced")));
}

#[test]
fn unsynced_appends_and_renames_are_lost_and_a_directory_not_synced_takes_its_files() {
    let fs = FaultFileSystem::new();
    fs.create_dir_all(Path::new("/db")).unwrap();
    fs.sync_dir(Path::new("/")).unwrap();
    let f = fs.create(Path::new("/db/a")).unwrap();
    f.append(b"one").unwrap();
    f.sync_data().unwrap();
    fs.sync_dir(Path::new("/db")).unwrap();
    f.append(b"two").unwrap();
    fs.rename(Path::new("/db/a"), Path::new("/db/b")).unwrap();
    fs.create_dir_all(Path::new("/db/new")).unwrap();
    write(&fs, "/db/new/f", b"data", true);
    fs.sync_dir(Path::new("/db/new")).unwrap();
    fs.power_cut(CutMode::DropUnsynced);
    assert_eq!(fs.read(Path::new("/db/a")).unwrap(), b"one");
    assert!(!fs.exists(Path::new("/db/b")));
    assert!(
        !fs.exists(Path::new("/db/new/f")),
        "its directory was never synced"
    );
}

#[test]
fn the_nth_matching_operation_fails_with_the_chosen_errno_and_a_cut_stops_everything() {
    let fs = FaultFileSystem::new();
    fs.create_dir_all(Path::new("/db")).unwrap();
    fs.inject(Fault {
        kind: OpKind::Append,
        path_contains: ".wal".into(),
        nth: 2,
        errno: libc::ENOSPC,
    });
    let blk = fs.create(Path::new("/db/1.blk")).unwrap();
    let wal = fs.create(Path::new("/db/1.wal")).unwrap();
    blk.append(b"x").unwrap();
    blk.append(b"x").unwrap();
    wal.append(b"1").unwrap();
    let e = wal.append(b"2222").unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
    assert_eq!(
        fs.read(Path::new("/db/1.wal")).unwrap(),
        b"122",
        "half written"
    );
    wal.append(b"3").unwrap();
    assert_eq!(fs.injected(), 1);
    fs.cut_power_after(2);
    wal.append(b"4").unwrap();
    assert!(wal.sync_data().is_err());
    assert!(fs.is_down());
    assert!(fs.open(Path::new("/db/1.blk")).is_err());
    fs.power_cut(CutMode::DropUnsynced);
    assert!(!fs.is_down());
    assert!(!fs.exists(Path::new("/db/1.wal")), "never synced");
}

#[test]
fn a_random_cut_keeps_a_prefix_of_the_unsynced_tail() {
    for seed in 1..50 {
        let fs = FaultFileSystem::new();
        let f = fs.create(Path::new("/f")).unwrap();
        f.append(b"synced").unwrap();
        f.sync_data().unwrap();
        fs.sync_dir(Path::new("/")).unwrap();
        f.append(b"-tail").unwrap();
        fs.power_cut(CutMode::KeepRandom { seed });
        let got = fs.read(Path::new("/f")).unwrap();
        assert!(
            b"synced-tail".starts_with(&got) && got.len() >= 6,
            "{got:?}"
        );
    }
}

#[test]
fn a_lock_is_exclusive_until_dropped_or_the_power_is_cut() {
    let fs = FaultFileSystem::new();
    let l = fs.lock(Path::new("/LOCK")).unwrap();
    assert_eq!(
        fs.lock(Path::new("/LOCK")).err().map(|e| e.kind()),
        Some(io::ErrorKind::WouldBlock)
    );
    drop(l);
    let l = fs.lock(Path::new("/LOCK")).unwrap();
    fs.power_cut(CutMode::DropUnsynced);
    let _again = fs.lock(Path::new("/LOCK")).unwrap();
    drop(l);
    assert!(
        fs.lock(Path::new("/LOCK")).is_err(),
        "a stale guard frees nothing"
    );
}

#[test]
fn non_atomic_directory_operations_stop_part_way_at_a_cut() {
    let fs = FaultFileSystem::new();
    fs.set_model(
        FaultModel {
            non_atomic_dirs: true,
            ..FaultModel::default()
        },
        1,
    );
    fs.create_dir_all(Path::new("/db/r")).unwrap();
    for name in ["a", "b", "c"] {
        write(&fs, &format!("/db/r/{name}"), b"x", true);
    }
    for d in ["/", "/db", "/db/r"] {
        fs.sync_dir(Path::new(d)).unwrap();
    }
    // Three unlinks and a rmdir: the cut falls on the second unlink.
    fs.cut_power_after(2);
    assert!(fs.remove_dir_all(Path::new("/db/r")).is_err());
    let left = fs.list_dir(Path::new("/db/r"));
    assert!(left.is_err(), "the power is down");
    fs.power_cut(CutMode::KeepRandom { seed: 3 });
    let left = fs.list_dir(Path::new("/db/r")).unwrap();
    assert!(
        !left.is_empty(),
        "the directory and some files outlive the cut"
    );
    // `create_dir_all` makes one directory per operation.
    let before = fs.mutations();
    fs.create_dir_all(Path::new("/x/y/z")).unwrap();
    assert_eq!(fs.mutations() - before, 3);
    fs.cut_power_after(2);
    assert!(fs.create_dir_all(Path::new("/p/q/r")).is_err());
    fs.power_cut(CutMode::KeepRandom { seed: 5 });
    assert!(!fs.exists(Path::new("/p/q/r")));
}

#[test]
fn creating_files_and_directories_charges_metadata_and_removing_gives_it_back() {
    let fs = FaultFileSystem::new();
    fs.set_model(
        FaultModel {
            metadata_bytes: 100,
            ..FaultModel::default()
        },
        1,
    );
    fs.set_free_space(Some(250));
    fs.create_dir_all(Path::new("/d")).unwrap();
    assert_eq!(fs.free_space(), Some(150));
    let f = fs.create(Path::new("/d/f")).unwrap();
    f.append(b"0123456789").unwrap();
    assert_eq!(fs.free_space(), Some(40));
    let e = fs.create(Path::new("/d/g")).err().unwrap();
    assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
    assert!(!fs.exists(Path::new("/d/g")));
    fs.remove_file(Path::new("/d/f")).unwrap();
    assert_eq!(fs.free_space(), Some(150));
}

#[test]
fn a_lying_sync_reports_success_and_the_damage_shows_after_a_cut() {
    let fs = FaultFileSystem::new();
    fs.set_model(
        FaultModel {
            page_size: 4,
            lying_disk: Some(LyingDisk {
                one_in: 1,
                misdirect: false,
                path_contains: ".wal".into(),
            }),
            ..FaultModel::default()
        },
        9,
    );
    write(&fs, "/a.wal", b"aaaabbbb", true);
    write(&fs, "/a.blk", b"aaaabbbb", true);
    fs.sync_dir(Path::new("/")).unwrap();
    assert_eq!(
        fs.read(Path::new("/a.wal")).unwrap(),
        b"aaaabbbb",
        "the cache is right"
    );
    let lies = fs.lies();
    assert_eq!(lies.len(), 1);
    assert_eq!(lies[0].0, Path::new("/a.wal"));
    fs.power_cut(CutMode::DropUnsynced);
    assert_ne!(fs.read(Path::new("/a.wal")).unwrap(), b"aaaabbbb");
    assert_eq!(fs.read(Path::new("/a.blk")).unwrap(), b"aaaabbbb");
}

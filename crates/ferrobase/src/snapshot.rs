//! `ferrobase snapshot export` and `ferrobase snapshot import` (issue 47): a snapshot
//! (`docs/format/snapshot.md`) copied out of a data directory into a self-contained directory
//! with a SHA-256 list, and brought into another data directory as a snapshot that
//! `clone_snapshot` and `restore_snapshot` use.
//!
//! The exported directory: the snapshot's `MANIFEST` and `<region>/<file>.blk` as they lie in
//! `snapshots/<name>/`, a `SNAPSHOT` file (`name=`, `table=`, `files=`, `bytes=`) and, written
//! last, `CHECKSUMS` (`sha256sum`'s format: `sha256sum -c CHECKSUMS` verifies it). An export
//! reads only the snapshot's files, which never change, so it runs beside a server; an import
//! opens the target data directory (its lock: not while a server has it open).

use anyhow::{bail, Context, Result};
use ferrobase_engine::{Engine, EngineOptions};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

/// The checksum list of an exported snapshot, written last.
const CHECKSUMS: &str = "CHECKSUMS";
/// The description of an exported snapshot.
const DESCRIPTION: &str = "SNAPSHOT";

/// `ferrobase snapshot`'s commands.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum SnapshotCommand {
    /// Copy snapshot SNAPSHOT of a data directory (its manifest and block files) to OUTDIR,
    /// with a SHA-256 list (CHECKSUMS); runs beside a server.
    Export {
        /// The snapshot's name.
        snapshot: String,
        /// The data directory holding it.
        #[arg(long, value_name = "DIR", env = "FERROBASE_DATA")]
        data: PathBuf,
        /// The directory to write (absent or empty).
        #[arg(long, value_name = "OUTDIR")]
        to: PathBuf,
    },
    /// Bring an exported snapshot (INDIR) into a data directory, every checksum verified, as a
    /// snapshot clone_snapshot and restore_snapshot use; not while a server has it open.
    Import {
        /// The directory `snapshot export` wrote.
        dir: PathBuf,
        /// The data directory (created when absent).
        #[arg(long, value_name = "DIR", env = "FERROBASE_DATA")]
        data: PathBuf,
        /// The name to give it (default: its name when exported).
        #[arg(long = "as", value_name = "NAME")]
        name: Option<String>,
    },
}

/// `ferrobase snapshot ...`.
pub fn main(cmd: SnapshotCommand) -> Result<()> {
    match cmd {
        SnapshotCommand::Export { snapshot, data, to } => export(&snapshot, &data, &to),
        SnapshotCommand::Import { dir, data, name } => import(&dir, &data, name.as_deref()),
    }
}

/// Copies `from` to `to` (created), returning its SHA-256 in hex and its length; `to` synced.
fn copy_hashing(from: &Path, to: &Path) -> Result<(String, u64)> {
    let mut input =
        std::fs::File::open(from).with_context(|| format!("cannot read {}", from.display()))?;
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let mut output =
        std::fs::File::create_new(to).with_context(|| format!("cannot create {}", to.display()))?;
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    let mut buf = vec![0u8; 1 << 20];
    let mut len = 0u64;
    loop {
        let n = input
            .read(&mut buf)
            .with_context(|| format!("cannot read {}", from.display()))?;
        if n == 0 {
            break;
        }
        ctx.update(&buf[..n]);
        output
            .write_all(&buf[..n])
            .with_context(|| format!("cannot write {}", to.display()))?;
        len += n as u64;
    }
    output
        .sync_all()
        .with_context(|| format!("cannot sync {}", to.display()))?;
    Ok((hex(ctx.finish().as_ref()), len))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Syncs directory `dir` (its entries durable).
fn sync_dir(dir: &Path) -> Result<()> {
    std::fs::File::open(dir)
        .and_then(|f| f.sync_all())
        .with_context(|| format!("cannot sync directory {}", dir.display()))
}

/// Every directory from `root` down to each file's parent, deepest first.
fn dirs_of(root: &Path, files: &[PathBuf]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = files
        .iter()
        .filter_map(|f| f.parent())
        .filter(|p| !p.as_os_str().is_empty())
        .map(|p| root.join(p))
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs.reverse();
    dirs.push(root.to_path_buf());
    dirs
}

fn export(name: &str, data: &Path, to: &Path) -> Result<()> {
    ferrobase_engine::check_snapshot_name(name)?;
    let src = data.join("snapshots").join(name);
    if !src.join("MANIFEST").exists() {
        bail!("no snapshot named {name} in {}", data.display());
    }
    let fs = ferrobase_engine::fs::os();
    let (table, files) = ferrobase_engine::snapshot_dir_files(&*fs, &src)?;
    if to.exists() {
        let empty = std::fs::read_dir(to)
            .with_context(|| format!("{} is not a directory", to.display()))?
            .next()
            .is_none();
        if !empty {
            bail!(
                "{} exists and is not empty: export to a new directory",
                to.display()
            );
        }
    }
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    let mut sums = String::new();
    let mut bytes = 0u64;
    for rel in &files {
        let (sum, len) = copy_hashing(&src.join(rel), &to.join(rel))
            .with_context(|| format!("snapshot {name}: cannot export {}", rel.display()))?;
        sums.push_str(&format!("{sum}  {}\n", rel.display()));
        bytes += len;
        println!("exported {} ({len} bytes)", rel.display());
    }
    let description = format!(
        "name={name}\ntable={table}\nfiles={}\nbytes={bytes}\n",
        files.len()
    );
    let desc_path = to.join(DESCRIPTION);
    std::fs::write(&desc_path, &description)
        .and_then(|()| std::fs::File::open(&desc_path)?.sync_all())
        .with_context(|| format!("cannot write {}", desc_path.display()))?;
    sums.push_str(&format!(
        "{}  {DESCRIPTION}\n",
        hex(ring::digest::digest(&ring::digest::SHA256, description.as_bytes()).as_ref())
    ));
    for d in dirs_of(to, &files) {
        sync_dir(&d)?;
    }
    // CHECKSUMS last: its presence says the export is whole.
    let tmp = to.join(format!("{CHECKSUMS}.tmp"));
    std::fs::write(&tmp, &sums)
        .and_then(|()| std::fs::File::open(&tmp)?.sync_all())
        .and_then(|()| std::fs::rename(&tmp, to.join(CHECKSUMS)))
        .with_context(|| format!("cannot write {}", to.join(CHECKSUMS).display()))?;
    sync_dir(to)?;
    println!(
        "snapshot {name} (table {table}): {} files, {bytes} bytes exported to {} (CHECKSUMS: sha256sum -c)",
        files.len(),
        to.display()
    );
    Ok(())
}

/// A relative path inside the export (no `..`, not absolute).
fn inside(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(rel);
    p.components()
        .all(|c| matches!(c, Component::Normal(_)))
        .then_some(p)
}

fn import(dir: &Path, data: &Path, as_name: Option<&str>) -> Result<()> {
    let sums_path = dir.join(CHECKSUMS);
    let sums_text = std::fs::read_to_string(&sums_path).with_context(|| {
        format!(
            "{} has no readable {CHECKSUMS}: not a whole `ferrobase snapshot export`",
            dir.display()
        )
    })?;
    let mut sums: BTreeMap<PathBuf, String> = BTreeMap::new();
    for (i, line) in sums_text.lines().enumerate() {
        let parsed = line
            .split_once("  ")
            .filter(|(sum, _)| sum.len() == 64 && sum.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|(sum, rel)| Some((inside(rel)?, sum.to_ascii_lowercase())));
        let Some((rel, sum)) = parsed else {
            bail!(
                "{} line {}: not `SHA256  PATH`: {line:?}",
                sums_path.display(),
                i + 1
            );
        };
        sums.insert(rel, sum);
    }
    let description = std::fs::read_to_string(dir.join(DESCRIPTION))
        .with_context(|| format!("cannot read {}", dir.join(DESCRIPTION).display()))?;
    let exported_name = description
        .lines()
        .find_map(|l| l.strip_prefix("name="))
        .unwrap_or_default()
        .to_string();
    let name = as_name.unwrap_or(&exported_name);
    ferrobase_engine::check_snapshot_name(name)?;
    let fs = ferrobase_engine::fs::os();
    let (table, files) = ferrobase_engine::snapshot_dir_files(&*fs, dir)?;
    let mut expected: Vec<PathBuf> = files.clone();
    expected.push(PathBuf::from(DESCRIPTION));
    expected.sort();
    let listed: Vec<PathBuf> = sums.keys().cloned().collect();
    if listed != expected {
        bail!(
            "{}: lists {} files, the snapshot's manifest and {DESCRIPTION} make {}: not the export of this snapshot",
            sums_path.display(),
            listed.len(),
            expected.len()
        );
    }
    // The data directory's lock, held to the end: never beside a server.
    let engine = Engine::open(data, EngineOptions::default())
        .with_context(|| format!("cannot open data directory {}", data.display()))?;
    let result = import_into(dir, data, name, &files, &sums, &engine);
    engine.close();
    let (bytes, _) = result?;
    println!(
        "snapshot {name} (table {table}): {} files, {bytes} bytes imported into {}, every checksum verified; \
         clone_snapshot '{name}', 'TABLE' or restore_snapshot '{name}' use it",
        files.len(),
        data.display()
    );
    Ok(())
}

fn import_into(
    dir: &Path,
    data: &Path,
    name: &str,
    files: &[PathBuf],
    sums: &BTreeMap<PathBuf, String>,
    engine: &Engine,
) -> Result<(u64, ())> {
    match engine.admin().snapshot_info(name) {
        Ok(_) => bail!(
            "a snapshot named {name} exists in {}: import it --as another name, or delete_snapshot '{name}' first",
            data.display()
        ),
        Err(ferrobase_engine::Error::SnapshotNotFound(_)) => {}
        Err(e) => return Err(e.into()),
    }
    let root = data.join("snapshots");
    std::fs::create_dir_all(&root).with_context(|| format!("cannot create {}", root.display()))?;
    // Built aside as the engine builds a snapshot (`.tmp-<name>`, removed by the next open
    // when this stops short), then renamed into place.
    let tmp = root.join(format!(".tmp-{name}"));
    let _ = std::fs::remove_dir_all(&tmp);
    let copied = (|| -> Result<u64> {
        let mut bytes = 0u64;
        for rel in files {
            let (sum, len) = copy_hashing(&dir.join(rel), &tmp.join(rel))?;
            if sums.get(rel) != Some(&sum) {
                bail!(
                    "{}: SHA-256 {sum}, CHECKSUMS says {}: the export is damaged; nothing imported",
                    dir.join(rel).display(),
                    sums.get(rel).map_or("nothing", String::as_str)
                );
            }
            bytes += len;
            println!(
                "imported {} ({len} bytes, checksum verified)",
                rel.display()
            );
        }
        for d in dirs_of(&tmp, files) {
            sync_dir(&d)?;
        }
        Ok(bytes)
    })();
    let bytes = match copied {
        Ok(b) => b,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    std::fs::rename(&tmp, root.join(name))
        .with_context(|| format!("cannot rename {} into place", tmp.display()))?;
    sync_dir(&root)?;
    sync_dir(data)?;
    // Listed as the engine lists it.
    engine.admin().snapshot_info(name)?;
    Ok((bytes, ()))
}

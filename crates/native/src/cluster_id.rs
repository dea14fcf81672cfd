//! The cluster id a data directory answers with (HBase keeps its own in `hbase.id` under its
//! root directory): a random UUID written once, as text, to `hbase.id` in the data directory.

use std::io::{self, Read};
use std::path::Path;

/// The file holding the id.
pub const FILE: &str = "hbase.id";

/// The id of the data directory `dir`, created on first use.
pub fn load_or_create(dir: &Path) -> io::Result<String> {
    let path = dir.join(FILE);
    match std::fs::read_to_string(&path) {
        Ok(id) if is_uuid(id.trim()) => return Ok(id.trim().to_string()),
        Ok(other) => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{} does not hold a cluster id (a UUID): {:?}",
                    path.display(),
                    other.chars().take(64).collect::<String>()
                ),
            ))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let id = random_uuid()?;
    let tmp = dir.join(format!("{FILE}.tmp"));
    std::fs::write(&tmp, &id)?;
    std::fs::File::open(&tmp)?.sync_all()?;
    std::fs::rename(&tmp, &path)?;
    std::fs::File::open(dir)?.sync_all()?;
    Ok(id)
}

/// A version-4 UUID from the OS's random source.
fn random_uuid() -> io::Result<String> {
    let mut b = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut b)?;
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Ok(format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    ))
}

fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_made_once_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let a = load_or_create(dir.path()).unwrap();
        assert!(is_uuid(&a), "{a}");
        assert_eq!(load_or_create(dir.path()).unwrap(), a);
        std::fs::write(dir.path().join(FILE), "junk").unwrap();
        assert!(load_or_create(dir.path()).is_err());
    }
}

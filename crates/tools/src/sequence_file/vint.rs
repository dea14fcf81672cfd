//! Hadoop's variable-length integers (`org.apache.hadoop.io.WritableUtils.writeVLong` and
//! `readVLong`): the lengths of `Text` strings and of a block-compressed file's buffers
//! (docs/format/sequencefile.md, "Variable-length integers").
//!
//! A value in -112..=127 is one byte. Otherwise the first byte says the sign and how many
//! big-endian bytes follow (1 to 8): -113..=-120 for a positive value of 1..=8 bytes, -121..=-128
//! for a negative one, stored as its one's complement.

/// Appends `v` in Hadoop's variable-length form.
pub fn write_vlong(out: &mut Vec<u8>, v: i64) {
    if (-112..=127).contains(&v) {
        out.push(v as u8);
        return;
    }
    let (mut marker, magnitude) = if v < 0 { (-120i32, !v) } else { (-112i32, v) };
    let bytes = 8 - (magnitude.leading_zeros() as usize) / 8;
    marker -= bytes as i32;
    out.push(marker as i8 as u8);
    for i in (0..bytes).rev() {
        out.push((magnitude >> (i * 8)) as u8);
    }
}

/// The number of bytes (first byte included) of the variable-length integer whose first byte is
/// `first`.
pub fn vlong_size(first: u8) -> usize {
    let b = first as i8;
    if b >= -112 {
        1
    } else if b < -120 {
        (-119 - i32::from(b)) as usize
    } else {
        (-111 - i32::from(b)) as usize
    }
}

/// Decodes a variable-length integer from the start of `bytes`: its value and its length, or
/// `None` when `bytes` ends inside it.
pub fn read_vlong(bytes: &[u8]) -> Option<(i64, usize)> {
    let first = *bytes.first()?;
    let len = vlong_size(first);
    if len == 1 {
        return Some((i64::from(first as i8), 1));
    }
    let tail = bytes.get(1..len)?;
    let magnitude = tail.iter().fold(0i64, |acc, &b| (acc << 8) | i64::from(b));
    let b = first as i8;
    let negative = b < -120 || (-112..0).contains(&b);
    Some((if negative { !magnitude } else { magnitude }, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_width() {
        let mut values = vec![0, 1, -1, 127, -112, 128, -113, 255, 256, -256, -257];
        for shift in 0..63 {
            values.push(1i64 << shift);
            values.push(-(1i64 << shift));
            values.push((1i64 << shift) - 1);
        }
        values.extend([i64::MAX, i64::MIN]);
        for v in values {
            let mut out = Vec::new();
            write_vlong(&mut out, v);
            assert_eq!(vlong_size(out[0]), out.len(), "{v}");
            assert_eq!(read_vlong(&out), Some((v, out.len())), "{v}");
            assert_eq!(
                read_vlong(&out[..out.len() - 1]),
                None.filter(|_| out.len() == 1)
            );
        }
    }

    #[test]
    fn matches_hadoop_bytes() {
        // WritableUtils.writeVInt(out, 300) writes 0x8e 0x01 0x2c; -300: 0x86 0x01 0x2b.
        let mut out = Vec::new();
        write_vlong(&mut out, 300);
        write_vlong(&mut out, -300);
        write_vlong(&mut out, 5);
        assert_eq!(out, [0x8e, 0x01, 0x2c, 0x86, 0x01, 0x2b, 0x05]);
    }
}

//! The decoders of a block file's own sections never panic and allocate in proportion to their
//! input: the trailer (as read, and with a valid magic and checksum so the version and section
//! handles are reached), the block index section and the meta section (their raw bytes, as
//! they are once the section's frame has been checked).
#![no_main]

#[path = "../harness/block_file_sections.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness::run(data));

//! The process's open-file limit: a server holds a descriptor per connection and, up to the
//! engine's handle cache (`EngineOptions::max_open_files`), per block file, so it raises its
//! soft `RLIMIT_NOFILE` to the hard limit at start, as HBase's and most servers' start scripts
//! do with `ulimit -n`.

/// Raises the soft `RLIMIT_NOFILE` to the hard limit and logs the outcome; returns the soft
/// limit in force afterwards. A failure is logged and leaves the limit as it was.
pub fn raise_nofile_limit() -> u64 {
    let (soft, hard) = match rlimit::Resource::NOFILE.get() {
        Ok(l) => l,
        Err(e) => {
            tracing::warn!("could not read the open-file limit (RLIMIT_NOFILE): {e}");
            return 1024;
        }
    };
    if soft >= hard {
        tracing::info!(
            soft,
            hard,
            "open-file limit (RLIMIT_NOFILE) {soft}, the hard limit"
        );
        return soft;
    }
    match rlimit::increase_nofile_limit(hard) {
        Ok(now) => {
            tracing::info!(
                from = soft,
                to = now,
                hard,
                "raised the open-file limit (RLIMIT_NOFILE) from {soft} to {now}"
            );
            now
        }
        Err(e) => {
            tracing::warn!(
                soft,
                hard,
                "could not raise the open-file limit (RLIMIT_NOFILE) from {soft} to {hard}: {e}"
            );
            soft
        }
    }
}

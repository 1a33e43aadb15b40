//! `--quick` on a machine whose memory is full of other programs' page
//! cache (a laptop after a day's work, a machine running builds): every page
//! a run then reads or writes must first be taken back from that cache, and
//! the taking (reclaim, and compaction for the large folios reads now use)
//! is charged to the run's own tasks. Under one other build, on a machine
//! with 200 MB of its 24 GB free, ext4 large-read took 0.50-0.65 s with
//! 0.1 s of system time in some runs and 0.93-1.10 s with 0.5-0.6 s in
//! others, with no wait for a CPU. So before a timed
//! run fsfit drops the clean page cache (as `--dir` already does before its
//! cold phases) when the free memory is short of what the run will fill,
//! untimed, and says so on the run (`made_room`). Dirty pages and other
//! programs' memory are left alone; what they lose is cache they reread.

/// Free memory (MemFree of /proc/meminfo), in bytes.
pub fn mem_free() -> Option<u64> {
    parse_mem_free(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

pub fn parse_mem_free(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemFree:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Free memory a run of a workload needing `bytes` of space wants: its
/// data twice (a FUSE driver caches it once for the file and once for the
/// device it reads) and a margin for the metadata and the rest of the
/// machine.
pub fn needed(bytes: u64) -> u64 {
    bytes.saturating_mul(2).saturating_add(256 << 20)
}

/// Whether the cache is to be dropped before a run that wants `need`
/// bytes free: only when the free memory is known and short of it.
pub fn short_of(free: Option<u64>, need: u64) -> bool {
    free.is_some_and(|f| f < need)
}

/// Drop the clean page cache when the free memory is short of `need`;
/// whether it was dropped (false when there was room, or not root).
pub fn make(need: u64) -> bool {
    short_of(mem_free(), need) && super::cache::drop_clean(super::cache::Caches::Page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_is_made_only_when_free_memory_is_short_of_the_run() {
        let text = "MemTotal:       24684000 kB\nMemFree:          200000 kB\n";
        let free = parse_mem_free(text);
        assert_eq!(free, Some(200_000 * 1024));
        // A 1.4 GB read wants about 3 GB free: 200 MB is short of it.
        let need = needed(1_400_000_000);
        assert!(need > 2_800_000_000 && need < 3_200_000_000, "{need}");
        assert!(short_of(free, need));
        // With 20 GB free nothing is dropped, nor when MemFree is unknown.
        assert!(!short_of(Some(20 << 30), need));
        assert!(!short_of(None, need));
        assert_eq!(parse_mem_free("MemTotal: 1 kB\n"), None);
    }
}

//! Command-line definitions (clap) and nothing else: values are parsed here
//! (sizes, filesystem specs), checked against each other in src/cmd/.

use crate::fs::FsSpec;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// A size such as 64G (GiB), 64GB (10^9), 512M, 4096.
pub fn size(s: &str) -> crate::Result<u64> {
    crate::units::parse_size(s)
}

/// A time budget (`90s`, `10m`, `1h30m`): at least 30 s, one short pass of
/// one config.
pub fn budget(s: &str) -> crate::Result<std::time::Duration> {
    let d = crate::units::parse_duration(s)?;
    if d < std::time::Duration::from_secs(30) {
        return Err(crate::Error::input(format!(
            "'{s}' is too short (give at least 30s: one short pass of one config)"
        )));
    }
    Ok(d)
}

/// The size of a volume to plan, at least 1 MiB: a size (`64GB`, `64g`),
/// or a block device or image file whose capacity is read (read-only).
pub fn volume_size(s: &str) -> crate::Result<u64> {
    let looks_like_path = s.contains('/') || std::path::Path::new(s).exists();
    let n = match size(s) {
        Ok(n) => n,
        Err(_) if looks_like_path => crate::units::capacity_of(std::path::Path::new(s))?,
        Err(e) => return Err(e),
    };
    if n < 1 << 20 {
        return Err(crate::Error::input("too small to plan (at least 1M)"));
    }
    Ok(n)
}

/// `exfat`, `exfat:4K,32K`, `fat32:default`.
pub fn fs_spec(s: &str) -> crate::Result<FsSpec> {
    crate::fs::spec::parse_fs_spec(s)
}

/// The tree to walk (usage, advise).
#[derive(Args, Debug)]
pub struct TreeArgs {
    /// Files or directories to measure [default: .]
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Walker threads [default: one per core].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,
}

/// The volume being planned (usage, advise).
#[derive(Args, Debug)]
pub struct VolumeArgs {
    /// Size of the volume being planned: 64GB (10^9), 64G (GiB), 1.5T,
    /// 512M, ...; or a drive or image file (DEV|IMAGE) whose size is read,
    /// read-only [default: 64G, said as assumed in the output]
    #[arg(long, value_name = "SIZE|DEV|IMAGE", allow_hyphen_values = true, value_parser = volume_size)]
    pub volume: Option<u64>,
}

impl VolumeArgs {
    /// The volume's bytes, and whether they were assumed (no --volume).
    pub fn bytes(&self) -> (u64, bool) {
        match self.volume {
            Some(v) => (v, false),
            None => (crate::usage::ASSUMED_VOLUME, true),
        }
    }
}

#[derive(Parser, Debug)]
#[command(
    name = "fsfit",
    version,
    about = "Which filesystem and cluster size should this drive get, for my data?",
    long_about = "fsfit answers with measurements, not folklore.\n\n\
  fsfit advise ~/Music --for car --volume 32GB       which filesystem and cluster, with reasons\n\
  fsfit advise ~/Photos --for windows,macos --volume /dev/sdb   the size read from the drive\n\
  fsfit usage ~/Photos            size on disk of your data on every filesystem x cluster size\n\
  fsfit usage --fs exfat:4K,128K  just two exFAT configs\n\
  fsfit usage --volume 64GB --json   machine-readable, for a 64 GB (decimal) stick\n\
  fsfit info /dev/sdb             what is on a drive now\n\
  fsfit bench --quick             measure real drivers on a temporary image\n\n\
Man pages: fsfit man --dir /usr/local/share/man/man1, then man fsfit-advise",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Command,

    /// No progress display on stderr (warnings and errors still show).
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Exact size on disk of a real tree on every filesystem x cluster size.
    #[command(
        long_about = "Walks PATH once and computes, for each filesystem and cluster size, \
how much of a fresh volume's free space a copy of the tree would take (`cp -r`), \
how much of it is slack (unused cluster tails) and metadata, whether it fits, \
and which files could not be stored as they are.\n\n\
One directory's contents land in the volume's root; several paths land as \
folders of the root. Symlinks below PATH are not followed; other mounted \
filesystems are not entered unless --cross-mounts.\n\n\
Exit status: 0 done, 1 failed while working, 2 bad arguments or unreadable PATH."
    )]
    #[command(display_order = 2)]
    Usage(UsageArgs),
    /// Format, mount and measure filesystem x cluster-size configs.
    #[command(
        long_about = "Formats an image file (default: a temporary one under $TMPDIR) or a \
real drive with each filesystem x cluster size, mounts it with a real driver (the kernel's, \
else FUSE), runs the workloads people run (fsfit bench --list) and reports figures a skeptic \
can check: writes end durable inside the timing, reads start cold after a remount, the block \
device's own counters are read around every phase (flags: cache-suspect, write-not-durable, \
high-cv), repeats give medians and spread.\n\n\
  fsfit bench --quick                       every filesystem this host mounts, small scale, temporary image\n\
  fsfit bench --image /media/stick/t.img --size 8G --fs exfat:4K,128K --fs ntfs\n\
  fsfit bench --device /dev/sdb --yes-erase /dev/sdb --json sdb.json\n\
  fsfit bench --dir /mnt/usb --workloads small-write,small-read\n\n\
Exit status: 0 done (some configs may have failed: see the table), 1 failed, 2 bad arguments, \
130 interrupted (everything fsfit mounted is unmounted first)."
    )]
    #[command(display_order = 4)]
    Bench(BenchArgs),
    /// Unmount and detach what a killed fsfit run left behind (state in /run/fsfit).
    #[command(display_order = 7)]
    Cleanup,
    /// Recommend a filesystem and cluster size for your data, with reasons.
    #[command(
        long_about = "Walks PATH (as `fsfit usage` does), keeps the filesystem x cluster \
configs that every system named by --for can use (car: FAT on MBR; camera: by SD card class) \
and that store the tree, and ranks them: robustness first (journaled or copy-on-write, then \
NTFS, exFAT, FAT), then within --max-overhead, then write speed against wasted space. Speed \
is measured on the drive itself with --device (or --image), inside --budget: a short pass \
on every config that can still win, longer passes on the faster half; or read from --bench \
results; else assumed from an explicit prior (flash writes clusters under 4K slower), and \
the output says which figures are measured and which assumed. Prints the choice, the \
runner-up, why, the trade-offs in numbers, and the commands to format it on Linux, Windows \
and macOS.\n\n\
  fsfit advise ~/Photos --for windows,macos --volume 64GB\n\
  sudo fsfit advise ~/Photos --for windows,macos --device /dev/sdb --yes-erase /dev/sdb --budget 10m\n\
  sudo fsfit advise ~/Music --for car --image /tmp/try.img --size 8G --json advice.json\n\
  fsfit advise ~/Music --for car --bench stick.json"
    )]
    #[command(display_order = 1)]
    Advise(AdviseArgs),
    /// What is on a drive now: filesystem, cluster size, label, free space,
    /// partition alignment; fragmentation of a mounted path.
    #[command(
        long_about = "Reads the boot sector or superblock of a block device or image file \
(FAT12/16/32, exFAT, NTFS, ext2/3/4, UDF, btrfs, XFS, F2FS), lists MBR/GPT partitions with their \
alignment to 1 MiB and 4 MiB (flash erase blocks), or, for a mounted path, statvfs plus the \
on-disk details of its device and how fragmented its files are (FIEMAP, where the driver \
answers it). Read-only.\n\n\
  fsfit info /dev/sdb\n\
  fsfit info stick.img --json\n\
  fsfit info /media/me/STICK"
    )]
    #[command(display_order = 3)]
    Info(InfoArgs),
    /// Charts and a self-contained HTML page from bench, usage, advise and crash results.
    #[command(
        long_about = "Reads results of `fsfit bench --json` (fsfit.bench/1) and `fsfit usage --json` \
(fsfit.usage/1), any mix and any number, and writes one HTML file that needs nothing else to \
be read or printed: charts drawn as inline SVG (throughput per workload with the spread of the \
runs, speed relative to the baseline, cluster-size sweeps, write amplification, fragmented \
against contiguous, size on disk and wasted space), tables with medians, spread and flags, the \
compatibility findings, and the environment of every run. Two bench files of the same configs \
are also compared side by side.\n\n\
  fsfit report stick.json usage.json -o report.html\n\
  fsfit report before.json after.json -o compare.html --png charts/\n\n\
Exit status: 0 done, 1 could not write, 2 bad arguments or a file that is not fsfit results."
    )]
    #[command(display_order = 5)]
    Report(ReportArgs),
    /// What survives pulling the drive out mid-write, per filesystem and driver.
    #[command(
        long_about = "Records every write and flush a filesystem sends to its device while a workload runs (through fsfit's own FUSE write recorder under a loop device), then builds every crash state a drive could be left in (the image at each flush, plus random subsets of the writes since the last flush), runs the filesystem's checker read-only, mounts it read-only, compares it with what the workload had made durable, and repairs a copy. Images only, never a real device.\n\n  fsfit crash --fs ext4 --quick\n  fsfit crash --fs exfat --driver fuse --workloads save --json exfat.json\n  fsfit crash --fs ext4 --device-model lying --seed 7\n  fsfit crash --fs exfat --device-model flash-gc --flash usb2-stick\n  fsfit crash --fs ext4 --device-model no-flush --cache 512K\n  fsfit crash --replay RUN_DIR --state e12-r3 -o x.img\n\nExit status: 0 done (some configs may have failed: see the table), 1 failed, 2 bad arguments, 130 interrupted (everything fsfit mounted is released first)."
    )]
    #[command(display_order = 6)]
    Crash(CrashArgs),
    /// Prepare a drive: partition table, alignment, SD layout, mkfs, verification.
    #[command(
        long_about = "Erases TARGET and makes one filesystem on it as the advice says: \
wipes old signatures (wipefs), writes one partition (sfdisk; MBR by default, GPT with --table \
gpt, none for UDF) starting on the alignment (4 MiB, or the SD boundary unit with --align \
auto or --sd) with the type each system expects, aligns the data area too (FAT reserved \
sectors, exFAT boundary), runs mkfs with a checked label, then checks the result with fsfit \
info, the filesystem's checker (read-only) and blkid. The plan, with the exact commands, is \
printed first. TARGET is a block device (confirm with --yes-erase TARGET; mounted, system and \
fixed disks are refused) or an image file (new, empty or made by fsfit). --check-capacity \
first checks that the drive stores what it claims (counterfeit sticks wrap around), writing \
test blocks over it.\n\n\
  sudo fsfit format /dev/sdb --fs exfat --label STICK --yes-erase /dev/sdb\n\
  sudo fsfit format /dev/mmcblk0 --sd --yes-erase /dev/mmcblk0\n\
  sudo fsfit format card.img --size 16G --sd --json card.json\n\
  fsfit format /dev/sdb --fs ext4 --dry-run      the plan only\n\n\
Exit status: 0 formatted and verified, 1 failed or a check disagrees, 2 bad arguments or \
refused, 130 interrupted (the message says which step)."
    )]
    Format(FormatArgs),
    /// Estimate a stick's or card's flash geometry (AU and page size) by
    /// reading only: safe on a drive that holds data.
    #[command(
        long_about = "Times small reads just before, across and just after every power-of-two \
boundary of DEV (the read-boundary test of flashbench -a, done by fsfit itself), and reads what \
sysfs knows (preferred_erase_size on SD hosts, optimal_io_size, minimum_io_size, \
discard_granularity, rotational, removable, max_sectors_kb). A read across a flash page or \
allocation unit (AU) takes longer: the steps give the page and AU sizes, with a confidence \
(high, low, none), and the closest flash profile (a class of device, not your stick).\n\n\
It only reads: DEV is opened O_RDONLY|O_DIRECT, never for writing. A plain disk, an image file \
or a loop device has no such steps: the probe then says confidence none and reports no AU \
(0); it never invents one. Many sticks hide their geometry too.\n\n\
  sudo fsfit probe /dev/sdb\n\
  sudo fsfit probe /dev/mmcblk0 --json\n\n\
Exit status: 0 done (even when nothing was found), 1 could not read, 2 bad arguments."
    )]
    Probe(ProbeArgs),
    /// Serve an image file as a slow flash device (a profile's model), under
    /// a loop device, until Ctrl-C.
    #[command(
        long_about = "Serves IMAGE through fsfit's own FUSE filesystem under a loop device, every \
request delayed by the service time the flash PROFILE's model gives it (open AUs, AU copies, \
page rounding, read latency, and reads across page and AU boundaries), so that fsfit bench \
--device, fsfit probe, fio or dd run against a simulated stick. Prints the loop device and \
serves until Ctrl-C (or SIGTERM), then detaches and unmounts everything it set up. IMAGE is \
created sparse with --size if it does not exist. Timings measured on it are simulated (the \
profile's), not any real device's.\n\n\
  sudo fsfit emulate usb2-stick /tmp/stick.img --size 1G\n\
  sudo dd if=/dev/zero of=/dev/loop7 bs=4M count=8 oflag=direct\n\
  sudo fsfit probe /dev/loop7\n\n\
Profiles: fsfit bench --list-profiles. Exit status: 0 stopped, 1 failed, 2 bad arguments."
    )]
    Emulate(EmulateArgs),
    /// Print a shell completion script: bash, zsh, fish, elvish or powershell.
    #[command(
        long_about = "Prints a completion script for SHELL, generated from fsfit's own \
argument definitions.\n\n\
  fsfit completions bash > /etc/bash_completion.d/fsfit\n\
  fsfit completions zsh > \"${fpath[1]}/_fsfit\"\n\
  fsfit completions fish > ~/.config/fish/completions/fsfit.fish"
    )]
    #[command(display_order = 8)]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print or install the man pages (roff): fsfit(1) and one per subcommand.
    #[command(
        long_about = "Prints fsfit(1), or with COMMAND fsfit-COMMAND(1), in roff; \
with --dir writes every page (fsfit.1, fsfit-usage.1, fsfit-advise.1, ...) into DIR.\n\n  \
fsfit man | man -l -\n  \
fsfit man advise | man -l -\n  \
sudo fsfit man --dir /usr/local/share/man/man1   (then: man fsfit-usage)"
    )]
    #[command(display_order = 9)]
    Man(ManArgs),
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// The subcommand whose page to print (usage, advise, info, ...).
    #[arg(value_name = "COMMAND", conflicts_with = "dir")]
    pub command: Option<String>,

    /// Write every page into this folder (e.g. /usr/local/share/man/man1).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct CrashArgs {
    /// Configs: `ext4`, `exfat:4K,32K`, repeatable [default: ext4].
    #[arg(long = "fs", value_name = "FS[:CLUSTER,...]", conflicts_with = "replay", value_parser = fs_spec)]
    pub fs: Vec<FsSpec>,

    /// Which driver mounts each filesystem.
    ///
    /// auto: this kernel's driver where it has one, else FUSE; but FAT
    /// without a kernel vfat is skipped, naming the lab command that runs it
    /// (`scripts/lab/uml -- fsfit crash --fs fat32 --driver kernel`), since
    /// fusefat writes nothing until unmount: `fuse` asks for it anyway.
    #[arg(long, value_enum, default_value = "auto")]
    pub driver: crate::fs::drivers::Choice,

    /// Mount options for the run (`sync`, `flush`, `dirsync`, `data=journal`, ...).
    #[arg(long, value_name = "OPTS", default_value = "")]
    pub mount_options: String,

    /// Workloads, comma-separated: copy, save, append, reorganize [default: all].
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub workloads: Vec<String>,

    /// Random crash states inside each flush epoch [default: 4, 2 with --quick].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub states: Option<u64>,

    /// honest: the device keeps its flush promises; lying: it ignores most
    /// flushes; torn: the write in flight persists in part (sectors, or
    /// flash pages with --flash); no-flush: the host sends no flush
    /// (write-through USB stick, see --cache); flash-gc: a cut during an
    /// allocation unit's copy loses its pages not yet copied, old data too.
    #[arg(long, value_enum, default_value = "honest")]
    pub device_model: DeviceModel,

    /// no-flush: the stick's write cache; any subset of the last SIZE of
    /// writes may be lost at the cut [default: 1M].
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub cache: Option<u64>,

    /// The flash profile (`fsfit bench --list-profiles`) whose geometry
    /// flash-gc uses (allocation unit, page) and torn tears at (pages)
    /// [default for flash-gc: usb2-stick, 4 MiB AU, 16 KiB pages].
    #[arg(long, value_name = "PROFILE")]
    pub flash: Option<String>,

    /// The fewest crash states per filesystem and workload: more are made
    /// inside flush epochs when flushes are rare [default: 40].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100000))]
    pub min_states: Option<u64>,

    /// Seed for the workloads' data and the random states (same seed, same states).
    #[arg(long, default_value = "1")]
    pub seed: u64,

    /// States checked at once [default: the number of CPUs].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=256))]
    pub jobs: Option<u64>,

    /// Smaller workloads, fewer states.
    #[arg(long)]
    pub quick: bool,

    /// Keep logs, base images and state lists here, for --replay
    /// [default: /var/tmp/fsfit-crash-DATE-PID].
    #[arg(long, value_name = "DIR")]
    pub run_dir: Option<PathBuf>,

    /// Write the fsfit.crash/1 results here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write the HTML report with the survival chart here.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,

    /// Rebuild a state of this run directory (see the replay commands in the table).
    #[arg(long, value_name = "RUN_DIR", requires_all = ["state", "output"])]
    pub replay: Option<PathBuf>,

    /// The state to rebuild, e.g. e12-r3.
    #[arg(long, value_name = "ID", requires = "replay")]
    pub state: Option<String>,

    /// Where to write the rebuilt image.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "IMAGE",
        requires = "replay"
    )]
    pub output: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DeviceModel {
    Honest,
    Lying,
    Torn,
    NoFlush,
    FlashGc,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Results files: fsfit bench, usage, advise or crash --json (fsfit.bench/1, fsfit.usage/1, fsfit.advise/1, fsfit.crash/1).
    #[arg(value_name = "FILE.json", required = true)]
    pub files: Vec<PathBuf>,

    /// The HTML file to write (atomically).
    #[arg(short, long, value_name = "FILE.html")]
    pub output: PathBuf,

    /// Also write every chart as SVG and PNG files into DIR.
    #[arg(long, value_name = "DIR")]
    pub png: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct AdviseArgs {
    #[command(flatten)]
    pub tree: TreeArgs,

    /// Measure the candidates on this drive: EVERYTHING ON IT IS ERASED.
    #[arg(long, value_name = "DEV", conflicts_with_all = ["image", "bench", "volume"])]
    pub device: Option<String>,

    /// Confirms --device (or --format): must name the same device.
    #[arg(long, value_name = "DEV")]
    pub yes_erase: Option<String>,

    /// Allow a non-removable (internal) disk with --device or --format.
    #[arg(long)]
    pub allow_fixed: bool,

    /// Format this drive with the choice (as `fsfit format` does: aligned
    /// partition, checked label, verified): EVERYTHING ON IT IS ERASED.
    #[arg(long, value_name = "DEV")]
    pub format: Option<PathBuf>,

    /// Measure the candidates on this image file (created sparse if missing).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["bench", "volume"])]
    pub image: Option<PathBuf>,

    /// Size of the --image [default: its size, or 4G for a new one].
    #[arg(long, value_name = "SIZE", requires = "image", value_parser = size)]
    pub size: Option<u64>,

    /// Format the --image even if fsfit did not make it (as bench's flag).
    #[arg(long, requires = "image")]
    pub overwrite_image: bool,

    /// Time for measuring with --device or --image: 90s, 10m, 1h [default: 10m].
    #[arg(long, value_name = "TIME", value_parser = budget)]
    pub budget: Option<std::time::Duration>,

    /// Results of `fsfit bench --json` on the drive, to rank by speed.
    #[arg(long, value_name = "FILE.json")]
    pub bench: Option<PathBuf>,

    /// Without a measurement, rank by the speed simulated on this flash
    /// profile (see fsfit bench --list-profiles) [default: chosen from
    /// --volume and --for, and said].
    #[arg(long, value_name = "PROFILE", conflicts_with_all = ["device", "image", "bench"])]
    pub drive: Option<String>,

    /// Results of `fsfit crash --json` (repeatable): configs whose crash
    /// states damaged durable or older files rank after clean ones.
    #[arg(long, value_name = "FILE.json")]
    pub crash: Vec<PathBuf>,

    /// Systems that must use the drive: windows, macos, linux, android,
    /// camera (by SD class: the volume size decides), tv, car (FAT only),
    /// car-exfat, switch, playstation, xbox, console (comma-separated).
    #[arg(long = "for", value_name = "SYSTEM,...", value_delimiter = ',')]
    pub systems: Vec<String>,

    // With --device or --image the volume is the target's size.
    #[command(flatten)]
    pub volume: VolumeArgs,

    /// How much data like PATH the volume will hold, to weigh waste against
    /// speed [default: as much as fills it].
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub fill: Option<u64>,

    /// Most space overhead (size on disk over apparent size) to accept, in %.
    #[arg(long, value_name = "PCT", default_value = "10")]
    pub max_overhead: f64,

    /// Count the `._NAME` file macOS's Finder adds beside every file on
    /// FAT and exFAT (as usage --appledouble).
    #[arg(long)]
    pub appledouble: bool,

    /// Label used in the printed format commands.
    #[arg(long, default_value = "DATA")]
    pub label: String,

    /// Write the fsfit.advise/1 JSON (with its measurements) to FILE,
    /// atomically; `-` prints it instead of the text.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Benchmark on this image file (created sparse if missing).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["device", "dir"])]
    pub image: Option<PathBuf>,

    /// Format --image even though it is a file fsfit did not make (without
    /// it, an existing file is used only if it is empty or fsfit's own).
    #[arg(long, requires = "image")]
    pub overwrite_image: bool,

    /// Size of the image [default: 4G, more if the workloads need it].
    #[arg(long, value_name = "SIZE", conflicts_with_all = ["device", "dir"], value_parser = size)]
    pub size: Option<u64>,

    /// Benchmark on this drive or partition: EVERYTHING ON IT IS ERASED.
    #[arg(long, value_name = "DEV", conflicts_with = "dir")]
    pub device: Option<String>,

    /// Confirms --device: must name the same device.
    #[arg(long, value_name = "DEV", requires = "device")]
    pub yes_erase: Option<String>,

    /// Allow a non-removable (internal) disk with --device.
    #[arg(long, requires = "device")]
    pub allow_fixed: bool,

    /// Run in an already-mounted directory, without formatting.
    #[arg(long, value_name = "PATH")]
    pub dir: Option<PathBuf>,

    /// Configs: `exfat`, `exfat:4K,32K`, repeatable [default: every filesystem
    /// this host can format and mount, plus exFAT at 4K, 32K, 128K and 1M].
    #[arg(long = "fs", value_name = "FS[:CLUSTER,...]", value_parser = fs_spec)]
    pub fs: Vec<FsSpec>,

    /// Which driver mounts each filesystem.
    #[arg(long, value_enum, default_value = "auto")]
    pub driver: crate::fs::drivers::Choice,

    /// Workloads to run, comma-separated [default: all; see --list].
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    pub workloads: Vec<String>,

    /// Multiply file counts and sizes (1 = the documents' sizes).
    #[arg(long, value_name = "F", default_value = "1", conflicts_with = "quick")]
    pub scale: f64,

    /// A small scale, each workload grown until one run takes --min-time
    /// (0.5 s), as far as the volume allows (with --flash: not grown, the
    /// simulated runs last seconds already).
    #[arg(long)]
    pub quick: bool,

    /// Grow each workload until one run takes at least this many seconds,
    /// as far as the volume allows [default: 0.5 with --quick and no
    /// --flash, else 0: sized by --scale alone].
    #[arg(long, value_name = "SECONDS", value_parser = min_time)]
    pub min_time: Option<f64>,

    /// Runs per workload (median, min, max, CV).
    #[arg(long, value_name = "N", default_value = "3", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,

    /// The config relative figures compare with (`fat32` or `exfat:32K`) [default: the first].
    #[arg(long, value_name = "FS[:CLUSTER]")]
    pub baseline: Option<String>,

    /// Write the fsfit.bench/1 JSON results to FILE (atomically); with
    /// --list-profiles and no FILE, print the profiles as JSON.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub json: Option<PathBuf>,

    /// Also write an HTML report with charts of this run (see fsfit report).
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,

    /// Print every workload's definition at the chosen scale and exit.
    #[arg(long)]
    pub list: bool,

    /// Also give each workload's simulated speed on these flash profiles
    /// (a class of stick or card each): every run's block requests are
    /// traced and replayed through the model. The table then shows the
    /// simulated figures; the host's stay in the JSON. See --list-profiles.
    #[arg(long, value_name = "PROFILE,...", conflicts_with = "dir")]
    pub flash: Option<String>,

    /// Where the simulated volume starts on the flash: alignment matters
    /// (default 1M, where fdisk puts the first partition).
    #[arg(long, value_name = "SIZE", requires = "flash", value_parser = size)]
    pub partition_offset: Option<u64>,

    /// Print the flash profiles, each parameter with the public measurement
    /// it comes from, and exit (with --json: as JSON).
    #[arg(long)]
    pub list_profiles: bool,
}

fn min_time(s: &str) -> crate::Result<f64> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=3600.0).contains(&v) => Ok(v),
        _ => Err(crate::Error::input("give seconds, 0 to 3600")),
    }
}

#[derive(Args, Debug)]
pub struct UsageArgs {
    #[command(flatten)]
    pub tree: TreeArgs,

    /// A filesystem, optionally with cluster sizes: `exfat`, `exfat:4K,32K`,
    /// `fat32:default`. Repeatable. Filesystems: fat12 fat16 fat32 exfat ntfs
    /// ext4 udf btrfs xfs f2fs. Without it: every filesystem at its default
    /// cluster plus the sweep that matters for it.
    #[arg(long = "fs", value_name = "FS[:CLUSTER,...]", value_parser = fs_spec)]
    pub fs: Vec<FsSpec>,

    #[command(flatten)]
    pub volume: VolumeArgs,

    /// Which driver writes the copy, where drivers lay a tree out
    /// differently (NTFS: kernel ntfs3, FUSE ntfs-3g, windows ntfs.sys)
    /// [default: the one this host would mount with]
    #[arg(long, value_enum)]
    pub driver: Option<UsageDriver>,

    /// Print the fsfit.usage/1 JSON object.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,

    /// Print one CSV row per config.
    #[arg(long)]
    pub csv: bool,

    /// Also descend into other filesystems mounted below PATH.
    #[arg(long)]
    pub cross_mounts: bool,

    /// Also write an HTML report with charts of this run (see fsfit report).
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,

    /// Read the tree from a listing instead of walking PATH: find's
    /// `-printf '%y %s %T@ %P\0'`, `rclone lsjson -R`, `ncdu -o`, an S3
    /// Inventory CSV or `path,size` CSV; gzip or not; `-` for stdin. It must
    /// be in tree order (as find, ncdu and S3 write it, or sorted by path).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["paths", "cross_mounts"])]
    pub manifest: Option<PathBuf>,

    /// List the N folders (with what is below them) that waste the most
    /// at the first --fs config: slack and metadata, as ncdu lists size.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10000))]
    pub top: Option<u64>,

    /// Count the `._NAME` file macOS's Finder adds beside every file on
    /// FAT and exFAT (its extended attributes, 4 KiB: a whole cluster each).
    #[arg(long)]
    pub appledouble: bool,

    /// Print overhead as a matrix: a row per filesystem, a column per
    /// cluster size, instead of a row per config.
    #[arg(long, conflicts_with_all = ["json", "csv"])]
    pub matrix: bool,

    /// The manifest's format [default: recognised from its first lines].
    #[arg(long, value_name = "FORMAT", requires = "manifest")]
    pub format: Option<crate::manifest::Format>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum UsageDriver {
    Kernel,
    Fuse,
    /// Windows' own drivers (NTFS, exFAT, FAT), modelled from Microsoft's
    /// specifications; the default of the Windows build.
    Windows,
}

impl From<UsageDriver> for crate::fs::DriverKind {
    fn from(d: UsageDriver) -> Self {
        match d {
            UsageDriver::Kernel => crate::fs::DriverKind::Kernel,
            UsageDriver::Fuse => crate::fs::DriverKind::Fuse,
            UsageDriver::Windows => crate::fs::DriverKind::Windows,
        }
    }
}

#[derive(Args, Debug)]
pub struct FormatArgs {
    /// A block device or an image file. EVERYTHING ON IT IS ERASED.
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,

    /// Filesystem and cluster: exfat, exfat:128K, fat32:32K, ext4, ...
    /// [default with --sd: the SD specification's for the capacity].
    #[arg(long, value_name = "FS[:CLUSTER]")]
    pub fs: Option<String>,

    /// Volume label, checked against the filesystem's rules.
    #[arg(long, value_name = "L")]
    pub label: Option<String>,

    /// Partition table [default: mbr; none for UDF].
    #[arg(long, value_enum)]
    pub table: Option<FormatTable>,

    /// Alignment of the partition start and the data area: a size (4M,
    /// 16M) or auto (the SD boundary unit for the capacity) [default: 4M].
    #[arg(long, value_name = "SIZE|auto")]
    pub align: Option<String>,

    /// The SD Association's layout for the capacity (filesystem, cluster,
    /// boundary unit).
    #[arg(long)]
    pub sd: bool,

    /// Check that the drive stores what it claims before formatting
    /// (writes over the whole drive).
    #[arg(long)]
    pub check_capacity: bool,

    /// Confirms a block device TARGET: must name the same device.
    #[arg(long, value_name = "TARGET")]
    pub yes_erase: Option<String>,

    /// Allow a non-removable (internal) disk.
    #[arg(long)]
    pub allow_fixed: bool,

    /// Size of a new image file.
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub size: Option<u64>,

    /// Print the plan and stop: nothing is written.
    #[arg(long)]
    pub dry_run: bool,

    /// Write the fsfit.format/1 JSON to FILE, atomically.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatTable {
    Mbr,
    Gpt,
    None,
}

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// A block device, an image file or a mounted directory.
    #[arg(value_name = "TARGET")]
    pub target: PathBuf,

    /// Print the fsfit.info/1 JSON object.
    #[arg(long)]
    pub json: bool,

    /// At most this many files are asked for their extents (mounted path).
    #[arg(long, value_name = "N", default_value = "100000")]
    pub max_files: usize,

    /// DOS code page of FAT labels: 437 (the Linux default), 850, 852,
    /// 855, 857, 858, 860, 861, 862, 863, 865, 866, 737, 775, 869, 874.
    /// Use the one of the system that wrote the label (Western Europe: 850).
    #[arg(long, value_name = "CP", default_value = "437")]
    pub codepage: String,
}

#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// A block device (a stick, a card) or an image file; read only.
    #[arg(value_name = "DEV|IMAGE")]
    pub target: PathBuf,

    /// Print the fsfit.probe/1 JSON object.
    #[arg(long)]
    pub json: bool,

    /// Bytes per timed read [default: twice the logical block, at least 1K].
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub read_size: Option<u64>,

    /// Tries per place; each place keeps its fastest read.
    #[arg(long, value_name = "N", default_value = "8")]
    pub tries: u32,
}

#[derive(Args, Debug)]
pub struct EmulateArgs {
    /// The flash profile to behave like (fsfit bench --list-profiles).
    pub profile: String,

    /// The image file that holds the device's bytes (made sparse if new).
    pub image: PathBuf,

    /// The device's size (needed for a new IMAGE; a larger one grows it).
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub size: Option<u64>,
}

//! The integration tests, one binary (as ripgrep does): one module per area,
//! sharing the helpers in `common` (run fsfit, make trees, make and measure
//! real volumes). Run one area with `cargo test --test it ext4::`.

mod common;

mod advise;
mod bench;
mod btrfs_xfs;
mod cli;
mod collide;
mod completions;
mod contracts;
mod crash;
mod exfat;
mod ext4;
mod fat;
mod flash_bench;
mod flash_device;
mod flash_model;
mod flash_seed;
mod flash_trace;
mod format;
mod info;
mod info_blkid;
mod lab;
mod layers;
mod manifest;
mod ntfs;
mod outputs;
mod refusals;
mod report;
mod safety;
mod shape;
mod sizes;
mod text;
mod udf_f2fs;
mod usage_checks;

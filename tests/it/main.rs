//! The integration tests, one binary (as ripgrep does): one module per area,
//! sharing the helpers in `common` (run fsfit, make trees, make and measure
//! real volumes). Run one area with `cargo test --test it ext4::`.
//! The areas that format, mount, trace or benchmark need Linux and are
//! compiled there only; the rest also run on Windows (under wine in CI).

mod common;

mod advise;
#[cfg(target_os = "linux")]
mod bench;
#[cfg(target_os = "linux")]
mod btrfs_xfs;
mod cli;
#[cfg(target_os = "linux")]
mod collide;
mod completions;
mod contracts;
#[cfg(target_os = "linux")]
mod crash;
#[cfg(target_os = "linux")]
mod exfat;
#[cfg(target_os = "linux")]
mod ext4;
#[cfg(target_os = "linux")]
mod fat;
#[cfg(target_os = "linux")]
mod flash_bench;
#[cfg(target_os = "linux")]
mod flash_device;
mod flash_model;
#[cfg(target_os = "linux")]
mod flash_seed;
#[cfg(target_os = "linux")]
mod flash_trace;
#[cfg(target_os = "linux")]
mod format;
mod info;
#[cfg(target_os = "linux")]
mod info_blkid;
#[cfg(target_os = "linux")]
mod lab;
mod layers;
mod manifest;
#[cfg(target_os = "linux")]
mod ntfs;
mod outputs;
#[cfg(target_os = "linux")]
mod plan;
#[cfg(target_os = "linux")]
mod policy;
#[cfg(target_os = "linux")]
mod refusals;
#[cfg(target_os = "linux")]
mod release;
mod report;
#[cfg(target_os = "linux")]
mod safety;
mod shape;
mod sizes;
mod text;
#[cfg(target_os = "linux")]
mod udf_f2fs;
mod usage_checks;
#[cfg(target_os = "linux")]
mod validation;
#[cfg(target_os = "linux")]
mod windows;
mod windows_models;
#[cfg(target_os = "linux")]
mod wine_drive;

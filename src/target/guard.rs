//! Placeholder with the guard's API until the real guard lands.
use std::path::PathBuf;
pub struct Host {
    pub root: PathBuf,
}
impl Host {
    pub fn real() -> Host {
        Host {
            root: PathBuf::from("/"),
        }
    }
}
#[derive(Debug, Clone, serde::Serialize)]
pub struct DeviceInfo {
    pub path: String,
    pub name: String,
    pub disk: String,
    pub is_partition: bool,
    pub size_bytes: u64,
    pub model: String,
    pub vendor: String,
    pub serial: String,
    pub bus: String,
    pub removable: bool,
    pub partitions: Vec<String>,
    pub mounts: Vec<(String, String)>,
    pub holders: Vec<String>,
    pub swap: bool,
    pub read_only: bool,
}
pub fn inspect(_host: &Host, dev: &str) -> Result<DeviceInfo, String> {
    Err(format!("{dev}: device support is not built yet"))
}
pub fn check(_i: &DeviceInfo, _h: &Host, _y: Option<&str>, _a: bool) -> Result<(), String> {
    Err("refused".into())
}
pub fn describe(i: &DeviceInfo) -> String {
    i.path.clone()
}
pub fn open_exclusive(path: &str) -> Result<std::fs::File, String> {
    Err(path.to_string())
}

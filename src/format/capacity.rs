//! `--check-capacity`: does the device store what it claims? (Filled in below.)

use crate::device::identity::Identity;

pub fn check(_dev: &str, _capacity: u64, _id: &Identity) -> crate::Result<()> {
    Err(crate::Error::input("--check-capacity is not built yet"))
}

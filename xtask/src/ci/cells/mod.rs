//! The cells of `cargo xtask ci`, one module per family; each function
//! returns its cells in the order they run.

pub mod deps;
pub mod docs;
pub mod lint;
pub mod live;
pub mod native;
pub mod package;
pub mod qemu;
pub mod sanitize;

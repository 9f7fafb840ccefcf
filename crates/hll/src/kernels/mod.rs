//! The kernels, one file per instruction set, each reachable only through
//! the CPU-checked candidate lists in `dispatch`.

pub(crate) mod scalar;

//! A2A wire formats. Only v1.0 is served today; older versions get their own module and adapter.

pub(crate) mod v1;

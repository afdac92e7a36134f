//! Compile-time diagnostics of `#[agent]`/`#[skill]`; see `tests/ui.rs`.

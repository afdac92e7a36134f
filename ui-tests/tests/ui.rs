//! Every diagnostic of the macros has a case in `fail/` with a reviewed `.stderr`; `pass/` holds
//! cases that must compile, including one under `#![deny(warnings, missing_docs)]`.
//!
//! The `.stderr` files are written by rustc 1.95 (the only toolchain on our machines). Refresh
//! them with `TRYBUILD=overwrite cargo test -p ui-tests` and review the diff.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("pass/*.rs");
    cases.compile_fail("fail/*.rs");
}

use a2a_runtime::prelude::*;

/// An agent.
#[agent]
struct Demo;

/// Constant.
#[skill(agent = Demo)]
const fn constant() -> u32 {
    1
}

/// Unsafe.
#[skill(agent = Demo)]
async unsafe fn risky() -> u32 {
    2
}

/// Foreign.
#[skill(agent = Demo)]
async extern "C" fn foreign() -> u32 {
    3
}
fn main() {}

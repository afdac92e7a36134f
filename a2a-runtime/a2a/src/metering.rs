//! A2A requests as the agent's meter reports them: one operation per request, named by its
//! A2A 1.0 method whatever the dialect (`SendMessage` for 0.3's `message/send` and the draft's
//! `tasks/send` alike), with its version, binding and JSON-RPC error code.

use std::borrow::Cow;
use std::time::Instant;

use super::{A2aError, A2aService, Version};
use a2a_runtime_core::observe::OperationRecord;
use a2a_runtime_core::quota::CallerId;
use a2a_runtime_types::model::{A2aVersion, Binding, Protocol};

/// What `method` of `version` is called in A2A 1.0; `unknown` for a method the version lacks
/// (so a label never takes a client's made-up name).
pub fn operation_name(version: Version, method: &str) -> &'static str {
    let found = match version {
        Version::V1_0 => super::jsonrpc::v1::name(method),
        Version::V0_3 => super::jsonrpc::v0_3::v1_name(method),
        Version::V0_1 => super::jsonrpc::v0_1::v1_name(method),
    };
    found.unwrap_or("unknown")
}

/// The version neutral name of `version`.
pub fn protocol(version: Version) -> Protocol {
    Protocol::A2a(match version {
        Version::V1_0 => A2aVersion::V1_0,
        Version::V0_3 => A2aVersion::V0_3,
        Version::V0_1 => A2aVersion::EarlyDraft,
    })
}

/// Reports operation `name` of `version` over `binding`, begun at `started`, that ended with
/// `error` (none: it succeeded).
pub fn report(
    service: &A2aService,
    started: Option<Instant>,
    name: &'static str,
    version: Version,
    binding: Binding,
    error: Option<&A2aError>,
    caller: &CallerId,
) {
    service.manager.meter().operation(started, |duration| {
        let error_type = error.map(|error| Cow::Owned(error.jsonrpc_code(version).to_string()));
        OperationRecord::new(protocol(version), binding, name, duration)
            .failed(error_type)
            .traced(caller.trace().cloned())
            .detailed(caller.detail())
    });
}

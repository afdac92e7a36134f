//! How a remote's failure reaches the host's caller: a skill error whose message names the
//! remote, with details a program reads (`remote`, `reason`) and the message again among them, so
//! an MCP caller, shown the details of a tool error, reads what happened too.

use serde_json::json;

use a2a_runtime_core::skill_error::SkillError;

/// The remote could not be reached, or did not answer in time.
pub(crate) const UNAVAILABLE: &str = "REMOTE_UNAVAILABLE";
/// The remote answered with an error, or refused the call.
pub(crate) const FAILED: &str = "REMOTE_FAILED";
/// The remote answered what the host cannot read (too large, not what the protocol says).
pub(crate) const INVALID_ANSWER: &str = "REMOTE_INVALID_ANSWER";

/// The failure `message` of the remote `id`, for `reason`.
pub(crate) fn remote_failure(id: &str, message: String, reason: &str) -> SkillError {
    let details = json!({ "remote": id, "reason": reason, "message": message });
    SkillError::new(message).with_data(details)
}

//! A host's gRPC requests name their agent by the request message's `tenant` field, as
//! JSON-RPC requests do by `params.tenant`: read here from the body's first frame, before the
//! agent (and so the credentials to check) is known.

/// `tenant` where most requests hold it (field 1).
#[derive(Clone, PartialEq, prost::Message)]
struct TenantFirst {
    #[prost(string, tag = "1")]
    tenant: String,
}

/// `tenant` where `ListTaskPushNotificationConfigsRequest` holds it (field 4).
#[derive(Clone, PartialEq, prost::Message)]
struct TenantFourth {
    #[prost(string, tag = "4")]
    tenant: String,
}

/// The tenant a request to `method` names in `body` (its gRPC frames); `None` when it names
/// none, is not a method of the service, or cannot be read here (compressed, truncated, not
/// that method's message). Those are left to the primary agent's gRPC service, which answers
/// them as every agent does at its own address (tonic's `INTERNAL` or `UNIMPLEMENTED`): one
/// answer for one mistake, whichever way the request came in.
pub fn tenant_of(method: &str, body: &[u8]) -> Option<String> {
    if !super::METHODS.contains(&method) {
        return None;
    }
    let message = first_message(body)?;
    let decoded = if method == "ListTaskPushNotificationConfigs" {
        prost::Message::decode(message).map(|m: TenantFourth| m.tenant)
    } else {
        prost::Message::decode(message).map(|m: TenantFirst| m.tenant)
    };
    decoded.ok().filter(|t| !t.is_empty())
}

/// The message of the first length-prefixed gRPC frame: a flag byte (0: not compressed, the
/// only kind read here), a 4-byte big-endian length, the message; `None` for anything else.
fn first_message(body: &[u8]) -> Option<&[u8]> {
    let (&flag, rest) = body.split_first()?;
    if flag != 0 {
        return None;
    }
    let (length, rest) = rest.split_first_chunk::<4>()?;
    let length = usize::try_from(u32::from_be_bytes(*length)).ok()?;
    rest.get(..length)
}

//! A host's gRPC requests name their agent by the request message's `tenant` field, as
//! JSON-RPC requests do by `params.tenant`: read here from the body's first frame, before the
//! agent (and so the credentials to check) is known.

use crate::A2aError;

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
/// none or is not a method of the service (whichever agent answers says so).
pub fn tenant_of(method: &str, body: &[u8]) -> Result<Option<String>, A2aError> {
    if !super::METHODS.contains(&method) {
        return Ok(None);
    }
    let message = first_message(body)?;
    let decoded = if method == "ListTaskPushNotificationConfigs" {
        prost::Message::decode(message).map(|m: TenantFourth| m.tenant)
    } else {
        prost::Message::decode(message).map(|m: TenantFirst| m.tenant)
    };
    let tenant = decoded.map_err(|e| {
        A2aError::InvalidRequest(format!(
            "the request message is not a valid {method} request: {e}"
        ))
    })?;
    Ok(Some(tenant).filter(|t| !t.is_empty()))
}

/// The message of the first length-prefixed gRPC frame: a flag byte (0: not compressed, which
/// is all this server accepts, since it offers no compression), a 4-byte big-endian length,
/// the message.
fn first_message(body: &[u8]) -> Result<&[u8], A2aError> {
    let truncated = || A2aError::InvalidRequest("the gRPC frame is truncated".into());
    let (&flag, rest) = body.split_first().ok_or_else(truncated)?;
    if flag != 0 {
        return Err(A2aError::InvalidRequest(
            "the request message is compressed; this server accepts none (it sends no \
             grpc-accept-encoding)"
                .into(),
        ));
    }
    let (length, rest) = rest.split_first_chunk::<4>().ok_or_else(truncated)?;
    let length = usize::try_from(u32::from_be_bytes(*length)).map_err(|_| truncated())?;
    rest.get(..length).ok_or_else(truncated)
}

//! Reading request parameters into wire types, with errors that name the field at fault.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::A2aError;

/// Deserializes `value` (JSON-RPC `params` or an HTTP+JSON body) into `T`.
pub fn params<T: DeserializeOwned>(value: Value) -> Result<T, A2aError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let reason = e.into_inner().to_string();
        let (field, reason) = match reason
            .strip_prefix("missing field `")
            .and_then(|r| r.split_once('`'))
        {
            Some((name, _)) => (
                if path == "." {
                    name.to_owned()
                } else {
                    format!("{path}.{name}")
                },
                "is required".to_owned(),
            ),
            None => (
                if path == "." {
                    "params".to_owned()
                } else {
                    path
                },
                reason,
            ),
        };
        A2aError::invalid_params(field, reason)
    })
}

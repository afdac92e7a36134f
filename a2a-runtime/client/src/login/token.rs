//! The token endpoint and the answers of the authorization server, shared by the sign-in (the
//! code exchange) and the saved sign-in (refreshes).

use serde_json::Value;

use super::{LoginError, http, json_of};

/// POSTs `form` to the token endpoint: the tokens, or the server's refusal of `step`.
pub(super) async fn token_request(
    endpoint: &str,
    form: &[(&str, &str)],
    step: &'static str,
) -> Result<Value, LoginError> {
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let response = http(endpoint)?
        .post(endpoint)
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .body(body)
        .send()
        .await
        .map_err(|e| unreachable(endpoint, &e))?;
    let status = response.status();
    let answer = json_of(endpoint, response).await?;
    if !status.is_success() || answer["access_token"].as_str().is_none() {
        return Err(refused(step, &answer));
    }
    Ok(answer)
}

pub(super) fn refused(step: &'static str, answer: &Value) -> LoginError {
    LoginError::Refused {
        step,
        error: answer["error"]
            .as_str()
            .unwrap_or("no error code")
            .to_owned(),
        description: answer["error_description"].as_str().map(str::to_owned),
    }
}

pub(super) fn unreachable(url: &str, error: &reqwest::Error) -> LoginError {
    LoginError::Unreachable {
        url: url.to_owned(),
        reason: error.to_string(),
    }
}

use a2a_runtime::prelude::*;

/// Keys in two places, two flows, and a relative discovery URL.
#[agent(security(
    api_key(header = "X-Key", query = "key"),
    oauth2(
        client_credentials(token_url = "https://auth.example/token"),
        device_code(device_authorization_url = "https://auth.example/device", token_url = "https://auth.example/token"),
    ),
    openid_connect(url = "/.well-known/openid-configuration"),
))]
struct Demo;

fn main() {}

//! Signs in through a server's authorization server (`--oauth-dev-user`) the way a connector
//! does, N times, for `scripts/bench-load`: registration once, then each round trip (the
//! authorization request, the consent page, approving, the code redeemed at the token endpoint)
//! timed over loopback. Prints the median and slowest round trip and writes the last access
//! token to FILE.
//!
//! Usage: bench-signin BASE_URL N FILE

use std::time::{Duration, Instant};

use a2a_tests::oauth_flow::{authorized_code, register, token};

#[a2a_runtime::tokio::main(crate = "a2a_runtime::tokio", flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: bench-signin BASE_URL N FILE";
    let base = args.next().ok_or(usage)?;
    let rounds: usize = args.next().ok_or(usage)?.parse()?;
    let file = args.next().ok_or(usage)?;
    let callback = "http://127.0.0.1:33418/callback";
    let (status, client) = register(&base, callback).await;
    if status != 201 {
        return Err(format!("registration answered {status}: {client}").into());
    }
    let client_id = client["client_id"]
        .as_str()
        .ok_or("no client_id")?
        .to_owned();
    let resource = base.clone();
    let mut times: Vec<Duration> = Vec::new();
    let mut last = String::new();
    for _ in 0..rounds.max(1) {
        let started = Instant::now();
        let (code, pkce) = authorized_code(&base, &client_id, callback, &resource, "").await;
        let (status, tokens) = token(
            &base,
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("redirect_uri", callback),
                ("client_id", &client_id),
                ("code_verifier", &pkce.verifier),
            ],
        )
        .await;
        times.push(started.elapsed());
        if status != 200 {
            return Err(format!("the token endpoint answered {status}: {tokens}").into());
        }
        last = tokens["access_token"]
            .as_str()
            .ok_or("no access token")?
            .to_owned();
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "sign-in round trip over loopback ({} rounds): median {:.2} ms, slowest {:.2} ms",
        times.len(),
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1])
    );
    std::fs::write(file, last)?;
    Ok(())
}

//! `cargo run -p webhook-receiver -- --token SECRET`: see the library docs.

#[tokio::main]
async fn main() -> std::io::Result<()> {
    webhook_receiver::main().await
}

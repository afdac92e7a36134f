//! A TCP proxy on loopback whose open connections a test can cut, to see what a client does
//! when its connection drops mid-stream.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// Forwards every connection to one target until [`cut`](Self::cut) drops those open.
#[derive(Debug)]
pub struct CuttableProxy {
    /// Where clients connect.
    pub addr: SocketAddr,
    cuts: watch::Sender<u64>,
    connections: Arc<AtomicUsize>,
}

impl CuttableProxy {
    /// Starts forwarding connections to `target`.
    pub async fn start(target: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind an ephemeral port");
        let addr = listener.local_addr().expect("local address");
        let (cuts, watching) = watch::channel(0);
        let connections = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&connections);
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                let mut cut = watching.clone();
                cut.mark_unchanged();
                tokio::spawn(async move {
                    let Ok(mut server) = TcpStream::connect(target).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = cut.changed() => {}
                    }
                });
            }
        });
        Self {
            addr,
            cuts,
            connections,
        }
    }

    /// Drops every connection open now; later ones are forwarded as before.
    pub fn cut(&self) {
        self.cuts.send_modify(|n| *n += 1);
    }

    /// How many connections were accepted.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

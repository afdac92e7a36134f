//! Open connections per peer: one client (one IPv4 address, one IPv6 /64, which a single host
//! is commonly given whole) cannot take every connection the server allows. A connection over
//! the cap is answered 429 and closed at once, so others are served meanwhile.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// How long the refusal of a connection over the cap may take to write.
const REFUSAL_WRITE_TIMEOUT: Duration = Duration::from_secs(1);

/// Counts each peer's open connections against a cap.
pub(crate) struct PeerConnections {
    cap: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One open connection of a peer; closing it (dropping this) gives the slot back.
pub(crate) struct PeerSlot {
    peers: Arc<PeerConnections>,
    peer: IpAddr,
}

impl PeerConnections {
    /// At most `cap` open connections per peer.
    pub(crate) fn new(cap: usize) -> Arc<Self> {
        Arc::new(Self {
            cap,
            open: Mutex::new(HashMap::new()),
        })
    }

    /// A slot for a new connection from `ip`, unless the peer holds its cap already.
    pub(crate) fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<PeerSlot> {
        let peer = peer_of(ip);
        let mut open = self.open();
        let count = open.entry(peer).or_insert(0);
        if *count >= self.cap {
            return None;
        }
        *count += 1;
        Some(PeerSlot {
            peers: Arc::clone(self),
            peer,
        })
    }

    fn open(&self) -> MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for PeerSlot {
    fn drop(&mut self) {
        let mut open = self.peers.open();
        if let Some(count) = open.get_mut(&self.peer) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.peer);
            }
        }
    }
}

/// The peer an address belongs to: the IPv4 address, or the IPv6 address's /64.
fn peer_of(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        v4 => v4,
    }
}

/// Answers a plain-HTTP connection over its peer's cap with 429 and closes it.
pub(crate) async fn refuse(mut stream: TcpStream, cap: usize) {
    let message = format!(
        "this address holds its limit of {cap} open connections; close one, or retry later\n"
    );
    let response = format!(
        "HTTP/1.1 429 Too Many Requests\r\ncontent-type: text/plain; charset=utf-8\r\n\
         retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{message}",
        message.len()
    );
    let _ = tokio::time::timeout(REFUSAL_WRITE_TIMEOUT, async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_is_capped_and_gets_its_slots_back_others_are_not_affected() {
        let peers = PeerConnections::new(2);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let first = peers.admit(a).unwrap();
        let _second = peers.admit(a).unwrap();
        assert!(peers.admit(a).is_none());
        assert!(peers.admit(b).is_some());
        drop(first);
        assert!(peers.admit(a).is_some());
    }

    #[test]
    fn an_ipv6_64_is_one_peer_and_a_mapped_ipv4_is_its_address() {
        let one: IpAddr = "2001:db8::1".parse().unwrap();
        let other: IpAddr = "2001:db8::ffff:2".parse().unwrap();
        assert_eq!(peer_of(one), peer_of(other));
        let mapped: IpAddr = "::ffff:10.0.0.1".parse().unwrap();
        assert_eq!(peer_of(mapped), "10.0.0.1".parse::<IpAddr>().unwrap());
    }
}

//! Delivery: one queue per push config, each drained in order by its own worker, with retries
//! (exponential backoff with jitter, a bounded number of attempts, a timeout per attempt).

use std::collections::{HashMap, VecDeque};
use std::error::Error as _;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE};
use serde::{Deserialize, Serialize};
use url::Url;

use super::guard::{self, UrlRefusal};
use super::outbox::OutboxWriter;
use super::render::render;
use super::{MAX_RETRY_DELAY, PushSettings};
use crate::observe::{Meter, PushDelivery, PushOutcome};
use crate::task::{Outbox, OutboxEntry};
use a2a_runtime_types::model::{ObservedTask, TaskObserver};
use a2a_runtime_types::model::{PushConfig, Task, TaskEvent, new_task_id};

/// The header deployed receivers read the config's token from (a2a-spec.md §6).
pub const TOKEN_HEADER: &str = "X-A2A-Notification-Token";

/// One event for one receiver, rendered and ready to POST.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Delivery {
    /// Time-ordered: a receiver's deliveries go out in id order.
    id: String,
    task_id: String,
    config_id: String,
    url: String,
    media_type: String,
    authorization: Option<String>,
    token: Option<String>,
    body: String,
}

impl Delivery {
    fn key(&self) -> QueueKey {
        (self.task_id.clone(), self.config_id.clone())
    }
}

/// A receiver's queue: a task and one of its configs.
type QueueKey = (String, String);

#[derive(Default)]
struct Queue {
    pending: VecDeque<Arc<Delivery>>,
}

/// Delivers task events to push receivers; observes every task of its manager.
pub struct Pusher {
    shared: Arc<Shared>,
}

struct Shared {
    /// Built on the first delivery: the client's TLS setup (root certificates, crypto provider)
    /// costs memory and start-up time a server that never pushes should not pay.
    client: OnceLock<Result<reqwest::Client, String>>,
    settings: PushSettings,
    /// A queue exists while it has deliveries; its worker removes it when it is empty.
    queues: Mutex<HashMap<QueueKey, Queue>>,
    outbox: Option<OutboxWriter>,
    /// Where delivery attempts are reported.
    meter: Meter,
}

/// Why an attempt failed.
enum Failure {
    /// Worth another attempt (a timeout, a refused connection, a 5xx).
    Transient(String),
    /// Never going to succeed (a forbidden address, a 4xx other than 408/425/429).
    Permanent(String),
}

impl Pusher {
    /// A pusher delivering with `settings`, keeping pending deliveries in `outbox` if given.
    ///
    /// Its HTTP client is built on the first delivery.
    pub fn new(settings: PushSettings, outbox: Option<Outbox>) -> Self {
        Self::metered(settings, outbox, Meter::default())
    }

    /// Like [`new`](Self::new), reporting each delivery attempt to `meter`.
    pub fn metered(settings: PushSettings, outbox: Option<Outbox>, meter: Meter) -> Self {
        Self {
            shared: Arc::new(Shared {
                client: OnceLock::new(),
                settings,
                queues: Mutex::new(HashMap::new()),
                outbox: outbox.and_then(|outbox| OutboxWriter::start(outbox.0)),
                meter,
            }),
        }
    }

    /// Whether webhooks may reach private and loopback addresses.
    pub fn allows_private(&self) -> bool {
        self.shared.settings.allow_private
    }

    /// Queues the deliveries an earlier run of the server left pending in `outbox`.
    pub async fn restore(&self, outbox: &Outbox) -> Result<usize, crate::task::StoreError> {
        let entries = outbox.0.pending().await?;
        let mut restored = 0;
        for entry in entries {
            match serde_json::from_str::<Delivery>(&entry.body) {
                Ok(delivery) => {
                    self.shared.enqueue(delivery, false);
                    restored += 1;
                }
                Err(error) => {
                    tracing::warn!(%error, id = %entry.id, "unreadable push delivery dropped");
                    if let Some(outbox) = &self.shared.outbox {
                        outbox.remove(entry.id);
                    }
                }
            }
        }
        Ok(restored)
    }

    /// Drops the deliveries still pending for config `config_id` of task `task_id` (deleted).
    pub fn forget(&self, task_id: &str, config_id: &str) {
        let key = (task_id.to_owned(), config_id.to_owned());
        let dropped = self.shared.queues().remove(&key);
        if let (Some(queue), Some(outbox)) = (dropped, &self.shared.outbox) {
            for delivery in queue.pending {
                outbox.remove(delivery.id.clone());
            }
        }
    }
}

impl TaskObserver for Pusher {
    fn observe(&self, observed: ObservedTask<'_>, event: &Arc<TaskEvent>) {
        for config in observed.push_configs {
            self.shared
                .enqueue(delivery(observed.task, config, event), true);
        }
    }

    /// Only a task with webhooks has events to deliver.
    fn wants(&self, observed: ObservedTask<'_>) -> bool {
        !observed.push_configs.is_empty()
    }
}

/// The client deliveries go out with: no redirects, no proxy, the guard's resolver.
fn build_client(settings: &PushSettings) -> Result<reqwest::Client, String> {
    let mut client = a2a_runtime_types::https::client_builder()
        .map_err(|e| e.to_string())?
        .redirect(reqwest::redirect::Policy::none())
        // A proxy from the environment would connect where the guard never looked.
        .no_proxy()
        .timeout(settings.timeout)
        .connect_timeout(settings.timeout.min(Duration::from_secs(5)))
        .user_agent(concat!("a2a-runtime/", env!("CARGO_PKG_VERSION"), " push"));
    if let Some(resolver) = guard::resolver(settings.allow_private) {
        client = client.dns_resolver(resolver);
    }
    client.build().map_err(|e| e.to_string())
}

fn delivery(task: &Task, config: &PushConfig, event: &TaskEvent) -> Delivery {
    let (media_type, body) = render(&config.wire, task, event);
    Delivery {
        id: new_task_id(),
        task_id: task.id.clone(),
        config_id: config.id.clone(),
        url: config.url.clone(),
        media_type: media_type.to_owned(),
        authorization: config.authentication.as_ref().and_then(|a| a.header()),
        token: config.token.clone(),
        body,
    }
}

impl Shared {
    fn queues(&self) -> MutexGuard<'_, HashMap<QueueKey, Queue>> {
        self.queues.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds `delivery` at the end of its receiver's queue (saving it in the outbox unless it
    /// came from there), starting the queue's worker if it has none.
    fn enqueue(self: &Arc<Self>, delivery: Delivery, save: bool) {
        if save && let Some(outbox) = &self.outbox {
            match serde_json::to_string(&delivery) {
                Ok(body) => outbox.save(OutboxEntry {
                    id: delivery.id.clone(),
                    task_id: delivery.task_id.clone(),
                    body,
                }),
                Err(error) => tracing::warn!(%error, "push delivery not saved in the outbox"),
            }
        }
        let key = delivery.key();
        let mut queues = self.queues();
        let start = !queues.contains_key(&key);
        let queue = queues.entry(key.clone()).or_default();
        queue.pending.push_back(Arc::new(delivery));
        while queue.pending.len() > self.settings.queue {
            if let Some(dropped) = queue.pending.pop_front() {
                tracing::warn!(
                    task = %dropped.task_id,
                    config = %dropped.config_id,
                    limit = self.settings.queue,
                    "push receiver too far behind; its oldest pending delivery was dropped"
                );
                if let Some(outbox) = &self.outbox {
                    outbox.remove(dropped.id.clone());
                }
            }
        }
        drop(queues);
        if start {
            tokio::spawn(Arc::clone(self).work(key));
        }
    }

    /// The first pending delivery of `key`; an empty queue is removed (its worker stops).
    fn next(&self, key: &QueueKey) -> Option<Arc<Delivery>> {
        let mut queues = self.queues();
        let next = queues.get(key).and_then(|q| q.pending.front().cloned());
        if next.is_none() {
            queues.remove(key);
        }
        next
    }

    /// Whether `delivery` is still the first of its queue (its config was not deleted).
    fn is_next(&self, key: &QueueKey, delivery: &Delivery) -> bool {
        self.queues()
            .get(key)
            .and_then(|q| q.pending.front())
            .is_some_and(|d| d.id == delivery.id)
    }

    /// Drains the queue of `key`, one delivery at a time (a receiver gets its events in order).
    async fn work(self: Arc<Self>, key: QueueKey) {
        while let Some(delivery) = self.next(&key) {
            self.deliver(&key, &delivery).await;
            let mut queues = self.queues();
            if let Some(queue) = queues.get_mut(&key)
                && queue.pending.front().is_some_and(|d| d.id == delivery.id)
            {
                queue.pending.pop_front();
            }
            drop(queues);
            if let Some(outbox) = &self.outbox {
                outbox.remove(delivery.id.clone());
            }
        }
    }

    /// Attempts `delivery` until it is delivered, fails for good, or runs out of attempts.
    async fn deliver(&self, key: &QueueKey, delivery: &Delivery) {
        let attempts = self.settings.attempts.max(1);
        for attempt in 1..=attempts {
            let started = self.meter.clock();
            let result = self.attempt(delivery).await;
            if let Some(started) = started {
                let outcome = match &result {
                    Ok(()) => PushOutcome::Delivered,
                    Err(Failure::Permanent(_)) => PushOutcome::Failed,
                    Err(Failure::Transient(_)) if attempt == attempts => PushOutcome::Failed,
                    Err(Failure::Transient(_)) => PushOutcome::Retrying,
                };
                self.meter
                    .push(PushDelivery::new(outcome, started.elapsed()));
            }
            let reason = match result {
                Ok(()) => return,
                Err(Failure::Permanent(reason)) => {
                    tracing::warn!(
                        task = %delivery.task_id,
                        config = %delivery.config_id,
                        url = %delivery.url,
                        %reason,
                        "push notification not delivered; not retried"
                    );
                    return;
                }
                Err(Failure::Transient(reason)) => reason,
            };
            if attempt == attempts {
                tracing::warn!(
                    task = %delivery.task_id,
                    config = %delivery.config_id,
                    url = %delivery.url,
                    %reason,
                    attempts,
                    "push notification not delivered; gave up"
                );
                return;
            }
            tracing::debug!(
                task = %delivery.task_id,
                url = %delivery.url,
                %reason,
                attempt,
                "push notification not delivered; retrying"
            );
            tokio::time::sleep(retry_delay(self.settings.first_retry, attempt)).await;
            if !self.is_next(key, delivery) {
                // The config was deleted meanwhile.
                return;
            }
        }
    }

    /// The HTTP client, built on first use; an error if it cannot be (a TLS backend failing).
    fn client(&self) -> Result<&reqwest::Client, Failure> {
        let built = self.client.get_or_init(|| build_client(&self.settings));
        built
            .as_ref()
            .map_err(|e| Failure::Permanent(format!("no HTTP client: {e}")))
    }

    /// One POST of `delivery`.
    async fn attempt(&self, delivery: &Delivery) -> Result<(), Failure> {
        let url = Url::parse(&delivery.url).map_err(|e| Failure::Permanent(e.to_string()))?;
        if !self.settings.allow_private {
            guard::check_literal(&url).map_err(|e| Failure::Permanent(e.to_string()))?;
        }
        let mut request = self
            .client()?
            .post(url)
            .header(CONTENT_TYPE, &delivery.media_type)
            .body(delivery.body.clone());
        if let Some(authorization) = &delivery.authorization {
            request = request.header(AUTHORIZATION, authorization);
        }
        if let Some(token) = &delivery.token {
            request = request.header(TOKEN_HEADER, token);
        }
        match request.send().await {
            Ok(response) if response.status().is_success() => Ok(()),
            Ok(response) => {
                let status = response.status();
                let reason = format!("the receiver answered {status}");
                match status.as_u16() {
                    408 | 425 | 429 | 500..=599 => Err(Failure::Transient(reason)),
                    300..=399 => Err(Failure::Permanent(format!(
                        "{reason}; redirects are not followed"
                    ))),
                    _ => Err(Failure::Permanent(reason)),
                }
            }
            Err(error) => {
                let refused = causes(&error).find_map(|e| e.downcast_ref::<UrlRefusal>());
                match refused {
                    Some(refusal) => Err(Failure::Permanent(format!("the url {refusal}"))),
                    None if error.is_builder() => Err(Failure::Permanent(error.to_string())),
                    None => Err(Failure::Transient(describe(&error))),
                }
            }
        }
    }
}

/// A transport error with its causes (reqwest's own message rarely says what happened).
fn describe(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    for cause in causes(error) {
        text.push_str(": ");
        text.push_str(&cause.to_string());
    }
    text
}

/// The causes of `error`, outermost first.
fn causes<'a>(
    error: &'a reqwest::Error,
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(error.source(), |e| (*e).source())
}

/// The pause after failed attempt `attempt` (1-based): `first` doubled per earlier attempt,
/// at most [`MAX_RETRY_DELAY`], with jitter.
fn retry_delay(first: Duration, attempt: u32) -> Duration {
    a2a_runtime_types::util::backoff(first, attempt, MAX_RETRY_DELAY)
}

#[cfg(test)]
mod tests {
    use futures::FutureExt;

    use super::*;

    fn delivery_to(url: String) -> Delivery {
        Delivery {
            id: new_task_id(),
            task_id: "t".into(),
            config_id: "c".into(),
            url,
            media_type: "application/a2a+json".into(),
            authorization: None,
            token: None,
            body: "{}".into(),
        }
    }

    /// A config stored when private addresses were allowed (or a name that resolved elsewhere
    /// then) is refused again when a delivery connects, and no connection is made.
    #[tokio::test]
    async fn deliveries_to_internal_addresses_are_refused_when_they_connect() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let pusher = Pusher::new(PushSettings::default(), None);
        for (url, rule) in [
            (
                format!("http://127.0.0.1:{port}/hook"),
                "a loopback address (127.0.0.0/8)",
            ),
            (format!("http://localhost:{port}/hook"), "a loopback name"),
            (
                format!("http://[::1]:{port}/hook"),
                "a loopback address (::1)",
            ),
        ] {
            match pusher.shared.attempt(&delivery_to(url.clone())).await {
                Err(Failure::Permanent(reason)) => {
                    assert!(reason.contains(rule), "{url}: {reason}");
                }
                Err(Failure::Transient(reason)) => panic!("{url}: retried: {reason}"),
                Ok(()) => panic!("{url}: delivered"),
            }
        }
        assert!(
            listener.accept().now_or_never().is_none(),
            "nothing connected"
        );
        // Allowed explicitly, the same delivery connects.
        let settings = PushSettings {
            allow_private: true,
            timeout: Duration::from_millis(200),
            ..PushSettings::default()
        };
        let allowed = Pusher::new(settings, None);
        let delivery = delivery_to(format!("http://127.0.0.1:{port}/hook"));
        let attempt = allowed.shared.attempt(&delivery);
        let (attempted, accepted) = tokio::join!(attempt, listener.accept());
        assert!(accepted.is_ok());
        assert!(
            matches!(attempted, Err(Failure::Transient(_))),
            "timed out, to be retried"
        );
    }

    #[test]
    fn retry_delays_double_with_jitter_up_to_the_cap() {
        let first = Duration::from_secs(1);
        for attempt in 1..=10 {
            let full = Duration::from_secs(1 << (attempt - 1)).min(MAX_RETRY_DELAY);
            let delay = retry_delay(first, attempt);
            assert!(delay <= full && delay >= full / 2, "{attempt}: {delay:?}");
        }
        assert!(retry_delay(first, 40) <= MAX_RETRY_DELAY);
    }
}

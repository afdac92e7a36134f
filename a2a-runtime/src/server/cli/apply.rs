//! What each group of flags sets over a configuration: a flag given replaces the builder's
//! value, a list flag adds to it, a switch turns its setting on (or off).

use super::args::{AuthArgs, LimitArgs, NetworkArgs, PushArgs, StorageArgs, TlsArgs};
use crate::server::config::{AuthSettings, PushOptions, ServeConfig};
use crate::server::transport::TlsSettings;
use a2a_runtime_core::limits::Limits;

/// `given`, if it is, replaces what `slot` holds.
fn set<T>(slot: &mut T, given: Option<T>) {
    if let Some(value) = given {
        *slot = value;
    }
}

/// `given`, if it is, replaces the optional setting `slot`.
fn replace<T>(slot: &mut Option<T>, given: Option<T>) {
    if given.is_some() {
        *slot = given;
    }
}

impl NetworkArgs {
    pub(super) fn apply(self, config: &mut ServeConfig) {
        set(&mut config.bind, self.bind);
        replace(&mut config.public_url, self.public_url);
        replace(&mut config.grpc_bind, self.grpc_bind);
        set(&mut config.stdio, self.stdio);
        config.print_manifests |= self.print_manifests;
        replace(&mut config.console, self.console);
        if self.no_streaming {
            config.streaming = false;
        }
        config.trusted_proxies.extend(self.trusted_proxies);
        config.allowed_hosts.extend(self.allowed_hosts);
        config.allowed_origins.extend(self.allowed_origins);
        config.cors_origins.extend(self.cors_origins);
        config.cors_headers.extend(self.cors_headers);
    }
}

impl StorageArgs {
    pub(super) fn apply(self, config: &mut ServeConfig) {
        replace(&mut config.store, self.store);
        replace(&mut config.data_dir, self.data_dir);
        replace(&mut config.replica_lease, self.replica_lease);
        replace(&mut config.state_key, self.state_key);
    }
}

impl PushArgs {
    pub(super) fn apply(self, push: &mut PushOptions) {
        if self.no_push {
            push.enabled = false;
        }
        if self.push_allow_private {
            push.allow_private = true;
        }
        set(&mut push.timeout, self.push_timeout);
        set(&mut push.attempts, self.push_attempts);
        set(&mut push.first_retry, self.push_retry);
        set(&mut push.queue_per_config, self.push_queue);
    }
}

impl TlsArgs {
    pub(super) fn apply(self, tls: &mut TlsSettings) {
        replace(&mut tls.cert, self.tls_cert);
        replace(&mut tls.key, self.tls_key);
        replace(&mut tls.client_ca, self.tls_client_ca);
    }
}

impl AuthArgs {
    pub(super) fn apply(self, settings: &mut AuthSettings) {
        replace(&mut settings.api_keys, self.api_keys);
        replace(&mut settings.api_keys_file, self.api_keys_file);
        replace(&mut settings.jwt_secret, self.jwt_secret);
        replace(&mut settings.jwks_url, self.jwks_url);
        replace(&mut settings.jwt_issuer, self.jwt_issuer);
        if !self.jwt_audience.is_empty() {
            settings.jwt_audience = self.jwt_audience;
        }
        replace(&mut settings.jwt_cache_ttl, self.jwt_cache_ttl);
        if !self.jwt_trusted_issuers.is_empty() {
            settings.jwt_trusted_issuers = self.jwt_trusted_issuers;
        }
        replace(&mut settings.scope_implies, self.scope_implies);
    }
}

impl LimitArgs {
    pub(super) fn apply(self, limits: &mut Limits) {
        self.apply_requests(limits);
        self.apply_callers(limits);
        self.apply_connections(limits);
    }

    /// What one request, task and stored task may hold.
    fn apply_requests(&self, limits: &mut Limits) {
        set(&mut limits.max_body_bytes, self.max_body_bytes);
        set(&mut limits.max_message_parts, self.max_message_parts);
        set(&mut limits.max_part_bytes, self.max_part_bytes);
        set(
            &mut limits.max_task_history_bytes,
            self.max_task_history_bytes,
        );
        set(
            &mut limits.max_task_artifact_bytes,
            self.max_task_artifact_bytes,
        );
        set(&mut limits.max_tasks, self.max_tasks);
        set(&mut limits.max_store_bytes, self.max_store_bytes);
        set(&mut limits.task_ttl, self.task_ttl);
        set(&mut limits.max_list_bytes, self.max_list_bytes);
    }

    /// What each caller may hold, and how long tasks and questions wait.
    fn apply_callers(&self, limits: &mut Limits) {
        set(
            &mut limits.max_running_per_caller,
            self.max_running_per_caller,
        );
        set(
            &mut limits.max_waiting_per_caller,
            self.max_waiting_per_caller,
        );
        set(
            &mut limits.max_streams_per_caller,
            self.max_streams_per_caller,
        );
        set(
            &mut limits.tasks_per_second_per_caller,
            self.tasks_per_second_per_caller,
        );
        set(
            &mut limits.task_burst_per_caller,
            self.task_burst_per_caller,
        );
        set(&mut limits.max_waiting_tasks, self.max_waiting_tasks);
        set(&mut limits.input_timeout, self.input_timeout);
        set(&mut limits.idempotency_ttl, self.idempotency_ttl);
        set(&mut limits.cancel_grace, self.cancel_grace);
        set(&mut limits.stream_buffer, self.stream_buffer);
        set(&mut limits.sse_keep_alive, self.sse_keep_alive);
        set(&mut limits.mcp_task_after, self.mcp_task_after);
    }

    /// Sessions, connections and their timeouts.
    fn apply_connections(&self, limits: &mut Limits) {
        set(&mut limits.max_mcp_sessions, self.max_mcp_sessions);
        set(&mut limits.mcp_session_idle, self.mcp_session_idle);
        set(&mut limits.max_connections, self.max_connections);
        set(
            &mut limits.max_connections_per_peer,
            self.max_connections_per_peer,
        );
        set(
            &mut limits.max_streams_per_connection,
            self.max_streams_per_connection,
        );
        set(&mut limits.header_timeout, self.header_timeout);
        set(&mut limits.body_timeout, self.body_timeout);
        set(&mut limits.body_deadline, self.body_deadline);
        set(&mut limits.shutdown_timeout, self.shutdown_timeout);
        set(&mut limits.drain_delay, self.drain_delay);
    }
}

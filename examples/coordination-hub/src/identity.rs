//! Who an agent is: the authenticated caller when the server has a security scheme, else the
//! session name it gives. A session belongs to the caller that registered it; only that caller
//! may act as it.

use a2a_runtime::prelude::*;
use a2a_runtime::records::{Lease, Leases};
use a2a_runtime::serde_json::json;
use serde::{Deserialize, Serialize};

use crate::{Hub, checked, collection, failure, store_failed};

/// What a registration keeps about its agent (its times are the lease's).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct AgentData {
    pub(crate) task_id: String,
    pub(crate) branch: String,
    pub(crate) description: String,
}

/// The holder of `session`'s lease when `caller` registers it: the caller's principal when
/// authenticated, else the session itself (anyone naming it speaks for it).
pub(crate) fn holder(caller: &Caller, session: &str) -> String {
    if caller.is_anonymous() {
        format!("session:{session}")
    } else {
        format!("caller:{}", caller.principal())
    }
}

/// Whether `caller` may act as the agent registered with `lease`: `forbidden` if another
/// caller registered it.
pub(crate) fn may_act(caller: &Caller, lease: &Lease<AgentData>) -> Result<(), SkillError> {
    if lease.holder == holder(caller, &lease.key) {
        return Ok(());
    }
    Err(failure(
        "forbidden",
        format!("Agent {} was registered by another caller", lease.key),
        json!({}),
    ))
}

/// The error for `session`, not registered in `project`.
pub(crate) fn not_registered(project: &str, session: &str) -> SkillError {
    failure(
        "not_found",
        format!("Agent {session} not found in project {project}"),
        json!({}),
    )
}

impl Hub {
    /// The leases of `project`'s registered agents.
    pub(crate) fn agents(&self, project: &str) -> Leases {
        self.records.leases(collection::agents(project))
    }

    /// `session`'s registration in `project`, if `caller` may act as it, renewed by this call
    /// ([`keep_alive`](Self::keep_alive)): `not_found` if it is not registered (saying what it
    /// lost if it was reaped), `forbidden` if another caller registered it.
    pub(crate) async fn acting(
        &self,
        caller: &Caller,
        project: &str,
        session: &str,
    ) -> Result<Lease<AgentData>, SkillError> {
        let lease = self.acting_unrenewed(caller, project, session).await?;
        self.keep_alive(project, caller, &lease).await?;
        Ok(lease)
    }

    /// [`acting`](Self::acting) without the renewal, for `heartbeat`, which renews anyway.
    pub(crate) async fn acting_unrenewed(
        &self,
        caller: &Caller,
        project: &str,
        session: &str,
    ) -> Result<Lease<AgentData>, SkillError> {
        checked("project_id", project)?;
        checked("session_name", session)?;
        let Some(lease) = self.lease(project, session).await? else {
            return Err(self.unregistered(project, session).await);
        };
        may_act(caller, &lease)?;
        Ok(lease)
    }

    /// `session`'s registration in `project`: `not_found` if there is none.
    pub(crate) async fn registered(
        &self,
        project: &str,
        session: &str,
    ) -> Result<Lease<AgentData>, SkillError> {
        self.lease(project, session)
            .await?
            .ok_or_else(|| not_registered(project, session))
    }

    async fn lease(
        &self,
        project: &str,
        session: &str,
    ) -> Result<Option<Lease<AgentData>>, SkillError> {
        self.agents(project)
            .inspect(session)
            .await
            .map_err(store_failed)
    }
}

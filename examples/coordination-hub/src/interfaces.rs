//! Shared definitions: `register_interface`, `query_interface` (with similar names when there is
//! none), `list_interfaces`, and each interface as a resource whose name MCP completion offers.

use std::collections::BTreeMap;

use a2a_runtime::mcp::Completion;
use a2a_runtime::prelude::*;
use a2a_runtime::records::RecordError;
use a2a_runtime::serde_json::json;

use crate::model::Interface;
use crate::{Hub, HubClient, checked, collection, failure, now, store_failed};

/// The most interfaces a project holds: past it a new name is refused (a registered name can
/// still be replaced).
pub const MAX_INTERFACES: usize = 1_000;

/// The URI of interface `name` in `project`.
pub fn interface_uri(project: &str, name: &str) -> String {
    format!("hub://projects/{project}/interfaces/{name}")
}

/// What `register_interface` answers.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct InterfaceRegistered {
    /// `registered`.
    pub status: String,
    /// The interface.
    pub interface_name: String,
    /// What happened, for a person.
    pub message: String,
}

/// Registers a shared interface or type definition that other agents can use (registering a
/// name again replaces its definition).
#[skill(agent = Hub)]
pub async fn register_interface(
    hub: State<Hub>,
    caller: Caller,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// The agent's session name.
    session_name: String,
    /// Name of the interface or type.
    interface_name: String,
    /// The complete definition.
    definition: String,
    /// Where it is defined.
    file_path: Option<String>,
) -> Result<InterfaceRegistered, SkillError> {
    let project_id = hub.project(project_id)?;
    hub.acting(&caller, &project_id, &session_name).await?;
    checked("interface_name", &interface_name)?;
    let interface = Interface {
        definition,
        registered_by: session_name,
        file_path,
        timestamp: now(),
    };
    let written = hub
        .records()
        .put(
            &collection::interfaces(&project_id),
            &interface_name,
            &interface,
        )
        .at_most(MAX_INTERFACES)
        .await;
    match written {
        Ok(_) => {}
        Err(RecordError::Full { limit, .. }) => {
            return Err(failure(
                "limit_reached",
                format!(
                    "the project has {limit} interfaces, the most it may; register again under \
                     an existing name to replace one"
                ),
                json!({ "limit": limit }),
            ));
        }
        Err(other) => return Err(store_failed(other)),
    }
    Ok(InterfaceRegistered {
        status: "registered".into(),
        message: "Interface registered and available to all agents".into(),
        interface_name,
    })
}

/// Gets a registered interface definition; fails with `not_found` listing similar names when
/// there is none.
#[skill(agent = Hub, read_only = true)]
pub async fn query_interface(
    hub: State<Hub>,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// Name of the interface.
    interface_name: String,
) -> Result<Interface, SkillError> {
    let project_id = hub.project(project_id)?;
    checked("interface_name", &interface_name)?;
    find(&hub, &project_id, &interface_name).await
}

/// Lists all registered interfaces in the project, by name.
#[skill(agent = Hub, read_only = true)]
pub async fn list_interfaces(
    hub: State<Hub>,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
) -> Result<BTreeMap<String, Interface>, SkillError> {
    let project_id = hub.project(project_id)?;
    all(&hub, &project_id).await
}

/// A shared interface definition.
#[resource(agent = Hub, uri = "hub://projects/{project_id}/interfaces/{interface_name}", mime_type = "application/json")]
pub async fn interface(
    hub: State<Hub>,
    /// Project identifier.
    project_id: String,
    /// Name of the interface.
    #[arg(complete = interface_names)]
    interface_name: String,
) -> Result<Json<Interface>, SkillError> {
    checked("project_id", &project_id)?;
    checked("interface_name", &interface_name)?;
    Ok(Json(find(&hub, &project_id, &interface_name).await?))
}

/// The names of the project's interfaces that start with what was typed (case aside).
pub async fn interface_names(request: Completion) -> Vec<String> {
    let (Some(hub), Some(project)) = (request.state::<Hub>(), request.argument("project_id"))
    else {
        return Vec::new();
    };
    if checked("project_id", project).is_err() {
        return Vec::new();
    }
    let typed = request.value().to_ascii_lowercase();
    all(&hub, project)
        .await
        .map(|all| {
            all.into_keys()
                .filter(|name| name.to_ascii_lowercase().starts_with(&typed))
                .collect()
        })
        .unwrap_or_default()
}

/// Interface `name` of `project`, or `not_found` with similar names.
async fn find(hub: &Hub, project: &str, name: &str) -> Result<Interface, SkillError> {
    let found: Option<Interface> = hub
        .records()
        .get(&collection::interfaces(project), name)
        .await
        .map_err(store_failed)?;
    if let Some(found) = found {
        return Ok(found);
    }
    let names = all(hub, project).await?.into_keys();
    let similar: Vec<String> = names.filter(|other| similar(name, other)).collect();
    Err(failure(
        "not_found",
        format!("Interface {name} not found"),
        json!({ "similar": similar }),
    ))
}

async fn all(hub: &Hub, project: &str) -> Result<BTreeMap<String, Interface>, SkillError> {
    let entries = hub
        .records()
        .entries::<Interface>(&collection::interfaces(project), None)
        .await
        .map_err(store_failed)?;
    Ok(entries.into_iter().map(|e| (e.key, e.value)).collect())
}

/// Whether `other` is a name someone asking for `wanted` may have meant: one contains the
/// other (case aside), or they are a few edits apart.
fn similar(wanted: &str, other: &str) -> bool {
    let (a, b) = (wanted.to_ascii_lowercase(), other.to_ascii_lowercase());
    a.contains(&b) || b.contains(&a) || edits(&a, &b) <= (a.len().max(b.len()) / 4).max(1)
}

/// The Levenshtein distance between `a` and `b`.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

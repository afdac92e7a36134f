//! `McpHandler`: the agents of one MCP endpoint as one MCP server, for one session. An agent's
//! own endpoint has one member, which keeps its names; a host's shared endpoint has every
//! agent, whose tools and prompts are listed as `{agent}_{name}` (`namespace.rs`) and resources
//! by their URIs. Each request goes to the agent it names, whose [`AgentMcp`] serves it with the
//! agent's scopes, quotas and tasks; a task is found through the agent that owns it. The rmcp
//! trait, every MCP method, is implemented in `methods.rs`.

#[doc(hidden)]
pub mod methods;

use std::sync::{Arc, OnceLock};

use rmcp::model::{
    Implementation, InitializeResult, ListResourceTemplatesResult, ListToolsResult, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::json;

use crate::agent::AgentMcp;
use crate::content;
use crate::namespace::{collision, namespaced, split};
use crate::skills_ext::{self, SkillDocument, SkillShelf};
use a2a_runtime_core::app::App;
use a2a_runtime_core::content::{ARTIFACT_TEMPLATE, ResourceUpdates};
use a2a_runtime_core::observe::Meter;

/// One agent behind an endpoint: the prefix of its names (empty for an agent's own endpoint)
/// and what serves it.
#[derive(Clone)]
pub struct Member {
    pub prefix: String,
    pub(crate) agent: AgentMcp,
}

impl Member {
    /// Agent `app` under `prefix`.
    pub fn new(prefix: impl Into<String>, app: Arc<App>) -> Self {
        Self {
            prefix: prefix.into(),
            agent: AgentMcp::new(app),
        }
    }
}

/// Who an endpoint of several agents says it is (one agent's endpoint says what the agent is).
pub struct Identity<'a> {
    pub name: &'a str,
    pub description: &'a str,
}

/// The agents of an MCP endpoint as one MCP server; one per session (its members' sessions
/// are its).
#[derive(Clone)]
pub struct McpHandler {
    /// The agents' handlers every session shares.
    pub(crate) shared: Arc<[Member]>,
    /// This session's own handlers (their subscriptions and log levels), made when it first
    /// needs them: most requests (every stateless one) never do, and pay nothing for them.
    session: Arc<OnceLock<Arc<[Member]>>>,
    /// Every agent's tools as listed, for rmcp's lookups by name.
    pub(crate) tools: Arc<Vec<Tool>>,
    /// Whether some member requires credentials: the others' tools then say they need none.
    secured: bool,
    pub(crate) info: Arc<InitializeResult>,
    /// Every member's resource changes in one channel, started by the first
    /// `subscriptions/listen` (until then no member sends its changes anywhere).
    updates: Arc<OnceLock<ResourceUpdates>>,
    /// Where the listings it answers itself are reported: the agent's meter for one agent,
    /// the server's for several (a member reports what it serves).
    pub(crate) meter: Meter,
    /// The agents' `SKILL.md`s, served through the Agent Skills extension.
    pub(crate) skills: Arc<SkillShelf>,
}

impl McpHandler {
    /// One agent's endpoint: its names as they are, its own description.
    pub fn agent(app: Arc<App>) -> Self {
        let member = Member::new("", app);
        let info = member.agent.info().clone();
        let meter = member.agent.meter().clone();
        Self::assemble(vec![member], info, meter)
    }

    /// An endpoint of several agents, each under its prefix, presented as `identity`; refused
    /// when two members would list a tool or prompt under one name.
    pub fn shared(identity: &Identity<'_>, members: Vec<Member>) -> Result<Self, String> {
        // Requests no member names (a listen, a completion) go to the first member.
        if members.is_empty() {
            return Err(format!("{} serves no agent over MCP", identity.name));
        }
        check_names(&members)?;
        let info = server_info(identity, &members);
        let hub = members.first().and_then(|m| m.agent.meter().hub().cloned());
        let meter = Meter::new(identity.name, hub);
        Ok(Self::assemble(members, info, meter))
    }

    fn assemble(members: Vec<Member>, info: InitializeResult, meter: Meter) -> Self {
        let secured = members.iter().any(|m| m.agent.app().security.is_enabled());
        let tools = members
            .iter()
            .flat_map(|m| {
                let registry = m.agent.app().dispatcher.registry();
                let tools = registry.skills().iter().filter_map(|skill| {
                    let mut tool = m.agent.tool(skill.id())?;
                    tool.name = namespaced(&m.prefix, &tool.name).into();
                    Some(tool)
                });
                tools.collect::<Vec<_>>()
            })
            .collect();
        Self {
            meter,
            secured,
            tools: Arc::new(tools),
            session: Arc::default(),
            shared: members.into(),
            info: Arc::new(info),
            updates: Arc::default(),
            skills: Arc::default(),
        }
    }

    /// The same endpoint serving `skills` through the Agent Skills extension (SEP-2640), which
    /// its capabilities then declare.
    #[must_use]
    pub fn with_skills(self, skills: Vec<SkillDocument>) -> Self {
        self.with_skill_shelf(Arc::new(SkillShelf::new(skills)))
    }

    /// The same endpoint serving the `SKILL.md`s on `shelf`, as they are when asked for,
    /// through the Agent Skills extension, which its capabilities declare when the shelf has
    /// any now.
    #[must_use]
    pub fn with_skill_shelf(mut self, skills: Arc<SkillShelf>) -> Self {
        if !skills.current().is_empty() {
            let info = Arc::make_mut(&mut self.info);
            let extensions = info
                .capabilities
                .extensions
                .get_or_insert_with(Default::default);
            extensions.insert(skills_ext::EXTENSION.to_owned(), Default::default());
        }
        self.skills = skills;
        self
    }

    /// The handler of a new session (its members' sessions are made when first needed).
    pub fn for_session(&self) -> Self {
        Self {
            session: Arc::default(),
            ..self.clone()
        }
    }

    /// Where the endpoint's own requests are reported.
    pub fn meter(&self) -> &Meter {
        &self.meter
    }

    /// The agents it serves.
    pub fn apps(&self) -> impl Iterator<Item = &App> {
        self.shared.iter().map(|m| m.agent.app())
    }

    /// The members serving this session: its own handlers once it has them, else the shared.
    pub(crate) fn members(&self) -> &[Member] {
        self.session.get().map_or(&self.shared, |own| own)
    }

    /// The one agent of an agent's own endpoint, which every request goes to unrouted.
    fn only(&self) -> Option<&Member> {
        match self.members() {
            [only] if only.prefix.is_empty() => Some(only),
            _ => None,
        }
    }

    /// This session's own handlers, made now if need be (subscriptions, log levels).
    pub(crate) fn session_members(&self) -> &[Member] {
        self.session.get_or_init(|| {
            self.shared
                .iter()
                .map(|m| Member {
                    prefix: m.prefix.clone(),
                    agent: m.agent.for_session(),
                })
                .collect()
        })
    }

    /// The tool listed as `name`, looked up in its member's tools as they are now.
    pub(crate) fn member_tool(&self, name: &str) -> Option<Tool> {
        let members = self.members();
        let prefixes = members
            .iter()
            .enumerate()
            .map(|(index, member)| (index, member.prefix.as_str()));
        let (index, own) = split(prefixes, name, |index, own| {
            members[index].agent.tool(own).is_some()
        })?;
        let mut tool = members[index].agent.tool(own)?;
        tool.name = name.to_owned().into();
        Some(tool)
    }

    /// Every member's tools `context`'s caller is shown, under their listed names.
    pub(crate) fn tool_list(&self, context: &RequestContext<RoleServer>) -> ListToolsResult {
        if let Some(only) = self.only() {
            return only.agent.tool_list(context);
        }
        let mut tools = Vec::new();
        let mut private = false;
        let mut change = false;
        for member in self.members() {
            change |= member.agent.tools_change();
            let listed = member.agent.tool_list(context);
            private |= listed.cache_scope == Some(rmcp::model::CacheScope::Private);
            let open = self.secured && !member.agent.app().security.is_enabled();
            tools.extend(listed.tools.into_iter().map(|mut tool| {
                tool.name = namespaced(&member.prefix, &tool.name).into();
                if open {
                    tool = crate::tools::with_security(tool, json!([{ "type": "noauth" }]));
                }
                tool
            }));
        }
        crate::tools::listed(tools, private, change)
    }

    /// Every member's resource templates; the task-artifact template, which each lists, once.
    pub(crate) fn templates(&self) -> ListResourceTemplatesResult {
        let mut templates = Vec::new();
        let mut artifacts = false;
        for member in self.members() {
            for template in content::templates(member.agent.app()) {
                let artifact = template.uri_template == ARTIFACT_TEMPLATE;
                if !(artifact && artifacts) {
                    templates.push(template);
                }
                artifacts |= artifact;
            }
        }
        ListResourceTemplatesResult::with_all_items(templates)
    }

    fn prefixes(&self) -> impl Iterator<Item = (usize, &str)> {
        self.members()
            .iter()
            .enumerate()
            .map(|(index, m)| (index, m.prefix.as_str()))
    }

    /// The member a listed tool name belongs to, and the tool's own name.
    pub(crate) fn tool_owner<'n>(&self, name: &'n str) -> Option<(&Member, &'n str)> {
        if let Some(only) = self.only() {
            return Some((only, name));
        }
        let (index, own) = split(self.prefixes(), name, |index, own| {
            let registry = self.members()[index].agent.app().dispatcher.registry();
            registry.get(own).is_some()
        })?;
        Some((&self.members()[index], own))
    }

    /// The member a listed prompt name belongs to, and the prompt's own name.
    pub(crate) fn prompt_owner<'n>(&self, name: &'n str) -> Option<(&Member, &'n str)> {
        if let Some(only) = self.only() {
            return Some((only, name));
        }
        let (index, own) = split(self.prefixes(), name, |index, own| {
            let app = self.members()[index].agent.app();
            app.catalog.prompt(own).is_some()
                || app.dispatcher.registry().content().prompt(own).is_some()
        })?;
        Some((&self.members()[index], own))
    }

    /// The member whose resource or template `uri` is, else the one owning the task of an
    /// artifact URI.
    pub(crate) async fn resource_owner(
        &self,
        uri: &str,
        context: &RequestContext<RoleServer>,
    ) -> Option<&Member> {
        if let Some(only) = self.only() {
            return Some(only);
        }
        if let Some(member) = self
            .members()
            .iter()
            .find(|m| content::serves(m.agent.app(), uri))
        {
            return Some(member);
        }
        let task = content::artifact_task(uri)?;
        self.task_owner(&task, context).await
    }

    /// The member owning task `id` (for the request's caller), if any.
    pub(crate) async fn task_owner(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Option<&Member> {
        if let Some(only) = self.only() {
            return Some(only);
        }
        for member in self.members() {
            if member.agent.owns_task(id, context).await {
                return Some(member);
            }
        }
        None
    }

    /// The changes of the members' lists; `None` when none can change.
    pub(crate) fn list_changes(&self) -> Option<crate::list_changes::ListChanges> {
        crate::list_changes::ListChanges::of(self.members().iter().map(|m| m.agent.app()))
    }

    /// Whether any member's lists can change.
    pub(crate) fn lists_change(&self) -> bool {
        self.members()
            .iter()
            .any(|m| m.agent.app().dispatcher.is_changing())
    }

    /// Every member's resource changes, in one channel (started on first use).
    pub(crate) fn updates(&self) -> &ResourceUpdates {
        if let Some(only) = self.only() {
            return &only.agent.app().resource_updates;
        }
        self.updates.get_or_init(|| {
            let merged = ResourceUpdates::new();
            for member in self.members() {
                let mut changes = member.agent.app().resource_updates.listen();
                let merged = merged.clone();
                tokio::spawn(async move {
                    use tokio::sync::broadcast::error::RecvError;
                    loop {
                        match changes.recv().await {
                            Ok(uri) => merged.notify(uri.as_ref()),
                            Err(RecvError::Lagged(_)) => {}
                            Err(RecvError::Closed) => return,
                        }
                    }
                });
            }
            merged
        })
    }
}

/// Refused when two members would list a tool or a prompt under one name.
fn check_names(members: &[Member]) -> Result<(), String> {
    let tools = members.iter().map(|m| {
        let registry = m.agent.app().dispatcher.registry();
        let names = registry.skills().iter().map(|s| s.id()).collect();
        (m.prefix.as_str(), names)
    });
    if let Some((name, [a, b])) = collision(tools) {
        return Err(format!(
            "agents `{a}` and `{b}` would both list a tool `{name}` on the shared MCP endpoint; \
             rename a skill or an agent id"
        ));
    }
    let prompts = members.iter().map(|m| {
        let catalog = &m.agent.app().catalog;
        let names = catalog.prompts().iter().map(|p| p.name()).collect();
        (m.prefix.as_str(), names)
    });
    if let Some((name, [a, b])) = collision(prompts) {
        return Err(format!(
            "agents `{a}` and `{b}` would both list a prompt `{name}` on the shared MCP \
             endpoint; rename a prompt or an agent id"
        ));
    }
    Ok(())
}

/// What `initialize` says of an endpoint of several agents (at least one): every member's
/// capabilities together, under the server's name.
fn server_info(identity: &Identity<'_>, members: &[Member]) -> InitializeResult {
    let mut info = members[0].agent.info().clone();
    if let Some(member) = members
        .iter()
        .find(|m| m.agent.info().capabilities.prompts.is_some())
    {
        info.capabilities.prompts = member.agent.info().capabilities.prompts.clone();
    }
    let changing = members
        .iter()
        .any(|m| m.agent.app().dispatcher.is_changing());
    let capabilities = &mut info.capabilities;
    if let Some(tools) = &mut capabilities.tools {
        tools.list_changed = Some(changing);
    }
    if let Some(resources) = &mut capabilities.resources {
        resources.list_changed = Some(changing);
    }
    if let Some(prompts) = &mut capabilities.prompts {
        prompts.list_changed = Some(changing);
    }
    let Identity { name, description } = *identity;
    info.with_server_info(
        Implementation::new(name, env!("CARGO_PKG_VERSION")).with_description(description),
    )
    .with_instructions(description)
}

pub(crate) fn unknown_tool(name: &str) -> McpError {
    McpError::invalid_params(
        format!("unknown tool `{name}`: tools are named `{{agent}}_{{tool}}` here"),
        Some(json!({ "name": name })),
    )
}

pub(crate) fn unknown_task(id: &str) -> McpError {
    McpError::invalid_params(
        format!("unknown task `{id}`"),
        Some(json!({ "taskId": id })),
    )
}

pub(crate) fn unknown_resource(uri: &str) -> McpError {
    McpError::invalid_params(
        format!("resource not found: no agent of this server serves `{uri}`"),
        Some(json!({ "uri": uri })),
    )
}

pub(crate) fn unknown_prompt(name: &str) -> McpError {
    McpError::invalid_params(
        format!("unknown prompt `{name}`"),
        Some(json!({ "prompt": name })),
    )
}

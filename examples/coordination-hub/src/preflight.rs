//! Conflicts before anyone merges: `check_branch` (and `coordination-hub preflight`) compares
//! what this agent's branch changed — committed since the merge base with each other agent's
//! branch, and uncommitted in its worktree — with what every other active agent's branch and
//! worktree changed, and with their reservations. Each file two of them changed is reported
//! with who and which branch, while it is still cheap to talk it over.
//!
//! Another agent's branch is the one it registered with, if the repository has it, else the
//! branch of the worktree whose default session is that agent's name. Its worktree (when one
//! has its branch checked out) is read too: an agent's work is mostly uncommitted.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use a2a_runtime::prelude::*;

use crate::git;
use crate::model::Reservation;
use crate::repository::Checkout;
use crate::{AgentOverview, HeldFile, Hub, HubClient};

/// What `check_branch` answers.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct BranchCheck {
    /// The session checked.
    pub session_name: String,
    /// Its branch (absent on a detached `HEAD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// How many files its branch and worktree change.
    pub changed_files: usize,
    /// Each file another agent changes too, or holds, with who and where; empty when nothing
    /// overlaps.
    pub overlaps: Vec<Overlap>,
}

/// One file this branch changes that another agent changes or holds.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Overlap {
    /// The file, relative to the repository.
    pub file_path: String,
    /// The other agent.
    pub session_name: String,
    /// Its branch, when the repository has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// How it is in the way: `committed` on its branch, `uncommitted` in its worktree, or
    /// `reserved` by it.
    pub how: String,
    /// The reservation, when `reserved`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reservation: Option<Reservation>,
}

/// Compares `session_name`'s branch with every other active agent's branch, worktree and
/// reservations before anyone merges: each file both change, with who and which branch. The
/// hub reads the repository it was started in (a stdio hub, in the agent's worktree); an HTTP
/// hub has none (run `coordination-hub preflight` in the worktree instead).
#[skill(agent = Hub, read_only = true)]
pub async fn check_branch(
    hub: State<Hub>,
    /// Project identifier (the hub's default project when omitted).
    project_id: Option<String>,
    /// The session whose branch (this hub's worktree) is compared.
    session_name: String,
) -> Result<BranchCheck, SkillError> {
    let project_id = hub.project(project_id)?;
    let Some(checkout) = hub.checkout() else {
        return Err(SkillError::invalid_input(
            "this hub was not started in a git repository (an HTTP hub serves many): run \
             `coordination-hub preflight` in your worktree instead",
        ));
    };
    crate::checked("session_name", &session_name)?;
    let overview = hub.overview(&project_id).await?;
    let branches = branch_overlaps(checkout, &session_name, &overview.agents)
        .await
        .map_err(SkillError::new)?;
    let held = hub
        .held_by_others(&project_id, &session_name, &branches.changed)
        .await?;
    Ok(branches.with_reservations(&session_name, &held))
}

/// What the branches say, before the reservations are asked about.
pub struct BranchOverlaps {
    /// This branch's own.
    pub branch: Option<String>,
    /// The files this branch and worktree change, against any other branch's merge base.
    pub changed: Vec<String>,
    /// The files another branch or worktree changes too.
    pub overlaps: Vec<Overlap>,
}

impl BranchOverlaps {
    /// The answer: these overlaps and a `reserved` one for each file another agent holds.
    pub fn with_reservations(self, session: &str, held: &[HeldFile]) -> BranchCheck {
        let mut overlaps = self.overlaps;
        overlaps.extend(held.iter().map(|file| Overlap {
            file_path: file.file_path.clone(),
            session_name: file.reservation.session.clone(),
            branch: None,
            how: "reserved".into(),
            reservation: Some(file.reservation.clone()),
        }));
        BranchCheck {
            session_name: session.to_owned(),
            branch: self.branch,
            changed_files: self.changed.len(),
            overlaps,
        }
    }
}

/// Where another agent works: its branch and its worktree, as far as the repository says.
struct Place {
    branch: Option<String>,
    worktree: Option<PathBuf>,
}

/// The files `checkout` (`me`'s) changes that another of `agents` changes too, on its branch
/// or in its worktree.
pub async fn branch_overlaps(
    checkout: &Checkout,
    me: &str,
    agents: &[AgentOverview],
) -> Result<BranchOverlaps, String> {
    let root = &checkout.root;
    let here = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
    let worktrees = worktrees(root).await?;
    let uncommitted = git::uncommitted_files(root).await?;
    let mut changed: BTreeSet<String> = uncommitted.iter().cloned().collect();
    let mut overlaps = Vec::new();
    for agent in agents.iter().filter(|agent| agent.session_name != me) {
        let place = place_of(root, agent, &worktrees).await;
        if place.worktree.as_deref() == Some(here.as_path()) {
            // Its worktree is this one: nothing of it is another branch's.
            continue;
        }
        let mut found = |file: &str, how: &str| {
            overlaps.push(Overlap {
                file_path: file.to_owned(),
                session_name: agent.session_name.clone(),
                branch: place.branch.clone(),
                how: how.into(),
                reservation: None,
            });
        };
        let mut mine: BTreeSet<String> = uncommitted.iter().cloned().collect();
        let mut theirs_committed = BTreeSet::new();
        // Branches with no history in common (or none yet) have nothing committed to compare.
        let base = match &place.branch {
            Some(branch) => merge_base(root, branch).await.ok(),
            None => None,
        };
        if let (Some(base), Some(branch)) = (base, &place.branch) {
            mine.extend(diff(root, &base, "HEAD").await?);
            theirs_committed.extend(diff(root, &base, branch).await?);
        }
        let theirs_uncommitted: BTreeSet<String> = match &place.worktree {
            Some(worktree) => git::uncommitted_files(worktree)
                .await
                .unwrap_or_default()
                .into_iter()
                .collect(),
            None => BTreeSet::new(),
        };
        for file in &mine {
            if theirs_uncommitted.contains(file) {
                found(file, "uncommitted");
            } else if theirs_committed.contains(file) {
                found(file, "committed");
            }
        }
        changed.extend(mine);
    }
    Ok(BranchOverlaps {
        branch: checkout.branch(),
        changed: changed.into_iter().collect(),
        overlaps,
    })
}

/// Where `agent` works: the branch it registered with if the repository has it, else the
/// branch of the worktree its session is the default of; that branch's worktree.
async fn place_of(root: &Path, agent: &AgentOverview, worktrees: &[Worktree]) -> Place {
    let registered = (!agent.branch.is_empty()
        && git::output(
            root,
            &["rev-parse", "--verify", "--quiet", &local(&agent.branch)],
        )
        .await
        .is_ok())
    .then(|| agent.branch.clone());
    let by_branch = |branch: &str| {
        worktrees
            .iter()
            .find(|w| w.branch.as_deref() == Some(branch))
    };
    let worktree = match &registered {
        Some(branch) => by_branch(branch),
        None => worktrees.iter().find(|w| w.session == agent.session_name),
    };
    Place {
        branch: registered.or_else(|| worktree.and_then(|w| w.branch.clone())),
        worktree: worktree.map(|w| w.path.clone()),
    }
}

/// A worktree of the repository, as `git worktree list` says.
struct Worktree {
    path: PathBuf,
    branch: Option<String>,
    /// The session an agent working there is named by default.
    session: String,
}

/// Every worktree of the repository `root` is in.
async fn worktrees(root: &Path) -> Result<Vec<Worktree>, String> {
    let listed = git::output(root, &["worktree", "list", "--porcelain", "-z"]).await?;
    let mut found = Vec::new();
    let mut path = None;
    for field in git::names(&listed) {
        if let Some(folder) = field.strip_prefix("worktree ") {
            path = Some(std::fs::canonicalize(folder).unwrap_or_else(|_| folder.into()));
        } else if let (Some(branch), Some(folder)) = (field.strip_prefix("branch "), &path) {
            let branch = branch.strip_prefix("refs/heads/").unwrap_or(branch);
            let session = Checkout::find(folder).map(|checkout| checkout.session());
            found.push(Worktree {
                path: folder.clone(),
                branch: Some(branch.to_owned()),
                session: session.unwrap_or_default(),
            });
            path = None;
        }
    }
    Ok(found)
}

/// The merge base of `HEAD` and `branch`.
async fn merge_base(root: &Path, branch: &str) -> Result<String, String> {
    let out = git::output(root, &["merge-base", "HEAD", &local(branch)]).await?;
    Ok(String::from_utf8_lossy(&out).trim().to_owned())
}

/// The files `to` changes since `from`.
async fn diff(root: &Path, from: &str, to: &str) -> Result<Vec<String>, String> {
    let to = if to == "HEAD" {
        to.to_owned()
    } else {
        local(to)
    };
    let args = ["diff", "--name-only", "-z", "--no-renames", from, &to];
    Ok(git::names(&git::output(root, &args).await?))
}

/// A local branch's full ref name, so a branch named like an option or a path is neither.
fn local(branch: &str) -> String {
    format!("refs/heads/{branch}")
}

impl Hub {
    /// The checkout this hub was started in, if it is a stdio hub started in one.
    pub fn checkout(&self) -> Option<&Checkout> {
        self.checkout.as_ref()
    }

    /// The hub working in `checkout` (`check_branch` reads its branch and worktree).
    pub fn in_checkout(mut self, checkout: Checkout) -> Self {
        self.checkout = Some(checkout);
        self
    }
}

//! [`Traits`]: what a skill declares about how it is called, listed and resumed, whether
//! `#[skill]` compiled it or it was defined at run time.

use crate::descriptor::{Resume, TaskSupport, ToolHints};

/// What a skill declares about how it is called, listed and resumed.
#[derive(Debug, Clone, Copy, Default)]
pub struct Traits {
    /// Listed only on the extended card.
    pub extended_only: bool,
    /// Callable over MCP without credentials on an agent that otherwise requires them.
    pub public: bool,
    /// What a restart does with its unfinished tasks.
    pub resume: Resume,
    /// Whether its MCP calls become tasks.
    pub task_support: TaskSupport,
    /// MCP tool annotations.
    pub hints: ToolHints,
    /// The agent's default skill.
    pub is_default: bool,
    /// May answer with a message alone, creating no task.
    pub replies: bool,
}

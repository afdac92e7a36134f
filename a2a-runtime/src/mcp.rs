#![doc = include_str!("../docs/mcp.md")]

pub use a2a_runtime_core::content::{
    Argument, Completer, Completion, FromArgument, FromRead, IntoPromptMessages,
    IntoResourceContents, PromptContent, PromptContext, PromptDef, PromptDescriptor, PromptMessage,
    PromptRole, ReadRequest, ResourceBody, ResourceContent, ResourceDef, ResourceDescriptor,
    ResourceUpdates,
};

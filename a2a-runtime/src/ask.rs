#![doc = include_str!("../docs/streaming-and-questions.md")]

pub use a2a_runtime_core::ask::{
    Answered, AskError, Asks, Input, ListRoots, QuestionSet, Root, Sampled, Sampling,
};

//! Questions a running skill puts to its caller (`ctx.ask`, `ctx.require_auth`) and the answers
//! that resume it. The core is protocol-neutral: an [`Asker`] per call decides how a question
//! reaches the caller (an A2A task interruption, an MCP elicitation or input-required result).

mod asking;
mod batch;
mod error;
mod limits;
mod question;
mod sampling;

pub(crate) use asking::Asking;
pub(crate) use batch::{Ask, Reply};
pub use batch::{Asks, Input, ListRoots, QuestionSet};
pub use error::AskError;
pub(crate) use limits::InputLimits;
pub(crate) use question::{
    Answer, Asker, ClientRequest, Question, QuestionKind, ask_grouped, roots_unsupported,
    sampling_unsupported, undeclared,
};
pub use sampling::{Root, Sampled, Sampling};

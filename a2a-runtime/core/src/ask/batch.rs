//! Several things asked of the caller at once (`ctx.ask_all`): answers, a completion of its
//! model, its roots. A set is a tuple (or a `Vec`) of [`Asks`] items, and its answer the tuple
//! of their outputs, so every answer arrives typed and nothing can be looked up wrongly.
//!
//! How a set travels depends on the caller: one input-required result with one input request
//! per item for an MCP client on protocol 2026-07-28; one request after another elsewhere (an
//! A2A task is in `INPUT_REQUIRED` once per question, a 2025-era MCP session gets one
//! `elicitation/create` after another).

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::question::{Answer, Question};
use super::sampling::{Root, Sampled, Sampling};

/// One thing asked in a round, as the askers see it.
#[derive(Debug, Clone)]
pub enum Ask {
    /// An answer matching the question's schema.
    Input(Question),
    /// A completion of the caller's model.
    Sample(Sampling),
    /// The caller's roots, under the name the skill gave the request.
    Roots(Option<String>),
}

/// What came back for one [`Ask`].
#[derive(Debug, Clone)]
pub enum Reply {
    Answer(Answer),
    Sampled(Sampled),
    Roots(Vec<Root>),
}

impl Ask {
    /// The name the skill gave the item, if any: the key of its MCP input request.
    pub fn key(&self) -> Option<&str> {
        match self {
            Self::Input(question) => question.key.as_deref(),
            Self::Sample(request) => request.key.as_deref(),
            Self::Roots(key) => key.as_deref(),
        }
    }

    /// What the item asks, for error messages.
    pub fn prompt(&self) -> String {
        match self {
            Self::Input(question) => question.prompt.clone(),
            Self::Sample(request) => request.summary(),
            Self::Roots(_) => "roots/list".into(),
        }
    }
}

/// A question for a `T`, to put in a set for [`ask_all`](crate::context::TaskContext::ask_all): what
/// [`ask`](crate::context::TaskContext::ask) asks on its own.
#[derive(Debug, Clone)]
pub struct Input<T> {
    prompt: String,
    key: Option<String>,
    answer: PhantomData<fn() -> T>,
}

impl<T> Input<T> {
    /// A question whose answer must be a `T`.
    pub fn new(prompt: impl Into<String>) -> Self {
        Self {
            prompt: prompt.into(),
            key: None,
            answer: PhantomData,
        }
    }

    /// A name for the question, as with [`ask_named`](crate::context::TaskContext::ask_named): the key
    /// of its MCP input request.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.key = Some(name.into()).filter(|name: &String| !name.is_empty());
        self
    }
}

/// A request for the caller's roots, to put in a set for
/// [`ask_all`](crate::context::TaskContext::ask_all): what [`roots`](crate::context::TaskContext::roots) asks on
/// its own.
#[derive(Debug, Clone, Default)]
pub struct ListRoots {
    key: Option<String>,
}

impl ListRoots {
    /// A request for the caller's roots.
    pub fn new() -> Self {
        Self::default()
    }

    /// A name for the request: the key of its MCP input request.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.key = Some(name.into()).filter(|name: &String| !name.is_empty());
        self
    }
}

/// One item of a set: what is asked, and how its reply becomes the output.
#[doc(hidden)]
pub struct Asked<O> {
    pub ask: Ask,
    pub read: fn(&Ask, &Reply) -> Result<O, String>,
}

/// Something [`ask_all`](crate::context::TaskContext::ask_all) can ask: an [`Input`], a [`Sampling`]
/// request or [`ListRoots`].
pub trait Asks {
    /// What the caller's reply becomes.
    type Output;

    #[doc(hidden)]
    fn asked(self) -> Asked<Self::Output>;
}

impl<T: DeserializeOwned + JsonSchema> Asks for Input<T> {
    type Output = T;

    fn asked(self) -> Asked<T> {
        let mut question = Question::input(self.prompt, crate::schema::answer::<T>());
        question.key = self.key;
        Asked {
            ask: Ask::Input(question),
            read: read_input::<T>,
        }
    }
}

impl Asks for Sampling {
    type Output = Sampled;

    fn asked(self) -> Asked<Sampled> {
        Asked {
            ask: Ask::Sample(self),
            read: |_, reply| match reply {
                Reply::Sampled(sampled) => Ok(sampled.clone()),
                _ => Err("the caller sent no completion".into()),
            },
        }
    }
}

impl Asks for ListRoots {
    type Output = Vec<Root>;

    fn asked(self) -> Asked<Vec<Root>> {
        Asked {
            ask: Ask::Roots(self.key),
            read: |_, reply| match reply {
                Reply::Roots(roots) => Ok(roots.clone()),
                _ => Err("the caller sent no roots".into()),
            },
        }
    }
}

fn read_input<T: DeserializeOwned>(ask: &Ask, reply: &Reply) -> Result<T, String> {
    match (ask, reply) {
        (Ask::Input(question), Reply::Answer(answer)) => question.read::<T>(answer.clone()),
        _ => Err("the caller sent no answer".into()),
    }
}

/// Why the reply at an index cannot be read, if it cannot.
type Check = Box<dyn Fn(usize, &Ask, &Reply) -> Option<String> + Send + Sync>;

/// The output of a set, from one reply per item.
type Read<O> = Box<dyn FnOnce(&[Ask], &[Reply]) -> Result<O, String> + Send>;

/// A set's items and how the replies become its output.
#[doc(hidden)]
pub struct Round<O> {
    pub asks: Vec<Ask>,
    pub check: Check,
    pub read: Read<O>,
}

/// What [`ask_all`](crate::context::TaskContext::ask_all) asks in one round: a tuple of up to eight
/// [`Asks`] items (answered with the tuple of their outputs), or a `Vec` of items of one kind.
pub trait QuestionSet {
    /// The answers, in the order asked.
    type Output;

    #[doc(hidden)]
    fn round(self) -> Round<Self::Output>;
}

impl<I: Asks> QuestionSet for Vec<I>
where
    I::Output: 'static,
{
    type Output = Vec<I::Output>;

    fn round(self) -> Round<Self::Output> {
        let items: Vec<Asked<I::Output>> = self.into_iter().map(Asks::asked).collect();
        let reads: Vec<_> = items.iter().map(|item| item.read).collect();
        let checks = reads.clone();
        Round {
            asks: items.into_iter().map(|item| item.ask).collect(),
            check: Box::new(move |index, ask, reply| {
                let read = checks.get(index)?;
                read(ask, reply).err()
            }),
            read: Box::new(move |asks, replies| {
                reads
                    .iter()
                    .zip(asks.iter().zip(replies))
                    .map(|(read, (ask, reply))| read(ask, reply))
                    .collect()
            }),
        }
    }
}

/// `QuestionSet` for a tuple: `$index` names each element, `$item` its type.
macro_rules! tuple_set {
    ($($index:tt $item:ident),+) => {
        impl<$($item: Asks),+> QuestionSet for ($($item,)+)
        where
            $($item::Output: 'static),+
        {
            type Output = ($($item::Output,)+);

            fn round(self) -> Round<Self::Output> {
                let items = ($(self.$index.asked(),)+);
                let reads = ($(items.$index.read,)+);
                Round {
                    asks: vec![$(items.$index.ask),+],
                    check: Box::new(move |index, ask, reply| match index {
                        $($index => (reads.$index)(ask, reply).err(),)+
                        _ => None,
                    }),
                    read: Box::new(move |asks, replies| {
                        let reply = |index: usize| {
                            asks.get(index)
                                .zip(replies.get(index))
                                .ok_or_else(|| format!("no reply to item {index}"))
                        };
                        Ok(($({
                            let (ask, got) = reply($index)?;
                            (reads.$index)(ask, got)?
                        },)+))
                    }),
                }
            }
        }
    };
}

tuple_set!(0 A);
tuple_set!(0 A, 1 B);
tuple_set!(0 A, 1 B, 2 C);
tuple_set!(0 A, 1 B, 2 C, 3 D);
tuple_set!(0 A, 1 B, 2 C, 3 D, 4 E);
tuple_set!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F);
tuple_set!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G);
tuple_set!(0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G, 7 H);

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    struct Name {
        name: String,
    }

    #[test]
    fn a_tuple_reads_each_reply_as_its_item_asks() {
        let round = (
            Input::<Name>::new("Who?").named("user_name"),
            Sampling::new("Greet"),
            ListRoots::new(),
        )
            .round();
        assert_eq!(round.asks.len(), 3);
        assert_eq!(round.asks[0].key(), Some("user_name"));
        let replies = [
            Reply::Answer(Answer::Value(serde_json::json!({"name": "Ada"}))),
            Reply::Sampled(Sampled {
                text: "Hi".into(),
                model: "m".into(),
                stop_reason: None,
            }),
            Reply::Roots(Vec::new()),
        ];
        let wrong = Reply::Answer(Answer::Value(serde_json::json!({"nom": "Ada"})));
        let problem = (round.check)(0, &round.asks[0], &wrong).expect("a problem");
        assert!(problem.contains("name"), "{problem}");
        assert_eq!((round.check)(0, &round.asks[0], &replies[0]), None);
        let (name, sampled, roots) = (round.read)(&round.asks, &replies).expect("read");
        assert_eq!(name.name, "Ada");
        assert_eq!(sampled.text, "Hi");
        assert!(roots.is_empty());
    }

    #[test]
    fn a_vec_reads_every_item_alike() {
        let round = vec![Input::<u32>::new("one"), Input::<u32>::new("two")].round();
        let replies = [
            Reply::Answer(Answer::Value(serde_json::json!(1))),
            Reply::Answer(Answer::Value(serde_json::json!(2))),
        ];
        assert_eq!((round.read)(&round.asks, &replies), Ok(vec![1, 2]));
    }
}

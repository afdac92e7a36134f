//! The error sink shared by one expansion. Every check reports here instead of returning early,
//! so the user sees all problems at once; dropping the sink without `finish` is a bug in this
//! crate and panics (in the macro, where rustc turns it into an error), so no error can be lost.

use darling::Error;

/// Collected diagnostics of one macro invocation.
pub(crate) struct Errors {
    errors: Vec<Error>,
    finished: bool,
}

impl Errors {
    /// An empty sink.
    pub(crate) fn new() -> Self {
        Self {
            errors: Vec::new(),
            finished: false,
        }
    }

    /// Records an error.
    pub(crate) fn push(&mut self, error: Error) {
        self.errors.push(error);
    }

    /// Records the error of `result`, if any, and returns its value otherwise.
    pub(crate) fn handle<T>(&mut self, result: Result<T, Error>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.push(error);
                None
            }
        }
    }

    /// How many errors were recorded so far; compare before and after a step to see if it failed.
    pub(crate) fn count(&self) -> usize {
        self.errors.iter().map(Error::len).sum()
    }

    /// Ends collection: `Err` with every recorded error, or `Ok` if there were none.
    pub(crate) fn finish(mut self) -> Result<(), Error> {
        self.finished = true;
        let errors = std::mem::take(&mut self.errors);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Error::multiple(errors))
        }
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        if !self.finished && !std::thread::panicking() {
            panic!("a2a-macros bug: error sink dropped without finish()");
        }
    }
}

/// Where to point at an item an attribute does not accept: its keyword (`enum`, `fn`, `impl`,
/// ...), past its attributes and doc comments; the attribute itself when the item did not parse.
pub(crate) fn item_keyword_span(item: Option<&syn::Item>) -> proc_macro2::Span {
    use syn::Item;
    match item {
        Some(Item::Struct(item)) => item.struct_token.span,
        Some(Item::Enum(item)) => item.enum_token.span,
        Some(Item::Union(item)) => item.union_token.span,
        Some(Item::Fn(item)) => item.sig.fn_token.span,
        Some(Item::Impl(item)) => item.impl_token.span,
        Some(Item::Trait(item)) => item.trait_token.span,
        Some(Item::Mod(item)) => item.mod_token.span,
        Some(Item::Const(item)) => item.const_token.span,
        Some(Item::Static(item)) => item.static_token.span,
        Some(Item::Type(item)) => item.type_token.span,
        Some(Item::Use(item)) => item.use_token.span,
        _ => proc_macro2::Span::call_site(),
    }
}

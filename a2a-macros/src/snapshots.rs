//! Expansion snapshots: what each attribute generates, formatted with prettyplease and compared
//! with the files in `a2a-macros/snapshots/`. A change to generated code shows up as a diff to
//! review; refresh them with `SNAPSHOTS=overwrite cargo test -p a2a-macros`.

use proc_macro2::TokenStream;
use quote::quote;

fn check(name: &str, expanded: TokenStream) {
    let file: syn::File = match syn::parse2(expanded.clone()) {
        Ok(file) => file,
        Err(error) => panic!("{name}: the expansion is not a file of items ({error}):\n{expanded}"),
    };
    let actual = prettyplease::unparse(&file);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("snapshots")
        .join(format!("{name}.rs"));
    if std::env::var_os("SNAPSHOTS").is_some_and(|v| v == "overwrite") {
        std::fs::create_dir_all(path.parent().expect("snapshots directory"))
            .expect("snapshots directory");
        std::fs::write(&path, &actual).expect("snapshot written");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        expected == actual,
        "the expansion of `{name}` changed; review it and refresh {} with \
         SNAPSHOTS=overwrite cargo test -p a2a-macros\n--- actual ---\n{actual}",
        path.display()
    );
}

#[test]
fn agent_with_card_fields_and_security() {
    let args = quote! {
        name = "Currency Agent",
        version = "1.2.0",
        provider(organization = "Acme", url = "https://acme.example"),
        security(bearer),
        extensions(extension(
            uri = "urn:acme:signed:v1",
            description = "Signed quotes.",
            required = true,
            params = r#"{"alg": "ed25519"}"#
        )),
    };
    let item = quote! {
        /// Converts money between currencies.
        pub struct Currency { rates: Vec<f64> }
    };
    check("agent", crate::agent::expand(args, item));
}

#[test]
fn agent_with_an_error_keeps_the_struct_and_a_fallback_impl() {
    let item = quote! {
        /// An agent.
        struct Demo;
    };
    let args = quote!(documentation_url = "docs.example.com");
    check("agent_fallback", crate::agent::expand(args, item));
}

#[test]
fn skill_with_inputs_injected_state_and_a_result() {
    let args = quote!(
        agent = Currency,
        tags = ["finance"],
        examples = ["10 USD in EUR?"]
    );
    let item = quote! {
        /// Convert an amount from one currency to another.
        pub async fn convert(
            state: State<Currency>,
            /// Amount in the source currency.
            amount: f64,
            to: Option<String>,
            ctx: TaskContext,
        ) -> Result<Quote, SkillError> {
            todo!()
        }
    };
    check("skill", crate::skill::expand(args, item));
}

#[test]
fn skill_streaming_text() {
    let args = quote!(agent = Demo);
    let item = quote! {
        /// Count up.
        async fn count(to: u32) -> impl Stream<Item = String> {
            futures::stream::iter((0..to).map(|n| n.to_string()))
        }
    };
    check("skill_stream", crate::skill::expand(args, item));
}

#[test]
fn skill_with_an_error_keeps_the_fn_and_an_inert_marker() {
    let args = quote!(agent = Demo, id = "say hello");
    let item = quote! {
        /// Greets.
        async fn greet(name: String) -> String {
            name
        }
    };
    check("skill_fallback", crate::skill::expand(args, item));
}

#[test]
fn resource_template_with_state_and_a_variable() {
    let args = quote!(
        agent = Notes,
        uri = "notes://{id}",
        mime_type = "text/markdown"
    );
    let item = quote! {
        /// One note.
        pub async fn note(notes: State<Notes>, /// Its number.
         id: usize) -> Result<String, SkillError> {
            todo!()
        }
    };
    check(
        "resource",
        crate::content::expand(crate::content::Kind::Resource, args, item),
    );
}

#[test]
fn prompt_with_a_renamed_an_optional_and_a_completed_argument() {
    let args = quote!(agent = Notes, title = "Summarize");
    let item = quote! {
        /// Summarize a note.
        pub async fn summarize(
            /// Which note.
            #[arg(name = "noteId", complete = note_ids)]
            note_id: usize,
            length: Option<Length>,
        ) -> Vec<PromptMessage> {
            todo!()
        }
    };
    check(
        "prompt",
        crate::content::expand(crate::content::Kind::Prompt, args, item),
    );
}

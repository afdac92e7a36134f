//! Resources declared with `#[resource]`: what one is (a static URI or a URI template), what
//! reading it returns, and the values a read converts into.

use std::any::TypeId;
use std::borrow::Cow;

use super::template::UriTemplate;
use super::{ReadRequest, Reader};
use crate::call::Json;
use crate::skill_error::SkillError;

/// One piece of a resource's contents: text or bytes, under the URI that was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceContent {
    /// The URI the content belongs to.
    pub uri: String,
    /// Its media type, if known.
    pub mime_type: Option<String>,
    /// The content itself.
    pub body: ResourceBody,
}

/// Text or bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// UTF-8 text.
    Text(String),
    /// Binary data (sent base64-encoded).
    Blob(Vec<u8>),
}

impl ResourceContent {
    /// Text content.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Text(text.into()),
        }
    }

    /// Binary content.
    pub fn blob(uri: impl Into<String>, bytes: Vec<u8>) -> Self {
        Self {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Blob(bytes),
        }
    }

    /// Sets the media type.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}

/// A value a `#[resource]` fn may return: text (`String`, `&'static str`), bytes (`Vec<u8>`),
/// structured data (`Json<T>`, sent as JSON text), or [`ResourceContent`]s, or a `Result` of one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from a resource",
    label = "not resource contents",
    note = "return text (`String`), bytes (`Vec<u8>`), `Json<T>`, `ResourceContent`, `Vec<ResourceContent>`, or a `Result` of one of these"
)]
pub trait IntoResourceContents {
    /// The media type when the resource declares none.
    const DEFAULT_MIME_TYPE: Option<&'static str> = None;
    /// The contents of `uri`; `mime_type` is the resource's declared media type.
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContent>, SkillError>;
}

fn typed(content: ResourceContent, mime_type: Option<&str>, default: &str) -> ResourceContent {
    content.with_mime_type(mime_type.unwrap_or(default))
}

impl IntoResourceContents for String {
    const DEFAULT_MIME_TYPE: Option<&'static str> = Some("text/plain");
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContent>, SkillError> {
        let content = ResourceContent::text(uri, self);
        Ok(vec![typed(content, mime_type, "text/plain")])
    }
}

impl IntoResourceContents for &'static str {
    const DEFAULT_MIME_TYPE: Option<&'static str> = Some("text/plain");
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContent>, SkillError> {
        self.to_owned().into_contents(uri, mime_type)
    }
}

impl IntoResourceContents for Cow<'static, str> {
    const DEFAULT_MIME_TYPE: Option<&'static str> = Some("text/plain");
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContent>, SkillError> {
        self.into_owned().into_contents(uri, mime_type)
    }
}

impl IntoResourceContents for Vec<u8> {
    const DEFAULT_MIME_TYPE: Option<&'static str> = Some("application/octet-stream");
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContent>, SkillError> {
        let content = ResourceContent::blob(uri, self);
        Ok(vec![typed(content, mime_type, "application/octet-stream")])
    }
}

impl<T: serde::Serialize> IntoResourceContents for Json<T> {
    const DEFAULT_MIME_TYPE: Option<&'static str> = Some("application/json");
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContent>, SkillError> {
        let text = serde_json::to_string(&self.0).map_err(|e| {
            SkillError::internal(format!("the resource could not be serialized: {e}"))
        })?;
        let content = ResourceContent::text(uri, text);
        Ok(vec![typed(content, mime_type, "application/json")])
    }
}

impl IntoResourceContents for ResourceContent {
    fn into_contents(self, _: &str, _: Option<&str>) -> Result<Vec<ResourceContent>, SkillError> {
        Ok(vec![self])
    }
}

impl IntoResourceContents for Vec<ResourceContent> {
    fn into_contents(self, _: &str, _: Option<&str>) -> Result<Vec<ResourceContent>, SkillError> {
        Ok(self)
    }
}

impl<T: IntoResourceContents, E: Into<SkillError>> IntoResourceContents for Result<T, E> {
    const DEFAULT_MIME_TYPE: Option<&'static str> = T::DEFAULT_MIME_TYPE;
    fn into_contents(
        self,
        uri: &str,
        mime_type: Option<&str>,
    ) -> Result<Vec<ResourceContent>, SkillError> {
        self.map_err(Into::into)?.into_contents(uri, mime_type)
    }
}

/// A resource, as `#[resource]` declares it.
#[derive(Debug)]
pub struct ResourceDescriptor {
    parts: ResourceParts,
}

/// The fields of a [`ResourceDescriptor`], spelled out by generated code.
#[doc(hidden)]
pub struct ResourceParts {
    pub agent: fn() -> TypeId,
    pub agent_name: fn() -> &'static str,
    pub uri: &'static str,
    pub name: &'static str,
    pub title: Option<&'static str>,
    pub description: &'static str,
    pub mime_type: Option<&'static str>,
    /// The media type the return type implies, when none is declared.
    pub default_mime_type: fn() -> Option<&'static str>,
    /// The template variables in URI order, and their completions.
    pub variables: &'static [super::Argument],
    pub read: Reader<Vec<ResourceContent>>,
    pub rust_path: &'static str,
}

impl std::fmt::Debug for ResourceParts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceParts")
            .field("uri", &self.uri)
            .field("rust_path", &self.rust_path)
            .finish_non_exhaustive()
    }
}

impl ResourceDescriptor {
    #[doc(hidden)]
    pub const fn __new(parts: ResourceParts) -> Self {
        Self { parts }
    }

    /// Stands in for a resource whose `#[resource]` expansion failed. Never served.
    #[doc(hidden)]
    pub const INVALID: ResourceDescriptor = ResourceDescriptor::__new(ResourceParts {
        agent: TypeId::of::<()>,
        agent_name: || "<invalid>",
        uri: "",
        name: "",
        title: None,
        description: "",
        mime_type: None,
        default_mime_type: || None,
        variables: &[],
        read: |_| Box::pin(std::future::ready(Err(SkillError::new("invalid resource")))),
        rust_path: "",
    });

    /// The resource's URI, or its URI template (RFC 6570, `{name}` variables).
    pub fn uri(&self) -> &'static str {
        self.parts.uri
    }

    /// Whether the URI is a template.
    pub fn is_template(&self) -> bool {
        !self.parts.variables.is_empty()
    }

    /// Its name (the fn name unless set).
    pub fn name(&self) -> &'static str {
        self.parts.name
    }

    /// A display title.
    pub fn title(&self) -> Option<&'static str> {
        self.parts.title
    }

    /// Its description (the doc comment).
    pub fn description(&self) -> &'static str {
        self.parts.description
    }

    /// Its media type: as declared, else what the return type implies.
    pub fn mime_type(&self) -> Option<&'static str> {
        self.parts.mime_type.or_else(self.parts.default_mime_type)
    }

    /// The template variables.
    pub fn variables(&self) -> &'static [super::Argument] {
        self.parts.variables
    }

    pub fn agent_type(&self) -> TypeId {
        (self.parts.agent)()
    }

    pub fn agent_name(&self) -> &'static str {
        (self.parts.agent_name)()
    }

    pub fn rust_path(&self) -> &'static str {
        self.parts.rust_path
    }

    pub fn template(&self) -> UriTemplate {
        UriTemplate::parse(self.parts.uri)
    }

    /// Reads the resource.
    pub fn read(
        &self,
        request: ReadRequest,
    ) -> a2a_runtime_types::BoxFuture<'static, Result<Vec<ResourceContent>, SkillError>> {
        (self.parts.read)(request)
    }
}

/// Implemented by `#[resource]` for the marker type named like the fn, so a path to the fn
/// names its descriptor (`#[agent(resources(path::to::fn))]`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a resource",
    label = "not a `#[resource]` function",
    note = "only functions annotated with `#[resource(...)]` can be listed in `#[agent(resources(...))]`"
)]
pub trait ResourceDef {
    /// The resource's descriptor.
    const DESCRIPTOR: &'static ResourceDescriptor;
}

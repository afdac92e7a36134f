use a2a_runtime::prelude::*;

/// Keeps notes.
#[agent(resources(note, index), prompts(summarize))]
struct Notes {
    titles: Vec<String>,
}

/// Greets.
#[skill(agent = Notes, task_support = "forbidden")]
async fn greet(name: String) -> String {
    name
}

/// How long a summary should be.
#[derive(Debug, JsonSchema)]
enum Length {
    /// One line.
    Short,
    /// A paragraph.
    Long,
}

impl std::str::FromStr for Length {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "Short" => Ok(Self::Short),
            "Long" => Ok(Self::Long),
            _ => Err(format!("unknown length {text}")),
        }
    }
}

/// Every note title.
#[resource(agent = Notes, uri = "notes://index", mime_type = "text/plain")]
async fn index(notes: State<Notes>) -> String {
    notes.titles.join("\n")
}

/// One note.
#[resource(agent = Notes, uri = "notes://{id}")]
async fn note(notes: State<Notes>, caller: Caller, /// Its number.
 id: usize) -> Result<String, SkillError> {
    let _ = caller;
    notes
        .titles
        .get(id)
        .cloned()
        .ok_or_else(|| SkillError::invalid_input(format!("no note {id}")))
}

/// Summarize a note.
#[prompt(agent = Notes, title = "Summarize")]
async fn summarize(
    /// Which note.
    #[arg(name = "noteId")]
    note_id: usize,
    /// How long.
    #[arg(complete = lengths)]
    length: Option<Length>,
    ctx: PromptContext,
) -> Result<Vec<PromptMessage>, SkillError> {
    let style: String = ctx.ask("In what style?").await?;
    Ok(vec![PromptMessage::user_text(format!("Summarize note {note_id} ({length:?}) in {style}."))])
}

/// The lengths offered for `summarize`.
async fn lengths(request: Completion) -> Vec<String> {
    ["Short", "Long"]
        .into_iter()
        .filter(|length| length.starts_with(request.value()))
        .map(str::to_owned)
        .collect()
}

fn main() {
    let greet = <greet as a2a_runtime::skills::SkillDef>::DESCRIPTOR;
    assert_eq!(greet.task_support(), a2a_runtime::skills::TaskSupport::Forbidden);
    let note = <note as a2a_runtime::mcp::ResourceDef>::DESCRIPTOR;
    assert!(note.is_template());
    assert_eq!(note.variables()[0].name, "id");
    let summarize = <summarize as a2a_runtime::mcp::PromptDef>::DESCRIPTOR;
    let arguments = summarize.arguments();
    assert_eq!(arguments[0].name, "noteId");
    assert!(arguments[0].required && !arguments[1].required);
    assert_eq!(arguments.len(), 2, "the context is injected, not an argument");
    assert_eq!((arguments[1].choices)(), ["Short", "Long"]);
    assert!(arguments[1].complete.is_some() && arguments[0].complete.is_none());
    assert_eq!(<index as a2a_runtime::mcp::ResourceDef>::DESCRIPTOR.mime_type(), Some("text/plain"));
}

//! What the commands print: A2A 1.0 JSON with `--json`, short lines for people otherwise.

use a2a_runtime::client::{
    AgentCard, Finding, PushNotificationConfig, SendResult, StreamEvent, UsageReport, card_json,
    event_json, message_json, task_json,
};
use a2a_runtime::{Message, Part, Task, model::PartContent};
use serde_json::Value;

fn json_line(value: &Value) {
    println!("{value}");
}

fn part_text(part: &Part) -> String {
    match &part.content {
        PartContent::Text(text) => text.clone(),
        PartContent::Data(value) => value.to_string(),
        PartContent::Url(url) => url.clone(),
        PartContent::Raw(bytes) => format!(
            "<{} bytes{}>",
            bytes.len(),
            part.media_type
                .as_deref()
                .map(|t| format!(" of {t}"))
                .unwrap_or_default()
        ),
    }
}

fn parts_text(parts: &[Part]) -> String {
    parts.iter().map(part_text).collect::<Vec<_>>().join("")
}

pub(crate) fn card(card: &AgentCard, json: bool) {
    if json {
        return json_line(&card_json(card));
    }
    println!("{} {}", card.name, card.version);
    if !card.description.is_empty() {
        println!("{}", card.description);
    }
    for interface in &card.interfaces {
        println!("  interface  {interface}");
    }
    for skill in &card.skills {
        let summary = skill.description.lines().next().unwrap_or_default();
        println!("  skill      {}: {summary}", skill.id);
    }
    let c = card.capabilities;
    println!(
        "  supports   streaming={} push={} extended card={}",
        c.streaming, c.push_notifications, c.extended_agent_card
    );
}

pub(crate) fn findings(findings: &[Finding], json: bool) {
    if json {
        let list: Vec<Value> = findings
            .iter()
            .map(|f| {
                serde_json::json!({
                    "severity": format!("{:?}", f.severity).to_ascii_lowercase(),
                    "field": f.field,
                    "message": f.message,
                })
            })
            .collect();
        return json_line(&Value::Array(list));
    }
    if findings.is_empty() {
        println!("the card is valid");
    }
    for finding in findings {
        println!("{finding}");
    }
}

pub(crate) fn task(task: &Task, json: bool) {
    if json {
        return json_line(&task_json(task));
    }
    println!("task {} {:?}", task.id, task.status.state);
    if let Some(message) = &task.status.message {
        println!("  status     {}", parts_text(&message.parts));
    }
    for artifact in &task.artifacts {
        let name = artifact.name.as_deref().unwrap_or(&artifact.artifact_id);
        println!("  artifact   {name}: {}", parts_text(&artifact.parts));
    }
}

pub(crate) fn listed(task: &Task, json: bool) {
    if json {
        return json_line(&task_json(task));
    }
    println!("{} {:?}", task.id, task.status.state);
}

fn message(message: &Message, json: bool) {
    if json {
        return json_line(&message_json(message));
    }
    println!("reply: {}", parts_text(&message.parts));
}

pub(crate) fn sent(sent: &SendResult, json: bool) {
    match sent {
        SendResult::Task(t) => task(t, json),
        SendResult::Message(m) => message(m, json),
    }
}

pub(crate) fn event(event: &StreamEvent, json: bool) {
    if json {
        return json_line(&event_json(event));
    }
    match event {
        StreamEvent::Task(t) => println!("task {} {:?}", t.id, t.status.state),
        StreamEvent::Message(m) => message(m, false),
        StreamEvent::Status(update) => {
            let progress = update.metadata.as_ref().and_then(|m| {
                let done = m.get("progress")?.as_f64()?;
                Some(match m.get("total").and_then(Value::as_f64) {
                    Some(total) if total > 0.0 => format!(" {} {done}/{total}", bar(done / total)),
                    _ => format!(" {done}"),
                })
            });
            let text = update
                .status
                .message
                .as_ref()
                .map(|m| format!(" {}", parts_text(&m.parts)))
                .unwrap_or_default();
            println!(
                "status {:?}{}{text}",
                update.status.state,
                progress.unwrap_or_default()
            );
        }
        StreamEvent::Artifact(update) => {
            let name = update
                .artifact
                .name
                .as_deref()
                .unwrap_or(&update.artifact.artifact_id);
            let verb = if update.append { "+" } else { "" };
            println!(
                "artifact {name}: {verb}{}",
                parts_text(&update.artifact.parts)
            );
        }
    }
}

/// A progress bar of 20 cells, `fraction` of them full.
fn bar(fraction: f64) -> String {
    const CELLS: usize = 20;
    // Rounded to whole cells, so the cast cannot lose anything that matters.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let full = ((fraction.clamp(0.0, 1.0) * CELLS as f64).round() as usize).min(CELLS);
    format!("[{}{}]", "#".repeat(full), ".".repeat(CELLS - full))
}

pub(crate) fn push_config(config: &PushNotificationConfig, json: bool) {
    if json {
        return json_line(&serde_json::json!({
            "taskId": config.task_id,
            "id": config.id,
            "url": config.url,
            "token": config.token,
        }));
    }
    println!(
        "{} {} -> {}",
        config.task_id,
        config.id.as_deref().unwrap_or("-"),
        config.url
    );
}

/// A usage report: one JSON object, or a table for people.
pub(crate) fn usage(report: &UsageReport, json: bool) {
    if json {
        let totals: Vec<Value> = report
            .totals
            .iter()
            .map(|line| {
                serde_json::json!({
                    report.by.as_str(): line.key, "calls": line.calls, "ran": line.ran,
                    "failed": line.failed, "refused": line.refused,
                    "durationMs": line.duration_ms, "inputBytes": line.input_bytes,
                    "outputBytes": line.output_bytes,
                })
            })
            .collect();
        let value = serde_json::json!({"since": report.since, "until": report.until,
            "by": report.by, "usage": totals});
        return json_line(&value);
    }
    println!("usage from {} until {}", report.since, report.until);
    println!(
        "{:<32} {:>8} {:>8} {:>8} {:>10} {:>12} {:>12}",
        report.by, "calls", "failed", "refused", "time (s)", "bytes in", "bytes out"
    );
    for line in &report.totals {
        println!(
            "{:<32} {:>8} {:>8} {:>8} {:>10.1} {:>12} {:>12}",
            line.key,
            line.calls,
            line.failed,
            line.refused,
            line.duration_ms as f64 / 1000.0,
            line.input_bytes,
            line.output_bytes
        );
    }
}

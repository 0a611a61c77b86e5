//! What a permission card shows after the operation's name: the call's arguments in one line, as
//! 2.1.235's verbose `renderToolUseMessage` renders them (recorded: design.durable-grant/approve,
//! design.plan-token). Scalars are JSON, arrays are counted and previewed, entries with a `path`
//! show their size and the start of their data, and an operation this version does not know shows
//! only the size of what it was given, so a card never quotes a payload it cannot judge.

use serde_json::Value;

/// A quoted piece runs at most this many chars before it is cut with an ellipsis.
const PIECE: usize = 80;
/// An array previews this many entries and names this many of the rest.
const PREVIEWED: usize = 20;
const NAMED_REST: usize = 10;
/// Arguments larger than this many bytes are announced with their total size.
const TOTAL_SHOWN_ABOVE: usize = 256;
/// The whole line is cut at this many chars.
const LINE_MAX: usize = 2000;

/// The card's argument line for `operation`, empty when there are no arguments.
pub fn arguments_line(operation: &str, arguments: &Value) -> String {
    let Some(args) = arguments.as_object().filter(|o| !o.is_empty()) else {
        return String::new();
    };
    let known = operation == super::LIST || super::client_hints(operation).is_some();
    if !known {
        return format!(
            "{} ({} of arguments not shown \u{2014} operation unknown to this client version)",
            cut(operation, PIECE),
            size(json(arguments).len())
        );
    }
    let mut entries: Vec<(&String, &Value)> = args.iter().collect();
    // Scalars first, arrays after, each group in the order given.
    entries.sort_by_key(|(_, v)| v.is_array());
    let arrays: Vec<String> = entries
        .iter()
        .filter_map(|(k, v)| {
            v.as_array()
                .map(|a| format!("{}: {}", cut(k, PIECE), a.len()))
        })
        .collect();
    let counts = if arrays.len() >= 2 {
        format!(" ({})", arrays.join(", "))
    } else {
        String::new()
    };
    let fields: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{}: {}", cut(k, PIECE), value(v)))
        .collect();
    let total = json(arguments).len();
    let total = if total > TOTAL_SHOWN_ABOVE {
        format!(" ({} total)", size(total))
    } else {
        String::new()
    };
    let line = format!("{total}{counts} {}", fields.join(", "))
        .trim_start()
        .to_owned();
    if line.chars().count() > LINE_MAX {
        let head: String = line.chars().take(LINE_MAX - 1).collect();
        format!("{}\u{2026}", head.trim_end())
    } else {
        line
    }
}

fn json(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes}B")
    } else {
        format!("{:.1}KB", bytes as f64 / 1024.0)
    }
}

/// Control characters become one space per run; longer than `max` chars is cut with an ellipsis.
fn cut(s: &str, max: usize) -> String {
    let mut clean = String::with_capacity(s.len());
    let mut in_run = false;
    for c in s.chars() {
        let control = matches!(c as u32, 0x00..=0x1f | 0x7f..=0x9f);
        if control && !in_run {
            clean.push(' ');
        } else if !control {
            clean.push(c);
        }
        in_run = control;
    }
    if clean.chars().count() > max {
        let head: String = clean.chars().take(max).collect();
        format!("{}\u{2026}", head.trim_end())
    } else {
        clean
    }
}

fn value(v: &Value) -> String {
    let Some(items) = v.as_array().filter(|a| !a.is_empty()) else {
        let text = json(v);
        return if text.chars().count() > PIECE {
            format!("{} ({})", cut(&text, PIECE), size(text.len()))
        } else {
            cut(&text, PIECE)
        };
    };
    let shown = &items[..items.len().min(PREVIEWED)];
    let preview = super::plans::preview_width(shown.len());
    let omitted = preview == 0
        && shown.iter().any(|e| {
            ["data", "content"]
                .iter()
                .any(|k| e[*k].as_str().is_some_and(|s| !s.is_empty()))
        });
    let rest = &items[shown.len()..];
    let rest = if rest.is_empty() {
        String::new()
    } else {
        let named: Vec<String> = rest.iter().take(NAMED_REST).map(name).collect();
        let more = if rest.len() > NAMED_REST {
            ", \u{2026}"
        } else {
            ""
        };
        format!(", +{} more: {}{more}", rest.len(), named.join(", "))
    };
    let noun = if items.len() == 1 { "entry" } else { "entries" };
    let entries: Vec<String> = shown.iter().map(|e| entry(e, preview)).collect();
    format!(
        "[{} {noun}: {}{rest}]{}",
        items.len(),
        entries.join(", "),
        if omitted {
            " (content previews omitted)"
        } else {
            ""
        }
    )
}

/// A string names itself; an object its path, destination or role.
fn name(e: &Value) -> String {
    match e {
        Value::String(s) => cut(s, 40),
        Value::Object(o) => {
            let n = ["path", "dest", "role"]
                .iter()
                .find_map(|k| o.get(*k).filter(|v| !v.is_null()))
                .map_or("?".to_owned(), plain);
            cut(&n, 40)
        }
        _ => "?".into(),
    }
}

/// JavaScript's `String(v)` for the scalars an entry carries.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => json(other),
    }
}

fn entry(e: &Value, preview: usize) -> String {
    if let Some(s) = e.as_str() {
        return if s.chars().count() > PIECE {
            format!("{} ({})", cut(s, PIECE), size(s.len()))
        } else {
            cut(s, PIECE)
        };
    }
    let Some(o) = e.as_object() else {
        let text = json(e);
        return format!("{} ({})", cut(&text, PIECE), size(text.len()));
    };
    let bytes = json(e).len();
    let text = |k: &str| o.get(k).and_then(Value::as_str);
    if let Some(path) = text("path") {
        let flags: Vec<&str> = ["encoding", "local_path", "if_match"]
            .into_iter()
            .filter(|k| text(k).is_some_and(|s| !s.is_empty()))
            .collect();
        let flags = if flags.is_empty() {
            String::new()
        } else {
            format!(" [+{}]", flags.join(","))
        };
        let head = format!("{} ({}){flags}", cut(path, PIECE), size(bytes));
        return match text("data").filter(|d| preview > 0 && !d.is_empty()) {
            Some(data) => format!("{head}: {}", cut(data, preview)),
            None => head,
        };
    }
    if let Some(content) = text("content") {
        let head = format!("{} ({})", cut(text("role").unwrap_or("?"), 12), size(bytes));
        return if preview > 0 && !content.is_empty() {
            format!("{head}: {}", cut(content, preview))
        } else {
            head
        };
    }
    if text("src").is_some() || text("dest").is_some() {
        let side = |k: &str| o.get(k).filter(|v| !v.is_null()).map_or("?".into(), plain);
        let from = match o.get("src_project_id").filter(|v| truthy(v)) {
            Some(p) => format!(" [from {}]", cut(&plain(p), 24)),
            None => String::new(),
        };
        let if_match = if text("if_match").is_some_and(|s| !s.is_empty()) {
            " [+if_match]"
        } else {
            ""
        };
        let big = if bytes > TOTAL_SHOWN_ABOVE {
            format!(" ({})", size(bytes))
        } else {
            String::new()
        };
        return format!(
            "{} \u{2192} {}{from}{if_match}{big}",
            cut(&side("src"), 40),
            cut(&side("dest"), 40)
        );
    }
    let text = json(e);
    format!("{} ({})", cut(&text, PIECE), size(text.len()))
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::String(s) => !s.is_empty(),
        Value::Number(n) => n.as_f64() != Some(0.0),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_write_shows_scalars_then_the_files_with_size_and_data() {
        let args = json!({"files": [{"path": "index.html", "data": "<h1>Deck</h1>"}], "project_id": "proj-1"});
        assert_eq!(
            arguments_line("write_files", &args),
            "project_id: \"proj-1\", files: [1 entry: index.html (44B): <h1>Deck</h1>]"
        );
    }

    #[test]
    fn two_arrays_are_counted_up_front() {
        let args = json!({"project_id": "p", "writes": ["a.html"], "deletes": ["b.css", "c.css"]});
        assert_eq!(
            arguments_line("finalize_plan", &args),
            "(writes: 1, deletes: 2) project_id: \"p\", writes: [1 entry: a.html], deletes: [2 entries: b.css, c.css]"
        );
    }

    #[test]
    fn nothing_to_show_without_arguments_and_no_payload_for_an_unknown_operation() {
        assert_eq!(arguments_line("list_projects", &json!({})), "");
        assert_eq!(arguments_line("list_projects", &Value::Null), "");
        assert_eq!(
            arguments_line("exfiltrate", &json!({"x": "secret"})),
            "exfiltrate (14B of arguments not shown \u{2014} operation unknown to this client version)"
        );
    }

    #[test]
    fn many_entries_leave_no_room_for_previews() {
        let files: Vec<Value> = (0..25)
            .map(|i| json!({"path": format!("f{i}.html"), "data": "x"}))
            .collect();
        let line = arguments_line("write_files", &json!({ "files": files }));
        assert!(
            line.starts_with("(776B total) files: [25 entries: f0.html (29B), "),
            "{line}"
        );
        assert!(line.ends_with(", +5 more: f20.html, f21.html, f22.html, f23.html, f24.html] (content previews omitted)"), "{line}");
    }
}

//! What SendUserMessage tells the model: the message is always delivered; the attachments' fate
//! is reported on top, as an error only when a failed attachment cannot even be seen locally.

use super::attachments::Attachment;

pub const DELIVERED: &str = "Message delivered to user.";

/// The tool_result text and whether it is an error.
pub fn tool_result(attachments: &[Attachment], rendered_locally: bool) -> (String, bool) {
    let failed: Vec<&Attachment> = attachments
        .iter()
        .filter(|a| a.upload_error.is_some())
        .collect();
    let included = attachments.len() - failed.len();
    let mut text = DELIVERED.to_owned();
    if included > 0 {
        text.push_str(&format!(" ({})", count(included, "included")));
    }
    if failed.is_empty() {
        return (text, false);
    }
    let lines: String = failed
        .iter()
        .map(|a| {
            format!(
                "\n  {}: {}",
                a.path,
                a.upload_error.as_deref().unwrap_or_default()
            )
        })
        .collect();
    let (n, the) = if failed.len() == 1 {
        ("1 attachment".to_owned(), "the attachment")
    } else {
        (format!("{} attachments", failed.len()), "the attachments")
    };
    let verb = |one: &'static str, many: &'static str| if failed.len() == 1 { one } else { many };
    if rendered_locally {
        text.push_str(&format!(
            "\n{n} NOT delivered to Remote Control (phone/web) viewers — only visible in the desktop app on this machine:{lines}\nTell the user {the} {} only visible in the desktop app, and why.",
            verb("is", "are")
        ));
        (text, false)
    } else {
        text.push_str(&format!(
            "\n{n} could NOT be delivered:{lines}\nTell the user {the} {} not delivered and why.",
            verb("was", "were")
        ));
        (text, true)
    }
}

/// `1 attachment included`, `2 attachments included`.
fn count(n: usize, tail: &str) -> String {
    let noun = if n == 1 { "attachment" } else { "attachments" };
    format!("{n} {noun} {tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attachment(path: &str, error: Option<&str>) -> Attachment {
        Attachment {
            path: path.into(),
            size: 1,
            is_image: false,
            media_type: None,
            path_validated: true,
            file_uuid: error.is_none().then(|| "f".to_owned()),
            upload_error: error.map(str::to_owned),
        }
    }

    /// The seed's weekly-report result, word for word.
    #[test]
    fn the_weekly_report_partial_result() {
        let a = [
            attachment("/workspace/project/out/report.pdf", None),
            attachment(
                "/workspace/project/out/raw.csv",
                Some("upload failed: server returned 503"),
            ),
        ];
        let (text, is_error) = tool_result(&a, true);
        assert_eq!(
            text,
            "Message delivered to user. (1 attachment included)\n1 attachment NOT delivered to Remote Control (phone/web) viewers — only visible in the desktop app on this machine:\n  /workspace/project/out/raw.csv: upload failed: server returned 503\nTell the user the attachment is only visible in the desktop app, and why."
        );
        assert!(!is_error);
        assert!(
            tool_result(&a, false).1,
            "without local rendering it is an error"
        );
    }

    #[test]
    fn all_delivered() {
        assert_eq!(tool_result(&[], false), (DELIVERED.to_owned(), false));
        let a = [attachment("a", None), attachment("b", None)];
        assert_eq!(
            tool_result(&a, false).0,
            "Message delivered to user. (2 attachments included)"
        );
    }
}

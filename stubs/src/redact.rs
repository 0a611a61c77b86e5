//! Header redaction shared by every stub recorder: secrets never reach a record, log or snapshot.

/// Header names whose values are credentials.
const SECRET_HEADERS: &[&str] = &[
    "x-api-key",
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];

/// The value to store for header `name`: the value itself, or `[redacted]` for credentials.
pub fn header_value(name: &str, value: &str) -> String {
    if SECRET_HEADERS.iter().any(|s| name.eq_ignore_ascii_case(s)) {
        "[redacted]".to_owned()
    } else {
        value.to_owned()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn credentials_are_redacted_case_insensitively() {
        assert_eq!(
            super::header_value("X-Api-Key", "sk-ant-secret"),
            "[redacted]"
        );
        assert_eq!(
            super::header_value("Authorization", "Bearer t"),
            "[redacted]"
        );
        assert_eq!(
            super::header_value("anthropic-version", "2023-06-01"),
            "2023-06-01"
        );
    }
}

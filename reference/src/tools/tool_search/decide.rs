//! Whether a session defers tools, decided as 2.1.235 decides it at start (bundle, recon
//! parity15): on by default against Anthropic's own API (no `ANTHROPIC_BASE_URL`, or its host
//! `api.anthropic.com`) and on other providers; off against any other base URL unless
//! `ENABLE_TOOL_SEARCH` asks for it. That is why the isolated first-party runs (design.*,
//! projects.*, tools.web-fetch*) defer while the loopback runs do not. Nothing about the login
//! kind or the channel enters the decision.

/// Models whose API rejects `tool_reference` blocks (2.1.235's default list, matched as a
/// case-insensitive substring of the model name).
const UNSUPPORTED_MODELS: &[&str] = &["claude-3-5-haiku", "claude-3-haiku"];

/// How `ENABLE_TOOL_SEARCH` reads (empty counts as unset).
#[derive(Debug, PartialEq, Eq)]
enum Mode {
    /// Never defer.
    Standard,
    /// Defer (also every unrecognised value).
    On,
    /// `auto` / `auto:N`: 2.1.235 defers once the deferrable tools pass N% of the context window.
    /// The reference does not weigh tool sizes and defers as `On` does.
    Auto,
}

fn mode(value: &str) -> Mode {
    if let Some(n) = value.strip_prefix("auto:") {
        return match n.trim().parse::<f64>() {
            Ok(n) if n <= 0.0 => Mode::On,
            Ok(n) if n >= 100.0 => Mode::Standard,
            _ => Mode::Auto,
        };
    }
    match value.trim().to_ascii_lowercase().as_str() {
        "auto" => Mode::Auto,
        v if crate::environment::falsy(v) => Mode::Standard,
        _ => Mode::On,
    }
}

/// The decision from the environment (`var` looks a name up) and the session's model.
pub fn decide(
    var: impl Fn(&str) -> Option<String>,
    model: &str,
    first_party_provider: bool,
    first_party_base_url: bool,
) -> bool {
    let model = model.to_ascii_lowercase();
    if UNSUPPORTED_MODELS.iter().any(|m| model.contains(m)) {
        return false;
    }
    if var("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS").is_some_and(|v| crate::environment::truthy(&v))
    {
        return false;
    }
    let asked = var("ENABLE_TOOL_SEARCH").filter(|v| !v.is_empty());
    match asked.as_deref().map(mode) {
        Some(Mode::Standard) => false,
        Some(Mode::On | Mode::Auto) => true,
        // Unasked: a proxy in front of the first-party provider may not forward the blocks.
        None => !first_party_provider || first_party_base_url,
    }
}

/// Whether `ENABLE_TOOL_SEARCH` turns deferral off outright. 2.1.235 then also leaves the
/// tool-search beta out of a first-party request, which it sends otherwise even where it does
/// not defer (recorded: tools.surface/design-sync, `ENABLE_TOOL_SEARCH=false`).
pub fn switched_off() -> bool {
    std::env::var("ENABLE_TOOL_SEARCH")
        .ok()
        .filter(|v| !v.is_empty())
        .is_some_and(|v| mode(&v) == Mode::Standard)
}

/// The decision for this process.
pub fn enabled(model: &str) -> bool {
    decide(
        |name| std::env::var(name).ok(),
        model,
        crate::environment::provider::first_party(),
        crate::environment::first_party_base_url(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn unasked_it_follows_the_base_url_on_the_first_party_provider() {
        assert!(decide(with(&[]), "claude-sonnet-4-5", true, true));
        assert!(!decide(with(&[]), "claude-sonnet-4-5", true, false));
        // Another provider defers whatever the base URL.
        assert!(decide(with(&[]), "claude-sonnet-4-5", false, false));
        // Set but empty is unset.
        assert!(!decide(
            with(&[("ENABLE_TOOL_SEARCH", "")]),
            "m",
            true,
            false
        ));
    }

    #[test]
    fn asked_it_wins_over_the_base_url_either_way() {
        assert!(decide(
            with(&[("ENABLE_TOOL_SEARCH", "true")]),
            "m",
            true,
            false
        ));
        assert!(decide(
            with(&[("ENABLE_TOOL_SEARCH", "auto:0")]),
            "m",
            true,
            false
        ));
        assert!(decide(
            with(&[("ENABLE_TOOL_SEARCH", "whatever")]),
            "m",
            true,
            false
        ));
        assert!(!decide(
            with(&[("ENABLE_TOOL_SEARCH", "false")]),
            "m",
            true,
            true
        ));
        assert!(!decide(
            with(&[("ENABLE_TOOL_SEARCH", "auto:100")]),
            "m",
            true,
            true
        ));
        assert!(!decide(
            with(&[
                ("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS", "1"),
                ("ENABLE_TOOL_SEARCH", "true")
            ]),
            "m",
            true,
            true
        ));
    }

    #[test]
    fn models_without_tool_reference_never_defer() {
        assert!(!decide(with(&[]), "claude-3-5-haiku-20241022", true, true));
    }
}

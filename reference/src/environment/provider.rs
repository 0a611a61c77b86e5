//! Which inference provider the session talks to, named as 2.1.235 names it in the result's
//! `modelUsage[model].provider` (and whose answer decides fast mode's "not first party" reason),
//! and the other reading of the same switches that the claude.ai features use.

/// The provider switches in 2.1.235's order of precedence.
const SWITCHES: &[(&str, &str)] = &[
    ("CLAUDE_CODE_USE_BEDROCK", "bedrock"),
    ("CLAUDE_CODE_USE_FOUNDRY", "foundry"),
    ("CLAUDE_CODE_USE_ANTHROPIC_AWS", "anthropicAws"),
    (
        "CLAUDE_CODE_USE_ANTHROPIC_GOOGLE_CLOUD",
        "anthropicGoogleCloud",
    ),
    ("CLAUDE_CODE_USE_MANTLE", "mantle"),
    ("CLAUDE_CODE_USE_VERTEX", "vertex"),
];

pub const FIRST_PARTY: &str = "firstParty";

/// The provider the environment selects; the Anthropic API itself when no switch is set.
pub fn current() -> &'static str {
    from(|name| std::env::var(name).ok())
}

fn from(var: impl Fn(&str) -> Option<String>) -> &'static str {
    SWITCHES
        .iter()
        // 2.1.235 reads these switches as truthy strings: set and non-empty.
        .find(|(name, _)| var(name).is_some_and(|v| !v.is_empty()))
        .map_or(FIRST_PARTY, |(_, provider)| provider)
}

pub fn first_party() -> bool {
    current() == FIRST_PARTY
}

/// None of the provider switches is on as the CLI's boolean switches read (`1`, `true`, `yes`,
/// `on`): how 2.1.235's claude.ai features (Brief's uploads, Design, Projects, the organization's
/// policy) ask whether the session is first-party, where [`current`] takes any non-empty value.
pub fn none_switched_on() -> bool {
    !SWITCHES.iter().any(|(name, _)| super::switched_on(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_switch_set_wins_and_none_is_first_party() {
        assert_eq!(from(|_| None), FIRST_PARTY);
        let foundry = |n: &str| (n == "CLAUDE_CODE_USE_FOUNDRY").then(|| "1".to_owned());
        assert_eq!(from(foundry), "foundry");
        let both = |n: &str| {
            matches!(n, "CLAUDE_CODE_USE_VERTEX" | "CLAUDE_CODE_USE_BEDROCK").then(|| "1".into())
        };
        assert_eq!(from(both), "bedrock");
        let empty = |n: &str| (n == "CLAUDE_CODE_USE_VERTEX").then(String::new);
        assert_eq!(from(empty), FIRST_PARTY);
    }
}

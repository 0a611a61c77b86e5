//! The permission modes, as the CLI's `--permission-mode` names them.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Default,
    AcceptEdits,
    BypassPermissions,
    Plan,
    DontAsk,
}

impl Mode {
    /// As the real binary lists them (it also accepts `default`, unlisted).
    pub const CHOICES: &'static [&'static str] = &[
        "acceptEdits",
        "auto",
        "bypassPermissions",
        "manual",
        "dontAsk",
        "plan",
    ];

    pub fn parse(s: &str) -> Option<Mode> {
        Some(match s {
            "default" | "manual" | "auto" => Mode::Default,
            "acceptEdits" => Mode::AcceptEdits,
            "bypassPermissions" => Mode::BypassPermissions,
            "plan" => Mode::Plan,
            "dontAsk" => Mode::DontAsk,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "acceptEdits",
            Mode::BypassPermissions => "bypassPermissions",
            Mode::Plan => "plan",
            Mode::DontAsk => "dontAsk",
        }
    }
}

//! What a session declares besides the user's own: the built-in agent types, skills and slash
//! commands. Names, order and the conditions that add or drop each are 2.1.235's (recorded in its
//! `system/init` events and first-message listings); every description and body is our own.
//! The init event's lists and the model's listings both come from here, so they cannot drift.

use std::path::PathBuf;

use super::skills::Skill;

/// One built-in agent type, as the Agent tool's listing shows it.
pub struct AgentType {
    pub name: &'static str,
    pub summary: &'static str,
    /// Which tools it gets, in a few words.
    pub tools: &'static str,
}

/// In 2.1.235's listing order (names compared as `localeCompare` does, case aside).
pub const AGENTS: &[AgentType] = &[
    AgentType {
        name: "claude",
        summary: "The default agent for any task no narrower type fits.",
        tools: "every tool",
    },
    AgentType {
        name: "Explore",
        summary: "Quick read-only search: finds files and symbols and answers where things are. \
                  Say how broad the search should be.",
        tools: "all but Agent, Artifact, ExitPlanMode, Edit, Write, NotebookEdit",
    },
    AgentType {
        name: "general-purpose",
        summary:
            "Open-ended research and multi-step work, for searches that may take several tries.",
        tools: "every tool",
    },
    AgentType {
        name: "Plan",
        summary:
            "Designs an implementation plan: the steps, the files that matter, the trade-offs.",
        tools: "all but Agent, Artifact, ExitPlanMode, Edit, Write, NotebookEdit",
    },
    AgentType {
        name: "statusline-setup",
        summary: "Sets up the user's status line setting.",
        tools: "Read, Edit",
    },
];

/// The names init lists (recorded: sdk.control/agents): [`agent_types`]' order, except that
/// those an SDK host defined at `initialize` come last, in its order.
pub fn init_agent_names() -> Vec<String> {
    // Every type the host defined is among `agent_types` (a definition replaces one of its name).
    let host: Vec<String> = super::custom_agents::defined()
        .into_iter()
        .filter(|c| c.from_host)
        .map(|c| c.name)
        .collect();
    agent_types()
        .into_iter()
        .map(|(name, ..)| name)
        .filter(|name| !host.contains(name))
        .chain(host.iter().cloned())
        .collect()
}

/// Every agent type the Agent tool can launch, as (name, summary, tools): the built-in ones and
/// the user's (`--agents`, an SDK host's; they win a shared name), ordered as 2.1.235 lists them
/// (by name, case aside).
pub fn agent_types() -> Vec<(String, String, String)> {
    let custom = super::custom_agents::defined();
    let mut all: Vec<(String, String, String)> = AGENTS
        .iter()
        .filter(|a| custom.iter().all(|c| c.name != a.name))
        .map(|a| (a.name.to_owned(), a.summary.to_owned(), a.tools.to_owned()))
        .collect();
    all.extend(custom.iter().map(|c| {
        let tools = c
            .tools
            .as_ref()
            .map_or("every tool".to_owned(), |t| t.join(", "));
        (c.name.clone(), c.description.clone(), tools)
    }));
    all.sort_by_key(|(name, ..)| name.to_lowercase());
    all
}

/// The switches of this session that add or drop built-ins.
#[derive(Debug, Clone, Copy, Default)]
pub struct Features {
    /// Workflows are on (the bundled `deep-research` workflow is a skill).
    pub workflow: bool,
    /// Scheduled prompts are on (`loop` rides on them).
    pub cron: bool,
    /// The ClaudeDesign tool is offered (`design` is a skill then, not a command).
    pub design: bool,
    /// Design sync is allowed: the policy allows it, traffic is not essential-only and the
    /// provider is Anthropic's own (2.1.235's `wet`: the sync skill and the consent commands).
    pub design_sync: bool,
    /// `CLAUDE_CODE_ARTIFACT` (the artifact skills).
    pub artifact: bool,
    /// `CLAUDE_CODE_REMOTE`: a remote session has no auto-mode setup.
    pub remote: bool,
    /// The organization's policy allows heap dumps (see the session's `heapdump_allowed`).
    pub heapdump: bool,
}

/// Where an entry shows.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// A skill: in init's `skills` and `slash_commands`; `listed` when the model may launch it.
    Skill { listed: bool },
    /// Only the model's listing (a skill the user cannot type).
    ListedOnly,
    /// A command: in `slash_commands` only; `listed` when the model may launch it too.
    Command { listed: bool },
}

struct Entry {
    name: &'static str,
    kind: Kind,
    when: fn(&Features) -> bool,
    /// What the model's listing says of it (our words).
    about: &'static str,
}

fn always(_: &Features) -> bool {
    true
}

const fn skill(name: &'static str, listed: bool, about: &'static str) -> Entry {
    Entry {
        name,
        kind: Kind::Skill { listed },
        when: always,
        about,
    }
}

const fn command(name: &'static str) -> Entry {
    Entry {
        name,
        kind: Kind::Command { listed: false },
        when: always,
        about: "",
    }
}

/// Skills first, then commands, each in 2.1.235's order.
const ENTRIES: &[Entry] = &[
    Entry {
        when: |f| f.workflow,
        ..skill("deep-research", false, "")
    },
    Entry {
        when: |f| f.design,
        ..skill("design", false, "")
    },
    Entry {
        when: |f| f.design_sync,
        ..skill("design-sync", false, "")
    },
    skill(
        "dataviz",
        true,
        "Guidance for charts, plots and dashboards: forms, colours, marks.",
    ),
    Entry {
        when: |f| f.artifact,
        ..skill(
            "artifact-design",
            true,
            "How to lay out a published artifact page.",
        )
    },
    Entry {
        when: |f| f.artifact,
        ..skill(
            "artifact-diagramming",
            true,
            "How to draw diagrams in an artifact.",
        )
    },
    Entry {
        when: |f| f.artifact,
        ..skill(
            "artifact-capabilities",
            true,
            "What an artifact page can and cannot do.",
        )
    },
    skill(
        "update-config",
        true,
        "Changes the harness settings (settings.json): hooks, permissions, environment variables.",
    ),
    Entry {
        kind: Kind::ListedOnly,
        ..skill(
            "keybindings-help",
            true,
            "Changes keyboard shortcuts in ~/.claude/keybindings.json.",
        )
    },
    skill("verify", false, ""),
    skill("debug", false, ""),
    skill("code-review", false, ""),
    skill(
        "simplify",
        true,
        "Reviews changed code for reuse and simpler structure, then applies the fixes.",
    ),
    skill("batch", false, ""),
    skill(
        "fewer-permission-prompts",
        true,
        "Adds an allow list of common read-only calls to the project's settings.",
    ),
    skill("doctor", false, ""),
    Entry {
        when: |f| f.cron,
        ..skill(
            "loop",
            true,
            "Runs a prompt or command again and again on an interval (default 10m).",
        )
    },
    skill(
        "claude-api",
        true,
        "Reference for building on the Claude API and its SDKs.",
    ),
    skill(
        "run",
        true,
        "Starts the project's app to see a change working.",
    ),
    skill("run-skill-generator", false, ""),
    command("agents"),
    Entry {
        when: |f| !f.remote,
        ..command("auto-mode-setup")
    },
    command("autocompact"),
    command("clear"),
    command("color"),
    command("compact"),
    command("config"),
    command("context"),
    command("effort"),
    command("fast"),
    Entry {
        when: |f| f.heapdump,
        ..command("heapdump")
    },
    Entry {
        kind: Kind::Command { listed: true },
        about: "Writes a CLAUDE.md describing the codebase.",
        ..command("init")
    },
    command("mcp"),
    command("model"),
    command("__remote-workflow"),
    command("workflow-launch-exec"),
    command("reload-skills"),
    command("rename"),
    Entry {
        kind: Kind::Command { listed: true },
        about: "Reviews the branch's pending changes for security problems.",
        ..command("security-review")
    },
    command("usage"),
    command("insights"),
    command("recap"),
    command("goal"),
    Entry {
        when: |f| f.design_sync && !f.design,
        ..command("design")
    },
    Entry {
        when: |f| f.design_sync,
        ..command("design-consent")
    },
    Entry {
        when: |f| f.design_sync,
        ..command("design-revoke")
    },
    command("team-onboarding"),
];

/// Commands a terminal user can type that 2.1.235 also names apart in `-p`'s init.
pub const TERMINAL_SLASH_COMMANDS: &[&str] = &["doctor", "color"];

fn active(f: &Features) -> impl Iterator<Item = &'static Entry> + '_ {
    ENTRIES.iter().filter(move |e| (e.when)(f))
}

/// The init event's lists.
#[derive(Debug, Clone, PartialEq)]
pub struct InitLists {
    pub agents: Vec<String>,
    pub skills: Vec<String>,
    pub slash_commands: Vec<String>,
    pub terminal_slash_commands: Vec<String>,
}

/// What `system/init` declares: the user's skills first, then the bundled workflow and the
/// named ones (`workflows`), then the other built-in skills, then the commands, then the MCP
/// servers' prompts (`mcp__server__prompt`).
pub fn init_lists(
    f: &Features,
    user: &[String],
    workflows: &[String],
    mcp_prompts: &[String],
) -> InitLists {
    let mut skills: Vec<String> = user.to_vec();
    let builtin: Vec<&Entry> = active(f)
        .filter(|e| matches!(e.kind, Kind::Skill { .. }))
        .collect();
    let (bundled, rest): (Vec<&Entry>, Vec<&Entry>) = builtin
        .into_iter()
        .partition(|e| e.name == BUNDLED_WORKFLOW);
    skills.extend(bundled.iter().map(|e| e.name.to_owned()));
    skills.extend(workflows.iter().cloned());
    skills.extend(rest.iter().map(|e| e.name.to_owned()));
    let mut slash_commands = skills.clone();
    slash_commands.extend(
        active(f)
            .filter(|e| matches!(e.kind, Kind::Command { .. }))
            .map(|e| e.name.to_owned()),
    );
    slash_commands.extend(mcp_prompts.iter().cloned());
    InitLists {
        agents: init_agent_names(),
        skills,
        slash_commands,
        terminal_slash_commands: TERMINAL_SLASH_COMMANDS
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
    }
}

/// The workflow 2.1.235 bundles, declared as a skill.
const BUNDLED_WORKFLOW: &str = "deep-research";

/// The built-ins the Skill tool knows, as skills: the listed ones launch with a short body that
/// says plainly this agent has no procedure of its own for them; the others refuse the model as
/// 2.1.235's refuse it (they are the user's to type).
pub fn skills(f: &Features) -> Vec<Skill> {
    active(f)
        .filter_map(|e| {
            let listed = match e.kind {
                Kind::Skill { listed } | Kind::Command { listed } => listed,
                Kind::ListedOnly => true,
            };
            // A command the model may not launch is no skill at all.
            if !listed && matches!(e.kind, Kind::Command { .. }) {
                return None;
            }
            Some(Skill {
                name: e.name.to_owned(),
                alias: None,
                description: e.about.to_owned(),
                when_to_use: None,
                body: format!(
                    "`{}` is one of this agent's built-in skills. It brings no instructions of \
                     its own here: {} Do it with the tools you have.\n",
                    e.name, e.about
                ),
                dir: PathBuf::new(),
                model_invocable: listed,
            })
        })
        .collect()
}

/// The built-in lines of the model's skill listing, after the user's.
pub fn listing_lines(f: &Features) -> Vec<String> {
    skills(f)
        .into_iter()
        .filter(|s| s.model_invocable)
        .map(|s| format!("- {}: {}", s.name, s.description))
        .collect()
}

/// The agent-types reminder of a loop that may launch agents.
pub fn agent_listing() -> String {
    let lines: Vec<String> = agent_types()
        .iter()
        .map(|(name, summary, tools)| format!("- {name}: {summary} (Tools: {tools})"))
        .collect();
    format!(
        "<system-reminder>\nAgent types the Agent tool can launch (subagent_type):\n{}\n\n\
         Independent agents run at the same time when launched from one message.\n</system-reminder>",
        lines.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Features {
        Features {
            workflow: true,
            cron: true,
            heapdump: true,
            ..Features::default()
        }
    }

    #[test]
    fn a_plain_session_declares_what_2_1_235_declares() {
        let l = init_lists(&base(), &[], &[], &[]);
        assert_eq!(
            l.agents,
            [
                "claude",
                "Explore",
                "general-purpose",
                "Plan",
                "statusline-setup"
            ]
        );
        assert_eq!(
            l.skills,
            [
                "deep-research",
                "dataviz",
                "update-config",
                "verify",
                "debug",
                "code-review",
                "simplify",
                "batch",
                "fewer-permission-prompts",
                "doctor",
                "loop",
                "claude-api",
                "run",
                "run-skill-generator"
            ]
        );
        assert_eq!(l.slash_commands.len(), 14 + 24);
        assert_eq!(l.slash_commands[14], "agents");
        assert_eq!(l.slash_commands.last().unwrap(), "team-onboarding");
        assert_eq!(l.terminal_slash_commands, ["doctor", "color"]);
    }

    #[test]
    fn switches_add_and_drop_entries_in_place() {
        let f = Features {
            workflow: false,
            cron: false,
            design_sync: true,
            remote: true,
            ..Features::default()
        };
        let l = init_lists(&f, &["mine".into()], &[], &["mcp__lib__sum".into()]);
        assert_eq!(&l.skills[..3], ["mine", "design-sync", "dataviz"]);
        let flows = init_lists(&base(), &["own".into()], &["flow".into()], &[]);
        assert_eq!(
            &flows.skills[..4],
            ["own", "deep-research", "flow", "dataviz"]
        );
        assert!(!l.skills.iter().any(|s| s == "loop" || s == "deep-research"));
        assert!(!l.slash_commands.iter().any(|s| s == "auto-mode-setup"));
        let tail: Vec<&str> = l
            .slash_commands
            .iter()
            .rev()
            .take(5)
            .map(|s| s.as_str())
            .collect();
        assert_eq!(
            tail,
            [
                "mcp__lib__sum",
                "team-onboarding",
                "design-revoke",
                "design-consent",
                "design"
            ]
        );
        let designed = init_lists(&Features { design: true, ..f }, &[], &[], &[]);
        assert_eq!(&designed.skills[..2], ["design", "design-sync"]);
        assert!(!designed.slash_commands[designed.skills.len()..]
            .iter()
            .any(|s| s == "design"));
    }

    #[test]
    fn the_model_lists_skills_it_may_launch_and_two_commands() {
        let names: Vec<String> = listing_lines(&base())
            .iter()
            .map(|l| l[2..].split(':').next().unwrap().to_owned())
            .collect();
        assert_eq!(
            names,
            [
                "dataviz",
                "update-config",
                "keybindings-help",
                "simplify",
                "fewer-permission-prompts",
                "loop",
                "claude-api",
                "run",
                "init",
                "security-review"
            ]
        );
    }

    #[test]
    fn user_only_skills_refuse_the_model_and_commands_are_not_skills() {
        let all = skills(&base());
        let debug = all.iter().find(|s| s.name == "debug").unwrap();
        assert!(!debug.model_invocable);
        assert!(all.iter().any(|s| s.name == "init" && s.model_invocable));
        assert!(!all.iter().any(|s| s.name == "clear"));
    }

    #[test]
    fn the_agent_listing_names_every_type_in_order() {
        let text = agent_listing();
        let at: Vec<usize> = AGENTS
            .iter()
            .map(|a| text.find(&format!("- {}:", a.name)).unwrap())
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]));
    }
}

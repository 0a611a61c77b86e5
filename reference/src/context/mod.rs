//! Long-lived context that is not the conversation: plugins (`--plugin-dir`), skills and their
//! listing. Contract: seed 003 and the Skill and LSP parts of 004.

pub mod builtins;
pub mod custom_agents;
pub mod instructions;
pub mod memory;
pub mod plugins;
pub mod reminders;
pub mod restored;
pub mod skills;

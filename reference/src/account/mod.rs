//! The account the session runs under: the claude.ai login and its renewal (`login`), and the
//! organization's policy limits (`policy`). Below the Messages client and every claude.ai feature,
//! which all sign in and ask the policy the same way.

pub mod login;
pub mod policy;

use std::path::Path;

/// The account's organization as `~/.claude.json` records it (`oauthAccount.organizationUuid`).
pub fn organization(home: &Path) -> Option<String> {
    let config = crate::json::read_file(&crate::environment::global_config(home))?;
    config["oauthAccount"]["organizationUuid"]
        .as_str()
        .map(str::to_owned)
}

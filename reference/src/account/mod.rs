//! The account the session runs under: the claude.ai login and its renewal (`login`), and the
//! organization's policy limits (`policy`). Below the Messages client and every claude.ai feature,
//! which all sign in and ask the policy the same way.

pub mod login;
pub mod policy;

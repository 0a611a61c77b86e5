//! The agent loop and what it prints.

mod child;
mod compact;
mod heartbeat;
mod local_command;
mod opening;
mod overrides;
pub mod prompt;
mod remote;
mod session;
mod termination;
mod turn;

pub use session::run;
pub use turn::request_frame;

/// A Messages client for a loop of the session `config` describes.
fn client(config: &crate::config::Config) -> crate::api::Client {
    crate::api::Client::new(
        config.base_url.clone(),
        config.api_key.clone(),
        config.oauth_token.clone(),
        config.session_id.clone(),
    )
    .falling_back_to(config.fallback_model.clone())
}

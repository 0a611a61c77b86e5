//! What an SDK host changes in a running session (`set_model`, `set_max_thinking_tokens`, recorded
//! on 2.1.235: sdk.control/model): the session's `Config` stays as start-up decided it, and each
//! request reads it through these.

use std::borrow::Cow;

use super::session::Session;
use crate::config::Config;

/// What an SDK host changed since the session opened (`set_model`, `set_max_thinking_tokens`):
/// the requests from then on read the session's configuration through them.
#[derive(Debug, Default)]
pub struct Overrides {
    pub model: Option<String>,
    /// `Some(None)`: back to the default budget.
    pub thinking_budget: Option<Option<u64>>,
}

impl Session<'_> {
    /// The configuration the next request reads: the session's, with what the host changed.
    pub fn effective_config(&self) -> Cow<'_, Config> {
        let o = &self.overrides;
        if o.model.is_none() && o.thinking_budget.is_none() {
            return Cow::Borrowed(self.config);
        }
        let mut config = self.config.clone();
        if let Some(model) = &o.model {
            config.model.clone_from(model);
        }
        if let Some(budget) = o.thinking_budget {
            config.thinking.budget = budget;
        }
        Cow::Owned(config)
    }
}

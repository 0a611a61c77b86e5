//! Whether ClaudeDesign is offered at all (2.1.235's `DAi`): the organization's policy allows
//! `allow_design_sync`, traffic is not essential-only, the provider is Anthropic's own, and the
//! feature flag `tengu_omelette_fouet` is on. All four, or the tool is absent from tools[].

use std::path::Path;

use crate::account::policy;
use crate::environment;

/// The feature flag that turns the tool on.
pub const FEATURE_FLAG: &str = "tengu_omelette_fouet";
/// The policy key.
pub const POLICY_KEY: &str = "allow_design_sync";

pub fn enabled(home: &Path) -> bool {
    policy::allows(home, POLICY_KEY)
        && !environment::essential_traffic_only()
        && environment::first_party()
        && environment::feature_on(home, FEATURE_FLAG)
}

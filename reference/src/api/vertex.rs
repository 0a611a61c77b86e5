//! Google Vertex AI as the provider (`CLAUDE_CODE_USE_VERTEX`): the same Messages stream, asked
//! for at the model's own path under the project and region, the model named by the path and not
//! the body, which names Vertex's API version instead (recorded on 2.1.235:
//! core.login-kinds/vertex). Google's own authentication is not built: a run sets
//! `CLAUDE_CODE_SKIP_VERTEX_AUTH`, as the recording did.

use serde_json::{json, Value};

/// The `anthropic_version` a Vertex body carries.
pub const ANTHROPIC_VERSION: &str = "vertex-2023-10-16";

/// The beta Vertex names tool search by.
pub const TOOL_SEARCH_BETA: &str = "tool-search-tool-2025-10-19";

/// The region when `CLOUD_ML_REGION` does not say.
const DEFAULT_REGION: &str = "us-east5";

pub fn on() -> bool {
    crate::environment::provider::current() == "vertex"
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Where `model`'s stream is asked for.
pub fn url(model: &str) -> String {
    let region = var("CLOUD_ML_REGION").unwrap_or_else(|| DEFAULT_REGION.into());
    let base = var("ANTHROPIC_VERTEX_BASE_URL")
        .unwrap_or_else(|| format!("https://{region}-aiplatform.googleapis.com/v1"));
    let project = var("ANTHROPIC_VERTEX_PROJECT_ID").unwrap_or_default();
    format!(
        "{}/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:streamRawPredict",
        base.trim_end_matches('/')
    )
}

/// A Messages body as Vertex takes it: no `model`, no context management, its API version last.
pub fn body(body: &mut Value) {
    if let Some(fields) = body.as_object_mut() {
        fields.shift_remove("model");
        fields.shift_remove("context_management");
        fields.insert("anthropic_version".into(), json!(ANTHROPIC_VERSION));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_loses_its_model_and_ends_with_the_version() {
        let mut b = json!({"model": "m", "messages": [], "context_management": {}, "stream": true});
        body(&mut b);
        let keys: Vec<&str> = b.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["messages", "stream", "anthropic_version"]);
    }
}

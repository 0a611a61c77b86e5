//! `{cwd}`, `{home}`, `{cwd_slug}`, `{mcp_config}`, `{fake_lsp}`, `{hook_recorder}` and `{hook_log}`
//! in scenario files: the run's own
//! temporary directories and files, known only at run time.

use serde_json::Value;

/// The per-run values that placeholders expand to.
#[derive(Debug, Clone)]
pub struct Places {
    pub cwd: String,
    pub home: String,
    /// The MCP config file `[[mcp_server]]` entries with `place = "flag"` are written to.
    pub mcp_config: String,
    /// The fake language server binary, for plugin fixtures (`{fake_lsp}`); empty when unused.
    pub fake_lsp: String,
    /// The harness's hook recorder (`crate::hooks`), for hook commands; empty when unused.
    pub hook_recorder: String,
}

impl Places {
    /// `{cwd_slug}`: cwd as the per-project folder name under `~/.claude/projects`.
    fn cwd_slug(&self) -> String {
        self.cwd
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect()
    }

    pub fn expand(&self, s: &str) -> String {
        s.replace("{cwd_slug}", &self.cwd_slug())
            .replace("{cwd}", &self.cwd)
            .replace("{home}", &self.home)
            .replace("{mcp_config}", &self.mcp_config)
            .replace("{fake_lsp}", &self.fake_lsp)
            .replace("{hook_recorder}", &self.hook_recorder)
            .replace("{hook_log}", &self.hook_log())
    }

    /// `{hook_log}`: the file the hook recorder appends to, for an answer that must wait until a
    /// hook the target does not wait for has run (`after = { file = "{hook_log}", … }`).
    fn hook_log(&self) -> String {
        if self.hook_recorder.is_empty() {
            return String::new();
        }
        std::path::Path::new(&self.hook_recorder)
            .with_file_name(crate::hooks::LOG)
            .display()
            .to_string()
    }

    /// A scripted value (a server's script, a mock's) with every string in it expanded.
    pub fn expand_script<T: serde::Serialize + serde::de::DeserializeOwned>(
        &self,
        script: &T,
    ) -> serde_json::Result<T> {
        serde_json::from_value(self.expand_json(&serde_json::to_value(script)?))
    }

    /// Expands every string inside a JSON value (keys included), `{repeat:N:s}` in values too, so
    /// a scripted input or answer can state a large string in a line.
    pub fn expand_json(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(stubs::mcp::expand(&self.expand(s))),
            Value::Array(items) => {
                Value::Array(items.iter().map(|i| self.expand_json(i)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (self.expand(k), self.expand_json(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// The reverse: volatile run paths replaced by their placeholders, for traces and records.
    pub fn redact(&self, s: &str) -> String {
        // The longer path first, in case one contains the other.
        let s = s.replace(self.mcp_config.as_str(), "{mcp_config}");
        let s = match self.hook_recorder.as_str() {
            "" => s,
            recorder => s.replace(recorder, "{hook_recorder}"),
        };
        let s = s.replace(&self.cwd_slug(), "{cwd_slug}");
        let (a, an, b, bn) = if self.cwd.len() >= self.home.len() {
            (&self.cwd, "{cwd}", &self.home, "{home}")
        } else {
            (&self.home, "{home}", &self.cwd, "{cwd}")
        };
        s.replace(a.as_str(), an).replace(b.as_str(), bn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expand_and_redact_round_trip() {
        let p = Places {
            cwd: "/tmp/run-1/work".into(),
            home: "/tmp/run-1".into(),
            mcp_config: "/tmp/run/mcp-config.json".into(),
            fake_lsp: String::new(),
            hook_recorder: String::new(),
        };
        let s = p.expand("{cwd}/a.txt and {home}/.claude");
        assert_eq!(s, "/tmp/run-1/work/a.txt and /tmp/run-1/.claude");
        assert_eq!(p.redact(&s), "{cwd}/a.txt and {home}/.claude");
        let v = p.expand_json(
            &serde_json::json!({"file_path": "{cwd}/x", "n": 1, "r": "{repeat:3:ab}"}),
        );
        assert_eq!(v["file_path"], "/tmp/run-1/work/x");
        assert_eq!(v["n"], 1);
        assert_eq!(v["r"], "ababab");
    }

    #[test]
    fn the_hook_log_sits_beside_the_recorder_and_only_when_there_is_one() {
        let mut p = Places {
            cwd: "/r/work".into(),
            home: "/r/home".into(),
            mcp_config: String::new(),
            fake_lsp: String::new(),
            hook_recorder: String::new(),
        };
        assert_eq!(p.expand("[{hook_log}]"), "[]");
        p.hook_recorder = "/r/hook-recorder".into();
        assert_eq!(p.expand("{hook_log}"), "/r/hooks.log");
    }
}

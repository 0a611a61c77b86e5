//! Parameter coverage: which input parameters of the built-in tools each target offers, and which
//! of them some scenario that ran on that target scripts in a tool_use. A parameter nobody
//! scripts is one whose effect nobody checks, so a reference that ignored it would pass.
//!
//! Both sides come from what a run already has: the offer from the `tools[]` of the requests the
//! target sent (top-level `input_schema.properties`; MCP tools are the scenario's own), the use
//! from the scenario files (every `[[turn]]` and `[[agent.turn]]` tool_use). A parameter left
//! unexercised on purpose is listed in `scenarios/coverage.toml` with its reason.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use stubs::messages::{Block, RecordedRequest, Turn};

use crate::scenario::Scenario;

pub use crate::scenario::COVERAGE_FILE as LIST_FILE;

/// Tool name → its parameter names.
pub type Params = BTreeMap<String, BTreeSet<String>>;

/// Adds the built-in tools' parameters offered in `requests` to `params`.
pub fn add_offered(requests: &[RecordedRequest], params: &mut Params) {
    for request in requests {
        offered_in(&request.body, params);
    }
}

/// The built-in tools' parameters in one request body's `tools[]`.
pub fn offered_in(body: &Value, params: &mut Params) {
    let Some(tools) = body["tools"].as_array() else {
        return;
    };
    for tool in tools {
        let (Some(name), Some(props)) = (
            tool["name"].as_str(),
            tool.pointer("/input_schema/properties")
                .and_then(Value::as_object),
        ) else {
            continue;
        };
        if name.starts_with("mcp__") {
            continue;
        }
        params
            .entry(name.to_owned())
            .or_default()
            .extend(props.keys().cloned());
    }
}

/// The parameters a scenario's scripted tool_uses pass, second loops' included.
pub fn scripted(scenario: &Scenario) -> Params {
    let mut params = Params::new();
    let turns = scenario
        .turns
        .iter()
        .chain(scenario.agents.iter().flat_map(|a| a.turns.iter()));
    for turn in turns {
        scripted_in(turn, &mut params);
    }
    params
}

fn scripted_in(turn: &Turn, params: &mut Params) {
    for block in &turn.blocks {
        if let Block::ToolUse { name, input, .. } = block {
            let keys = input
                .as_object()
                .into_iter()
                .flat_map(|o| o.keys().cloned());
            params.entry(name.clone()).or_default().extend(keys);
        }
    }
}

/// One run as coverage sees it: which scenario ran where, and what the target offered in it.
/// A parameter counts as offered on a target when any of its runs offered it.
#[derive(Debug, Clone)]
pub struct Sample<'a> {
    pub id: &'a str,
    pub target: &'a str,
    pub offered: &'a Params,
}

/// A parameter deliberately left unexercised, and why (`scenarios/coverage.toml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Listed {
    pub tool: String,
    pub param: String,
    /// `reference`, `claude`, or a version key; every target when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<String>,
    pub reason: String,
}

impl Listed {
    /// Whether the entry speaks for `target` (every target without `only`).
    pub fn names(&self, target: &str) -> bool {
        self.only
            .as_deref()
            .is_none_or(|only| crate::version::names(only, target))
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListFile {
    #[serde(default)]
    unexercised: Vec<Listed>,
}

/// `scenarios/coverage.toml`: nothing listed when the file is absent; a bad file is an error
/// naming it and what is wrong.
pub fn load_listed(dir: &Path) -> Result<Vec<Listed>, String> {
    let path = dir.join(LIST_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let file: ListFile = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    for listed in &file.unexercised {
        if listed.reason.trim().is_empty() {
            return Err(format!(
                "{}: {}.{} is listed without a reason",
                path.display(),
                listed.tool,
                listed.param
            ));
        }
    }
    Ok(file.unexercised)
}

/// One parameter's row: where it is offered, where exercised, and why not where it is not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Row {
    pub tool: String,
    pub param: String,
    pub offered_on: Vec<String>,
    pub exercised_on: Vec<String>,
    /// The scenarios that script it (on any target).
    pub scenarios: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub listed: Vec<Listed>,
}

impl Row {
    /// Offered on `target` and exercised there, or listed for it.
    pub fn held_on(&self, target: &str) -> bool {
        !self.offered_on.iter().any(|t| t == target)
            || self.exercised_on.iter().any(|t| t == target)
            || self.listed_for(target).is_some()
    }

    pub fn listed_for(&self, target: &str) -> Option<&Listed> {
        self.listed.iter().find(|l| l.names(target))
    }
}

/// Every built-in parameter some target offered, in (tool, parameter) order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Coverage {
    pub targets: Vec<String>,
    pub rows: Vec<Row>,
}

impl Coverage {
    /// No run offered a parameter (a report of no runs, or of skips only).
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn of(samples: &[Sample], scenarios: &[Scenario], listed: &[Listed]) -> Coverage {
        let scripted: BTreeMap<&str, Params> = scenarios
            .iter()
            .map(|s| (s.id.as_str(), scripted(s)))
            .collect();
        let mut targets: Vec<String> = Vec::new();
        // (tool, param) → (offered on, exercised on)
        let mut cells: BTreeMap<(String, String), (BTreeSet<String>, BTreeSet<String>)> =
            BTreeMap::new();
        for sample in samples {
            if !targets.iter().any(|t| t == sample.target) {
                targets.push(sample.target.to_owned());
            }
            for (tool, params) in sample.offered {
                for param in params {
                    let cell = cells.entry((tool.clone(), param.clone())).or_default();
                    cell.0.insert(sample.target.to_owned());
                }
            }
        }
        // Exercised where a scenario scripting it ran, whether or not that run's own tools[]
        // carried the schema: a deferred tool is called without it (its schema is offered in the
        // runs that load it).
        for sample in samples {
            let Some(used) = scripted.get(sample.id) else {
                continue;
            };
            for (tool, params) in used {
                for param in params {
                    if let Some(cell) = cells.get_mut(&(tool.clone(), param.clone())) {
                        if cell.0.contains(sample.target) {
                            cell.1.insert(sample.target.to_owned());
                        }
                    }
                }
            }
        }
        targets.sort_by_key(|t| t != "reference");
        let rows = cells
            .into_iter()
            .map(|((tool, param), (offered_on, exercised_on))| Row {
                scenarios: scripted
                    .iter()
                    .filter(|(_, p)| p.get(&tool).is_some_and(|p| p.contains(&param)))
                    .map(|(id, _)| (*id).to_owned())
                    .collect(),
                listed: listed
                    .iter()
                    .filter(|l| l.tool == tool && l.param == param)
                    .cloned()
                    .collect(),
                offered_on: offered_on.into_iter().collect(),
                exercised_on: exercised_on.into_iter().collect(),
                tool,
                param,
            })
            .collect();
        Coverage { targets, rows }
    }

    /// The parameters `target` offers that no scenario exercised on it and nobody listed.
    pub fn gaps(&self, target: &str) -> Vec<&Row> {
        self.rows.iter().filter(|r| !r.held_on(target)).collect()
    }

    /// The parameters the reference offers that no scenario scripts at all, on any target, and
    /// nobody listed: the gap the suite must never have.
    pub fn unexercised_anywhere(&self) -> Vec<&Row> {
        self.rows
            .iter()
            .filter(|r| {
                r.offered_on.iter().any(|t| t == "reference")
                    && r.scenarios.is_empty()
                    && r.listed_for("reference").is_none()
            })
            .collect()
    }

    /// Listed parameters the list no longer needs: on the targets of these runs the entry names,
    /// exercised wherever offered, or offered nowhere. An entry outliving its cause hides the
    /// next gap. An entry for targets that did not run is not judged.
    pub fn stale(&self, listed: &[Listed]) -> Vec<Listed> {
        listed
            .iter()
            .filter(|l| {
                let named: Vec<&String> = self.targets.iter().filter(|t| l.names(t)).collect();
                let row = self
                    .rows
                    .iter()
                    .find(|r| r.tool == l.tool && r.param == l.param);
                !named.is_empty()
                    && row.is_none_or(|r| {
                        named
                            .iter()
                            .all(|t| !r.offered_on.contains(t) || r.exercised_on.contains(t))
                    })
            })
            .cloned()
            .collect()
    }

    /// How many parameters `target` offered, and how many of them a scenario exercised there.
    pub fn counts(&self, target: &str) -> (usize, usize) {
        let on = |targets: &[String]| targets.iter().any(|t| t == target);
        let offered = self.rows.iter().filter(|r| on(&r.offered_on)).count();
        let exercised = self.rows.iter().filter(|r| on(&r.exercised_on)).count();
        (offered, exercised)
    }

    /// What the suite must never have, each as a sentence that says what to do: a parameter of
    /// the reference no scenario scripts (`unexercised_anywhere`), or a listing no longer needed
    /// (`stale`). Empty when the suite holds.
    pub fn suite_problems(&self, listed: &[Listed]) -> Vec<String> {
        let mut problems = Vec::new();
        let nowhere: Vec<(&str, &str)> = self
            .unexercised_anywhere()
            .iter()
            .map(|r| (r.tool.as_str(), r.param.as_str()))
            .collect();
        if !nowhere.is_empty() {
            problems.push(format!(
                "exercised by no scenario at all: {} (script each in a scenario that checks its \
                 effect, or list it in scenarios/coverage.toml with a reason)",
                dotted(&nowhere)
            ));
        }
        let stale = self.stale(listed);
        if !stale.is_empty() {
            let names: Vec<(&str, &str)> = stale
                .iter()
                .map(|l| (l.tool.as_str(), l.param.as_str()))
                .collect();
            problems.push(format!(
                "listed in scenarios/coverage.toml but exercised (or no longer offered): {} (drop them)",
                dotted(&names)
            ));
        }
        problems
    }

    /// Per tool, one line per target: `exercised/offered`, then the parameters not exercised.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut tools: Vec<&str> = self.rows.iter().map(|r| r.tool.as_str()).collect();
        tools.dedup();
        for tool in tools {
            let rows: Vec<&Row> = self.rows.iter().filter(|r| r.tool == tool).collect();
            out.push_str(&format!("{tool}\n"));
            for target in &self.targets {
                let offered: Vec<&&Row> = rows
                    .iter()
                    .filter(|r| r.offered_on.contains(target))
                    .collect();
                if offered.is_empty() {
                    continue;
                }
                let exercised = offered
                    .iter()
                    .filter(|r| r.exercised_on.contains(target))
                    .count();
                let mut line = format!("  {target:<18} {exercised}/{}", offered.len());
                let missing: Vec<String> = offered
                    .iter()
                    .filter(|r| !r.exercised_on.contains(target))
                    .map(|r| match r.listed_for(target) {
                        Some(_) => format!("{} (listed)", r.param),
                        None => r.param.clone(),
                    })
                    .collect();
                if !missing.is_empty() {
                    line.push_str(&format!("  not exercised: {}", missing.join(", ")));
                }
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }
}

/// `Tool.param, Tool.param`.
fn dotted(params: &[(&str, &str)]) -> String {
    params
        .iter()
        .map(|(tool, param)| format!("{tool}.{param}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;

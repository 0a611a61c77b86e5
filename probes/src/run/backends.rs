//! The fake backends a run's target talks to: the scripted Messages API with the mock claude.ai
//! merged in (uploads, Design, Projects, artifacts, OAuth), the `[[site]]` hosts, and, for an
//! isolated run, the network namespace whose first-party names they answer on.

use anyhow::{Context, Result};
use stubs::claude_ai::{ClaudeAi, DesignScript, ProjectScript};
use stubs::cues::Cues;
use stubs::messages::{AgentScript, MessagesStub, Split, StubConfig, Turn};

use super::fixtures::Dirs;
use crate::account::{Account, ORGANIZATION_UUID};
use crate::isolation::IsolatedNetwork;
use crate::scenario::{turn_for, Network, Scenario};
use crate::secrets::Secrets;

/// The backends of one run, serving until dropped.
pub(super) struct Backends {
    pub stub: MessagesStub,
    pub claude_ai: ClaudeAi,
    /// The attached Project as the scenario scripted it, with the harness's tokens.
    pub project: Option<ProjectScript>,
    pub sites: stubs::site::Sites,
    pub isolated: Option<IsolatedNetwork>,
}

/// Starts what `scenario` scripts, on loopback or inside its isolated network.
pub(super) async fn start(
    scenario: &Scenario,
    target: &str,
    dirs: &Dirs,
    split: Split,
    secrets: &Secrets,
    cues: &Cues,
) -> Result<Backends> {
    // Each turn as this target plays it: without the waits scripted for other targets.
    let turn = |t: &Turn| dirs.expand_turn(&turn_for(t, target));
    // Only the turns played for this target (`only`, `except`), so each version's script is whole.
    let played = |t: &&Turn| {
        t.only
            .as_deref()
            .is_none_or(|key| crate::version::names(key, target))
            && !t
                .except
                .as_deref()
                .is_some_and(|key| crate::version::names(key, target))
    };
    let turns = scenario.turns.iter().filter(played).map(turn).collect();
    let mut claude_ai = ClaudeAi::with_oauth(
        scenario.uploads.clone(),
        scenario.account.as_ref().map(|a| a.oauth_script(secrets)),
    );
    if let Some(design) = &scenario.design {
        let design: DesignScript = dirs.places.expand_script(design)?;
        claude_ai = claude_ai.with_design(design.with_account_token(secrets.access_token.clone()));
    }
    let project = match &scenario.project {
        Some(project) => {
            // The organization and tokens are the harness's, never the scenario's.
            let mut project: ProjectScript = dirs.places.expand_script(project)?;
            project.organization = Some(ORGANIZATION_UUID.into());
            project.tokens = secrets.tokens();
            claude_ai = claude_ai.with_project(project.clone());
            Some(project)
        }
        None => None,
    };
    if let Some(directory) = &scenario.directory {
        let mut directory: stubs::claude_ai::DirectoryScript = directory.clone();
        directory.organization = Some(ORGANIZATION_UUID.into());
        directory.tokens = secrets.tokens();
        claude_ai = claude_ai.with_directories(directory);
    }
    if let Some(artifacts) = &scenario.artifacts {
        let artifacts: stubs::claude_ai::ArtifactsScript = dirs.places.expand_script(artifacts)?;
        claude_ai = claude_ai.with_artifacts(artifacts, Some(secrets.access_token.clone()));
    }
    let config = StubConfig {
        main_model: scenario.model().to_owned(),
        more_main_models: scenario.main_loop_models.clone(),
        turns,
        agents: scenario
            .agents
            .iter()
            .map(|a| AgentScript {
                name: a.name.clone(),
                matches: dirs.places.expand(&a.matches),
                turns: a.turns.iter().filter(played).map(turn).collect(),
            })
            .collect(),
        split,
        cues: cues.clone(),
    };
    // Isolated: the first-party hosts are the mock on TLS 443, the Messages stub listens inside
    // the same namespace, and the target starts there.
    let sites = stubs::site::Sites::new(
        scenario
            .sites
            .iter()
            .map(|s| dirs.places.expand_script(s))
            .collect::<serde_json::Result<Vec<_>>>()?,
    );
    let mut isolated = match scenario.network {
        Network::Isolated => Some(
            IsolatedNetwork::with_names(
                &dirs.base,
                &sites.hosts(),
                &scenario
                    .artifacts
                    .as_ref()
                    .map(|a| a.frame_hosts())
                    .unwrap_or_default(),
            )
            .with_context(|| format!("{}: isolated network", scenario.path.display()))?,
        ),
        Network::Loopback => None,
    };
    let stub = match &mut isolated {
        Some(net) => {
            let stub = MessagesStub::start_on(net.listener()?, config, claude_ai.router())?;
            // A first-party session: the Messages API too is api.anthropic.com.
            net.serve_first_party(
                first_party_routes(scenario, stub.app()).merge(sites.preflight_router()),
            )?;
            if !sites.is_empty() {
                net.serve_sites(&sites)
                    .with_context(|| format!("{}: [[site]] hosts", scenario.path.display()))?;
            }
            stub
        }
        None => MessagesStub::start_with(config, claude_ai.router()).await?,
    };
    Ok(Backends {
        stub,
        claude_ai,
        project,
        sites,
        isolated,
    })
}

/// What the first-party hosts serve in an isolated run: the Messages stub with the mock claude.ai
/// merged in, and the account's organization policy (fetched by 2.1.235 at start when the API is
/// first-party).
fn first_party_routes(scenario: &Scenario, messages: axum::Router) -> axum::Router {
    let policy = scenario
        .account
        .as_ref()
        .map(Account::policy_limits)
        .unwrap_or_default();
    axum::Router::new()
        .route(
            "/api/claude_code/policy_limits",
            axum::routing::get(move || async move { axum::Json(policy) }),
        )
        .merge(messages)
}

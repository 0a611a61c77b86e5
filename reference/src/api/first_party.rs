//! The account look-ups 2.1.235 makes at start on Anthropic's own API (recon parity15/request):
//! the login's profile always; with nonessential traffic allowed, the CLI bootstrap, the
//! fast-mode and MCP-registry listings, and for consumer plans the privacy-settings and referral
//! checks; the remote managed settings where the organization's policy applies. The reference
//! reads none of the answers: they feed features it does not have.

use std::path::Path;

use std::time::Duration;

use reqwest::RequestBuilder;

use super::wire;

/// The requests to make: those 2.1.235 makes before the session title (the profile, the managed
/// settings), and the rest, after it. Sent one after another so the API sees 2.1.235's usual
/// order; none is waited on longer than `cap`, and no answer is read.
#[derive(Default)]
pub struct Lookups {
    pub before_title: Vec<RequestBuilder>,
    pub after_title: Vec<RequestBuilder>,
}

pub async fn send_in_order(requests: Vec<RequestBuilder>, cap: Duration) {
    for request in requests {
        let _ = tokio::time::timeout(cap, request.send()).await;
    }
}

const OAUTH_BETA: &str = "oauth-2025-04-20";
const MCP_REGISTRY: &str =
    "/mcp-registry/v0/servers?version=latest&limit=100&visibility=commercial%2Cgsuite%2Centerprise%2Chealth";

/// Starts the look-ups of a session on Anthropic's own host.
pub fn start(home: &Path, model: &str, api_key: Option<&str>) -> Lookups {
    let mut lookups = Lookups::default();
    if !wire::get().first_party {
        return lookups;
    }
    let Ok(oauth) = crate::account::login::OAuthConfig::from_env() else {
        return lookups;
    };
    let base = oauth.base_api_url;
    let http = crate::net::http_client(Some(std::time::Duration::from_secs(10)));
    let get = |path: String, headers: Vec<(&'static str, String)>| {
        let mut request = http.get(format!("{base}{path}"));
        for (name, value) in headers {
            request = request.header(name, value);
        }
        request
    };
    let settings = crate::account::policy::settings_eligible(home);
    if let Some(key) = api_key {
        if settings {
            lookups.before_title.push(get(
                "/api/claude_code/settings".into(),
                vec![
                    ("x-api-key", key.to_owned()),
                    ("cache-control", "no-cache".into()),
                ],
            ));
        }
        return lookups;
    }
    let Some(login) = crate::account::login::login(home) else {
        return lookups;
    };
    let bearer = format!("Bearer {}", login.access_token);
    lookups.before_title.push(get(
        "/api/oauth/profile".into(),
        vec![
            ("authorization", bearer.clone()),
            ("cache-control", "no-cache".into()),
        ],
    ));
    if settings {
        lookups.before_title.push(get(
            "/api/claude_code/settings".into(),
            vec![
                ("authorization", bearer.clone()),
                ("anthropic-beta", OAUTH_BETA.into()),
                ("cache-control", "no-cache".into()),
            ],
        ));
    }
    let quiet =
        std::env::var_os("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC").is_some_and(|v| !v.is_empty());
    if quiet {
        return lookups;
    }
    let with_beta = || {
        vec![
            ("authorization", bearer.clone()),
            ("anthropic-beta", OAUTH_BETA.to_owned()),
        ]
    };
    lookups.after_title.push(get(
        format!(
            "/api/claude_cli/bootstrap?entrypoint={}&model={model}",
            wire::get().entrypoint
        ),
        with_beta(),
    ));
    lookups
        .after_title
        .push(get("/api/claude_code_penguin_mode".into(), with_beta()));
    lookups
        .after_title
        .push(get(MCP_REGISTRY.into(), Vec::new()));
    // Organization plans have their settings managed; the consumer checks are for the others.
    if !settings {
        lookups
            .after_title
            .push(get("/api/claude_code_grove".into(), with_beta()));
        if let Some(org) = crate::account::organization(home) {
            lookups.after_title.push(get(
                format!("/api/oauth/organizations/{org}/referral/eligibility?campaign=claude_code_guest_pass"),
                vec![
                    ("authorization", bearer.clone()),
                    ("anthropic-version", "2023-06-01".into()),
                    ("x-organization-uuid", org.clone()),
                ],
            ));
        }
    }
    lookups
}

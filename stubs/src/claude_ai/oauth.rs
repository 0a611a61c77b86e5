//! The OAuth token endpoint of the mock claude.ai (`POST /v1/oauth/token`, refresh grant): the
//! refresh token it accepts, what it issues (a rotated pair, scopes, lifetime) and a scripted
//! failure. Requests are recorded by shape only: grant type, requested scopes, whether the refresh
//! token matched; token values never reach a record.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// What the token endpoint plays.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OAuthScript {
    /// The refresh token it accepts; any other is `invalid_grant`.
    pub refresh_token: String,
    /// Scopes granted when the request names none.
    #[serde(default = "default_scopes")]
    pub scopes: Vec<String>,
    /// Lifetime of an issued access token, in seconds.
    #[serde(default = "default_expires_in")]
    pub expires_in: u64,
    /// Answer every refresh with this HTTP status and OAuth error instead (`[status, error]`).
    #[serde(default)]
    pub fail: Option<(u16, String)>,
    /// Grant exactly these scopes, whatever a refresh asks for (a server that withholds some).
    #[serde(default)]
    pub grant_only: Option<Vec<String>>,
}

fn default_scopes() -> Vec<String> {
    ["user:inference", "user:profile"]
        .map(str::to_owned)
        .to_vec()
}

fn default_expires_in() -> u64 {
    3600
}

/// What the refresh tokens this endpoint issues start with.
const ISSUED_REFRESH_PREFIX: &str = "sk-ant-ort01-mock-refresh-";

/// One token request, without its secrets (`Default`: see `DesignRequest`).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct RecordedTokenRequest {
    pub grant_type: Option<String>,
    pub scopes: Vec<String>,
    /// The refresh token was the account's own.
    pub refresh_token_matched: bool,
    /// The refresh token was one this endpoint issued earlier (a rotated pair), also accepted.
    pub refresh_token_rotated: bool,
    pub status: u16,
}

/// The answer to one token request; `issued` numbers the rotated tokens.
pub fn answer(script: &OAuthScript, body: &Value, issued: u64) -> (Response, RecordedTokenRequest) {
    let grant_type = body["grant_type"].as_str().map(str::to_owned);
    let requested: Vec<String> = body["scope"]
        .as_str()
        .map(|s| s.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default();
    let matched = body["refresh_token"].as_str() == Some(script.refresh_token.as_str());
    let rotated = body["refresh_token"]
        .as_str()
        .is_some_and(|t| t.starts_with(ISSUED_REFRESH_PREFIX));
    let error = |status: u16, error: &str, description: &str| {
        let code = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
        let body = json!({"error": error, "error_description": description});
        (code, Json(body)).into_response()
    };
    let response = match (&script.fail, grant_type.as_deref()) {
        (Some((status, oauth_error)), _) => error(*status, oauth_error, "scripted failure"),
        (None, Some("refresh_token")) if matched || rotated => {
            let scopes = match &script.grant_only {
                Some(granted) => granted.clone(),
                None if requested.is_empty() => script.scopes.clone(),
                None => requested.clone(),
            };
            let body = json!({
                "token_type": "Bearer",
                "access_token": format!("sk-ant-oat01-mock-access-{issued:04}"),
                "refresh_token": format!("{ISSUED_REFRESH_PREFIX}{issued:04}"),
                "expires_in": script.expires_in,
                "scope": scopes.join(" "),
            });
            (StatusCode::OK, Json(body)).into_response()
        }
        (None, Some("refresh_token")) => {
            error(400, "invalid_grant", "refresh token not recognised")
        }
        (None, _) => error(
            400,
            "unsupported_grant_type",
            "only refresh_token is supported",
        ),
    };
    let record = RecordedTokenRequest {
        grant_type,
        scopes: requested,
        refresh_token_matched: matched,
        refresh_token_rotated: rotated,
        status: response.status().as_u16(),
    };
    (response, record)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script() -> OAuthScript {
        OAuthScript {
            refresh_token: "rt-1".into(),
            scopes: default_scopes(),
            expires_in: 60,
            fail: None,
            grant_only: None,
        }
    }

    #[test]
    fn a_known_refresh_token_gets_a_rotated_pair_with_the_scopes_asked_for() {
        let body = json!({"grant_type": "refresh_token", "refresh_token": "rt-1", "scope": "user:projects:read user:inference"});
        let (response, record) = answer(&script(), &body, 7);
        assert_eq!(response.status(), 200);
        assert_eq!(record.scopes, ["user:projects:read", "user:inference"]);
        assert!(record.refresh_token_matched);
        let (_, default) = answer(
            &script(),
            &json!({"grant_type": "refresh_token", "refresh_token": "rt-1"}),
            8,
        );
        assert_eq!(default.status, 200);
    }

    #[test]
    fn an_unknown_token_a_wrong_grant_and_a_scripted_failure_are_refused() {
        let wrong = json!({"grant_type": "refresh_token", "refresh_token": "other"});
        assert_eq!(answer(&script(), &wrong, 1).1.status, 400);
        let rotated = json!({"grant_type": "refresh_token", "refresh_token": "sk-ant-ort01-mock-refresh-0001"});
        let (response, record) = answer(&script(), &rotated, 2);
        assert_eq!(response.status(), 200);
        assert!(record.refresh_token_rotated && !record.refresh_token_matched);
        let grant = json!({"grant_type": "password"});
        assert_eq!(answer(&script(), &grant, 1).1.status, 400);
        let failing = OAuthScript {
            fail: Some((503, "temporarily_unavailable".into())),
            ..script()
        };
        let good = json!({"grant_type": "refresh_token", "refresh_token": "rt-1"});
        assert_eq!(answer(&failing, &good, 1).1.status, 503);
    }

    #[tokio::test]
    async fn a_server_that_withholds_scopes_grants_only_its_own_list() {
        let stingy = OAuthScript {
            grant_only: Some(vec!["user:inference".into()]),
            ..script()
        };
        let body = json!({"grant_type": "refresh_token", "refresh_token": "rt-1", "scope": "user:inference user:projects:read"});
        let (response, record) = answer(&stingy, &body, 1);
        assert_eq!(response.status(), 200);
        assert_eq!(record.scopes, ["user:inference", "user:projects:read"]);
        let granted = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .unwrap();
        let granted: Value = serde_json::from_slice(&granted).unwrap();
        assert_eq!(granted["scope"], "user:inference");
    }
}

//! Messages API failures, how they are retried, and the texts the CLI shows for them (recorded
//! from the real 2.1.235: the seeds are silent on them).

use serde_json::Value;

#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    #[error("HTTP {status} {kind}: {message}")]
    Http {
        status: u16,
        kind: String,
        message: String,
        retry_after_ms: Option<u64>,
        /// The answer's `request-id` header: the synthetic assistant message names it.
        request_id: Option<String>,
    },
    #[error("protocol error: {0}")]
    Protocol(String),
    #[error("connection error: {0}")]
    Network(String),
    /// The stream ended before `message_stop`.
    #[error("stream ended before message_stop")]
    StreamCut,
    /// Overloaded (529) too many times in a row, with a fallback model to go to
    /// (`--fallback-model`): the caller sends the request again on that model.
    #[error("overloaded; the fallback model takes over")]
    FallBack,
}

impl ApiError {
    pub fn from_body(
        status: u16,
        body: &Value,
        retry_after_ms: Option<u64>,
        request_id: Option<String>,
    ) -> Self {
        ApiError::Http {
            status,
            kind: body["error"]["type"]
                .as_str()
                .unwrap_or("api_error")
                .to_owned(),
            message: body["error"]["message"].as_str().unwrap_or("").to_owned(),
            retry_after_ms,
            request_id,
        }
    }

    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Http { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// 401, 408, 409, 429 and every 5xx are retried; other 4xx are final.
    pub fn retryable(&self) -> bool {
        match self {
            ApiError::Http { status, .. } => {
                matches!(status, 401 | 408 | 409 | 429) || *status >= 500
            }
            ApiError::Network(_) => true,
            ApiError::Protocol(_) | ApiError::StreamCut | ApiError::FallBack => false,
        }
    }

    /// The `error` word of `system/api_retry` events and of the synthetic assistant message.
    pub fn category(&self) -> &'static str {
        match self.status() {
            Some(529) | Some(500..=599) => {
                if self.status() == Some(529) {
                    "overloaded"
                } else {
                    "server_error"
                }
            }
            Some(429) => "rate_limit",
            Some(401) => "authentication_failed",
            _ => "unknown",
        }
    }

    /// The synthetic assistant message's `error` field: retries exhausted on 529 read as
    /// `server_error` there, unlike in the retry events.
    pub fn final_category(&self) -> &'static str {
        match self.category() {
            "overloaded" => "server_error",
            other => other,
        }
    }

    /// The text the CLI prints as the run's result; `gateway` is the base URL's host:port.
    pub fn user_text(&self, gateway: &str) -> String {
        match self {
            ApiError::Http { status: 429, .. } => {
                "API Error: Request rejected (429) · Rate limited".to_owned()
            }
            ApiError::Http {
                status: status @ (500 | 529),
                ..
            } => {
                let what = if *status == 529 {
                    "Overloaded"
                } else {
                    "Internal server error"
                };
                format!(
                    "API Error: {status} {what}. This is a server-side issue, usually temporary — try again in a moment. \
                     If it persists, check your inference gateway ({gateway})."
                )
            }
            ApiError::Http {
                status, message, ..
            } => format!("API Error: {status} {message}"),
            other => format!("API Error: {other}"),
        }
    }
}

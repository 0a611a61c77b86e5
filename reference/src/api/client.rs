//! Sending one main-loop request: streaming first, the real CLI's retry schedule for retryable
//! statuses, and a non-streaming resend when a stream is cut mid-message.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::Value;

use super::assemble::{Assembler, Message, Step};
use super::error::ApiError;
use super::sse::SseDecoder;
use super::wire::{self, Attribution, Role};
use crate::limits;

pub struct Client {
    http: reqwest::Client,
    base_url: String,
    api_key: Option<String>,
    oauth_token: Option<String>,
    pub max_retries: u32,
    pub session_id: String,
    role: Role,
    /// The prompt the main loop serves now, and its last answer's `request-id`: both named in the
    /// attribution line on a first-party host.
    prompt_id: Mutex<Option<String>>,
    previous_request: Mutex<Option<String>>,
    /// `--fallback-model`: the main loop's model after overload.
    fallback_model: Option<String>,
}

/// A retry about to happen, for the `system/api_retry` event.
pub struct Retry {
    pub attempt: u32,
    pub max_retries: u32,
    pub delay_ms: u64,
    pub error: ApiError,
}

/// A finished response with what the result event reports about it.
pub struct Answer {
    pub message: Message,
    pub request_id: Option<String>,
    pub api_ms: u64,
}

impl Client {
    pub fn new(
        base_url: String,
        api_key: Option<String>,
        oauth_token: Option<String>,
        session_id: String,
    ) -> Self {
        let max_retries = std::env::var("CLAUDE_CODE_MAX_RETRIES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(limits::API_MAX_RETRIES_DEFAULT.get() as u32);
        Client {
            http: crate::net::http_client_for(&base_url, None),
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_key,
            oauth_token,
            max_retries,
            session_id,
            role: Role::Main,
            prompt_id: Mutex::new(None),
            previous_request: Mutex::new(None),
            fallback_model: None,
        }
    }

    /// The main loop goes to `model` once the API has been overloaded
    /// [`limits::API_OVERLOADED_BEFORE_FALLBACK`] times in a row.
    pub fn falling_back_to(mut self, model: Option<String>) -> Self {
        self.fallback_model = model;
        self
    }

    /// The same client for another kind of loop (an agent's, a helper's).
    pub fn with_role(mut self, role: Role) -> Self {
        self.role = role;
        self
    }

    /// The main loop starts serving a new prompt.
    pub fn new_prompt(&self) {
        *self.prompt_id.lock().unwrap() = Some(uuid::Uuid::new_v4().to_string());
    }

    /// A claude.ai login on the first-party API: its responses carry the subscription's limits.
    fn subscriber(&self) -> bool {
        self.api_key.is_none()
            && self.oauth_token.is_some()
            && crate::environment::provider::first_party()
    }

    /// host:port of the base URL, as the error texts name the gateway.
    pub fn gateway(&self) -> String {
        let rest = self.base_url.split("://").nth(1).unwrap_or(&self.base_url);
        rest.split('/').next().unwrap_or(rest).to_owned()
    }

    /// Sends `body`, calling `on_block` as each content block completes and `on_retry` before each
    /// retry's wait.
    pub async fn send(
        &self,
        body: &Value,
        on_block: impl FnMut(&Message, usize, Option<&str>),
        on_retry: impl FnMut(&Retry),
    ) -> Result<Answer, ApiError> {
        self.send_streaming(body, on_block, |_| {}, on_retry).await
    }

    /// [`Client::send`], with `on_event` given each server-sent event's data as it arrives (after
    /// the block it completes, if any, was handed to `on_block`).
    pub async fn send_streaming(
        &self,
        body: &Value,
        mut on_block: impl FnMut(&Message, usize, Option<&str>),
        mut on_event: impl FnMut(&Value),
        mut on_retry: impl FnMut(&Retry),
    ) -> Result<Answer, ApiError> {
        let mut attempt = 0;
        let mut overloaded: u64 = 0;
        // Recorded on 2.1.235 (sdk.invocation/fallback-model): the main loop only, and not once
        // it runs on the fallback model.
        let may_fall_back = self.role == Role::Main
            && self
                .fallback_model
                .as_deref()
                .is_some_and(|m| body["model"] != m);
        loop {
            let started = Instant::now();
            let outcome = match self.stream(body, &mut on_block, &mut on_event).await {
                // A cut stream is resent at once without streaming, as the real CLI does.
                Err(ApiError::StreamCut) => self.whole(body).await,
                other => other,
            };
            match outcome {
                Ok((message, request_id)) => {
                    let model = body["model"].as_str().unwrap_or_default();
                    let tallied = if wire::long_context(self.role, model) {
                        format!("{model}[1m]")
                    } else {
                        model.to_owned()
                    };
                    super::tally::record(
                        &tallied,
                        body["max_tokens"].as_u64().unwrap_or_default(),
                        &message,
                    );
                    if self.role == Role::Main {
                        self.previous_request
                            .lock()
                            .unwrap()
                            .clone_from(&request_id);
                    }
                    return Ok(Answer {
                        message,
                        request_id,
                        api_ms: started.elapsed().as_millis() as u64,
                    });
                }
                Err(error)
                    if error.status() == Some(529) && may_fall_back && {
                        overloaded += 1;
                        overloaded >= limits::API_OVERLOADED_BEFORE_FALLBACK.get()
                    } =>
                {
                    return Err(ApiError::FallBack)
                }
                Err(error) if error.retryable() && attempt < self.max_retries => {
                    attempt += 1;
                    let delay_ms = retry_delay_ms(attempt, &error);
                    on_retry(&Retry {
                        attempt,
                        max_retries: self.max_retries,
                        delay_ms,
                        error,
                    });
                    tokio::time::sleep(Duration::from_millis(delay_ms)).await;
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// The body as it goes on the wire: the attribution line first in `system`, then serialized
    /// with its body hash in place.
    fn wire_body(&self, body: &Value) -> String {
        let mut body = body.clone();
        let main = self.role == Role::Main;
        let previous = self.previous_request.lock().unwrap().clone();
        let prompt = self.prompt_id.lock().unwrap().clone();
        let line = wire::attribution(
            &wire::first_user_text(&body),
            &Attribution {
                subagent: self.role == Role::Subagent,
                previous_request: previous.as_deref().filter(|_| main),
                prompt_id: prompt.as_deref().filter(|_| main),
            },
        );
        if let (Some(line), Some(system)) = (line, body["system"].as_array_mut()) {
            system.insert(0, serde_json::json!({"type": "text", "text": line}));
        }
        if super::vertex::on() {
            super::vertex::body(&mut body);
        }
        wire::seal(body.to_string())
    }

    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        let betas = wire::betas(self.role, body);
        let url = if super::vertex::on() {
            super::vertex::url(body["model"].as_str().unwrap_or_default())
        } else {
            format!("{}/v1/messages?beta=true", self.base_url)
        };
        let mut request = self
            .http
            .post(url)
            .header("anthropic-version", "2023-06-01")
            .header("content-type", "application/json")
            .header(
                "user-agent",
                concat!(
                    "claude-reference/",
                    env!("CARGO_PKG_VERSION"),
                    " (conformance)"
                ),
            )
            .header("x-app", "cli")
            .header("x-claude-code-session-id", &self.session_id)
            .body(self.wire_body(body));
        if let Some(key) = &self.api_key {
            request = request.header("x-api-key", key);
        } else if let Some(token) = &self.oauth_token {
            request = request.bearer_auth(token);
        }
        if !betas.is_empty() {
            request = request.header("anthropic-beta", betas.join(","));
        }
        request
    }

    /// `POST /v1/messages/count_tokens?beta=true`: the input tokens of `text` as one user message
    /// on `model`, or `None` when the API gives no count (an error, no number, a provider
    /// without the endpoint). No retries beyond the one request: a count only refines an
    /// estimate the caller already has.
    pub async fn count_tokens(&self, model: &str, text: &str) -> Option<u64> {
        if super::vertex::on() {
            return None;
        }
        let body = serde_json::json!({
            "model": model,
            "messages": [{"role": "user", "content": text}],
            "tools": [],
        });
        // The main request's betas the counting endpoint takes, then its own.
        const COUNTED: [&str; 3] = [
            "claude-code-20250219",
            "interleaved-thinking-2025-05-14",
            "context-management-2025-06-27",
        ];
        let mut betas: Vec<String> = wire::betas(Role::Main, &body)
            .into_iter()
            .filter(|b| COUNTED.contains(&b.as_str()))
            .collect();
        betas.push("token-counting-2024-11-01".into());
        let mut request = self
            .http
            .post(format!(
                "{}/v1/messages/count_tokens?beta=true",
                self.base_url
            ))
            .header("anthropic-version", "2023-06-01")
            .header("content-type", "application/json")
            .header("anthropic-beta", betas.join(","))
            .header("x-app", "cli")
            .header("x-claude-code-session-id", &self.session_id)
            .body(body.to_string());
        if let Some(key) = &self.api_key {
            request = request.header("x-api-key", key);
        } else if let Some(token) = &self.oauth_token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.ok()?;
        if !response.status().is_success() {
            return None;
        }
        response.json::<Value>().await.ok()?["input_tokens"].as_u64()
    }

    async fn stream(
        &self,
        body: &Value,
        on_block: &mut impl FnMut(&Message, usize, Option<&str>),
        on_event: &mut impl FnMut(&Value),
    ) -> Result<(Message, Option<String>), ApiError> {
        let response = self
            .post(body)
            .send()
            .await
            .map_err(|e| ApiError::Network(e.to_string()))?;
        let response = check_status(response).await?;
        super::rate_limit::observe(response.headers(), self.subscriber());
        let request_id = header(&response, "request-id");
        let mut bytes = response.bytes_stream();
        let mut decoder = SseDecoder::new();
        let mut assembler = Assembler::default();
        let mut frames = Vec::new();
        while let Some(chunk) = bytes.next().await {
            let Ok(chunk) = chunk else {
                return Err(ApiError::StreamCut);
            };
            decoder.push(&chunk, &mut frames);
            for frame in frames.drain(..) {
                // Parsed once, for the message and for whoever follows the events.
                let data = Assembler::parse(&frame.event, &frame.data)?;
                let step = assembler.apply(&frame.event, &data)?;
                if let Step::Block(index) = step {
                    on_block(&assembler.message, index, request_id.as_deref());
                }
                on_event(&data);
                if let Step::Done = step {
                    return Ok((assembler.message, request_id));
                }
            }
        }
        Err(ApiError::StreamCut)
    }

    async fn whole(&self, body: &Value) -> Result<(Message, Option<String>), ApiError> {
        let mut body = body.clone();
        body["stream"] = Value::Bool(false);
        let response = self
            .post(&body)
            .send()
            .await
            .map_err(|e| ApiError::Network(e.to_string()))?;
        let response = check_status(response).await?;
        super::rate_limit::observe(response.headers(), self.subscriber());
        let request_id = header(&response, "request-id");
        let json: Value = response
            .json()
            .await
            .map_err(|e| ApiError::Protocol(e.to_string()))?;
        Ok((Assembler::from_json(&json), request_id))
    }
}

fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

async fn check_status(response: reqwest::Response) -> Result<reqwest::Response, ApiError> {
    let status = response.status().as_u16();
    if status == 200 {
        return Ok(response);
    }
    let retry_after_ms = header(&response, "retry-after")
        .and_then(|s| s.parse::<u64>().ok())
        .map(|s| s * 1000);
    let request_id = header(&response, "request-id");
    let body: Value = response.json().await.unwrap_or(Value::Null);
    Err(ApiError::from_body(
        status,
        &body,
        retry_after_ms,
        request_id,
    ))
}

/// `retry-after` when the server gives one; else the base delay doubled per attempt up to the cap,
/// plus up to a quarter of jitter.
fn retry_delay_ms(attempt: u32, error: &ApiError) -> u64 {
    if let ApiError::Http {
        retry_after_ms: Some(ms),
        ..
    } = error
    {
        return *ms;
    }
    let base = limits::API_RETRY_BASE_DELAY
        .get()
        .saturating_mul(1 << (attempt - 1).min(16));
    let capped = base.min(limits::API_RETRY_MAX_DELAY.get());
    let jitter_max = capped * limits::API_RETRY_JITTER.get() / 100;
    let jitter = if jitter_max == 0 {
        0
    } else {
        u64::from(uuid::Uuid::new_v4().as_u128() as u32) % jitter_max
    };
    capped + jitter
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_the_cap_and_honours_retry_after() {
        let e = ApiError::Http {
            status: 529,
            kind: "overloaded_error".into(),
            message: String::new(),
            retry_after_ms: None,
            request_id: None,
        };
        let first = retry_delay_ms(1, &e);
        assert!((500..=625).contains(&first), "{first}");
        let third = retry_delay_ms(3, &e);
        assert!((2000..=2500).contains(&third), "{third}");
        let late = retry_delay_ms(12, &e);
        assert!((32_000..=40_000).contains(&late), "{late}");
        let ra = ApiError::Http {
            status: 429,
            kind: String::new(),
            message: String::new(),
            retry_after_ms: Some(2000),
            request_id: None,
        };
        assert_eq!(retry_delay_ms(1, &ra), 2000);
    }
}

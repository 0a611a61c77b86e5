//! Delivering a message's attachments: the gates every upload passes before a byte is read
//! (first-party provider, privacy, managed policy), then the one uploader, all attachments in
//! parallel. A failure is written to its own attachment only; nothing is rolled back.

use std::path::Path;

use super::attachments::Attachment;
use super::lane::{Lane, LaneInputs};
use crate::upload::{UploadFailure, Uploader};

/// The managed policy's answer for `allow_send_file`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendFilePolicy {
    Allowed,
    Denied,
    /// No cached policy to decide with: fail closed.
    Unknown,
}

/// Managed policy is not fetched by this agent; this test setting stands in for its cache.
pub const SEND_FILE_POLICY_SETTING: &str = "CLAUDE_REFERENCE_SEND_FILE_POLICY";

/// The values [`SEND_FILE_POLICY_SETTING`] accepts; unset or empty is [`SendFilePolicy::Allowed`].
pub const SEND_FILE_POLICY_VALUES: &[&str] = &["deny", "unknown"];

impl SendFilePolicy {
    /// The policy [`SEND_FILE_POLICY_SETTING`] sets; an error naming the variable, the value and
    /// the accepted values when it is none of [`SEND_FILE_POLICY_VALUES`].
    pub fn from_setting() -> Result<SendFilePolicy, String> {
        Ok(
            match super::lane::setting(SEND_FILE_POLICY_SETTING, SEND_FILE_POLICY_VALUES)? {
                Some("deny") => SendFilePolicy::Denied,
                Some("unknown") => SendFilePolicy::Unknown,
                _ => SendFilePolicy::Allowed,
            },
        )
    }
}

/// Everything an upload depends on, read once per session.
#[derive(Debug, Clone)]
pub struct Delivery {
    pub lane: Lane,
    /// The provider is Anthropic's own (not Bedrock, Vertex or Foundry).
    pub first_party: bool,
    /// Only essential traffic is allowed (`CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`).
    pub essential_traffic_only: bool,
    pub policy: SendFilePolicy,
    pub base_url: String,
    /// The claude.ai OAuth token; an API key never stands in for it.
    pub oauth_token: Option<String>,
    /// Failed attachments can still be opened by a renderer on this machine.
    pub renders_locally: bool,
}

/// Entrypoints whose desktop app can open a local file the upload failed to deliver.
const DESKTOP_ENTRYPOINTS: &[&str] = &["claude-desktop", "claude-desktop-3p", "local-agent"];

impl Delivery {
    pub fn from_env(base_url: &str, oauth_token: Option<String>) -> Self {
        let lane = super::lane::select(&LaneInputs::from_env());
        let desktop = std::env::var("CLAUDE_CODE_ENTRYPOINT")
            .is_ok_and(|e| DESKTOP_ENTRYPOINTS.contains(&e.as_str()));
        Delivery {
            lane,
            first_party: crate::environment::first_party(),
            essential_traffic_only: crate::environment::essential_traffic_only(),
            // An unknown value is refused at startup (`main`): reaching one here is a bug.
            policy: SendFilePolicy::from_setting()
                .unwrap_or_else(|e| panic!("{e} (refused at startup)")),
            base_url: base_url.to_owned(),
            oauth_token,
            renders_locally: lane == Lane::SdkHosted && desktop,
        }
    }

    /// Uploads every attachment that needs it, in parallel, each result to its own attachment.
    pub async fn deliver(&self, attachments: &mut [Attachment]) {
        if !self.lane.uploads() {
            return;
        }
        let uploader = Uploader::with_default_timeout(&self.base_url, self.oauth_token.clone());
        let jobs = attachments
            .iter()
            .enumerate()
            .filter(|(_, a)| a.needs_upload())
            .map(|(i, a)| {
                let uploader = &uploader;
                let path = a.path.clone();
                async move { (i, self.upload(uploader, Path::new(&path)).await) }
            })
            .collect::<Vec<_>>();
        for (i, outcome) in futures_util::future::join_all(jobs).await {
            match outcome {
                Ok(uuid) => attachments[i].file_uuid = Some(uuid),
                Err(reason) => attachments[i].upload_error = Some(reason.upload_error()),
            }
        }
    }

    async fn upload(&self, uploader: &Uploader, path: &Path) -> Result<String, UploadFailure> {
        if !self.first_party {
            return Err(UploadFailure::NotFirstParty);
        }
        if self.essential_traffic_only {
            return Err(UploadFailure::EssentialTraffic);
        }
        match self.policy {
            SendFilePolicy::Allowed => {}
            SendFilePolicy::Denied => return Err(UploadFailure::PolicyDenied),
            SendFilePolicy::Unknown => return Err(UploadFailure::PolicyCacheMiss),
        }
        uploader.upload(path).await
    }
}

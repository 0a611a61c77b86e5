//! A mock claude.ai on loopback, for the paths the agent reaches with an OAuth token. So far the
//! file upload endpoint (`POST /api/oauth/file_upload`): the multipart body parsed strictly (one
//! file part, the boundary of its Content-Type, a matching Content-Length, a filename), each
//! upload recorded as name, size and SHA-256, the answer scripted per file name. [`ClaudeAi`] is
//! the state and routes: the harness mounts them on the Messages stub's port, because a target
//! sends uploads to its `ANTHROPIC_BASE_URL`. The OAuth token endpoint (refresh grant) is scripted
//! too. ClaudeDesign is scripted by [`DesignScript`]: the MCP endpoint (`POST /v1/design/mcp`:
//! initialize with an `Mcp-Session-Id` the server can forget, tools/list, tools/call), consent
//! (`GET/POST/DELETE /v1/design/consent`) and durable grants (`GET/POST /v1/design/grants`), each
//! request recorded as a [`DesignRequest`] with its bearer classified, never kept. Served alone,
//! any other path is answered 404 and recorded as an [`OtherRequest`]. The attached Project
//! ([`ProjectScript`]) answers on both of its transports, the organization routes and the session
//! route, and its state after a run is what checks read.

mod artifact_assets;
mod artifacts;
mod artifacts_routes;
#[cfg(test)]
mod artifacts_tests;
mod design;
mod design_routes;
mod design_sync;
#[cfg(test)]
mod design_tests;
mod directories;
mod directories_routes;
mod multipart;
mod oauth;
mod projects;
mod projects_routes;
#[cfg(test)]
mod projects_tests;
mod server;

pub use artifact_assets::{Asset, AssetSeed, AssetStore};
pub use artifacts::{
    frame_host, Artifact, ArtifactAnswer, ArtifactOp, ArtifactRequest, ArtifactSeed,
    ArtifactsScript, CommentSeed, ThreadSeed, CONTRACT_VERSION, MINTED_SLUGS,
};
pub use design::{
    Bearer, DesignAnswer, DesignEndpoint, DesignMethod, DesignRequest, DesignScript, DesignTool,
    OtherRequest,
};
pub use design_sync::SyncProject;
pub use directories::{
    DirectoryAnswer, DirectoryRequest, DirectoryScript, Route as DirectoryRoute,
};
pub use multipart::{parse_single_file, FilePart, MultipartError};
pub use oauth::{OAuthScript, RecordedTokenRequest};
pub use projects::{
    DocSeed, DocState, Hit, Op, ProjectAnswer, ProjectRequest, ProjectScript, ProjectState, Tokens,
    Transport, UploadSeed,
};
pub use server::{ClaudeAi, ClaudeAiMock, RecordedUpload, UploadAnswer};

//! A mock claude.ai on loopback, for the paths the agent reaches with an OAuth token. So far the
//! file upload endpoint (`POST /api/oauth/file_upload`): the multipart body parsed strictly (one
//! file part, the boundary of its Content-Type, a matching Content-Length, a filename), each
//! upload recorded as name, size and SHA-256, the answer scripted per file name. [`ClaudeAi`] is
//! the state and routes: the harness mounts them on the Messages stub's port, because a target
//! sends uploads to its `ANTHROPIC_BASE_URL`. The OAuth token endpoint (refresh grant) is scripted
//! too; Design MCP, consent, grants and Projects join as routes.

mod multipart;
mod oauth;
mod server;

pub use multipart::{parse_single_file, FilePart, MultipartError};
pub use oauth::{OAuthScript, RecordedTokenRequest};
pub use server::{ClaudeAi, ClaudeAiMock, RecordedUpload, UploadAnswer};

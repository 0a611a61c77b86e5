//! The loopback web site of `[[site]]` scenarios: pages, redirects, big and slow answers on named
//! hosts, and the first-party domain preflight; every request recorded (`Sites::requests`).

mod script;
mod server;
#[cfg(test)]
mod tests;

pub use script::{Page, Preflight, SiteScript};
pub use server::{SiteRequest, Sites};

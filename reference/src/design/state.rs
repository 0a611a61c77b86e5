//! The process-wide Design state (2.1.235's `bZ`): the MCP session and its in-flight handshakes,
//! the operation hint registry, the served catalog hashes, and the permission caches (consent,
//! approved plans, verified grants, grant-ineligible and re-card projects). Nothing here outlives
//! the process.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use futures_util::future::{BoxFuture, Shared};

use super::catalog::{Entry, Hints};
use super::error::DesignError;
use crate::limits;

pub type SharedInit = Shared<BoxFuture<'static, Result<Option<String>, DesignError>>>;
pub type SharedDiscover = Shared<BoxFuture<'static, Result<Vec<Entry>, DesignError>>>;

/// A plan the user approved: its project, its exact normalized paths, its expiry (ms since epoch).
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovedPlan {
    pub project_id: String,
    pub writes: HashSet<String>,
    pub deletes: HashSet<String>,
    pub expires_at: u64,
}

#[derive(Default)]
pub struct Inner {
    pub cached_session_id: Option<String>,
    pub initialized: bool,
    pub initialize_in_flight: Option<SharedInit>,
    pub discover_in_flight: Option<SharedDiscover>,
    /// Operation → merged hints, rebuilt by every discovery.
    pub hints: HashMap<String, Hints>,
    /// Agent key → catalog hash, oldest first (an LRU).
    pub served_catalog_hashes: Vec<(String, String)>,
    pub approved_plans: HashMap<String, ApprovedPlan>,
    pub verified_project_grants: HashSet<String>,
    pub recard_all_projects: bool,
    pub recard_projects: HashSet<String>,
    pub grant_ineligible_projects: HashSet<String>,
    /// Plans registered locally by the design-sync flow; only cleared here.
    pub plan_store: HashMap<String, String>,
    /// `None` until the consent pre-flight ran (or after a reset).
    pub consent_cache: Option<HashMap<String, bool>>,
    pub consent_cache_generation: u64,
}

#[derive(Default)]
pub struct DesignState {
    inner: Mutex<Inner>,
}

impl DesignState {
    pub fn new() -> Arc<Self> {
        Arc::new(DesignState::default())
    }

    pub fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The state of this process.
pub fn global() -> &'static Arc<DesignState> {
    static STATE: OnceLock<Arc<DesignState>> = OnceLock::new();
    STATE.get_or_init(DesignState::new)
}

/// A project id as compared across caches: lower case, no `urn:uuid:`, no braces or dashes.
pub fn project_key(id: &str) -> String {
    let lower = id.to_lowercase();
    let lower = lower.strip_prefix("urn:uuid:").unwrap_or(&lower);
    lower.chars().filter(|c| !"{}-".contains(*c)).collect()
}

impl Inner {
    /// Forgets the MCP session: the next request initializes again.
    pub fn reset_session(&mut self) {
        self.cached_session_id = None;
        self.initialized = false;
        self.initialize_in_flight = None;
        self.discover_in_flight = None;
    }

    /// Records `hash` as served to `key`, most recent last; the oldest goes beyond the cap.
    pub fn remember_catalog(&mut self, key: &str, hash: &str) {
        self.served_catalog_hashes.retain(|(k, _)| k != key);
        self.served_catalog_hashes
            .push((key.to_owned(), hash.to_owned()));
        if self.served_catalog_hashes.len() > limits::DESIGN_CATALOG_LRU_ENTRIES.usize() {
            self.served_catalog_hashes.remove(0);
        }
    }

    pub fn served_catalog(&self, key: &str) -> Option<&str> {
        self.served_catalog_hashes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, h)| h.as_str())
    }

    pub fn forget_plans_for(&mut self, project: &str) {
        let key = project_key(project);
        self.approved_plans
            .retain(|_, p| project_key(&p.project_id) != key);
    }

    pub fn forget_plan_store_for(&mut self, project: &str) {
        let key = project_key(project);
        self.plan_store.retain(|_, p| project_key(p) != key);
    }

    pub fn verify_grant(&mut self, project: &str) {
        if !project.is_empty() {
            self.verified_project_grants.insert(project.to_owned());
        }
    }

    pub fn grant_verified(&self, project: &str) -> bool {
        self.verified_project_grants.contains(project)
    }

    pub fn unverify_grant(&mut self, project: &str) {
        let key = project_key(project);
        self.verified_project_grants
            .retain(|p| project_key(p) != key);
    }

    pub fn needs_recard(&self, project: &str) -> bool {
        self.recard_all_projects || self.recard_projects.contains(&project_key(project))
    }

    pub fn mark_recard(&mut self, project: &str) {
        if !project.is_empty() {
            self.recard_projects.insert(project_key(project));
        }
    }

    pub fn mark_grant_ineligible(&mut self, project: &str) {
        if !project.is_empty() {
            self.grant_ineligible_projects.insert(project_key(project));
        }
    }

    pub fn grant_ineligible(&self, project: &str) -> bool {
        self.grant_ineligible_projects
            .contains(&project_key(project))
    }

    /// Records a consent bit; a refused `agent_design_projects` drops every plan and grant.
    pub fn seed_consent(&mut self, bit: &str, value: bool) {
        if bit == "agent_design_projects" && !value {
            self.approved_plans.clear();
            self.verified_project_grants.clear();
            self.recard_all_projects = true;
            self.plan_store.clear();
        }
        self.consent_cache
            .get_or_insert_with(HashMap::new)
            .insert(bit.to_owned(), value);
    }

    /// Forgets the consent cache: the next decision fetches it again.
    pub fn reset_consent(&mut self) {
        self.consent_cache = None;
        self.consent_cache_generation += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_lru_evicts_the_oldest_beyond_the_cap() {
        let cap = limits::DESIGN_CATALOG_LRU_ENTRIES.usize();
        let mut inner = Inner::default();
        for i in 0..cap {
            inner.remember_catalog(&format!("agent{i}"), "h");
        }
        assert_eq!(inner.served_catalog_hashes.len(), cap);
        assert!(inner.served_catalog("agent0").is_some());
        // Touching agent0 makes agent1 the oldest.
        inner.remember_catalog("agent0", "h2");
        inner.remember_catalog(&format!("agent{cap}"), "h");
        assert_eq!(inner.served_catalog_hashes.len(), cap);
        assert_eq!(inner.served_catalog("agent0"), Some("h2"));
        assert!(inner.served_catalog("agent1").is_none());
    }

    #[test]
    fn project_keys_ignore_case_braces_dashes_and_urn() {
        assert_eq!(project_key("urn:uuid:{AB-cd}"), "abcd");
    }

    #[test]
    fn refused_consent_drops_plans_and_grants() {
        let mut inner = Inner::default();
        inner.verify_grant("p1");
        inner.seed_consent("agent_design_projects", false);
        assert!(!inner.grant_verified("p1"));
        assert!(inner.needs_recard("anything"));
        assert!(!inner.consent_cache.as_ref().unwrap()["agent_design_projects"]);
    }
}

//! The capability contract (2.1.235, recon artifact-assets): what a published page may declare in
//! `capabilities`, by contract version. `GET /api/frame/contract/latest` (or `/{version}`)
//! answers `{version, capabilities: [names]}`. A publish that declares capabilities is checked
//! against it and stamped with its version; `contract: "latest"` upgrades, a version pins. The
//! asset actions read it once per session to learn whether the account has asset storage.

use serde_json::{json, Map, Value};

use super::api::Api;
use crate::limits;

#[derive(Debug, Clone, PartialEq)]
pub struct Contract {
    pub version: String,
    pub capabilities: Vec<String>,
}

/// `0.1.0`: three dot-separated numbers without leading zeros (2.1.235's `pQe`).
pub fn is_version(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 3
        && parts.iter().zip([4, 5, 6]).all(|(p, max)| {
            !p.is_empty()
                && p.len() <= max
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
        })
}

/// The version that means "no pin", refused as a `contract` value.
pub const NO_PIN: &str = "0.0.0";

pub async fn fetch(api: &Api, version: Option<&str>) -> Result<Contract, String> {
    let path = match version {
        Some(v) => format!("/api/frame/contract/{v}"),
        None => "/api/frame/contract/latest".into(),
    };
    let sent = api
        .request(reqwest::Method::GET, &path)
        .timeout(limits::ARTIFACT_READ_TIMEOUT.duration())
        .send()
        .await
        .map_err(|e| e.to_string())?;
    let status = sent.status().as_u16();
    if !(200..300).contains(&status) {
        return Err(format!("HTTP {status}"));
    }
    let body: Value = sent
        .json()
        .await
        .map_err(|_| "malformed contract response".to_owned())?;
    let malformed = || "malformed contract response".to_owned();
    let version = body["version"]
        .as_str()
        .filter(|v| is_version(v))
        .ok_or_else(malformed)?;
    let capabilities = body["capabilities"]
        .as_array()
        .ok_or_else(malformed)?
        .iter()
        .map(|c| c.as_str().map(str::to_owned).ok_or_else(malformed))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Contract {
        version: version.to_owned(),
        capabilities,
    })
}

/// The `contract` and `capabilities` fields a publish carries, or the refusal the model reads.
/// `capabilities` declared: checked against the contract (the pinned one, else the latest);
/// `contract: "latest"` alone: stamped with the latest version; a version alone: passed as the pin.
pub async fn publish_fields(
    api: &Api,
    capabilities: Option<&Map<String, Value>>,
    contract: Option<&str>,
) -> Result<Map<String, Value>, String> {
    let pin = contract.filter(|c| *c != "latest");
    let mut fields = Map::new();
    match (capabilities, pin) {
        (None, Some(pin)) => {
            fields.insert("contract".into(), json!(pin));
        }
        (None, None) if contract == Some("latest") => {
            let latest = fetch(api, None).await.map_err(|e| {
                format!("couldn't fetch the capability contract ({e}) \u{2014} an upgrade stamps the current contract, which requires the contract service. Retry when it is reachable.")
            })?;
            fields.insert("contract".into(), json!(latest.version));
        }
        (None, None) => {}
        (Some(caps), pin) => {
            let against = match pin {
                Some(pin) => fetch(api, Some(pin)).await.ok(),
                None => Some(fetch(api, None).await.map_err(|e| {
                    let remedy = if caps.is_empty() {
                        "clearing a stored declaration also needs the current contract. Retry when the contract service is reachable \u{2014} until the clear lands, the stored grants stay live."
                    } else {
                        "a publish that declares capabilities needs the current contract from the server. Retry; or publish without the capabilities field and declare them on a later redeploy (a stored declaration carries forward unchanged)."
                    };
                    format!("couldn't fetch the capability contract ({e}) \u{2014} {remedy}")
                })?),
            };
            if let Some(contract) = &against {
                let unknown: Vec<&String> = caps
                    .keys()
                    .filter(|k| !contract.capabilities.contains(k))
                    .collect();
                if !unknown.is_empty() {
                    return Err(unknown_capabilities(&unknown, contract));
                }
            }
            let version = pin
                .map(str::to_owned)
                .or_else(|| against.map(|c| c.version))
                .unwrap_or_default();
            fields.insert("contract".into(), json!(version));
            fields.insert("capabilities".into(), Value::Object(caps.clone()));
        }
    }
    Ok(fields)
}

fn unknown_capabilities(unknown: &[&String], contract: &Contract) -> String {
    let named = |items: Vec<String>| {
        let mut shown: Vec<String> = items.iter().take(8).cloned().collect();
        if items.len() > 8 {
            shown.push(format!("\u{2026} (+{} more)", items.len() - 8));
        }
        shown.join(", ")
    };
    let names = named(unknown.iter().map(|u| u.to_string()).collect());
    let supported = named(contract.capabilities.clone());
    format!(
        "unknown {} {names} \u{2014} contract {} supports: {}. Fix or drop the declaration; the control plane would reject it anyway.",
        if unknown.len() == 1 { "capability:" } else { "capabilities:" },
        contract.version,
        if supported.is_empty() { "(none)".into() } else { supported }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_contract_version_is_three_numbers_without_leading_zeros() {
        assert!(is_version("0.1.0"));
        assert!(is_version("12.0.345"));
        assert!(!is_version("01.1.0"));
        assert!(!is_version("1.2"));
        assert!(!is_version("latest"));
    }

    #[test]
    fn an_unknown_capability_is_named_with_what_the_contract_supports() {
        let c = Contract {
            version: "0.1.0".into(),
            capabilities: vec!["assets".into()],
        };
        let storage = "storage".to_owned();
        assert_eq!(
            unknown_capabilities(&[&storage], &c),
            "unknown capability: storage \u{2014} contract 0.1.0 supports: assets. Fix or drop the declaration; the control plane would reject it anyway."
        );
    }
}

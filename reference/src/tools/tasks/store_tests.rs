//! The registry on disk: the layout 2.1.235 reads, the two-phase update and what a partial
//! failure leaves behind, strict reads.

use serde_json::{json, Value};

use super::*;
use crate::tools::tasks::update::{apply, Outcome};

fn registry() -> (tempfile::TempDir, Registry) {
    let tmp = tempfile::tempdir().unwrap();
    let reg = Registry::at(tmp.path().join("list"));
    (tmp, reg)
}

fn new(subject: &str) -> NewTask {
    NewTask {
        subject: subject.into(),
        description: format!("{subject} work"),
        active_form: None,
        metadata: None,
    }
}

fn file(reg: &Registry, name: &str) -> String {
    std::fs::read_to_string(reg.dir.join(name)).unwrap()
}

#[test]
fn create_writes_2_1_235s_file_and_ids_count_up() {
    let (_tmp, reg) = registry();
    let first = NewTask {
        active_form: Some("Writing".into()),
        metadata: Some(json!({"k": "v"})),
        ..new("Write")
    };
    assert_eq!(reg.create(first).unwrap(), "1");
    assert_eq!(reg.create(new("Fix")).unwrap(), "2");
    assert_eq!(
        file(&reg, "1.json"),
        "{\n  \"id\": \"1\",\n  \"subject\": \"Write\",\n  \"description\": \"Write work\",\n  \"activeForm\": \"Writing\",\n  \"status\": \"pending\",\n  \"blocks\": [],\n  \"blockedBy\": [],\n  \"metadata\": {\n    \"k\": \"v\"\n  }\n}"
    );
    assert!(reg.dir.join(".lock").is_file());
    assert!(
        !reg.dir.join(".lock.lock").exists(),
        "the list lock is released"
    );
}

#[test]
fn a_deleted_id_is_never_reused() {
    let (_tmp, reg) = registry();
    for s in ["a", "b", "c"] {
        reg.create(new(s)).unwrap();
    }
    assert!(reg.delete("3").unwrap());
    assert_eq!(file(&reg, ".highwatermark"), "3");
    assert_eq!(reg.create(new("d")).unwrap(), "4");
    assert!(!reg.delete("3").unwrap(), "already gone");
}

#[test]
fn delete_removes_the_edges_to_the_task() {
    let (_tmp, reg) = registry();
    reg.create(new("a")).unwrap();
    reg.create(new("b")).unwrap();
    assert!(reg.add_edge("1", "2").unwrap());
    assert_eq!(reg.get("2").unwrap().unwrap().ids("blockedBy"), ["1"]);
    reg.delete("2").unwrap();
    assert!(reg.get("2").unwrap().is_none());
    assert!(reg.get("1").unwrap().unwrap().ids("blocks").is_empty());
}

#[test]
fn an_update_merges_new_keys_last_and_rereading_restores_the_field_order() {
    let (_tmp, reg) = registry();
    reg.create(new("a")).unwrap();
    reg.update("1", single("owner", json!("ann"))).unwrap();
    let text = file(&reg, "1.json");
    assert!(
        text.ends_with("\"blockedBy\": [],\n  \"owner\": \"ann\"\n}"),
        "{text}"
    );
    reg.update("1", single("subject", json!("A"))).unwrap();
    let text = file(&reg, "1.json");
    assert!(text.contains("\"owner\": \"ann\",\n  \"status\""), "{text}");
}

#[test]
fn the_main_patch_is_one_write_before_any_edge() {
    let (_tmp, reg) = registry();
    reg.create(new("a")).unwrap();
    reg.create(new("b")).unwrap();
    let input = json!({"taskId": "1", "subject": "A", "owner": "ann", "status": "in_progress", "addBlocks": ["2"]});
    WRITES.with(|w| w.borrow_mut().clear());
    let outcome = apply(&reg, "1", &input).unwrap();
    let written: Vec<String> = WRITES.with(|w| {
        w.borrow()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect()
    });
    // The main fields in one write, then the edge: this task's end, then the other's.
    let main_writes = crate::limits::TASKS_UPDATE_MAIN_PATCH_WRITES.value as usize;
    let mut expected = vec!["1.json"; main_writes];
    expected.extend(["1.json", "2.json"]);
    assert_eq!(written, expected);
    assert_eq!(
        outcome,
        Outcome::Updated {
            fields: vec!["subject", "owner", "status", "blocks"],
            status: Some(("pending".into(), "in_progress".into()))
        }
    );
    let one = reg.get("1").unwrap().unwrap();
    assert_eq!(
        (one.text("subject"), one.text("owner"), one.status()),
        (Some("A"), Some("ann"), "in_progress")
    );
    assert_eq!(one.ids("blocks"), ["2"]);
    assert_eq!(
        reg.get("2").unwrap().unwrap().ids("blockedBy"),
        ["1"],
        "both ends"
    );
}

#[test]
fn a_failing_edge_leaves_the_main_patch_on_disk() {
    let (_tmp, reg) = registry();
    for s in ["a", "b"] {
        reg.create(new(s)).unwrap();
    }
    // Task 2 is held by someone else: its end of the edge cannot be written.
    std::fs::create_dir(reg.dir.canonicalize().unwrap().join("2.json.lock")).unwrap();
    let before_two = file(&reg, "2.json");
    let input = json!({"taskId": "1", "subject": "Main patch", "addBlockedBy": ["2"]});
    let err = apply(&reg, "1", &input).unwrap_err();
    assert!(matches!(err, StoreError::Locked), "{err}");
    assert_eq!(
        reg.get("1").unwrap().unwrap().text("subject"),
        Some("Main patch")
    );
    assert!(
        reg.get("1").unwrap().unwrap().ids("blockedBy").is_empty(),
        "the edge's later end is not written"
    );
    assert_eq!(file(&reg, "2.json"), before_two);
}

#[test]
fn an_edge_to_a_corrupt_task_fails_naming_it_and_leaves_both_files() {
    let (_tmp, reg) = registry();
    reg.create(new("a")).unwrap();
    std::fs::write(reg.dir.join("5.json"), "{not json").unwrap();
    let input = json!({"taskId": "1", "owner": "ann", "addBlocks": ["5"]});
    let err = apply(&reg, "1", &input).unwrap_err().to_string();
    assert!(
        err.contains("5.json") && err.contains("not valid JSON"),
        "{err}"
    );
    assert_eq!(reg.get("1").unwrap().unwrap().text("owner"), Some("ann"));
    assert!(reg.get("1").unwrap().unwrap().ids("blocks").is_empty());
    assert_eq!(file(&reg, "5.json"), "{not json");
}

#[test]
fn an_edge_to_an_unknown_task_is_skipped_and_still_reported() {
    let (_tmp, reg) = registry();
    reg.create(new("a")).unwrap();
    let outcome = apply(&reg, "1", &json!({"taskId": "1", "addBlocks": ["99"]})).unwrap();
    assert_eq!(
        outcome,
        Outcome::Updated {
            fields: vec!["blocks"],
            status: None
        }
    );
    assert!(reg.get("1").unwrap().unwrap().ids("blocks").is_empty());
    assert!(reg.get("99").unwrap().is_none());
}

#[test]
fn any_status_may_follow_any_other_and_an_unchanged_one_is_not_written() {
    let (_tmp, reg) = registry();
    reg.create(new("a")).unwrap();
    for (to, from) in [
        ("completed", "pending"),
        ("pending", "completed"),
        ("in_progress", "pending"),
    ] {
        let outcome = apply(&reg, "1", &json!({"taskId": "1", "status": to})).unwrap();
        assert_eq!(
            outcome,
            Outcome::Updated {
                fields: vec!["status"],
                status: Some((from.into(), to.into()))
            }
        );
    }
    let outcome = apply(&reg, "1", &json!({"taskId": "1", "status": "in_progress"})).unwrap();
    assert_eq!(
        outcome,
        Outcome::Updated {
            fields: vec![],
            status: None
        }
    );
}

#[test]
fn metadata_merges_and_null_removes_a_key() {
    let (_tmp, reg) = registry();
    reg.create(NewTask {
        metadata: Some(json!({"a": 1, "b": 2})),
        ..new("a")
    })
    .unwrap();
    apply(
        &reg,
        "1",
        &json!({"taskId": "1", "metadata": {"a": null, "c": 3}}),
    )
    .unwrap();
    assert_eq!(
        Value::Object(reg.get("1").unwrap().unwrap().metadata().unwrap().clone()),
        json!({"b": 2, "c": 3})
    );
}

#[test]
fn deleted_ignores_the_other_fields_and_unknown_ids_are_not_found() {
    let (_tmp, reg) = registry();
    reg.create(new("a")).unwrap();
    let outcome = apply(
        &reg,
        "1",
        &json!({"taskId": "1", "subject": "x", "status": "deleted"}),
    )
    .unwrap();
    assert_eq!(
        outcome,
        Outcome::Deleted {
            from: "pending".into()
        }
    );
    assert!(!reg.dir.join("1.json").exists());
    assert_eq!(
        apply(&reg, "1", &json!({"taskId": "1", "status": "deleted"})).unwrap(),
        Outcome::NotFound
    );
}

#[test]
fn corrupt_files_are_errors_naming_them_and_stay_as_they_were() {
    let (_tmp, reg) = registry();
    reg.create(new("a")).unwrap();
    let no_status =
        r#"{"id": "2", "subject": "s", "description": "d", "blocks": [], "blockedBy": []}"#;
    std::fs::write(reg.dir.join("2.json"), no_status).unwrap();
    let err = reg.list().unwrap_err().to_string();
    assert!(
        err.contains("2.json") && err.contains("`status` is missing"),
        "{err}"
    );
    let err = reg
        .update("2", single("subject", json!("fixed")))
        .unwrap_err()
        .to_string();
    assert!(err.contains("2.json"), "{err}");
    assert_eq!(file(&reg, "2.json"), no_status);
    // A new task still gets a fresh id: the corrupt file's name counts.
    assert_eq!(reg.create(new("b")).unwrap(), "3");
    std::fs::write(reg.dir.join(".highwatermark"), "lots").unwrap();
    let err = reg.create(new("c")).unwrap_err().to_string();
    assert!(err.contains(".highwatermark"), "{err}");
}

#[test]
fn the_list_is_in_numeric_order_and_ids_are_file_safe() {
    let (_tmp, reg) = registry();
    for i in 0..11 {
        reg.create(new(&format!("t{i}"))).unwrap();
    }
    let ids: Vec<String> = reg
        .list()
        .unwrap()
        .iter()
        .map(|t| t.id().to_owned())
        .collect();
    assert_eq!(ids.first().map(String::as_str), Some("1"));
    assert_eq!(ids[9..], ["10".to_owned(), "11".to_owned()]);
    assert!(
        reg.get("../1").unwrap().is_none(),
        "no path escapes the list"
    );
    assert_eq!(file_safe("a/b é😀"), "a-b----");
}

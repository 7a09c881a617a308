//! The `foundry-catalog` command run as a process, as a user runs it:
//! help, usage errors, every subcommand's output and exit codes, and
//! `check` against a live `serve` over loopback.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use foundry_catalog::preview::{OutputPreview, ProductContext};
use foundry_catalog::product::ProductManifest;
use foundry_catalog::response::ProductResponse;

const BIN: &str = env!("CARGO_BIN_EXE_foundry-catalog");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).current_dir(repo()).output().expect("the command runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh temporary folder for one test.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("foundry-catalog-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn every_subcommand_has_help() {
    for args in [
        &["--help"][..],
        &["preview", "--help"],
        &["render", "--help"],
        &["check", "--help"],
        &["schemas", "--help"],
        &["serve", "--help"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(text(&out.stdout).contains("Usage: foundry-catalog"), "{args:?}: {}", text(&out.stdout));
    }
    assert_eq!(run(&["--version"]).status.code(), Some(0));
}

#[test]
fn usage_errors_exit_2_on_stderr() {
    for args in [
        &[][..],
        &["frobnicate"],
        &["preview"],
        &["preview", "regulatory_status_signal", "--no-such-flag"],
        &["preview", "regulatory_status_signal", "--slug", "Not A Slug"],
        &["preview", "regulatory_status_signal", "--refreshed-at", "yesterday"],
        &["preview", "regulatory_status_signal", "--actor-manifest", "nopublisher"],
        &["preview", "no_such_type"],
        &["render"],
        &["check"],
        &["schemas", "--bogus"],
        &["serve", "--addr", "not-an-address"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
        assert!(!out.stderr.is_empty(), "{args:?} said nothing");
    }
}

#[test]
fn preview_prints_the_library_preview() {
    let out = run(&["preview", "regulatory_status_signal", "--slug", "eu-signals"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let schema = foundry_catalog::record_type("regulatory_status_signal").expect("shipped");
    let ctx = ProductContext::new(
        foundry_catalog::Slug::new("eu-signals").expect("slug"),
        "2026-01-01T00:00:00.000000Z".parse().expect("timestamp"),
    );
    let expected = serde_json::to_string_pretty(&OutputPreview::new(schema, &ctx)).expect("serializes");
    assert_eq!(text(&out.stdout), format!("{expected}\n"));

    let actor = run(&["preview", "actor_product_record", "--actor-manifest", "actorhub/foundry"]);
    let json: serde_json::Value = serde_json::from_slice(&actor.stdout).expect("JSON");
    assert_eq!(json["schema_preview"]["manifest_path"], "actorhub://actors/foundry/actor-product-record");
}

#[test]
fn render_then_check_round_trip() {
    let dir = temp("render");
    let manifests: Vec<PathBuf> = {
        let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("examples/catalog"))
            .expect("catalog")
            .map(|e| e.expect("entry").path())
            .collect();
        files.sort();
        files
    };
    let mut args = vec!["render".to_owned(), "--out-dir".to_owned(), dir.display().to_string()];
    args.extend(manifests.iter().map(|p| p.display().to_string()));
    let out = Command::new(BIN).args(&args).output().expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let mut bodies = Vec::new();
    for manifest in &manifests {
        let slug = manifest.file_stem().and_then(|s| s.to_str()).expect("a name");
        let written = dir.join(format!("{slug}.json"));
        let record = ProductManifest::from_json(&std::fs::read_to_string(manifest).expect("readable"))
            .expect("reads")
            .build()
            .expect("builds");
        let expected = serde_json::to_string_pretty(&ProductResponse { data: record }).expect("serializes");
        assert_eq!(std::fs::read_to_string(&written).expect("written"), format!("{expected}\n"));
        bodies.push(written.display().to_string());
    }
    // One manifest to stdout.
    let single = run(&["render", "examples/catalog/crm-webhook-connector.json"]);
    let single_body: serde_json::Value = serde_json::from_slice(&single.stdout).expect("JSON");
    assert_eq!(single_body["data"]["slug"], "crm-webhook-connector");

    let mut check = vec!["check"];
    check.extend(bodies.iter().map(String::as_str));
    let out = run(&check);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(text(&out.stdout).lines().filter(|l| l.ends_with(": ok")).count(), bodies.len());

    let broken = dir.join("broken.json");
    std::fs::write(&broken, r#"{"data": {"slug": "Bad"}}"#).expect("write");
    let out = run(&["check", broken.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("broken.json: /data/slug: [format]"), "{}", text(&out.stdout));

    let not_json = dir.join("not-json.json");
    std::fs::write(&not_json, "{").expect("write");
    let out = run(&["check", not_json.to_str().expect("utf-8"), "/no/such/file.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("not JSON at 1:1"), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn render_reports_every_problem_and_exits_1() {
    let dir = temp("broken-manifest");
    let mut manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("examples/catalog/eu-regulatory-status-signals.json")).expect("readable"),
    )
    .expect("JSON");
    manifest["slug"] = serde_json::json!("EU Signals");
    manifest["pricing_hint"]["currency"] = serde_json::json!("XYZ");
    manifest["category"] = serde_json::json!("dataset_product");
    let path = dir.join("eu-regulatory-status-signals.json");
    std::fs::write(&path, manifest.to_string()).expect("write");
    let out = run(&["render", path.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    for pointer in ["/slug: [format]", "/pricing_hint/currency: [format]", "/category: [unknown_field]"] {
        assert!(stderr.contains(pointer), "{pointer} missing from:\n{stderr}");
    }
    assert!(out.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn schemas_write_and_check() {
    assert_eq!(run(&["schemas", "--check"]).status.code(), Some(0), "the committed schema/ is current");
    let dir = temp("schemas");
    let dir_arg = dir.to_str().expect("utf-8");
    let stale = run(&["schemas", "--check", "--dir", dir_arg]);
    assert_eq!(stale.status.code(), Some(1));
    assert!(text(&stale.stderr).contains("stale: "));
    assert_eq!(run(&["schemas", "--dir", dir_arg]).status.code(), Some(0));
    assert_eq!(run(&["schemas", "--check", "--dir", dir_arg]).status.code(), Some(0));
    let written = std::fs::read_to_string(dir.join("product-response.schema.json")).expect("written");
    let committed = std::fs::read_to_string(repo().join("schema/product-response.schema.json")).expect("committed");
    assert_eq!(written, committed);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `serve` on an ephemeral loopback port, killed on drop.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = Command::new(BIN)
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(args)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("serve starts");
        let stderr = child.stderr.take().expect("stderr");
        let mut line = String::new();
        BufReader::new(stderr).read_line(&mut line).expect("a start-up line");
        let base = line
            .split_whitespace()
            .find_map(|word| word.strip_prefix("http://"))
            .and_then(|rest| rest.split('/').next())
            .map(|addr| format!("http://{addr}"))
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        Server { child, base }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn check_fetches_a_live_service() {
    let server = Server::start(&[]);
    let good = format!("{}/api/public/foundry/products/crm-webhook-connector", server.base);
    let out = run(&["check", &good]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{good}: ok\n"));

    let missing = format!("{}/api/public/foundry/products/no-such-product", server.base);
    let out = run(&["check", &missing]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("404"), "{}", text(&out.stderr));
}

#[test]
fn serve_refuses_a_broken_catalog_before_listening() {
    let dir = temp("bad-catalog");
    std::fs::write(dir.join("broken-product.json"), "{\"slug\": \"broken-product\"").expect("write");
    let out = run(&["serve", "--addr", "127.0.0.1:0", "--catalog", dir.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("broken-product.json:1:"), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

//! The `foundry-catalog` command run as a process, as a user runs it:
//! help, usage errors, every subcommand's output and exit codes, and
//! `check` against a live `serve` over loopback.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use foundry_catalog::preview::{OutputPreview, ProductContext};
use foundry_catalog::product::ProductManifest;
use foundry_catalog::response::ProductResponse;
use foundry_catalog_http_cases::client::Response;

mod replica;

const BIN: &str = env!("CARGO_BIN_EXE_foundry-catalog");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(args: &[&str]) -> Output {
    finish(Command::new(BIN).args(args).current_dir(repo()))
}

/// How long any one command may take before the test fails (a `serve`
/// that should refuse its catalog and exit, but serves, would otherwise
/// hang the suite).
const DEADLINE: std::time::Duration = std::time::Duration::from_secs(120);

/// Runs `command` to its end, within [`DEADLINE`]: past it, the process is
/// killed and the test fails saying what did not end, with its stderr.
fn finish(command: &mut Command) -> Output {
    let shown = format!("{command:?}");
    let child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the command runs");
    let pid = child.id();
    let (done, waited) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    match waited.recv_timeout(DEADLINE) {
        Ok(output) => output.expect("the command ends"),
        Err(_) => {
            if let Some(pid) = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
            let output = waited.recv().ok().and_then(Result::ok);
            let stderr = output.map(|o| text(&o.stderr)).unwrap_or_default();
            panic!("{shown} did not end within {DEADLINE:?}; killed. Its stderr:\n{stderr}");
        }
    }
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
        &["diff", "--help"],
        &["build", "--help"],
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
        &["build", "examples/catalog"],
        &["build", "examples/catalog", "--check", "-o", "x.fcat"],
        &["build", "examples/catalog", "--check", "--codings", "zstd"],
        &["build", "no-such-folder", "--check"],
        &["check", "no-such-file.json"],
        &["serve", "--catalog", "no-such-folder"],
        &["serve", "--watch"],
        &["serve", "--log-format", "xml"],
        &["serve", "--workers", "0"],
        &["serve", "--header-timeout", "0s"],
        &["serve", "--max-headers", "1001"],
        &["serve", "--catalog", "Cargo.toml", "--site-url", "https://catalog.example.com"],
        &["serve", "--site-url", "ftp://catalog.example.com"],
        &["serve", "--catalog", "Cargo.toml", "--site-name", "Acme"],
        &["serve", "--catalog", "Cargo.toml", "--site-language", "he"],
        &["build", "examples/catalog", "--check", "--site-language", "en_GB"],
        &["build", "examples/catalog", "--check", "--site-name", " "],
        &["pages", "examples/catalog", "--out-dir", "x", "--site-language", "english"],
        &["build", "examples/catalog", "--check", "--no-pages", "--templates", "examples"],
        &["diff", "--mode", "sideways", "record-types", "record-types"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
        let stderr = text(&out.stderr);
        // Without a subcommand, the help (as git and cargo do).
        let expected = if args.is_empty() { "The foundry-catalog command" } else { "error: " };
        assert!(stderr.starts_with(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn a_mistyped_subcommand_or_flag_gets_a_suggestion() {
    let out = run(&["serv"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("similar subcommand exists: 'serve'"), "{}", text(&out.stderr));
    let out = run(&["serve", "--idle-timout", "5s"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("similar argument exists: '--idle-timeout'"), "{}", text(&out.stderr));
}

#[test]
fn serve_help_shows_each_setting_with_its_default_and_variable() {
    let help = text(&run(&["serve", "--help"]).stdout);
    for (flag, default, variable) in [
        ("--addr", "127.0.0.1:8080", "FOUNDRY_CATALOG_ADDR"),
        ("--header-timeout", "10s", "FOUNDRY_CATALOG_HEADER_TIMEOUT"),
        ("--idle-timeout", "1m", "FOUNDRY_CATALOG_IDLE_TIMEOUT"),
        ("--drain-timeout", "10s", "FOUNDRY_CATALOG_DRAIN_TIMEOUT"),
        ("--watch-interval", "500ms", "FOUNDRY_CATALOG_WATCH_INTERVAL"),
        ("--max-header-bytes", "32768", "FOUNDRY_CATALOG_MAX_HEADER_BYTES"),
        ("--max-headers", "100", "FOUNDRY_CATALOG_MAX_HEADERS"),
        ("--log-format", "text", "FOUNDRY_CATALOG_LOG_FORMAT"),
    ] {
        // From the flag to the next one.
        let start = help.find(&format!("      {flag} ")).unwrap_or_else(|| panic!("{flag}: {help}"));
        let entry = &help[start + 6..];
        let entry = &entry[..entry.find("\n      -").or_else(|| entry.find("\n  -")).unwrap_or(entry.len())];
        assert!(entry.contains(&format!("[default: {default}]")), "{flag}: {entry}");
        // The variable by name, never its value (unset, it would read `X=`).
        assert!(entry.contains(&format!("[env: {variable}]")), "{flag}: {entry}");
    }
    for tuning in ["placement", "adaptive", "affinity", "steer", "bound to a cpu"] {
        assert!(!help.to_lowercase().contains(tuning), "--help mentions {tuning}: {help}");
    }
}

#[test]
fn preview_prints_the_library_preview() {
    let out = run(&["preview", "regulatory_status_signal", "--slug", "eu-signals"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let schema = foundry_catalog::record_type("regulatory_status_signal").expect("shipped");
    let ctx = ProductContext::new(
        foundry_catalog_core::Slug::new("eu-signals").expect("slug"),
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
    let out = finish(Command::new(BIN).args(&args));
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
    assert_eq!(
        run(&["schemas", "--check"]).status.code(),
        Some(0),
        "the committed schema/ is stale: run `cargo run --bin foundry-catalog -- schemas` and commit the result"
    );
    let dir = temp("schemas");
    let dir_arg = dir.to_str().expect("utf-8");
    let missing = run(&["schemas", "--check", "--dir", dir_arg]);
    assert_eq!(missing.status.code(), Some(1));
    let openapi = dir.join("openapi.json");
    assert!(text(&missing.stderr).contains(&format!("missing: {}\n", openapi.display())), "{}", text(&missing.stderr));
    assert!(!text(&missing.stderr).contains("stale: "), "a missing file is not called stale");
    assert!(text(&missing.stderr).contains(&format!("hint: run `foundry-catalog schemas --dir {dir_arg}`")));
    assert_eq!(run(&["schemas", "--dir", dir_arg]).status.code(), Some(0));
    assert_eq!(run(&["schemas", "--check", "--dir", dir_arg]).status.code(), Some(0));
    std::fs::write(&openapi, "{}").expect("write");
    let stale = run(&["schemas", "--check", "--dir", dir_arg]);
    assert_eq!(stale.status.code(), Some(1));
    assert_eq!(
        text(&stale.stderr).lines().next(),
        Some(format!("stale: {} (it differs from what the definitions give)", openapi.display()).as_str())
    );
    assert_eq!(run(&["schemas", "--dir", dir_arg]).status.code(), Some(0));
    let written = std::fs::read_to_string(dir.join("product-response.schema.json")).expect("written");
    let committed = std::fs::read_to_string(repo().join("schema/product-response.schema.json")).expect("committed");
    assert_eq!(written, committed);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An `--addr` on the command line wins over a `PORT` in the environment
/// (a platform's, or one left in a shell): the server listens where the
/// command line says, not on PORT's port (held here, so binding it fails).
#[test]
fn an_addr_on_the_command_line_wins_over_port_in_the_environment() {
    let held = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = held.local_addr().expect("bound").port();
    let mut command = Command::new(BIN);
    command.env("PORT", port.to_string());
    let server = Server::start_with(command, &[]);
    assert_ne!(server.addr.port(), port);
    assert!(std::net::TcpStream::connect(server.addr).is_ok());
}

/// Help wraps at 100 columns where there is no terminal (a pipe), as it
/// wraps at a terminal's width: no line of any command's help is longer.
#[test]
fn help_is_wrapped() {
    for command in ["preview", "render", "check", "build", "pages", "keygen", "schemas", "serve", "diff"] {
        for flag in ["-h", "--help"] {
            let out = run(&[command, flag]);
            assert_eq!(out.status.code(), Some(0));
            let help = text(&out.stdout);
            let longest = help.lines().map(|l| l.chars().count()).max().unwrap_or_default();
            assert!(longest <= 100, "`{command} {flag}` has a line of {longest} characters:\n{help}");
        }
    }
}

/// `serve` on an ephemeral loopback port, killed on drop. Its stderr is
/// collected by a thread (so logging never blocks on a full pipe).
struct Server {
    child: Child,
    base: String,
    addr: std::net::SocketAddr,
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        Server::start_with(Command::new(BIN), args)
    }

    fn start_with(mut command: Command, args: &[&str]) -> Server {
        let mut child = command
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(args)
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("serve starts");
        let stderr = child.stderr.take().expect("stderr");
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let lines = std::sync::Arc::clone(&log);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                // The start-up line's address (another line may name the origin's).
                let addr = line
                    .split_whitespace()
                    .skip_while(|&word| word != "serving")
                    .find_map(|word| word.strip_prefix("http://"))
                    .and_then(|rest| rest.split('/').next())
                    .map(str::to_owned);
                // Logged before the address is announced, so the start-up line is there.
                lines.lock().expect("log").push(line);
                if let Some(addr) = addr {
                    let _ = addr_tx.send(addr);
                }
            }
        });
        let addr: String = addr_rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("no address logged; stderr:\n{}", log.lock().expect("log").join("\n")));
        Server { child, base: format!("http://{addr}"), addr: addr.parse().expect("an address"), log }
    }

    fn signal(&self, signal: rustix::process::Signal) {
        let pid = rustix::process::Pid::from_raw(i32::try_from(self.child.id()).expect("a pid")).expect("a pid");
        rustix::process::kill_process(pid, signal).expect("signal sent");
    }

    fn log_has(&self, text: &str) -> bool {
        self.log.lock().expect("log").iter().any(|line| line.contains(text))
    }

    /// Waits (at most 10 s) until a log line contains `text`.
    fn wait_for_log(&self, text: &str) {
        let started = std::time::Instant::now();
        while !self.log_has(text) {
            assert!(started.elapsed() < std::time::Duration::from_secs(10), "never logged: {text}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Waits for the process to exit (at most `limit`).
    fn exit_within(&mut self, limit: std::time::Duration) -> Option<std::process::ExitStatus> {
        let started = std::time::Instant::now();
        while started.elapsed() < limit {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        None
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

const PRODUCT: &str = "/api/public/foundry/products/eu-regulatory-status-signals";

/// Sends a request on an open connection and reads one whole response
/// (by Content-Length); `None` if the connection closes before its first
/// byte. A response cut short fails the test.
fn request_on(stream: &mut std::net::TcpStream, path: &str) -> Option<(u16, Vec<u8>)> {
    use std::io::Write;
    stream.write_all(format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes()).ok()?;
    let response = Response::read(stream, false).unwrap_or_else(|e| panic!("{e}: a whole body, never a cut one"))?;
    Some((response.status, response.body))
}

#[test]
fn sigterm_drains_in_flight_requests_and_exits_0() {
    use std::io::Write;
    // Four workers: the connections, the in-flight one included, land on
    // several, and each drains its own.
    let mut server = Server::start(&["--drain-timeout", "5s", "--workers", "4"]);
    let addr = server.addr;
    // Load: keep-alive clients requesting in a loop until the server goes.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let stop = std::sync::Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut answered = 0u32;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let Ok(mut stream) = std::net::TcpStream::connect(addr) else { break };
                    while let Some((status, body)) = request_on(&mut stream, PRODUCT) {
                        assert_eq!(status, 200);
                        assert!(body.ends_with(b"}}"), "a whole body");
                        answered += 1;
                    }
                }
                answered
            })
        })
        .collect();
    // A request in flight: its head half sent when the signal arrives.
    let mut in_flight = std::net::TcpStream::connect(addr).expect("connect");
    in_flight.write_all(format!("GET {PRODUCT} HTTP/1.1\r\nHost: t\r\n").as_bytes()).expect("send");
    std::thread::sleep(std::time::Duration::from_millis(300));

    server.signal(rustix::process::Signal::TERM);
    std::thread::sleep(std::time::Duration::from_millis(200));
    in_flight.write_all(b"\r\n").expect("finish the request");
    let mut answer = String::new();
    std::io::Read::read_to_string(&mut in_flight, &mut answer).expect("an answer, then close");
    assert!(answer.starts_with("HTTP/1.1 200"), "the in-flight request is answered: {answer:.60}");
    assert!(answer.ends_with("}}"), "with its whole body");

    let status = server.exit_within(std::time::Duration::from_secs(10)).expect("exits within the drain timeout");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let answered: u32 = clients.into_iter().map(|c| c.join().expect("no client saw a cut response")).sum();
    assert!(answered > 0, "the load was served");
    assert_eq!(status.code(), Some(0));
    assert!(server.log_has("SIGTERM"), "logged");
    assert!(std::net::TcpStream::connect(addr).is_err(), "no longer listening");
}

#[test]
fn sighup_reloads_a_good_catalog_and_keeps_serving_on_a_broken_one() {
    let dir = catalog_copy("sighup");
    let server = Server::start(&["--catalog", dir.to_str().expect("utf-8")]);
    let url = format!("{}{PRODUCT}", server.base);
    let body = || text(&run(&["check", &url]).stdout);
    let fetch = || {
        let mut stream = std::net::TcpStream::connect(server.addr).expect("connect");
        request_on(&mut stream, PRODUCT)
            .map(|(_, body)| String::from_utf8_lossy(&body).into_owned())
            .unwrap_or_default()
    };
    assert!(body().ends_with(": ok\n"));

    let path = dir.join("eu-regulatory-status-signals.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
    manifest["title"] = serde_json::json!("Reloaded by SIGHUP");
    std::fs::write(&path, manifest.to_string()).expect("write");
    server.signal(rustix::process::Signal::HUP);
    let started = std::time::Instant::now();
    while !fetch().contains("Reloaded by SIGHUP") {
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "the good edit was not served");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }

    std::fs::write(dir.join("crm-webhook-connector.json"), "{\"slug\": ").expect("break a manifest");
    server.signal(rustix::process::Signal::HUP);
    server.wait_for_log("reload failed");
    assert!(server.log_has("crm-webhook-connector.json"), "the error names the file");
    assert!(fetch().contains("Reloaded by SIGHUP"), "the last good catalog still serves");
    assert!(body().ends_with(": ok\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn survives_running_out_of_file_descriptors() {
    // 64 descriptors and a cap set above them on purpose: accept() itself
    // fails with EMFILE once they are used up.
    let mut command = Command::new("prlimit");
    command.args(["--nofile=64:64", BIN]);
    let server = Server::start_with(command, &["--max-connections", "1000"]);
    let held: Vec<_> = (0..120).filter_map(|_| std::net::TcpStream::connect(server.addr).ok()).collect();
    std::thread::sleep(std::time::Duration::from_millis(300));
    drop(held);
    let started = std::time::Instant::now();
    loop {
        let mut stream = std::net::TcpStream::connect(server.addr).expect("still listening");
        if let Some((status, _)) = request_on(&mut stream, PRODUCT) {
            assert_eq!(status, 200);
            break;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "never answered again");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(server.log_has("accept failed"), "the accept errors are logged");
    let mut stream = std::net::TcpStream::connect(server.addr).expect("connect");
    let (_, metrics) = request_on(&mut stream, "/metrics").expect("metrics");
    let metrics = String::from_utf8_lossy(&metrics).into_owned();
    let errors: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("foundry_accept_errors_total "))
        .and_then(|v| v.parse().ok())
        .expect("the accept error counter");
    assert!(errors > 0, "{metrics}");
}

#[test]
fn diff_reports_changes_and_gates_on_compatibility() {
    let same = run(&["diff", "record-types", "record-types"]);
    assert_eq!(same.status.code(), Some(0));
    assert_eq!(text(&same.stdout), "no changes\n");

    // A git repository of its own: the old side at HEAD, the new one edited.
    let dir = temp("diff");
    let git_in = |dir: &Path, args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.email=ci@example.org", "-c", "user.name=ci", "-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(dir)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
    };
    let git = |args: &[&str]| git_in(&dir, args);
    std::fs::create_dir_all(dir.join("record-types")).expect("folder");
    let definition = repo().join("record-types/regulatory_status_signal.json");
    std::fs::copy(&definition, dir.join("record-types/regulatory_status_signal.json")).expect("copy");
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "base"]);
    let mut edited: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&definition).expect("readable")).expect("JSON");
    edited["fields"].as_array_mut().expect("fields").push(serde_json::json!({
        "name": "authorityName", "type": "string", "required": false, "description": "Publishing authority."
    }));
    std::fs::write(dir.join("record-types/regulatory_status_signal.json"), edited.to_string()).expect("write");

    let diff = |extra: &[&str]| {
        finish(Command::new(BIN).args(["diff", "--base", "HEAD", "record-types"]).args(extra).current_dir(&dir))
    };
    let full = diff(&[]);
    assert_eq!(full.status.code(), Some(1), "{}", text(&full.stderr));
    assert!(text(&full.stdout).contains("field `authorityName`: optional string field added"));
    assert!(text(&full.stderr).contains("optional_field_added is backward for strict readers, not full; hint:"));
    assert_eq!(diff(&["--mode", "backward"]).status.code(), Some(0));
    assert_eq!(diff(&["--tolerant"]).status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&diff(&["--format", "json"]).stdout).expect("JSON");
    assert_eq!(json["changes"][0]["kind"], "optional_field_added");
    assert_eq!(json["changes"][0]["strict"], "backward");
    assert_eq!(json["violations"].as_array().map(Vec::len), Some(1));
    assert_eq!(run(&["diff", "record-types"]).status.code(), Some(2), "one side without --base is a usage error");

    // Definitions at the root of their repository, named as `.`, by an
    // absolute path from another repository's folder, or one file alone.
    let root = temp("diff-root");
    std::fs::copy(&definition, root.join("regulatory_status_signal.json")).expect("copy");
    for args in [&["init", "-q"][..], &["add", "."], &["commit", "-q", "-m", "base"]] {
        git_in(&root, args);
    }
    std::fs::write(root.join("regulatory_status_signal.json"), edited.to_string()).expect("write");
    let file = root.join("regulatory_status_signal.json");
    let (absolute, file) = (root.to_str().expect("utf-8"), file.to_str().expect("utf-8"));
    for (side, cwd) in [(".", root.as_path()), (absolute, repo().as_path()), (file, repo().as_path())] {
        let out = finish(Command::new(BIN).args(["diff", "--base", "HEAD", side]).current_dir(cwd));
        assert_eq!(out.status.code(), Some(1), "{side}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains("field `authorityName`: optional string field added"), "{side}");
    }
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs git in `dir` as a throwaway identity; its stdout, or the test fails.
fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.email=ci@example.org", "-c", "user.name=ci", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// `diff --history`: a change the last version allows but an older one's
/// readers do not (a field removed, then added back with another type) is
/// found against that older version only, and named; GitHub annotations
/// and SARIF place it at the field's line of the definition file.
#[test]
fn diff_history_finds_the_older_version_a_change_breaks() {
    let dir = temp("diff-history");
    let git = |args: &[&str]| git_in(&dir, args);
    std::fs::create_dir_all(dir.join("record-types")).expect("folder");
    let file = dir.join("record-types/history_probe.json");
    let version = |note: Option<&str>| {
        let note = note.map(|ty| {
            format!(
                ",\n    {{ \"name\": \"note\", \"type\": \"{ty}\", \"required\": false, \"description\": \"A note.\" }}"
            )
        });
        let text = format!(
            "{{\n  \"record_label\": \"history_probe\",\n  \"sample_type\": \"deterministic_executable_fixture\",\n  \"fields\": [\n    {{ \"name\": \"id\", \"type\": \"string\", \"required\": true, \"description\": \"An id.\" }}{}\n  ]\n}}\n",
            note.unwrap_or_default()
        );
        std::fs::write(&file, text).expect("write");
    };
    git(&["init", "-q"]);
    version(Some("string"));
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "v1: note is text"]);
    let v1 = git(&["rev-parse", "HEAD"]).trim().to_owned();
    version(None);
    git(&["commit", "-q", "-am", "v2: note removed"]);
    let v2 = git(&["rev-parse", "HEAD"]).trim().to_owned();
    // Working copy: the note back, as a number.
    version(Some("integer"));
    let diff = |extra: &[&str]| {
        finish(Command::new(BIN).args(["diff", "--mode", "backward", "record-types"]).args(extra).current_dir(&dir))
    };
    assert_eq!(diff(&["--base", "HEAD"]).status.code(), Some(0), "against the last version alone: allowed");
    let history = diff(&["--history"]);
    let stderr = text(&history.stderr);
    assert_eq!(history.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("against version {} (v1: note is text)", &v1[..12])), "{stderr}");
    assert!(!stderr.contains(&v2[..12]), "v2's readers are not broken: {stderr}");
    let stdout = text(&history.stdout);
    assert!(stdout.contains(&format!("against {} (v2: note removed):", &v2[..12])), "{stdout}");
    // Only the last version in the range: allowed.
    assert_eq!(diff(&["--history=HEAD^..HEAD"]).status.code(), Some(0));
    // The path after --history is the path, not a revision.
    let after =
        finish(Command::new(BIN).args(["diff", "--history", "record-types", "--mode", "backward"]).current_dir(&dir));
    assert_eq!(after.status.code(), Some(1), "{}", text(&after.stderr));
    assert_eq!(diff(&["--history=--output=/tmp/x"]).status.code(), Some(2), "an option is not a revision");

    // The note's line in the working file.
    let line =
        std::fs::read_to_string(&file).expect("read").lines().position(|l| l.contains("\"note\"")).expect("note") + 1;
    let github = text(&diff(&["--history", "--format", "github"]).stdout);
    let expected = format!(
        "::error file=record-types/history_probe.json,line={line},col=5,title=foundry-catalog diff%3A field_retyped::"
    );
    assert!(github.lines().any(|l| l.starts_with(&expected) && l.contains(&v1[..12])), "{github}");
    assert!(github.lines().any(|l| l.starts_with("::notice ") && l.contains(&v2[..12])), "{github}");
    let sarif: serde_json::Value =
        serde_json::from_slice(&diff(&["--history", "--format", "sarif"]).stdout).expect("SARIF is JSON");
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let broken: Vec<_> = results.iter().filter(|r| r["level"] == "error").collect();
    assert_eq!(broken.len(), 1, "{results:?}");
    assert_eq!(broken[0]["ruleId"], "field_retyped");
    assert_eq!(broken[0]["properties"]["againstRevision"], v1.as_str());
    let location = &broken[0]["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "record-types/history_probe.json");
    assert_eq!(location["region"]["startLine"], line);
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"].as_array().expect("rules");
    assert_eq!(rules[broken[0]["ruleIndex"].as_u64().expect("an index") as usize]["id"], "field_retyped");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Definitions in a subfolder of a monorepo: every format names each
/// file from the repository's root, a removed type at its old path, so
/// GitHub annotations and code scanning point at files that exist; the
/// SARIF rules carry a full description and a name apart from the id, and
/// a result keeps its fingerprint when its line moves.
#[test]
fn diff_names_files_from_the_repository_root() {
    let dir = temp("diff-monorepo");
    let git = |args: &[&str]| drop(git_in(&dir, args));
    let folder = dir.join("billing-records/record-types");
    std::fs::create_dir_all(&folder).expect("folder");
    let definition = std::fs::read_to_string(repo().join("record-types/regulatory_status_signal.json")).expect("read");
    std::fs::write(folder.join("regulatory_status_signal.json"), &definition).expect("write");
    let gone = definition.replace("\"regulatory_status_signal\"", "\"retired_signal\"");
    std::fs::write(folder.join("retired_signal.json"), gone).expect("write");
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "base"]);
    std::fs::remove_file(folder.join("retired_signal.json")).expect("remove");
    let mut edited: serde_json::Value = serde_json::from_str(&definition).expect("JSON");
    edited["fields"].as_array_mut().expect("fields").push(serde_json::json!({
        "name": "authorityName", "type": "string", "required": false, "description": "Publishing authority."
    }));
    let pretty = serde_json::to_string_pretty(&edited).expect("JSON");
    std::fs::write(folder.join("regulatory_status_signal.json"), &pretty).expect("write");

    let kept = "billing-records/record-types/regulatory_status_signal.json";
    let removed = "billing-records/record-types/retired_signal.json";
    let diff = |cwd: &Path, args: &[&str]| finish(Command::new(BIN).arg("diff").args(args).current_dir(cwd));
    // From the root, from the folder itself, and from outside the repository.
    let outside = repo();
    let absolute = folder.to_str().expect("utf-8");
    for (cwd, path) in
        [(dir.as_path(), "billing-records/record-types"), (folder.as_path(), "."), (outside.as_path(), absolute)]
    {
        let out = diff(cwd, &["--base", "HEAD", path]);
        let stdout = text(&out.stdout);
        assert!(
            stdout.contains(&format!("{kept}: `regulatory_status_signal` field `authorityName`")),
            "{path}: {stdout}"
        );
        assert!(stdout.contains(&format!("{removed}: `retired_signal`: record type removed")), "{path}: {stdout}");
        assert!(text(&out.stderr).contains(&format!("error: {removed}: record type `retired_signal`")), "{path}");
    }
    let base = |extra: &[&str]| diff(&dir, &[&["--base", "HEAD", "billing-records/record-types"][..], extra].concat());
    let json: serde_json::Value = serde_json::from_slice(&base(&["--format", "json"]).stdout).expect("JSON");
    let files: Vec<&str> =
        json["changes"].as_array().expect("changes").iter().filter_map(|c| c["file"].as_str()).collect();
    assert_eq!(files, [kept, removed]);
    let github = text(&base(&["--format", "github"]).stdout);
    let label_line = definition.lines().position(|l| l.contains("\"record_label\"")).expect("a label") + 1;
    assert!(github.contains(&format!("::error file={removed},line={label_line},col=3,")), "{github}");
    assert!(github.contains(&format!("::error file={kept},line=")), "{github}");
    // One file, named from inside its folder: from the root too.
    let one = text(&diff(&folder, &["--base", "HEAD", "regulatory_status_signal.json"]).stdout);
    assert!(one.starts_with(&format!("{kept}: ")), "{one}");
    // As given, when asked.
    let given = text(&diff(&folder, &["--base", "HEAD", "--relative-to", "cwd", "."]).stdout);
    assert!(given.starts_with("regulatory_status_signal.json: "), "{given}");

    let sarif = |extra: &[&str]| -> serde_json::Value {
        serde_json::from_slice(&base(&[&["--format", "sarif"][..], extra].concat()).stdout).expect("SARIF is JSON")
    };
    let log = sarif(&[]);
    let rules = log["runs"][0]["tool"]["driver"]["rules"].as_array().expect("rules");
    let removal = rules.iter().find(|r| r["id"] == "type_removed").expect("a rule for the removal");
    assert_eq!(removal["name"], "TypeRemoved");
    assert_eq!(
        removal["fullDescription"]["text"],
        "Type removed: breaking for strict readers, breaking for tolerant readers; it changes schema_hash."
    );
    let results = log["runs"][0]["results"].as_array().expect("results");
    let uris: Vec<&str> = results
        .iter()
        .filter_map(|r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str())
        .collect();
    assert_eq!(uris, [kept, removed]);
    assert_eq!(results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    let fingerprint = |log: &serde_json::Value, i: usize| log["runs"][0]["results"][i]["partialFingerprints"].clone();
    assert_ne!(fingerprint(&log, 0), fingerprint(&log, 1));
    // The field moves two lines down: the same result, the same fingerprint.
    std::fs::write(folder.join("regulatory_status_signal.json"), format!("\n\n{pretty}")).expect("write");
    let moved = sarif(&[]);
    assert_ne!(moved["runs"][0]["results"][0]["locations"], log["runs"][0]["results"][0]["locations"]);
    assert_eq!(fingerprint(&moved, 0), fingerprint(&log, 0));

    // What git says, said as a person would.
    let unknown = diff(&dir, &["--base", "v9", "billing-records/record-types"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        text(&unknown.stderr).contains("`v9` is not a revision of the repository that holds"),
        "{}",
        text(&unknown.stderr)
    );
    assert!(text(&unknown.stderr).contains("git fetch --unshallow"), "{}", text(&unknown.stderr));
    let history = diff(&dir, &["--history", "HEAD~1", "billing-records/record-types"]);
    assert_eq!(history.status.code(), Some(2));
    assert!(
        text(&history.stderr).contains("hint: --history takes its revisions after `=`: --history=HEAD~1"),
        "{}",
        text(&history.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    let lone = temp("diff-no-repository");
    std::fs::write(lone.join("regulatory_status_signal.json"), &definition).expect("write");
    let out = diff(&lone, &["--base", "HEAD", "."]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not in a git repository; hint:"), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&lone);
}

/// A copy of the example catalog in a fresh folder.
fn catalog_copy(name: &str) -> PathBuf {
    let dir = temp(name);
    for entry in std::fs::read_dir(repo().join("examples/catalog")).expect("catalog") {
        let path = entry.expect("entry").path();
        std::fs::copy(&path, dir.join(path.file_name().expect("name"))).expect("copy");
    }
    dir
}

#[test]
fn build_writes_an_artifact_that_serve_loads() {
    let dir = temp("build");
    let file = dir.join("catalog.fcat");
    let out = run(&["build", "examples/catalog", "-o", file.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("3 products"), "{}", text(&out.stderr));
    let bytes = std::fs::read(&file).expect("written");
    assert_eq!(&bytes[..8], b"\x89FCA\r\n\x1a\n");
    let leftovers: Vec<_> =
        std::fs::read_dir(&dir).expect("dir").filter_map(Result::ok).map(|e| e.file_name()).collect();
    assert_eq!(leftovers.len(), 2, "no temporary file is left, only the artifact and its stamps: {leftovers:?}");

    let server = Server::start(&["--catalog", file.to_str().expect("utf-8")]);
    assert!(server.log_has("artifact"), "start-up names the source");
    assert!(server.log_has("content_sha256"), "start-up logs the artifact's identity");
    let url = format!("{}{PRODUCT}", server.base);
    assert!(text(&run(&["check", &url]).stdout).ends_with(": ok\n"));
    let mut stream = std::net::TcpStream::connect(server.addr).expect("connect");
    let (status, body) = request_on(&mut stream, PRODUCT).expect("answered");
    assert_eq!(status, 200);
    let rendered = run(&["render", "examples/catalog/eu-regulatory-status-signals.json"]);
    let expected: serde_json::Value = serde_json::from_slice(&rendered.stdout).expect("JSON");
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&body).expect("JSON"), expected);

    // A broken artifact on reload: the old catalog keeps serving.
    std::fs::write(&file, &bytes[..bytes.len() - 1]).expect("truncate");
    server.signal(rustix::process::Signal::HUP);
    server.wait_for_log("reload failed");
    assert!(server.log_has("truncated"), "the error says what is wrong");
    assert!(text(&run(&["check", &url]).stdout).ends_with(": ok\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn build_reports_every_problem_with_a_summary_and_writes_nothing() {
    let dir = catalog_copy("build-errors");
    std::fs::write(dir.join("not-json.json"), "{\"slug\": ").expect("write");
    std::fs::write(dir.join("latin-1.json"), b"{\"title\": \"caf\xe9\"}").expect("write");
    let out_file = dir.join("out.fcat");
    for args in [&["--check"][..], &["-o", out_file.to_str().expect("utf-8")]] {
        let out = run(&[&["build", dir.to_str().expect("utf-8")][..], args].concat());
        let stderr = text(&out.stderr);
        // Files that cannot be read or parsed: 2, as the README says.
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("not-json.json:1:"), "{stderr}");
        assert!(stderr.contains("latin-1.json: cannot read: not UTF-8"), "{stderr}");
        assert!(stderr.ends_with("error: 2 of 5 manifests are invalid: 2 problems\n"), "{stderr}");
    }
    assert!(!out_file.exists(), "nothing is written");
    let fixed = catalog_copy("build-check");
    let out = run(&["build", fixed.to_str().expect("utf-8"), "--check", "--codings", "identity"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("codings identity, content sha256"), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&fixed);
}

#[test]
fn a_reader_that_goes_away_ends_output_quietly() {
    let manifest = "examples/catalog/eu-regulatory-status-signals.json";
    // Far more than a pipe holds, so writing meets the closed pipe.
    let mut child = Command::new(BIN)
        .arg("render")
        .args(std::iter::repeat_n(manifest, 40))
        .current_dir(repo())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("render starts");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("render ends");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("panicked"), "{}", text(&out.stderr));
}

/// Builds `dir` into the artifact `file` with `foundry-catalog build`.
fn build_artifact(dir: &Path, file: &Path) {
    let out = run(&["build", dir.to_str().expect("utf-8"), "-o", file.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// Sets the title of the manifest `eu-regulatory-status-signals.json` in `dir`.
fn retitle(dir: &Path, title: &str) {
    let path = dir.join("eu-regulatory-status-signals.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
    manifest["title"] = serde_json::json!(title);
    std::fs::write(&path, manifest.to_string()).expect("write");
}

impl Server {
    /// The body of `PRODUCT`, on a new connection.
    fn product(&self) -> String {
        let mut stream = std::net::TcpStream::connect(self.addr).expect("connect");
        request_on(&mut stream, PRODUCT).map(|(_, body)| text(&body)).unwrap_or_default()
    }

    /// Waits (at most 10 s) until the product's body contains `text`.
    fn wait_for_product(&self, text: &str) {
        let started = std::time::Instant::now();
        while !self.product().contains(text) {
            assert!(started.elapsed() < std::time::Duration::from_secs(10), "never served: {text}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
}

#[test]
fn sighup_swaps_in_a_good_artifact() {
    let dir = catalog_copy("sighup-artifact");
    let file = dir.join("catalog.fcat");
    build_artifact(&dir, &file);
    let server = Server::start(&["--catalog", file.to_str().expect("utf-8")]);
    assert!(server.product().contains("\"title\":\"EU"));
    retitle(&dir, "Artifact reloaded by SIGHUP");
    build_artifact(&dir, &file);
    server.signal(rustix::process::Signal::HUP);
    server.wait_for_product("Artifact reloaded by SIGHUP");
    // Logged once the catalog is swapped in: the line may reach the log
    // just after the first request that sees the new catalog.
    server.wait_for_log("catalog reloaded");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn watch_swaps_in_an_artifact_once_it_holds_still() {
    use std::io::Write;
    let dir = catalog_copy("watch-artifact");
    let file = dir.join("catalog.fcat");
    build_artifact(&dir, &file);
    let server = Server::start(&["--catalog", file.to_str().expect("utf-8"), "--watch", "--watch-interval", "200ms"]);
    retitle(&dir, "Artifact reloaded by --watch");
    let next = dir.join("next.fcat");
    build_artifact(&dir, &next);
    let bytes = std::fs::read(&next).expect("built");
    // Written in place in 32 pieces, 20 ms apart: the file keeps changing
    // for three watch intervals, and a reload of a piece would fail.
    let mut out = std::fs::File::create(&file).expect("rewrite");
    for piece in bytes.chunks(bytes.len().div_ceil(32)) {
        out.write_all(piece).expect("write");
        out.flush().expect("flush");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    drop(out);
    server.wait_for_product("Artifact reloaded by --watch");
    assert!(!server.log_has("reload failed"), "no reload of a half-written file");
    assert!(server.log_has("catalog changed; reloading"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_connection_that_never_finishes_still_lets_the_process_exit_0_at_the_drain_timeout() {
    use std::io::Write;
    let mut server = Server::start(&["--drain-timeout", "1s"]);
    // Pipelined requests whose responses are never read: once the socket
    // buffers fill, the server's write waits for ever.
    let mut stuck = std::net::TcpStream::connect(server.addr).expect("connect");
    let mut writer = stuck.try_clone().expect("clone");
    std::thread::spawn(move || {
        let request = format!("GET {PRODUCT} HTTP/1.1\r\nHost: t\r\n\r\n");
        for _ in 0..20_000 {
            if writer.write_all(request.as_bytes()).is_err() {
                break;
            }
        }
    });
    let mut first = [0u8; 12];
    std::io::Read::read_exact(&mut stuck, &mut first).expect("the first response starts");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let signalled = std::time::Instant::now();
    server.signal(rustix::process::Signal::TERM);
    let status = server.exit_within(std::time::Duration::from_secs(10)).expect("exits at the drain timeout");
    assert_eq!(status.code(), Some(0));
    assert!(signalled.elapsed() >= std::time::Duration::from_millis(900), "waited for the drain timeout");
    // The process has exited; its last lines may still be on their way
    // through the pipe to the thread that reads them.
    server.wait_for_log("drain timeout reached");
    drop(stuck);
}

/// `build --packs` writes a pack list and its packs; a build on it with
/// `--packs` writes only what changed, names the rest, removes the pack
/// no list names, and holds a full build's bytes, which `serve` answers
/// from its folder.
#[test]
fn a_packed_build_on_a_packed_artifact_writes_what_changed_and_serves() {
    let dir = catalog_copy("build-packs");
    let work = temp("build-packs-out");
    let (packed, full) = (work.join("catalog.fcat"), work.join("full.fcat"));
    let path = |p: &Path| p.to_str().expect("utf-8").to_owned();
    let out = run(&["build", &path(&dir), "-o", &path(&packed), "--packs"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains(" named in packs already, 2 ranges, 0 packs removed"), "{}", text(&out.stderr));
    retitle(&dir, "Edited once");
    let out = run(&["build", &path(&dir), "-o", &path(&packed), "--packs", "--previous", &path(&packed)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("(1 rendered, 1 compressed, 2 reused)") && stderr.contains(", 0 packs removed"),
        "{stderr}"
    );
    build_artifact(&dir, &full);
    let stored = foundry_catalog_serving::artifact::Artifact::read(&packed).expect("reads").to_vec();
    assert!(stored == std::fs::read(&full).expect("written"), "the packed artifact holds a full build's bytes");
    let packs = std::fs::read_dir(work.join("fcpacks")).expect("fcpacks").count();
    assert_eq!(
        packs, 4,
        "the first head and bodies (the replaced list's, until the next build), the edit's head and bodies"
    );
    // `--packs` wants a file to write.
    let out = run(&["build", &path(&dir), "--check", "--packs"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let server = Server::start(&["--catalog", &path(&packed)]);
    let (status, body) = server.fetch("/api/public/foundry/products/eu-regulatory-status-signals");
    assert!(status == 200 && body.contains("Edited once"), "{status} {body}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn build_on_a_previous_artifact_renders_only_the_edit_and_writes_a_full_builds_bytes() {
    let dir = catalog_copy("build-previous");
    let work = temp("build-previous-out");
    let (first, incremental, full) = (work.join("first.fcat"), work.join("incremental.fcat"), work.join("full.fcat"));
    build_artifact(&dir, &first);
    retitle(&dir, "Edited once");
    let path = |p: &Path| p.to_str().expect("utf-8").to_owned();
    let out = run(&["build", &path(&dir), "-o", &path(&incremental), "--previous", &path(&first)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("3 products with pages (1 rendered, 1 compressed, 2 reused)"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains("unverified: a product whose manifest is unchanged is taken as that file holds it")
    );
    // The retitled product's route page, the home page, which shows it,
    // and the page of each of its terms; of the site's list pages: the
    // home page, a page per route, and each taxonomy's index and terms'.
    let cards: Vec<foundry_catalog_pages::list::Card> = std::fs::read_dir(&dir)
        .expect("the catalog")
        .map(|entry| {
            let text = std::fs::read_to_string(entry.expect("an entry").path()).expect("readable");
            let record = foundry_catalog::product::ProductManifest::from_json(&text).expect("a manifest");
            foundry_catalog_pages::list::Card::of(&record.build().expect("a record")).expect("indexable")
        })
        .collect();
    let retitled = cards.iter().find(|card| card.title == "Edited once").expect("the retitled card");
    let cards = foundry_catalog_pages::list::Cards::new(cards.iter().cloned());
    let facets = foundry_catalog_pages::facets::Facets::new(&cards);
    let list_pages = 1 + 3 + facets.taxonomies().map(|(_, terms)| 1 + terms.len()).sum::<usize>();
    let rendered = format!(
        ", {} of {list_pages} list pages rendered, 0 product pages rendered again for their related products, ",
        2 + retitled.terms.len()
    );
    assert!(text(&out.stderr).contains(&rendered), "{rendered}: {}", text(&out.stderr));
    build_artifact(&dir, &full);
    assert!(std::fs::read(&incremental).expect("written") == std::fs::read(&full).expect("written"));

    // A previous artifact that cannot be used is named, and ignored.
    let bytes = std::fs::read(&first).expect("written");
    std::fs::write(&first, &bytes[..bytes.len() / 2]).expect("truncate");
    let out = run(&["build", &path(&dir), "-o", &path(&incremental), "--previous", &path(&first)]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(&format!("note: not building on {}: the file is", path(&first))), "{stderr}");
    assert!(stderr.contains("(3 rendered, 3 compressed, 0 reused)"), "{stderr}");
    assert!(std::fs::read(&incremental).expect("written") == std::fs::read(&full).expect("written"));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn keygen_writes_a_secret_and_a_verify_key_and_never_overwrites_them() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp("keygen");
    let name = dir.join("ci");
    let out = run(&["keygen", "--out", name.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let secret = std::fs::metadata(dir.join("ci.key")).expect("the secret key");
    assert_eq!(secret.permissions().mode() & 0o777, 0o600, "only its owner reads the secret key");
    let public = std::fs::read_to_string(dir.join("ci.pub")).expect("the verify key");
    assert!(public.starts_with("-----BEGIN PUBLIC KEY-----"), "{public}");
    let again = run(&["keygen", "--out", name.to_str().expect("utf-8")]);
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again.stderr).contains("already exists"), "{}", text(&again.stderr));
    assert_eq!(std::fs::read_to_string(dir.join("ci.pub")).expect("kept"), public, "the key pair is kept");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_replica_with_a_verify_key_serves_only_artifacts_its_key_signed() {
    let dir = catalog_copy("signed");
    let work = temp("signed-out");
    let path = |p: &Path| p.to_str().expect("utf-8").to_owned();
    for name in ["ci", "other"] {
        assert_eq!(run(&["keygen", "--out", &path(&work.join(name))]).status.code(), Some(0));
    }
    let (key, verify) = (path(&work.join("ci.key")), path(&work.join("ci.pub")));
    let (signed, unsigned, foreign, changed) =
        (work.join("signed.fcat"), work.join("unsigned.fcat"), work.join("foreign.fcat"), work.join("changed.fcat"));
    let out = run(&["build", &path(&dir), "-o", &path(&signed), "--sign-key", &key]);
    assert!(text(&out.stderr).contains("signed by SHA256:"), "{}", text(&out.stderr));
    build_artifact(&dir, &unsigned);
    run(&["build", &path(&dir), "-o", &path(&foreign), "--sign-key", &path(&work.join("other.key"))]);
    // One byte of the product's gzip body (the body as is is inflated
    // from it) changed: no checksum covers the bodies, their ETags do.
    let mut bytes = std::fs::read(&signed).expect("built");
    let at =
        gzip_body_holding(&bytes, b"{\"data\":{\"slug\":\"eu-regulatory-status-signals\"").expect("the body") + 100;
    bytes[at] ^= 0x01;
    std::fs::write(&changed, bytes).expect("write");

    for (file, reason) in [(&unsigned, "is not signed"), (&foreign, "is signed by key SHA256:")] {
        let out = run(&["serve", "--addr", "127.0.0.1:0", "--catalog", &path(file), "--verify-key", &verify]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{file:?}: {stderr}");
        assert!(stderr.contains(reason), "{file:?}: {stderr}");
    }
    // The changed body is read from the file when asked for, and never
    // sent (nor is the body as is, inflated from it): 503, the other
    // representation and products as they were.
    let server = Server::start(&["--catalog", &path(&changed), "--verify-key", &verify]);
    assert_eq!(server.fetch_with(PRODUCT, "Accept-Encoding: gzip\r\n").0, 503, "the changed body is not sent");
    assert_eq!(server.fetch(PRODUCT).0, 503, "nor what it inflates to");
    let (status, br) = server.fetch_with(PRODUCT, "Accept-Encoding: br\r\n");
    assert_eq!(status, 200, "{br}");
    assert_eq!(server.fetch("/api/public/foundry/products/crm-webhook-connector").0, 200);
    let (_, metrics) = server.fetch("/metrics");
    assert!(metrics.contains("foundry_catalog_body_reads_total{result=\"changed\"} 2\n"), "{metrics}");
    drop(server);
    let out = run(&["serve", "--addr", "127.0.0.1:0", "--catalog", &path(&dir), "--verify-key", &verify]);
    assert_eq!(out.status.code(), Some(2), "a folder has no signature: {}", text(&out.stderr));

    // A signed build builds only on what its key verifies, and takes a
    // product only with bodies that match their ETags: the one changed is
    // rendered again.
    let rebuilt = work.join("rebuilt.fcat");
    for (previous, expected) in [(&changed, "(1 rendered, 1 compressed, 2 reused)"), (&foreign, "is signed by key")] {
        let out =
            run(&["build", &path(&dir), "-o", &path(&rebuilt), "--sign-key", &key, "--previous", &path(previous)]);
        let stderr = text(&out.stderr);
        assert!(stderr.contains(expected), "{stderr}");
        assert!(std::fs::read(&rebuilt).expect("built") == std::fs::read(&signed).expect("built"), "{stderr}");
    }
    let out = run(&["build", &path(&dir), "-o", &path(&rebuilt), "--sign-key", &key, "--previous", &path(&signed)]);
    assert!(text(&out.stderr).contains("(0 rendered, 0 compressed, 3 reused)"), "{}", text(&out.stderr));
    assert!(std::fs::read(&rebuilt).expect("built") == std::fs::read(&signed).expect("built"));

    // Signed by its key: served; then an unsigned artifact in its place is
    // refused on reload, and the signed catalog keeps serving.
    let served = work.join("served.fcat");
    std::fs::copy(&signed, &served).expect("copy");
    let server = Server::start(&["--catalog", &path(&served), "--verify-key", &verify]);
    assert!(server.product().contains("\"title\":\"EU"));
    assert!(server.log_has("signed_by=SHA256:") && server.log_has("verified=true"), "start-up names the signer");
    assert!(!server.log_has("serving an unverified catalog"));
    retitle(&dir, "Unsigned edit");
    build_artifact(&dir, &served);
    server.signal(rustix::process::Signal::HUP);
    server.wait_for_log("reload failed");
    assert!(server.log_has("is not signed"), "the log says why");
    assert!(server.product().contains("\"title\":\"EU"), "the signed catalog still serves");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn a_folder_reload_builds_only_the_changed_manifest_and_a_removed_product_answers_404() {
    let dir = catalog_copy("folder-reload");
    let server = Server::start(&["--catalog", dir.to_str().expect("utf-8")]);
    retitle(&dir, "Rebuilt alone");
    server.signal(rustix::process::Signal::HUP);
    server.wait_for_product("Rebuilt alone");
    server.wait_for_log("rendered=1 compressed=1 reused=2");
    std::fs::remove_file(dir.join("eu-regulatory-status-signals.json")).expect("remove");
    server.signal(rustix::process::Signal::HUP);
    server.wait_for_log("rendered=0 compressed=0 reused=2");
    let mut stream = std::net::TcpStream::connect(server.addr).expect("connect");
    assert_eq!(request_on(&mut stream, PRODUCT).map(|(status, _)| status), Some(404));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_long_build_off_a_terminal_logs_every_tenth_and_a_tally() {
    let dir = temp("progress");
    let example: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("examples/catalog/eu-regulatory-status-signals.json")).expect("example"),
    )
    .expect("JSON");
    for n in 0..1000 {
        let mut manifest = example.clone();
        manifest["slug"] = serde_json::json!(format!("product-{n:04}"));
        manifest["title"] = serde_json::json!(format!("Product {n}"));
        std::fs::write(dir.join(format!("product-{n:04}.json")), manifest.to_string()).expect("write");
    }
    let out = run(&["build", dir.to_str().expect("utf-8"), "--check", "--codings", "identity"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // The threads report as they finish, so a line's count may be a
    // product or two past its tenth; each tenth is logged once, in order.
    let steps: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("building: "))
        .map(|l| l.split_once(" %").map_or(l, |(percent, _)| percent))
        .collect();
    assert_eq!(steps, ["10", "20", "30", "40", "50", "60", "70", "80", "90", "100"], "{stderr}");
    assert!(stderr.contains("building: 100 % (1000 of 1000 products, 0 reused)"), "{stderr}");
    let tally = stderr.lines().last().unwrap_or_default();
    assert!(
        tally.starts_with("checked ")
            && tally.contains(": 1000 products with pages (1000 rendered, 1000 compressed, 0 reused), "),
        "{tally}"
    );
    assert!(tally.ends_with(" s"), "{tally}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The example crate's definitions, read at run time by `--record-types`.
const OWN_TYPES: &str = "examples/record-types-app/record-types";
const OWN_PRODUCTS: &str = "examples/record-types-app/products";

/// A record type that exists only as a definition file goes through
/// preview, render, check, schemas, build and serve, and each command
/// without the folder says the type is not known.
#[test]
fn record_types_from_a_folder_go_through_every_command() {
    let work = temp("own-types");
    let path = |p: &Path| p.to_str().expect("utf-8").to_owned();
    let preview = run(&["preview", "listing_snapshot", "--record-types", OWN_TYPES]);
    assert_eq!(preview.status.code(), Some(0), "{}", text(&preview.stderr));
    let preview: serde_json::Value = serde_json::from_slice(&preview.stdout).expect("JSON");
    let unknown = run(&["preview", "listing_snapshot"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(text(&unknown.stderr).contains("--record-types DIR"), "{}", text(&unknown.stderr));

    // render: the body's schema preview is the preview's; check accepts it
    // with the definitions and refuses it, by name, without them.
    let manifest = format!("{OWN_PRODUCTS}/listing-watch.json");
    let out_dir = work.join("bodies");
    let rendered = run(&["render", &manifest, "--record-types", OWN_TYPES, "--out-dir", &path(&out_dir)]);
    assert_eq!(rendered.status.code(), Some(0), "{}", text(&rendered.stderr));
    let body_file = path(&out_dir.join("listing-watch.json"));
    let body: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&body_file).expect("written")).expect("JSON");
    assert_eq!(body["data"]["schema_preview"]["fields"], preview["schema_preview"]["fields"]);
    assert_eq!(body["data"]["schema_preview"]["schema_hash"], preview["schema_preview"]["schema_hash"]);
    assert_eq!(run(&["render", &manifest]).status.code(), Some(1), "the shipped types alone cannot render it");
    let checked = run(&["check", &body_file, "--record-types", OWN_TYPES]);
    assert_eq!((checked.status.code(), text(&checked.stdout)), (Some(0), format!("{body_file}: ok\n")));
    let unchecked = run(&["check", &body_file]);
    assert_eq!(unchecked.status.code(), Some(1));
    assert!(
        text(&unchecked.stderr).contains("record type `listing_snapshot` is not known"),
        "{}",
        text(&unchecked.stderr)
    );
    assert_eq!(run(&["check", &body_file, "--allow-unknown-record-types"]).status.code(), Some(0));
    let from_env = finish(
        Command::new(BIN)
            .args(["check", &body_file])
            .env("FOUNDRY_CATALOG_RECORD_TYPES", OWN_TYPES)
            .current_dir(repo()),
    );
    assert_eq!(from_env.status.code(), Some(0), "the environment variable names the folder too");

    // schemas: the loaded type's row schema beside the shipped ones.
    let schema_dir = work.join("schema");
    let written = run(&["schemas", "--dir", &path(&schema_dir), "--record-types", OWN_TYPES]);
    assert_eq!(written.status.code(), Some(0), "{}", text(&written.stderr));
    assert!(schema_dir.join("record-types/listing_snapshot.schema.json").is_file());
    // The response schema and the OpenAPI document type its samples: a
    // variant of its own, picked by its label.
    let read = |file: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(schema_dir.join(file)).expect("written")).expect("JSON")
    };
    let response = read("product-response.schema.json");
    assert!(
        response["$defs"]["Sample"]["oneOf"]
            .as_array()
            .expect("oneOf")
            .contains(&serde_json::json!({"$ref": "#/$defs/ListingSnapshotSample"}))
    );
    assert_eq!(
        response["$defs"]["ListingSnapshotSample"]["properties"]["rows"]["items"]["$ref"],
        "#/$defs/ListingSnapshotRow"
    );
    let openapi = read("openapi.json");
    assert_eq!(
        openapi["components"]["schemas"]["Sample"]["discriminator"]["mapping"]["listing_snapshot"],
        "#/components/schemas/ListingSnapshotSample"
    );
    assert_eq!(openapi["components"]["schemas"]["ListingSnapshotRow"]["title"], "ListingSnapshotRow");
    assert_eq!(
        run(&["schemas", "--check", "--dir", &path(&schema_dir), "--record-types", OWN_TYPES]).status.code(),
        Some(0)
    );

    // build and serve: the artifact's body is the rendered one.
    let artifact = work.join("own.fcat");
    let built = run(&["build", OWN_PRODUCTS, "-o", &path(&artifact), "--record-types", OWN_TYPES]);
    assert_eq!(built.status.code(), Some(0), "{}", text(&built.stderr));
    assert_eq!(run(&["build", OWN_PRODUCTS, "--check"]).status.code(), Some(1), "unknown without the folder");
    let server = Server::start(&["--catalog", &path(&artifact)]);
    assert!(server.log_has("listing_snapshot@"), "start-up names the record types served");
    let mut stream = std::net::TcpStream::connect(server.addr).expect("connect");
    let (status, served) = request_on(&mut stream, "/api/public/foundry/products/listing-watch").expect("answered");
    assert_eq!(status, 200);
    let (_, metrics) = request_on(&mut stream, "/metrics").expect("metrics");
    let hash = preview["schema_preview"]["schema_hash"].as_str().expect("a hash");
    let sample = format!("foundry_catalog_record_types{{record_label=\"listing_snapshot\",schema_hash=\"{hash}\"}} 1");
    assert!(text(&metrics).contains(&sample), "{}", text(&metrics));
    // The OpenAPI document a server with record types of its own serves
    // is the one `schemas --record-types` writes: code generated from it
    // reads the team's bodies. Without them, the shipped one.
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_dir.join("openapi.json")).expect("written"))
            .expect("JSON");
    let served_openapi = |server: &Server| -> serde_json::Value {
        let mut stream = std::net::TcpStream::connect(server.addr).expect("connect");
        let (status, body) = request_on(&mut stream, "/openapi.json").expect("answered");
        assert_eq!(status, 200);
        serde_json::from_slice(&body).expect("JSON")
    };
    assert_eq!(
        served_openapi(&server),
        foundry_catalog::json_schema::openapi(),
        "no --record-types: the shipped document"
    );
    let own_types = path(&repo().join(OWN_TYPES));
    for catalog in [path(&repo().join(OWN_PRODUCTS)), path(&artifact)] {
        let own = Server::start(&["--catalog", &catalog, "--record-types", &own_types]);
        assert_eq!(served_openapi(&own), written, "{catalog}");
    }
    // Read again at every reload: an edited definition is described at once.
    let live_types = work.join("live-types");
    std::fs::create_dir_all(&live_types).expect("folder");
    let live = live_types.join("listing_snapshot.json");
    std::fs::copy(repo().join(OWN_TYPES).join("listing_snapshot.json"), &live).expect("copy");
    let own = Server::start(&["--catalog", &path(&artifact), "--record-types", &path(&live_types)]);
    let mut edited: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&live).expect("read")).expect("JSON");
    let field = edited["fields"][0]["name"].as_str().expect("a field").to_owned();
    let row = |document: &serde_json::Value| {
        document["components"]["schemas"]["ListingSnapshotRow"]["properties"][&field]["description"].clone()
    };
    assert_eq!(row(&served_openapi(&own)), row(&written));
    assert_ne!(row(&written), serde_json::Value::Null);
    edited["fields"][0]["description"] = serde_json::json!("Described again.");
    std::fs::write(&live, edited.to_string()).expect("write");
    own.signal(rustix::process::Signal::HUP);
    own.wait_for_log("catalog reloaded");
    assert_eq!(row(&served_openapi(&own)), "Described again.");

    // Built on with another definition of the type: its products are
    // rendered again, and the note says why.
    let edited = work.join("edited-types");
    std::fs::create_dir_all(&edited).expect("folder");
    let definition = repo().join(OWN_TYPES).join("listing_snapshot.json");
    let mut changed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(definition).expect("readable")).expect("JSON");
    changed["description"] = serde_json::json!("Another description.");
    std::fs::write(edited.join("listing_snapshot.json"), changed.to_string()).expect("write");
    let next = work.join("next.fcat");
    let rebuilt = run(&[
        "build",
        OWN_PRODUCTS,
        "-o",
        &path(&next),
        "--record-types",
        &path(&edited),
        "--previous",
        &path(&artifact),
    ]);
    assert_eq!(rebuilt.status.code(), Some(0), "{}", text(&rebuilt.stderr));
    let stderr = text(&rebuilt.stderr);
    assert!(stderr.contains("record types changed since"), "{stderr}");
    assert!(stderr.contains("(listing_snapshot: another definition)"), "{stderr}");
    assert!(stderr.contains("(1 rendered"), "{stderr}");
    let same =
        run(&["build", OWN_PRODUCTS, "-o", &path(&next), "--record-types", OWN_TYPES, "--previous", &path(&artifact)]);
    assert!(
        text(&same.stderr).contains("(0 rendered"),
        "the same definitions: taken as they are: {}",
        text(&same.stderr)
    );
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&served).expect("JSON"), body);
    let _ = std::fs::remove_dir_all(&work);
}

/// `serve --catalog DIR --record-types TYPES --watch`: a definition edit
/// reloads the catalog, re-rendering only the products of that type; a
/// broken definition keeps the catalog being served.
#[test]
fn a_definition_edit_under_watch_rerenders_only_its_types_products() {
    let products = catalog_copy("watch-definitions");
    std::fs::copy(repo().join(OWN_PRODUCTS).join("listing-watch.json"), products.join("listing-watch.json"))
        .expect("copy");
    let types = temp("watch-definitions-types");
    let definition = types.join("listing_snapshot.json");
    std::fs::copy(repo().join(OWN_TYPES).join("listing_snapshot.json"), &definition).expect("copy");
    let server = Server::start(&[
        "--catalog",
        products.to_str().expect("utf-8"),
        "--record-types",
        types.to_str().expect("utf-8"),
        "--watch",
        "--watch-interval",
        "200ms",
    ]);
    let own = |server: &Server| {
        let mut stream = std::net::TcpStream::connect(server.addr).expect("connect");
        let (_, body) = request_on(&mut stream, "/api/public/foundry/products/listing-watch").expect("answered");
        text(&body)
    };
    assert!(own(&server).contains("\"record_label\":\"listing_snapshot\""));
    let mut edited: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&definition).expect("readable")).expect("JSON");
    edited["fields"][0]["description"] = serde_json::json!("A meaning edited under --watch.");
    std::fs::write(&definition, serde_json::to_string_pretty(&edited).expect("JSON")).expect("write");
    let started = std::time::Instant::now();
    while !own(&server).contains("A meaning edited under --watch.") {
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "never served the edited definition");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    server.wait_for_log("catalog reloaded");
    assert!(server.log_has("listing_snapshot: another definition"));
    let rebuilt = server.log.lock().expect("log").iter().rev().find(|l| l.contains("catalog built")).cloned();
    let rebuilt = rebuilt.expect("the reload logs its build");
    assert!(rebuilt.contains("rendered=1") && rebuilt.contains("reused=3"), "only that type's product: {rebuilt}");

    // A broken definition: the reload fails naming the file, and the
    // catalog being served stays.
    std::fs::write(&definition, "{ \"record_label\": ").expect("write");
    server.wait_for_log("reload failed, still serving the previous catalog");
    assert!(server.log_has("listing_snapshot.json"), "the problem names the file");
    assert!(own(&server).contains("A meaning edited under --watch."));
    let _ = std::fs::remove_dir_all(&products);
    let _ = std::fs::remove_dir_all(&types);
}

/// A folder type with a shipped type's label must be that type: another
/// definition under the same label is refused naming both files.
#[test]
fn a_folder_type_that_redefines_a_shipped_one_is_refused_naming_both() {
    let dir = temp("redefined");
    let shipped = repo().join("record-types/regulatory_status_signal.json");
    std::fs::copy(&shipped, dir.join("regulatory_status_signal.json")).expect("copy");
    let same = run(&["preview", "regulatory_status_signal", "--record-types", dir.to_str().expect("utf-8")]);
    assert_eq!(same.status.code(), Some(0), "the same definition is the shipped type: {}", text(&same.stderr));
    let mut definition: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&shipped).expect("readable")).expect("JSON");
    definition["fields"][0]["description"] = serde_json::json!("Another meaning.");
    std::fs::write(dir.join("regulatory_status_signal.json"), definition.to_string()).expect("write");
    let out = run(&["preview", "regulatory_status_signal", "--record-types", dir.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("regulatory_status_signal.json: record type `regulatory_status_signal`"), "{stderr}");
    assert!(stderr.contains("record-types/regulatory_status_signal.json, compiled in"), "{stderr}");

    // Two folders with two definitions of one label: both files named.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).expect("folder");
    let own = repo().join(OWN_TYPES).join("listing_snapshot.json");
    let mut edited: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&own).expect("readable")).expect("JSON");
    edited["description"] = serde_json::json!("Another description.");
    std::fs::write(other.join("listing_snapshot.json"), edited.to_string()).expect("write");
    let both =
        ["preview", "listing_snapshot", "--record-types", OWN_TYPES, "--record-types", other.to_str().expect("utf-8")];
    let out = run(&both);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr
            .contains("is also defined, differently, in examples/record-types-app/record-types/listing_snapshot.json"),
        "{stderr}"
    );
    assert!(stderr.contains("other/listing_snapshot.json: record type `listing_snapshot`"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

impl Server {
    /// The status and body of `path`, on a new connection.
    fn fetch(&self, path: &str) -> (u16, String) {
        let mut stream = std::net::TcpStream::connect(self.addr).expect("connect");
        request_on(&mut stream, path).map(|(status, body)| (status, text(&body))).expect("answered")
    }

    /// `fetch` with more request headers (each ending in CRLF).
    fn fetch_with(&self, path: &str, headers: &str) -> (u16, String) {
        use std::io::Write;
        let mut stream = std::net::TcpStream::connect(self.addr).expect("connect");
        stream.write_all(format!("GET {path} HTTP/1.1\r\nHost: t\r\n{headers}\r\n").as_bytes()).expect("send");
        let response = Response::read(&mut stream, false).expect("a whole response").expect("answered");
        (response.status, text(&response.body))
    }
}

/// A replica serves artifacts in sequence order only: an older one,
/// validly signed, is refused on reload (the newer keeps serving) and,
/// with a state folder, after a restart too; an expired one is refused at
/// start; one that expires while served turns `/readyz` to 503 and says so
/// in `/metrics` and the log.
#[test]
fn a_replica_refuses_rollbacks_and_expired_artifacts_across_restarts() {
    let dir = catalog_copy("releases");
    let work = temp("releases-out");
    let path = |p: &Path| p.to_str().expect("utf-8").to_owned();
    assert_eq!(run(&["keygen", "--out", &path(&work.join("ci"))]).status.code(), Some(0));
    let (key, verify) = (path(&work.join("ci.key")), path(&work.join("ci.pub")));
    let build = |sequence: &str, title: &str, extra: &[&str]| {
        retitle(&dir, title);
        let file = work.join(format!("{sequence}-{}.fcat", extra.len()));
        let mut args = vec!["build", dir.to_str().expect("utf-8"), "-o", file.to_str().expect("utf-8")];
        args.extend(["--sign-key", &key, "--sequence", sequence]);
        args.extend(extra);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        file
    };
    let (seven, eight) = (build("7", "Release seven", &[]), build("8", "Release eight", &[]));
    let served = work.join("served.fcat");
    let state = work.join("state");
    std::fs::copy(&eight, &served).expect("copy");
    let args = ["--catalog", &path(&served), "--verify-key", &verify, "--state-dir", &path(&state)];
    let server = Server::start(&args);
    assert!(server.product().contains("Release eight"));
    let (_, metrics) = server.fetch("/metrics");
    assert!(metrics.contains("foundry_catalog_artifact_sequence 8\n"), "{metrics}");
    assert!(metrics.contains("foundry_catalog_artifact_signer{key=\"SHA256:"), "{metrics}");
    assert!(metrics.contains("\",verified=\"true\"} 1\n"), "{metrics}");
    assert!(metrics.contains("foundry_catalog_last_load_ok 1\n"), "a good start is a good load: {metrics}");
    // The sequence and the content digest of the artifact served under it.
    let kept = std::fs::read_to_string(state.join("highest-sequence")).expect("kept");
    assert!(kept.starts_with("8 ") && kept.len() == 2 + 64 + 1 && kept.ends_with('\n'), "{kept:?}");

    std::fs::copy(&seven, &served).expect("copy");
    server.signal(rustix::process::Signal::HUP);
    server.wait_for_log("reload failed");
    assert!(server.log_has("its sequence is 7, below 8, the highest this replica has served"));
    assert!(server.product().contains("Release eight"), "the newer catalog keeps serving");
    drop(server);

    let restarted = run(&[&["serve", "--addr", "127.0.0.1:0"][..], &args].concat());
    let stderr = text(&restarted.stderr);
    assert_eq!(restarted.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("refused as a rollback") && stderr.contains("1 of 1 artifact is invalid"), "{stderr}");

    // Another artifact under the highest sequence served, after a restart
    // (the state folder keeps the digest beside the number): refused.
    let another_eight = build("8", "Another eight", &["--codings", "identity"]);
    std::fs::copy(&another_eight, &served).expect("copy");
    let restarted = run(&[&["serve", "--addr", "127.0.0.1:0"][..], &args].concat());
    let stderr = text(&restarted.stderr);
    assert_eq!(restarted.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("its sequence 8 is that of an artifact this replica served, with other contents"),
        "{stderr}"
    );

    let expired = build("9", "Release nine", &["--expires-at", "2020-01-01T00:00:00Z"]);
    std::fs::copy(&expired, &served).expect("copy");
    let refused = run(&[&["serve", "--addr", "127.0.0.1:0"][..], &args].concat());
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused.stderr).contains("it expired at 2020-01-01T00:00:00Z"), "{}", text(&refused.stderr));

    let expiring = build("10", "Release ten", &["--expires-in", "3s"]);
    std::fs::copy(&expiring, &served).expect("copy");
    let server = Server::start(&args);
    assert_eq!(server.fetch("/readyz").0, 200);
    let started = std::time::Instant::now();
    while server.fetch("/readyz").0 != 503 {
        assert!(started.elapsed() < std::time::Duration::from_secs(15), "/readyz never turned 503 at expiry");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(server.fetch("/readyz").1.contains("expired"));
    assert!(server.fetch("/metrics").1.contains("foundry_catalog_artifact_expired 1\n"));
    server.wait_for_log("the catalog being served has expired");
    assert!(server.product().contains("Release ten"), "still answering: readiness is the load balancer's cue");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&work);
}

/// A replica without a verify key says so at start, and one with several
/// keys (a rotation's overlap, by file or by folder) serves what any of
/// them signed.
#[test]
fn a_replica_warns_when_unverified_and_trusts_every_key_it_is_given() {
    let dir = catalog_copy("rotation");
    let work = temp("rotation-out");
    let path = |p: &Path| p.to_str().expect("utf-8").to_owned();
    let keys = work.join("keys");
    std::fs::create_dir_all(&keys).expect("folder");
    for name in ["old", "new"] {
        assert_eq!(run(&["keygen", "--out", &path(&keys.join(name))]).status.code(), Some(0));
    }
    let signed = work.join("new.fcat");
    let out = run(&["build", &path(&dir), "-o", &path(&signed), "--sign-key", &path(&keys.join("new.key"))]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let unverified = Server::start(&["--catalog", &path(&signed)]);
    assert!(unverified.log_has("serving an unverified catalog"), "a WARN says nothing is verified");
    // Its signature names a key, but nothing checked that key: said so.
    assert!(unverified.log_has("(not verified)"), "the log says the key is only what the file claims");
    let (_, metrics) = unverified.fetch("/metrics");
    assert!(metrics.contains("\",verified=\"false\"} 1\n"), "{metrics}");
    drop(unverified);
    let both = ["--catalog", &path(&signed), "--verify-key", &path(&keys.join("old.pub"))];
    let both = Server::start(&[&both[..], &["--verify-key", &path(&keys.join("new.pub"))]].concat());
    assert!(both.product().contains("\"title\":\"EU"));
    drop(both);
    // The keys' folder holds the secret keys too: only `*.pub` files count.
    let folder = Server::start(&["--catalog", &path(&signed), "--verify-key-dir", &path(&keys)]);
    assert!(folder.product().contains("\"title\":\"EU"));
    // The new key retired from the folder: the next reload refuses it.
    std::fs::remove_file(keys.join("new.pub")).expect("remove");
    folder.signal(rustix::process::Signal::HUP);
    folder.wait_for_log("reload failed");
    assert!(folder.log_has("not by a verify key"));
    let old_only = run(&[
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--catalog",
        &path(&signed),
        "--verify-key",
        &path(&keys.join("old.pub")),
    ]);
    assert_eq!(old_only.status.code(), Some(1), "{}", text(&old_only.stderr));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&work);
}

/// `--watch` sees a manifest replaced by one of the same length and
/// modification time (what `cp -p` or `rsync -a` leave): its inode and
/// change time differ.
#[test]
fn watch_sees_a_replacement_with_the_same_length_and_modification_time() {
    let dir = catalog_copy("watch-same-stamp");
    let server = Server::start(&["--catalog", dir.to_str().expect("utf-8"), "--watch", "--watch-interval", "200ms"]);
    let file = dir.join("eu-regulatory-status-signals.json");
    let text = std::fs::read_to_string(&file).expect("readable");
    let edited = text.replacen("\"title\": \"EU Regulatory", "\"title\": \"XU Regulatory", 1);
    assert_eq!(edited.len(), text.len());
    let modified = std::fs::metadata(&file).and_then(|m| m.modified()).expect("a modification time");
    let replacement = dir.join("replacement.tmp");
    std::fs::write(&replacement, edited).expect("write");
    std::fs::File::options()
        .write(true)
        .open(&replacement)
        .and_then(|f| f.set_modified(modified))
        .expect("set the modification time back");
    std::fs::rename(&replacement, &file).expect("replace");
    server.wait_for_product("\"title\":\"XU Regulatory");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A reload of a 9 GiB artifact whose header's lengths add up, under a
/// 1.5 GiB address-space limit and `serve`'s defaults: it is not refused
/// for its size (there is no default limit), only its head is read (its
/// bodies would not fit), it fails like any broken reload, and the
/// catalog being served stays (the process is not aborted).
#[test]
fn a_reload_of_a_file_larger_than_memory_reads_only_its_head_and_keeps_the_catalog() {
    let dir = catalog_copy("memory-limit");
    let file = dir.join("catalog.fcat");
    build_artifact(&dir, &file);
    // The server under a 1.5 GiB address-space limit, with its defaults.
    let mut command = Command::new("sh");
    command.args(["-c", "ulimit -v 1572864 && exec \"$0\" \"$@\"", BIN]);
    let server = Server::start_with(command, &["--catalog", file.to_str().expect("utf-8"), "--workers", "1"]);
    assert!(server.product().contains("\"title\":\"EU"));
    // A 9 GiB artifact (sparse) whose header is a valid one's, with the
    // bodies' length grown to match: its head is read and checked, its
    // bodies are not read, and it is refused for bytes no product holds.
    let mut bytes = std::fs::read(&file).expect("built");
    let grown = 9u64 << 30;
    let data_len = u64::from_le_bytes(bytes[64..72].try_into().expect("8 bytes")) + grown - bytes.len() as u64;
    bytes[64..72].copy_from_slice(&data_len.to_le_bytes());
    let bytes = with_checksum(bytes);
    let big = dir.join("big.fcat");
    std::fs::write(&big, &bytes).expect("write");
    std::fs::File::options().write(true).open(&big).and_then(|f| f.set_len(grown)).expect("grow");
    std::fs::rename(&big, &file).expect("replace");
    server.signal(rustix::process::Signal::HUP);
    server.wait_for_log("reload failed");
    assert!(server.log_has("belong to no product"), "{:?}", server.log.lock().expect("log"));
    assert!(server.product().contains("\"title\":\"EU"), "still serving");
    let _ = std::fs::remove_dir_all(&dir);
}

fn sha2_digest(bytes: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where the first gzip body whose text holds `needle` starts in an
/// artifact file's bytes (a build stores bodies as is only without gzip).
fn gzip_body_holding(bytes: &[u8], needle: &[u8]) -> Option<usize> {
    use std::io::Read;
    (0..bytes.len().saturating_sub(3)).filter(|&at| bytes[at..at + 3] == [0x1f, 0x8b, 8]).find(|&at| {
        let mut text = Vec::new();
        let _ = flate2::read::GzDecoder::new(&bytes[at..]).read_to_end(&mut text);
        text.windows(needle.len()).any(|w| w == needle)
    })
}

/// The value of the sample `name` (with its labels) in `/metrics` text; 0 when absent.
fn metric(text: &str, name: &str) -> u64 {
    text.lines()
        .find_map(|line| line.strip_prefix(name).and_then(|rest| rest.strip_prefix(' ')))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0)
}

/// Where a version-5 artifact's stored index starts: after its header
/// and the regions of its first four lengths (metadata, signature, block
/// list, slug directory).
fn index_start(bytes: &[u8]) -> usize {
    let length =
        |at: usize| usize::try_from(u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8"))).expect("small");
    72 + length(16) + length(24) + length(32) + length(40)
}

/// `bytes` with the header's CRC-32 fixed to match the rest.
fn with_checksum(mut bytes: Vec<u8>) -> Vec<u8> {
    // Version 5's CRC-32 covers what precedes the index.
    let index = index_start(&bytes);
    let crc = crc32fast::hash(&bytes[16..index]);
    bytes[12..16].copy_from_slice(&crc.to_le_bytes());
    bytes
}

/// `pages` says what is wrong as `build` does: a catalog that is not
/// there is named so (not "1 of 1 artifact is invalid"), and a page that
/// does not render names its manifest file, not only the product.
#[test]
fn pages_names_a_missing_catalog_and_the_manifest_of_a_page_that_does_not_render() {
    let dir = catalog_copy("pages-errors");
    let out_dir = dir.join("site");
    let missing = dir.join("no-such-folder");
    let out = run(&["pages", missing.to_str().expect("utf-8"), "--out-dir", out_dir.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&format!("error: {}: no such file or folder; hint:", missing.display())), "{stderr}");
    assert!(!stderr.contains("artifact is invalid"), "{stderr}");

    let manifest = dir.join("crm-webhook-connector.json");
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).expect("read")).expect("JSON");
    value["seo"]["title"] = serde_json::json!("");
    std::fs::write(&manifest, value.to_string()).expect("write");
    let out = run(&["pages", dir.to_str().expect("utf-8"), "--out-dir", out_dir.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("error: {}: cannot render its page: ", manifest.display()))
            && stderr.contains("seo.title"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The path of every `.html` file under `site` as its page's URL path
/// (`index.html` is `/`, `datasets/x.html` is `/datasets/x`), in order.
fn html_files(site: &Path) -> Vec<String> {
    let mut paths = Vec::new();
    let mut folders = vec![site.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if let Some(page) = path.to_str().and_then(|p| p.strip_suffix(".html")) {
                let url = page.strip_prefix(site.to_str().expect("utf-8")).expect("under the site").to_owned();
                paths.push(if url == "/index" { "/".to_owned() } else { url });
            }
        }
    }
    paths.sort();
    paths
}

#[test]
fn pages_writes_the_same_site_from_manifests_and_from_their_artifact() {
    let dir = temp("pages");
    let artifact = dir.join("catalog.fcat");
    let out = run(&["build", "examples/catalog", "-o", artifact.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("warning: no site URL: canonical links"), "{}", text(&out.stderr));
    let mut sites = Vec::new();
    for (name, source) in [("from-dir", "examples/catalog"), ("from-artifact", artifact.to_str().expect("utf-8"))] {
        let site = dir.join(name);
        let out =
            run(&["pages", source, "--out-dir", site.to_str().expect("utf-8"), "--site-url", "https://shop.example/"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(!text(&out.stderr).contains("warning"), "{}", text(&out.stderr));
        assert_eq!(std::fs::read(site.join("favicon.ico")).expect("the icon"), foundry_catalog_pages::favicon::ico());
        let page = std::fs::read_to_string(site.join("datasets/eu-regulatory-status-signals.html")).expect("a page");
        assert!(
            page.contains(
                r#"<link rel="canonical" href="https://shop.example/datasets/eu-regulatory-status-signals">"#
            )
        );
        let sitemap = std::fs::read_to_string(site.join("sitemap.xml")).expect("a sitemap");
        // Every page the site has, and nothing else: three products, the
        // home page, a page per route and the facets' pages (each
        // taxonomy's and each term's), all indexable; and the search
        // page, which is not (robots.txt keeps crawlers out of it).
        let mut listed: Vec<String> = sitemap
            .split("<loc>https://shop.example")
            .skip(1)
            .map(|rest| rest.split_once("</loc>").expect("closed").0.to_owned())
            .collect();
        listed.sort();
        let mut written = html_files(&site);
        written.retain(|path| path != "/404" && path != "/search");
        assert_eq!(listed, written);
        let search = std::fs::read_to_string(site.join("search.html")).expect("the search page");
        assert!(search.contains("it has no search") && search.contains(r#"<meta name="robots" content="noindex">"#));
        assert!(written.len() > 3 + 1 + 3 + 5, "facet pages: {written:?}");
        let files = [
            "404.html",
            "robots.txt",
            "actors/lead-signal-extractor.html",
            "automation/crm-webhook-connector.html",
            "index.html",
            "datasets.html",
            "search.html",
            "api/public/foundry/products/eu-regulatory-status-signals.json",
        ];
        sites.push((page, sitemap, files.map(|f| std::fs::read(site.join(f)).expect("written"))));
    }
    assert!(sites[0] == sites[1], "an artifact's pages are its manifests' pages");
    // Each page's link to its JSON record is a file: the body `render` makes.
    let bodies = dir.join("bodies");
    let out = run(&[
        "render",
        "examples/catalog/eu-regulatory-status-signals.json",
        "--out-dir",
        bodies.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // `render` writes it indented; the file is the endpoint's compact body
    // (`.ci/pages` compares its bytes with `serve`'s answer).
    let rendered = std::fs::read(bodies.join("eu-regulatory-status-signals.json")).expect("rendered");
    let value = |bytes: &[u8]| serde_json::from_slice::<serde_json::Value>(bytes).expect("JSON");
    assert!(value(&sites[0].2[7]) == value(&rendered), "the JSON record a static site holds is the product's body");
    assert!(sites[0].0.contains(r#"href="/api/public/foundry/products/eu-regulatory-status-signals""#));
    // `pages` of the example catalog into `out`, with `extra` arguments.
    let pages_into = |out: &Path, extra: &[&str]| {
        run(&[&["pages", "examples/catalog", "--out-dir", out.to_str().expect("utf-8")], extra].concat())
    };

    // A broken template: exit 1, its file and line, nothing else said.
    let templates = dir.join("templates");
    std::fs::create_dir(&templates).expect("mkdir");
    std::fs::write(
        templates.join("product.html"),
        "{% extends \"base.html\" %}\n{% block main %}\n{{ product.nope }}\n{% endblock %}\n",
    )
    .expect("write");
    let site = dir.join("broken");
    let out = pages_into(&site, &["--templates", templates.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains(&format!("{}:3: undefined value", templates.join("product.html").display())), "{stderr}");
    assert!(stderr.contains("hint: "), "{stderr}");
    // A link planted as a route folder is refused, its target untouched.
    let planted = dir.join("planted");
    let target = dir.join("elsewhere");
    std::fs::create_dir_all(&planted).expect("mkdir");
    std::fs::create_dir(&target).expect("mkdir");
    std::os::unix::fs::symlink(&target, planted.join("datasets")).expect("symlink");
    let out = pages_into(&planted, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("datasets: not a folder (links are not followed)"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_dir(&target).expect("target").count(), 0, "nothing written through the link");
    let out = pages_into(Path::new("x"), &["--site-url", "ftp://example.com"]);
    assert_eq!(out.status.code(), Some(2), "a bad site URL is a usage error");
    // --precompress: every file beside its gzip and Brotli forms, each
    // decoding to the file's bytes.
    let packed = dir.join("precompressed");
    let out = pages_into(&packed, &["--site-url", "https://shop.example/", "--precompress"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut checked = 0;
    for file in ["404.html", "robots.txt", "sitemap.xml", "favicon.ico", "datasets/eu-regulatory-status-signals.html"] {
        let plain = std::fs::read(packed.join(file)).expect("written");
        let mut gunzipped = Vec::new();
        let gz = std::fs::read(packed.join(format!("{file}.gz"))).expect("a .gz sibling");
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(gz.as_slice()), &mut gunzipped).expect("gzip");
        let mut unbrotlied = Vec::new();
        let br = std::fs::read(packed.join(format!("{file}.br"))).expect("a .br sibling");
        brotli::BrotliDecompress(&mut br.as_slice(), &mut unbrotlied).expect("brotli");
        assert!(gunzipped == plain && unbrotlied == plain, "{file}");
        checked += 1;
    }
    assert_eq!(checked, 5);
    let written = std::fs::read_dir(packed.join("datasets")).expect("a route folder").count();
    assert_eq!(written, 3, "a page and its two siblings");
    // Written again without --precompress: no stale sibling is left to be sent.
    let out = pages_into(&packed, &["--site-url", "https://shop.example/"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_dir(packed.join("datasets")).expect("a route folder").count(), 1, "the page alone");
    assert!(!packed.join("index.html.gz").exists() && !packed.join("index.html.br").exists());

    // A site under a path: its robots.txt is never read, and that is said.
    let prefixed = dir.join("prefixed");
    let out = pages_into(&prefixed, &["--site-url", "https://example.com/catalog"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("warning: the site https://example.com/catalog has a path (/catalog): crawlers read robots.txt only at https://example.com/robots.txt"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `serve` without a catalog and without `--site-url` names its own
/// address as the pages' canonical host, and says so; with `--site-url`
/// it says nothing of the kind.
#[test]
fn serve_names_its_own_address_as_the_canonical_host_only_with_a_warning() {
    for (site, warned) in [(None, true), (Some("https://catalog.example.com"), false)] {
        // A port of our own: on port 0 the address is not known when the pages are built.
        let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
        let addr = format!("127.0.0.1:{port}");
        let mut command = Command::new(BIN);
        command.args(["serve", "--addr", &addr]).args(site.map(|s| ["--site-url", s]).into_iter().flatten());
        let mut child = command.stderr(Stdio::piped()).stdout(Stdio::null()).spawn().expect("serve starts");
        let mut said = Vec::new();
        for line in BufReader::new(child.stderr.take().expect("stderr")).lines().map_while(Result::ok) {
            let serving = line.contains("serving http://");
            said.push(line);
            if serving {
                break;
            }
        }
        let _ = child.kill();
        let _ = child.wait();
        let said = said.join("\n");
        assert!(said.contains("serving http://"), "{said}");
        let warning = said.lines().find(|line| line.contains("own address as their canonical host"));
        assert_eq!(warning.is_some(), warned, "{said}");
        if let Some(warning) = warning {
            assert!(warning.contains(&format!("http://{addr}")) && warning.contains("--site-url"), "{warning}");
        }
    }
}

/// A served artifact file truncated and rewritten in place under load
/// (`cp new.fcat catalog.fcat`, where a deploy should `mv`): the server
/// never crashes and never sends a byte that is not a whole body matching
/// its ETag; a body it cannot check answers 503. With the old bytes back
/// in place, every response is whole and right again.
#[test]
fn an_artifact_rewritten_in_place_under_load_never_serves_an_unchecked_byte() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let dir = catalog_copy("in-place");
    let (file, other) = (dir.join("catalog.fcat"), dir.join("other.fcat"));
    retitle(&dir, "Another release, a body of another length");
    build_artifact(&dir, &other);
    std::fs::remove_file(dir.join("eu-regulatory-status-signals.json")).expect("remove");
    let first_dir = catalog_copy("in-place-first");
    build_artifact(&first_dir, &file);
    let _ = std::fs::remove_dir_all(&first_dir);
    let (first, second) = (std::fs::read(&file).expect("built"), std::fs::read(&other).expect("built"));
    // Nothing kept in memory: every request reads its body from the file.
    let server = Server::start(&["--catalog", &file.display().to_string(), "--body-cache-bytes", "0"]);
    let paths = [
        PRODUCT,
        "/api/public/foundry/products/crm-webhook-connector",
        "/api/public/foundry/products/lead-signal-extractor",
        "/datasets/eu-regulatory-status-signals",
    ];
    let done = AtomicBool::new(false);
    let (ok, unavailable) = (AtomicUsize::new(0), AtomicUsize::new(0));
    std::thread::scope(|scope| {
        for worker in 0..4 {
            let (done, ok, unavailable, server) = (&done, &ok, &unavailable, &server);
            scope.spawn(move || {
                let encoding = if worker % 2 == 0 { "" } else { "Accept-Encoding: gzip\r\n" };
                let mut n = worker;
                while !done.load(Ordering::Relaxed) {
                    let path = paths[n % paths.len()];
                    n += 1;
                    let mut stream = std::net::TcpStream::connect(server.addr).expect("connect");
                    stream
                        .write_all(format!("GET {path} HTTP/1.1\r\nHost: t\r\n{encoding}\r\n").as_bytes())
                        .expect("send");
                    let response = Response::read(&mut stream, false)
                        .unwrap_or_else(|e| panic!("{path}: {e}: a whole response, never a cut one"))
                        .expect("answered");
                    match response.status {
                        200 => {
                            let etag = response.headers.iter().find(|(name, _)| name == "etag").expect("an ETag");
                            let digest = format!("\"{}\"", hex(&sha2_digest(&response.body)));
                            assert_eq!(etag.1, digest, "{path}: a 200's body is the one its ETag names");
                            ok.fetch_add(1, Ordering::Relaxed);
                        }
                        503 => {
                            unavailable.fetch_add(1, Ordering::Relaxed);
                        }
                        status => panic!("{path}: {status}"),
                    }
                }
            });
        }
        // `cp` in place: truncated, then written in pieces; then cut in
        // half; then the first release written back; three times.
        let write_in_place = |bytes: &[u8]| {
            let mut out = std::fs::File::options().write(true).truncate(true).open(&file).expect("open in place");
            for piece in bytes.chunks(4096) {
                out.write_all(piece).expect("write");
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        };
        for _ in 0..3 {
            write_in_place(&second);
            std::thread::sleep(std::time::Duration::from_millis(100));
            let cut = std::fs::File::options().write(true).open(&file).expect("open");
            cut.set_len(second.len() as u64 / 2).expect("truncate");
            std::thread::sleep(std::time::Duration::from_millis(100));
            write_in_place(&first);
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        done.store(true, Ordering::Relaxed);
    });
    assert!(unavailable.load(Ordering::Relaxed) > 0, "some bodies could not be checked while rewritten");
    assert!(ok.load(Ordering::Relaxed) > 0, "some were served whole");
    for path in paths {
        assert_eq!(server.fetch(path).0, 200, "{path}: its bytes are back, and checked again");
    }
    let (_, metrics) = server.fetch("/metrics");
    assert!(!metrics.contains("foundry_catalog_body_reads_total{result=\"changed\"} 0\n"), "{metrics}");
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `build -o OUT` writes what it saw of each manifest to `OUT.stamps`, and
/// `build --previous OUT` then reads only the manifests whose length,
/// times or inode changed (or that changed within two seconds of that
/// build: git's racily clean files), with the same bytes as reading all.
#[test]
fn a_build_on_the_previous_reads_only_the_manifests_whose_stamp_changed() {
    let dir = catalog_copy("stat-cache");
    let work = temp("stat-cache-out");
    let path = |p: &Path| p.to_str().expect("utf-8").to_owned();
    // Settled: changed more than two seconds before the first build began.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let (first, second, full) = (work.join("first.fcat"), work.join("second.fcat"), work.join("full.fcat"));
    let build = |out: &Path, extra: &[&str]| -> String {
        let out = run(&[&["build", &path(&dir), "-o", &path(out)], extra].concat());
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stderr)
    };
    assert!(build(&first, &[]).contains("3 of 3 manifests read"));
    assert!(work.join("first.fcat.stamps").is_file(), "the stamps beside the artifact");
    retitle(&dir, "Edited after the first build");
    let stderr = build(&second, &["--previous", &path(&first)]);
    assert!(stderr.contains("(1 rendered, 1 compressed, 2 reused), 1 of 3 manifests read"), "{stderr}");
    // The previous artifact has the stamp its build recorded: its bodies are taken unread.
    assert!(stderr.contains("its bodies are taken unread"), "{stderr}");
    let stderr = build(&full, &["--previous", &path(&first), "--no-stat-cache"]);
    assert!(stderr.contains("3 of 3 manifests read"), "{stderr}");
    assert!(std::fs::read(&second).expect("built") == std::fs::read(&full).expect("built"), "the same bytes");
    assert!(!work.join("full.fcat.stamps").exists(), "--no-stat-cache writes none");

    // An edit that keeps the length and puts the modification time back
    // (as `cp -p` or `touch -r` do) still changes the change time: read.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    build(&first, &[]);
    let manifest = dir.join("crm-webhook-connector.json");
    let modified = std::fs::metadata(&manifest).and_then(|m| m.modified()).expect("mtime");
    let edited = std::fs::read_to_string(&manifest).expect("read").replacen("CRM", "Crm", 1);
    std::fs::write(&manifest, edited).expect("write");
    std::fs::File::options().write(true).open(&manifest).and_then(|f| f.set_modified(modified)).expect("touch -r");
    let stderr = build(&second, &["--previous", &path(&first)]);
    assert!(stderr.contains("1 of 3 manifests read"), "{stderr}");
    assert!(gzip_body_holding(&std::fs::read(&second).expect("built"), b"Crm").is_some(), "the edit is built");

    // Written into in place (a body of a product whose manifest did not
    // change): the file's stamp changed, so its bodies are checked again,
    // and the changed one is not taken but built again.
    let mut bytes = std::fs::read(&first).expect("read");
    let at = gzip_body_holding(&bytes, b"\"slug\":\"lead-signal-extractor\"").expect("a gzip body") + 20;
    bytes[at] ^= 0x01;
    std::fs::write(&first, &bytes).expect("written in place");
    let stderr = build(&second, &["--previous", &path(&first)]);
    assert!(!stderr.contains("taken unread"), "{stderr}");
    // The edited manifest and the product whose body changed.
    assert!(stderr.contains("(2 rendered, 2 compressed, 1 reused)"), "{stderr}");
    build(&full, &["--no-stat-cache"]);
    assert!(std::fs::read(&second).expect("built") == std::fs::read(&full).expect("built"), "as a full build");

    // Stamps that are not this artifact's, or do not read: every manifest is read.
    std::fs::write(work.join("first.fcat.stamps"), format!("foundry-catalog stamps 4\n{}", "0".repeat(64)))
        .expect("write");
    let stderr = build(&second, &["--previous", &path(&first)]);
    assert!(stderr.contains("note: not using") && stderr.contains("another artifact's"), "{stderr}");
    assert!(stderr.contains("3 of 3 manifests read"), "{stderr}");
    // Longer than the stamps of three manifests can be (16 KiB and 1 KiB
    // a manifest): refused unread.
    std::fs::write(work.join("first.fcat.stamps"), vec![b'\n'; (16 << 10) + (3 << 10) + 1]).expect("write");
    let stderr = build(&second, &["--previous", &path(&first)]);
    assert!(stderr.contains("note: not using") && stderr.contains("19457"), "{stderr}");
    assert!(stderr.contains("3 of 3 manifests read"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&work);
}

/// An expiry past what the clock can say is a usage error, never a panic.
#[test]
fn build_refuses_an_expiry_past_any_time_with_a_clear_error() {
    let dir = temp("expires-in");
    let out = run(&[
        "build",
        "examples/catalog",
        "-o",
        &dir.join("c.fcat").display().to_string(),
        "--expires-in",
        "100000000000000s",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("past any time this clock can say"), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A state folder or a key folder holding a FIFO, or a link to
/// `/dev/zero`, where the server reads a file of its own (the highest
/// sequence served) or a verify key: the server refuses to start with one
/// line naming the file and what it is, at once, never waiting on the
/// FIFO or reading the device.
#[test]
fn a_fifo_or_a_device_in_the_state_or_key_folder_is_refused_at_once() {
    let work = temp("state-fifo");
    let mkfifo = |path: &Path| {
        assert!(Command::new("mkfifo").arg(path).status().expect("mkfifo runs").success());
    };
    let artifact = work.join("catalog.fcat");
    let artifact = artifact.to_str().expect("utf-8");
    assert_eq!(run(&["build", "examples/catalog", "-o", artifact]).status.code(), Some(0));
    let serve = |extra: &[&str]| -> String {
        let started = std::time::Instant::now();
        let out = run(&[&["serve", "--addr", "127.0.0.1:0", "--catalog", artifact][..], extra].concat());
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "refused at once");
        assert_ne!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stderr)
    };
    let state = work.join("state");
    std::fs::create_dir_all(&state).expect("state folder");
    let sequence = state.join("highest-sequence");
    mkfifo(&sequence);
    let stderr = serve(&["--state-dir", state.to_str().expect("utf-8")]);
    assert!(stderr.contains("highest-sequence: cannot read: a FIFO"), "{stderr}");
    std::fs::remove_file(&sequence).expect("remove");
    std::os::unix::fs::symlink("/dev/zero", &sequence).expect("link");
    let stderr = serve(&["--state-dir", state.to_str().expect("utf-8")]);
    assert!(stderr.contains("highest-sequence: cannot read: a symbolic link"), "{stderr}");
    // Not a number: refused, never read as "no sequence" (which would
    // trust any rollback).
    std::fs::remove_file(&sequence).expect("remove");
    std::fs::write(&sequence, "eight\n").expect("write");
    let stderr = serve(&["--state-dir", state.to_str().expect("utf-8")]);
    assert!(stderr.contains("highest-sequence: not a sequence number and a content digest (\"eight\\n\")"), "{stderr}");

    let keys = work.join("keys");
    std::fs::create_dir_all(&keys).expect("key folder");
    mkfifo(&keys.join("a.pub"));
    let stderr = serve(&["--verify-key-dir", keys.to_str().expect("utf-8")]);
    assert!(stderr.contains("a.pub") && stderr.contains("a FIFO: only a regular file is read"), "{stderr}");
    std::fs::remove_file(keys.join("a.pub")).expect("remove");
    // A key may be a link (container secrets are mounted so): followed,
    // and what it leads to is judged.
    std::os::unix::fs::symlink("/dev/zero", keys.join("a.pub")).expect("link");
    let stderr = serve(&["--verify-key-dir", keys.to_str().expect("utf-8")]);
    assert!(stderr.contains("a.pub") && stderr.contains("a device: only a regular file is read"), "{stderr}");
    let _ = std::fs::remove_dir_all(&work);
}

/// The README's exit codes: a manifest that is not JSON is input that
/// cannot be parsed (2) for `render`, `build` and `pages` alike; one that
/// parses and breaks the spec is 1.
#[test]
fn a_manifest_that_is_not_json_exits_2_and_one_that_breaks_the_spec_exits_1() {
    for (name, manifest, code) in [("syntax", "{\"slug\": \"x\",", 2), ("spec", "{\"slug\": \"x\"}", 1)] {
        let dir = temp(&format!("exit-{name}"));
        let manifests = dir.join("manifests");
        std::fs::create_dir_all(&manifests).expect("folder");
        std::fs::write(manifests.join("x.json"), manifest).expect("written");
        let path = |p: &Path| p.to_str().expect("utf-8").to_owned();
        let (file, out, site) = (path(&manifests.join("x.json")), path(&dir.join("o.fcat")), path(&dir.join("site")));
        for args in [
            vec!["render", file.as_str()],
            vec!["build", manifests.to_str().expect("utf-8"), "-o", out.as_str()],
            vec!["pages", manifests.to_str().expect("utf-8"), "--out-dir", site.as_str()],
        ] {
            let output = run(&args);
            assert_eq!(output.status.code(), Some(code), "{name}: {args:?}: {}", text(&output.stderr));
            assert!(text(&output.stderr).contains("x.json"), "the error names the file");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    // An artifact file that is not there cannot be read: 2.
    let dir = temp("exit-missing");
    let (missing, out) = (dir.join("missing.fcat"), dir.join("site"));
    let output = run(&["pages", missing.to_str().expect("utf-8"), "--out-dir", out.to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A key twice in one object of a body is refused by `check` (the
/// generated types refuse it; a parsed value would keep one silently).
#[test]
fn check_refuses_a_key_twice_in_one_object() {
    let dir = temp("duplicate-key");
    let rendered = run(&["render", "examples/catalog/eu-regulatory-status-signals.json"]);
    let body = text(&rendered.stdout);
    let twice = body.replacen("\"slug\":", "\"slug\": \"other\", \"slug\":", 1);
    assert_ne!(twice, body, "the body has a slug key");
    std::fs::write(dir.join("twice.json"), &twice).expect("written");
    let out = run(&["check", dir.join("twice.json").to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("/data/slug: [duplicate_key]"), "{}", text(&out.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--site-name` and `--site-language` reach every page `pages` writes,
/// from manifests and from an artifact alike, and a build's pages: a
/// build on an artifact made under another name renders every page again.
#[test]
fn a_site_is_built_under_its_name_and_in_its_language() {
    let dir = temp("site-name");
    let artifact = dir.join("catalog.fcat");
    let site = ["--site-url", "https://katalog.example", "--site-name", "Katalog", "--site-language", "he-IL"];
    let build = |output: &Path, previous: Option<&Path>, flags: &[&str]| {
        let mut args = vec!["build", "examples/catalog", "-o", output.to_str().expect("utf-8")];
        if let Some(previous) = previous {
            args.extend(["--previous", previous.to_str().expect("utf-8")]);
        }
        args.extend(flags);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stderr)
    };
    build(&artifact, None, &site);
    for (name, source) in [("from-artifact", artifact.to_str().expect("utf-8")), ("from-dir", "examples/catalog")] {
        let out_dir = dir.join(name);
        let mut args = vec!["pages", source, "--out-dir", out_dir.to_str().expect("utf-8")];
        args.extend(site);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    for file in ["index.html", "datasets.html", "actors/lead-signal-extractor.html", "404.html"] {
        let stored = std::fs::read_to_string(dir.join("from-artifact").join(file)).expect("written from the artifact");
        let written = std::fs::read_to_string(dir.join("from-dir").join(file)).expect("written from the folder");
        assert_eq!(stored, written, "{file}");
        assert!(stored.contains(r#"<html lang="he-IL" dir="rtl">"#), "{file}: {stored}");
        assert!(stored.contains(r#"<meta property="og:site_name" content="Katalog">"#), "{file}");
        assert!(stored.contains(r#"<meta property="og:locale" content="he_IL">"#), "{file}");
    }
    let home = std::fs::read_to_string(dir.join("from-dir/index.html")).expect("home");
    assert!(home.contains("<h1>Katalog</h1>") && home.contains(r#""name":"Katalog","inLanguage":"he-IL""#), "{home}");
    // The same site again renders nothing; under another name, every page.
    let same = build(&dir.join("same.fcat"), Some(&artifact), &site);
    assert!(same.contains("(0 rendered, 0 compressed, 3 reused)"), "{same}");
    let renamed = build(&dir.join("renamed.fcat"), Some(&artifact), &[&site[..3], &["Catalogue"], &site[4..]].concat());
    assert!(renamed.contains("not building on") && renamed.contains("(3 rendered"), "{renamed}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A dataset with a short description, and two products with one title,
/// are built, each warned about by its manifest's path: by `build`, and
/// by `pages` from the folder; a build without pages judges no page.
#[test]
fn build_and_pages_warn_about_a_short_dataset_description_and_a_shared_title() {
    let dir = temp("warnings");
    let catalog = dir.join("catalog");
    std::fs::create_dir_all(&catalog).expect("a folder");
    for entry in std::fs::read_dir(repo().join("examples/catalog")).expect("the examples") {
        let path = entry.expect("an entry").path();
        let mut manifest: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("a manifest")).expect("JSON");
        match manifest["route"].as_str() {
            Some("datasets") => manifest["seo"]["description"] = "Ten chars.".into(),
            Some("actors") => manifest["title"] = "CRM Webhook Connector".into(),
            _ => {}
        }
        std::fs::write(catalog.join(path.file_name().expect("a name")), manifest.to_string()).expect("written");
    }
    let catalog = catalog.to_str().expect("utf-8");
    let short = format!(
        "warning: {catalog}/eu-regulatory-status-signals.json: its seo.description, its Dataset's description, is 10 characters"
    );
    let shared = [
        format!(
            "warning: {catalog}/lead-signal-extractor.json: its title is also the title of {catalog}/crm-webhook-connector.json;"
        ),
        format!(
            "warning: {catalog}/crm-webhook-connector.json: its title is also the title of {catalog}/lead-signal-extractor.json;"
        ),
    ];
    let artifact = dir.join("catalog.fcat");
    let built =
        run(&["build", catalog, "-o", artifact.to_str().expect("utf-8"), "--site-url", "https://catalog.example.com"]);
    let pages = run(&["pages", catalog, "--out-dir", dir.join("site").to_str().expect("utf-8")]);
    for out in [&built, &pages] {
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains(&short), "{stderr}");
        for line in &shared {
            assert!(stderr.contains(line.as_str()), "{line}\n{stderr}");
        }
    }
    let bare = run(&["build", catalog, "-o", dir.join("bare.fcat").to_str().expect("utf-8"), "--no-pages"]);
    assert_eq!(bare.status.code(), Some(0), "{}", text(&bare.stderr));
    assert!(!text(&bare.stderr).contains("warning: "), "{}", text(&bare.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

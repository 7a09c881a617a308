//! `foundry-catalog`: the command-line tool of foundry-catalog.
//!
//! ```text
//! foundry-catalog preview <record_label> [--slug S] [--refreshed-at T] [--actor-manifest scheme/publisher]
//! foundry-catalog render <manifest.json>… [--out-dir DIR]
//! foundry-catalog check <file-or-url>…
//! foundry-catalog schemas [--dir schema] [--check]
//! foundry-catalog build <MANIFEST_DIR> (-o <FILE> | --check) [--previous <FILE>] [--sign-key <NAME.key>]
//! foundry-catalog pages <MANIFEST_DIR|FILE> --out-dir <OUT> [--site-url URL] [--templates DIR]
//! foundry-catalog keygen --out <NAME>
//! foundry-catalog serve [--addr 127.0.0.1:8080] [--catalog DIR|FILE] [--verify-key <NAME.pub>]
//! foundry-catalog diff <OLD> <NEW> | --base <REV> <NEW> [--mode backward|forward|full] [--format text|json]
//! ```
//!
//! Exit codes: 0 success; 1 the input breaks the spec (or a schema file is
//! stale); 2 a usage error or input that cannot be read. Results go to
//! stdout, errors to stderr.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod build;
mod check;
mod diff;
mod keygen;
mod pages;
mod preview;
mod record_types;
mod render;
mod schemas;
mod serve;

/// Exit code: the input breaks the spec, or a schema file is stale.
const BROKEN: u8 = 1;
/// Exit code: a usage error, or input that cannot be read or parsed.
const USAGE: u8 = 2;

/// Preview, render, check and serve public product-catalog records.
#[derive(Debug, Parser)]
#[command(name = "foundry-catalog", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Preview(preview::Args),
    Render(render::Args),
    Check(check::Args),
    Build(build::Args),
    Pages(pages::Args),
    Keygen(keygen::Args),
    Schemas(schemas::Args),
    Serve(serve::Args),
    Diff(diff::Args),
}

fn main() -> ExitCode {
    match parse().command {
        Command::Preview(args) => preview::run(&args),
        Command::Render(args) => render::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Build(args) => build::run(&args),
        Command::Pages(args) => pages::run(&args),
        Command::Keygen(args) => keygen::run(&args),
        Command::Schemas(args) => schemas::run(&args),
        Command::Serve(args) => serve::run(args),
        Command::Diff(args) => diff::run(&args),
    }
}

/// `println!` for results: a reader that goes away (`| head`) ends the
/// process quietly, as a closed pipe ends `cat`, instead of a panic.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::write_out(::std::format_args!($($arg)*), "\n")
    };
}
pub(crate) use outln;

/// `print!` for results, as [`outln!`] without the newline.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::write_out(::std::format_args!($($arg)*), "")
    };
}
pub(crate) use out;

/// Writes to stdout; exits 0 when the reader has gone, 2 on another error.
fn write_out(text: std::fmt::Arguments<'_>, end: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(text).and_then(|()| stdout.write_all(end.as_bytes())) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write the output: {e}");
            std::process::exit(i32::from(USAGE));
        }
        std::process::exit(0);
    }
}

/// A usage error clap cannot see (two arguments that only go together
/// through a setting): `error: <message>`, the usage, exit code 2.
fn usage_error(message: &str) -> ExitCode {
    use clap::CommandFactory;
    Cli::command().error(clap::error::ErrorKind::MissingRequiredArgument, message).exit()
}

/// The command line, parsed. Help shows each setting's environment
/// variable by name (`[env: FOUNDRY_CATALOG_SITE_URL]`), never its value:
/// an unset one would read `X=`, and a set one could be a secret's path.
fn parse() -> Cli {
    use clap::{CommandFactory, FromArgMatches};
    fn names_only(command: clap::Command) -> clap::Command {
        command.mut_args(|arg| arg.hide_env_values(true)).mut_subcommands(names_only)
    }
    // Help wraps to the terminal, and to 100 columns where there is none
    // (a pipe, a file) or it is wider: lines a person reads whole.
    let matches = names_only(Cli::command().max_term_width(100)).get_matches();
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let (Command::Serve(args), Some(("serve", serve))) = (&mut cli.command, matches.subcommand()) {
        args.settle_port(serve);
    }
    cli
}

/// Prints `error: <message>` to stderr and returns `code`.
fn fail(code: u8, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(code)
}

/// Prints a catalog's problems and gives their exit code: [`USAGE`] when
/// a file (a manifest, an artifact) cannot be read or a manifest is not
/// JSON, else [`BROKEN`].
fn catalog_failed(errors: &foundry_catalog_serving::catalog::CatalogErrors) -> ExitCode {
    use foundry_catalog_serving::artifact::ArtifactError;
    use foundry_catalog_serving::catalog::CatalogError;
    eprintln!("{errors}");
    let unreadable = errors.errors.iter().any(|e| {
        matches!(
            e,
            CatalogError::Read { .. }
                | CatalogError::Manifest { .. }
                | CatalogError::Artifact { error: ArtifactError::Read(_), .. }
        )
    });
    ExitCode::from(if unreadable { USAGE } else { BROKEN })
}

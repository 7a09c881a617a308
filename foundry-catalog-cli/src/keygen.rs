//! `foundry-catalog keygen`: an Ed25519 key pair for signing artifacts.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use foundry_catalog_serving::signing::SigningKey;

use crate::{USAGE, fail};

/// Make an Ed25519 key pair for signing catalog artifacts.
///
/// Writes NAME.key, the secret key (PKCS#8 PEM, mode 0600: for `build
/// --sign-key`, kept where the builds run and out of the repository), and
/// NAME.pub, its verify key (SubjectPublicKeyInfo PEM: for `serve
/// --verify-key` on every replica). Both are the PEM files OpenSSL reads
/// and writes. Existing files are never overwritten.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The key pair's name: NAME.key and NAME.pub are written.
    #[arg(long, value_name = "NAME")]
    out: PathBuf,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let mut seed = [0; 32];
    if let Err(e) = getrandom::fill(&mut seed) {
        return fail(USAGE, format!("cannot get random bytes from the operating system: {e}"));
    }
    let key = SigningKey::from_seed(seed);
    let (secret, public) = (with_extension(&args.out, "key"), with_extension(&args.out, "pub"));
    for file in [&secret, &public] {
        if file.exists() {
            return fail(
                USAGE,
                format!("{}: already exists; hint: choose another --out, or remove it", file.display()),
            );
        }
    }
    let written = write_new(&secret, key.to_pem().as_bytes(), 0o600)
        .and_then(|()| write_new(&public, key.verify_key().to_pem().as_bytes(), 0o644));
    if let Err((file, e)) = written {
        return fail(USAGE, format!("{}: cannot write: {e}", file.display()));
    }
    eprintln!(
        "wrote {} (secret: keep it out of the repository) and {}, key {}",
        secret.display(),
        public.display(),
        key.verify_key().fingerprint()
    );
    ExitCode::SUCCESS
}

/// `NAME.extension`, keeping any dots in NAME.
fn with_extension(name: &Path, extension: &str) -> PathBuf {
    let mut file = name.as_os_str().to_owned();
    file.push(".");
    file.push(extension);
    PathBuf::from(file)
}

/// Creates `file` (never replacing one) with `mode` and writes `bytes`.
fn write_new<'a>(file: &'a Path, bytes: &[u8], mode: u32) -> Result<(), (&'a Path, std::io::Error)> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(file)
        .and_then(|mut out| out.write_all(bytes).and_then(|()| out.sync_all()))
        .map_err(|e| (file, e))
}

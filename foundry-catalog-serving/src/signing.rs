//! Ed25519 keys for signing artifacts and verifying them (the `signing`
//! feature), so a replica serves only what its builder signed.
//!
//! Keys are PEM files as OpenSSL writes them: a secret key is PKCS#8
//! (`-----BEGIN PRIVATE KEY-----`), a verify key SubjectPublicKeyInfo
//! (`-----BEGIN PUBLIC KEY-----`); `openssl genpkey -algorithm ed25519`
//! makes one, `openssl pkey -pubout` its verify key. What a signature
//! covers is in [`crate::artifact`].
//!
//! ```
//! use foundry_catalog_serving::catalog::Builder;
//! use foundry_catalog_serving::signing::SigningKey;
//! let sources = foundry_catalog::examples::MANIFESTS.iter().map(|(name, text)| (name.to_string(), text.to_string()));
//! let key = SigningKey::from_seed([7; 32]);
//! let mut catalog = Builder::new().build(sources).unwrap();
//! catalog.sign(&key);
//! let copied = foundry_catalog_serving::artifact::Artifact::parse(catalog.artifact().to_vec().into()).unwrap();
//! copied.verify(&key.verify_key()).unwrap();
//! let other = SigningKey::from_seed([8; 32]).verify_key();
//! assert!(copied.verify(&other).unwrap_err().to_string().contains("not by a verify key"));
//! ```

use std::fmt;
use std::path::Path;

use ed25519_compact::{KeyPair, PublicKey, Seed};
use sha2::{Digest, Sha256};

use crate::artifact::{Artifact, ArtifactError, Signature, Summary};

/// A secret key that signs artifacts (`foundry-catalog build --sign-key`).
#[derive(Clone)]
pub struct SigningKey(KeyPair);

/// A public key that verifies artifacts (`foundry-catalog serve --verify-key`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct VerifyKey(PublicKey);

/// A key file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {reason}")]
pub struct KeyError {
    /// The file.
    pub file: String,
    /// Why.
    pub reason: String,
}

impl SigningKey {
    /// The key whose RFC 8032 seed is `seed` (32 random bytes: `keygen`
    /// takes them from the operating system).
    pub fn from_seed(seed: [u8; 32]) -> SigningKey {
        SigningKey(KeyPair::from_seed(Seed::new(seed)))
    }

    /// Reads a PKCS#8 PEM secret key.
    pub fn from_pem(text: &str) -> Result<SigningKey, String> {
        KeyPair::from_pem(text).map(SigningKey).map_err(|e| {
            format!(
                "not an Ed25519 secret key in PKCS#8 PEM ({e}); hint: make one with `foundry-catalog keygen --out NAME`"
            )
        })
    }

    /// Reads a secret key file ([`SigningKey::from_pem`]).
    pub fn read(path: &Path) -> Result<SigningKey, KeyError> {
        read(path, SigningKey::from_pem)
    }

    /// The secret key as PKCS#8 PEM (keep it secret: mode 0600).
    pub fn to_pem(&self) -> String {
        self.0.sk.to_pem()
    }

    /// The key that verifies what this one signs.
    pub fn verify_key(&self) -> VerifyKey {
        VerifyKey(self.0.pk)
    }
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the secret.
        write!(f, "SigningKey({})", self.verify_key().fingerprint())
    }
}

impl VerifyKey {
    /// Reads a SubjectPublicKeyInfo PEM public key; weak and
    /// non-canonical keys are refused.
    pub fn from_pem(text: &str) -> Result<VerifyKey, String> {
        let key = PublicKey::from_pem(text).map_err(|e| {
            format!("not an Ed25519 public key in PEM ({e}); hint: pass the .pub file `foundry-catalog keygen` wrote")
        })?;
        key.validate().map_err(|e| format!("not a usable Ed25519 public key: {e}"))?;
        Ok(VerifyKey(key))
    }

    /// Reads a public key file ([`VerifyKey::from_pem`]).
    pub fn read(path: &Path) -> Result<VerifyKey, KeyError> {
        read(path, VerifyKey::from_pem)
    }

    /// The public key as PEM.
    pub fn to_pem(&self) -> String {
        self.0.to_pem()
    }

    /// A short name for the key in messages: `SHA256:` and the first 16
    /// hex digits of the SHA-256 of its 32 bytes.
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.0)
    }
}

impl fmt::Debug for VerifyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VerifyKey({})", self.fingerprint())
    }
}

fn fingerprint(key: &[u8; 32]) -> String {
    format!("SHA256:{}", &hex::encode(Sha256::digest(key).as_slice())[..16])
}

/// The most a key file may hold: a PEM key is about 120 bytes.
const MAX_KEY_FILE_LEN: u64 = 64 << 10;

/// Reads a key file as every file from outside is read
/// ([`crate::files::read_bounded`]: a regular file, opened without
/// waiting, at most [`MAX_KEY_FILE_LEN`] bytes; a link is followed, as
/// keys mounted as container secrets are links).
fn read<K>(path: &Path, parse: fn(&str) -> Result<K, String>) -> Result<K, KeyError> {
    let file = path.display().to_string();
    let bytes = crate::files::read_bounded(path, MAX_KEY_FILE_LEN, true)
        .map_err(|e| KeyError { file: file.clone(), reason: e.to_string() })?
        .0;
    let text =
        String::from_utf8(bytes).map_err(|_| KeyError { file: file.clone(), reason: "not UTF-8 text".to_owned() })?;
    parse(&text).map_err(|reason| KeyError { file, reason })
}

impl Signature {
    /// The signer's key fingerprint, as [`VerifyKey::fingerprint`] names it.
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.public_key)
    }
}

/// `signature` and the key of `keys` that it names, before anything is
/// hashed: none, or another key's, is refused at once.
fn trusted(signature: Option<Signature>, keys: &[VerifyKey]) -> Result<(Signature, &VerifyKey), ArtifactError> {
    let expected = || keys.iter().map(VerifyKey::fingerprint).collect::<Vec<_>>().join(", ");
    let Some(signature) = signature else {
        return Err(ArtifactError::Unsigned { expected: expected() });
    };
    let Some(key) = keys.iter().find(|key| signature.public_key == *key.0) else {
        return Err(ArtifactError::WrongKey { found: fingerprint(&signature.public_key), expected: expected() });
    };
    Ok((signature, key))
}

#[cfg_attr(docsrs, doc(cfg(feature = "signing")))]
impl Summary {
    /// Checks that one of `keys` signed the artifact this summary begins
    /// (the signature over its metadata and block list), before anything
    /// else of it is read or fetched: the block list then names a digest
    /// for every block of the head, each checked as it is used.
    pub fn verify_any(&self, keys: &[VerifyKey]) -> Result<(), ArtifactError> {
        let ([metadata_json, block_list], signature) = &self.signed;
        let (signature, key) = trusted(*signature, keys)?;
        let version = crate::artifact::FORMAT_VERSION.to_le_bytes();
        let message = crate::artifact::signed_message(&version, [metadata_json, block_list]);
        let signed = ed25519_compact::Signature::new(signature.signature);
        key.0.verify(message, &signed).map_err(|_| ArtifactError::BadSignature)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "signing")))]
impl Artifact {
    /// Its signature and the key of `keys` that it names, before anything
    /// is hashed: an unsigned artifact, or one signed by another key, is
    /// refused at once.
    pub(crate) fn signer_trusted<'k>(
        &self,
        keys: &'k [VerifyKey],
    ) -> Result<(Signature, &'k VerifyKey), ArtifactError> {
        trusted(self.signature, keys)
    }

    /// Signs the artifact with `key` (replacing any signature it had).
    /// Ed25519 signatures are deterministic: the same artifact and key
    /// give the same bytes.
    pub fn sign(&mut self, key: &SigningKey) {
        let signature = key.0.sk.sign(self.signed_message(), None);
        self.signature = Some(Signature { public_key: *key.0.pk, signature: *signature });
    }

    /// Checks that `key` signed this artifact and that nothing it covers
    /// changed since ([`Artifact::verify_any`] with one key).
    pub fn verify(&self, key: &VerifyKey) -> Result<(), ArtifactError> {
        self.verify_any(std::slice::from_ref(key))
    }

    /// Checks that one of `keys` signed this artifact (the one its
    /// signature names: several keys are trusted at once while a key is
    /// rotated) and that nothing it covers changed since: the signature
    /// over the metadata and the block list, then each block of the head
    /// against its digest, then every body against its ETag (on all
    /// cores; for an artifact whose bodies are in a file, [`Artifact::open`],
    /// each as a catalog reads it instead; the content digest, which names
    /// every slug and ETag, is checked when a catalog is loaded, and the
    /// index's lengths, which place every byte, when the artifact is read).
    pub fn verify_any(&self, keys: &[VerifyKey]) -> Result<(), ArtifactError> {
        let (signature, key) = self.signer_trusted(keys)?;
        let signed = ed25519_compact::Signature::new(signature.signature);
        key.0.verify(self.signed_message(), &signed).map_err(|_| ArtifactError::BadSignature)?;
        // A head read a block at a time checks each block, and each body,
        // when it is first used.
        if self.is_lazy() {
            return Ok(());
        }
        // The signature covers the block list, which names the index and the table.
        self.check_blocks()?;
        // Bodies left in their file are checked as they are read; a head
        // alone has none to check.
        if self.holds_bodies() { self.check_bodies() } else { Ok(()) }
    }
}

//! Signed artifacts: a verify key accepts what its signing key signed and
//! refuses everything else, naming why.

use bytes::Bytes;
use foundry_catalog_serving::artifact::{Artifact, ArtifactError};
use foundry_catalog_serving::catalog::{Builder, ContentCoding, ResponseCatalog};
use foundry_catalog_serving::signing::{SigningKey, VerifyKey};

use crate::catalog::with_checksum;

fn examples() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/catalog")
}

/// The example catalog (identity only, to keep it small), signed by `key`.
fn signed(key: &SigningKey) -> Vec<u8> {
    let builder = Builder::new().codings(&[ContentCoding::Identity]).expect("identity");
    let mut catalog = builder.build_dir(&examples()).expect("builds");
    catalog.sign(key);
    catalog.artifact().to_vec()
}

/// Parses, verifies and loads, as `serve --verify-key` does.
fn open(bytes: &[u8], key: &VerifyKey) -> Result<ResponseCatalog, ArtifactError> {
    let artifact = Artifact::parse(Bytes::copy_from_slice(bytes))?;
    artifact.verify(key)?;
    ResponseCatalog::from_artifact(artifact)
}

#[test]
fn a_signed_artifact_verifies_with_its_key_and_signing_is_deterministic() {
    let key = SigningKey::from_seed([1; 32]);
    let bytes = signed(&key);
    assert_eq!(bytes, signed(&key), "the same artifact and key give the same bytes");
    let catalog = open(&bytes, &key.verify_key()).expect("verifies");
    assert_eq!(catalog.len(), 3);
    // RFC 8032, section 7.1, TEST 1: the public key of this secret key.
    let rfc = hex::decode("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60").expect("hex");
    let mut artifact = Artifact::parse(Bytes::from(bytes)).expect("parses");
    artifact.sign(&SigningKey::from_seed(rfc.try_into().expect("32 bytes")));
    let public = artifact.signature().map(|s| hex::encode(s.public_key));
    assert_eq!(public.as_deref(), Some("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"));
}

#[test]
fn unsigned_artifacts_and_other_keys_are_refused_by_name() {
    let key = SigningKey::from_seed([1; 32]);
    let other = SigningKey::from_seed([2; 32]).verify_key();
    let error = open(&signed(&key), &other).expect_err("another key");
    let ArtifactError::WrongKey { found, expected } = &error else { panic!("{error}") };
    assert_eq!((found.as_str(), expected.as_str()), (&*key.verify_key().fingerprint(), &*other.fingerprint()));
    assert!(error.to_string().contains("not by a verify key"), "{error}");

    let unsigned = Builder::new().build_dir(&examples()).expect("builds").artifact().to_vec();
    let error = open(&unsigned, &key.verify_key()).expect_err("unsigned");
    assert!(matches!(error, ArtifactError::Unsigned { .. }), "{error}");
}

/// Every byte of a signed artifact matters: changed, with the CRC-32
/// fixed up so only the signature and the digests can tell, the file is
/// refused (the CRC field itself is what is fixed up).
#[test]
fn any_changed_byte_of_a_signed_artifact_is_refused() {
    let key = SigningKey::from_seed([1; 32]);
    let bytes = signed(&key);
    let verify = key.verify_key();
    let mut refusals = std::collections::BTreeMap::<String, usize>::new();
    for at in (0..bytes.len()).filter(|at| !(12..16).contains(at)) {
        let mut changed = bytes.clone();
        changed[at] ^= 0x04;
        let error = open(&with_checksum(changed), &verify).expect_err(&format!("byte {at} changed"));
        let kind = format!("{error:?}");
        *refusals.entry(kind.split([' ', '(', '{']).next().unwrap_or_default().to_owned()).or_default() += 1;
    }
    // Each layer catches its part: the header's fields, the signature over
    // metadata and block list, the blocks and the bodies against their ETags, the slugs and
    // ETags against the signed content digest.
    for kind in ["Length", "BadSignature", "Body", "Malformed"] {
        assert!(refusals.contains_key(kind), "{kind} never refused: {refusals:?}");
    }
}

#[test]
fn keys_round_trip_through_pem_and_bad_key_files_say_what_they_are_not() {
    let key = SigningKey::from_seed([3; 32]);
    let again = SigningKey::from_pem(&key.to_pem()).expect("reads its own PEM");
    assert_eq!(again.verify_key(), key.verify_key());
    assert_eq!(VerifyKey::from_pem(&key.verify_key().to_pem()).expect("reads"), key.verify_key());
    assert!(key.to_pem().starts_with("-----BEGIN PRIVATE KEY-----\n"));
    assert!(key.verify_key().to_pem().starts_with("-----BEGIN PUBLIC KEY-----\n"));
    let error = VerifyKey::from_pem(&key.to_pem()).expect_err("a secret key is not a verify key");
    assert!(error.contains("not an Ed25519 public key"), "{error}");
    let error = SigningKey::from_pem(&key.verify_key().to_pem()).expect_err("a verify key is not a secret key");
    assert!(error.contains("keygen"), "{error}");
    assert!(!format!("{key:?}").contains(&key.to_pem()[28..40]), "Debug never shows the secret");
}

/// Bytes appended to the data region, with the data length and the CRC
/// fixed up to match: no product points to them, so the artifact is
/// refused, verified or not (the signature covers the metadata and the
/// index, and the products must tile the data region).
#[test]
fn bytes_appended_to_the_data_region_are_refused_even_with_a_valid_signature() {
    let key = SigningKey::from_seed([3; 32]);
    let mut bytes = signed(&key);
    bytes.extend_from_slice(b"<script>appended</script>");
    // The bodies' length, the last of the header's (version 5).
    let data_len = u64::from_le_bytes(bytes[64..72].try_into().expect("8 bytes")) + 25;
    bytes[64..72].copy_from_slice(&data_len.to_le_bytes());
    let bytes = with_checksum(bytes);
    let error = open(&bytes, &key.verify_key()).expect_err("appended bytes");
    assert!(error.to_string().contains("25 bytes at the end of the data region belong to no product"), "{error}");
    let unverified = Artifact::parse(Bytes::from(bytes)).and_then(ResponseCatalog::from_artifact);
    assert!(unverified.is_err(), "refused when loaded without a key too");
}

/// While a key is rotated, a replica trusts the old and the new one: an
/// artifact signed by either verifies, one signed by neither is refused
/// naming both.
#[test]
fn any_of_several_verify_keys_accepts_what_it_signed() {
    let (old, new, other) =
        (SigningKey::from_seed([4; 32]), SigningKey::from_seed([5; 32]), SigningKey::from_seed([6; 32]));
    let keys = [old.verify_key(), new.verify_key()];
    for key in [&old, &new] {
        let artifact = Artifact::parse(Bytes::from(signed(key))).expect("parses");
        artifact.verify_any(&keys).expect("signed by a trusted key");
    }
    let artifact = Artifact::parse(Bytes::from(signed(&other))).expect("parses");
    let error = artifact.verify_any(&keys).expect_err("signed by another key").to_string();
    assert!(error.contains(&keys[0].fingerprint()) && error.contains(&keys[1].fingerprint()), "{error}");
    // No key trusts nothing: a signed artifact is not verified by an empty list.
    let artifact = Artifact::parse(Bytes::from(signed(&old))).expect("parses");
    assert!(matches!(artifact.verify_any(&[]), Err(ArtifactError::WrongKey { .. })));
}

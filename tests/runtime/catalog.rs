//! The pre-built response catalog: building from folders and manifests.

use foundry_catalog::catalog::ResponseCatalog;

#[test]
fn a_bad_catalog_fails_at_start_naming_the_file() {
    let dir = std::env::temp_dir().join(format!("foundry-catalog-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("broken-product.json"), "{\"slug\": \"broken-product\"").expect("write");
    let errors = ResponseCatalog::from_dir(&dir).expect_err("a broken manifest").to_string();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(errors.contains("broken-product.json:1:"), "{errors}");
}

#[test]
fn duplicate_slugs_name_both_files() {
    let (file, text) = (
        "examples/catalog/crm-webhook-connector.json",
        include_str!("../../examples/catalog/crm-webhook-connector.json"),
    );
    let errors = ResponseCatalog::from_manifests([
        (file.to_owned(), text.to_owned()),
        ("elsewhere/crm-webhook-connector.json".to_owned(), text.to_owned()),
    ])
    .expect_err("duplicate")
    .to_string();
    assert_eq!(
        errors,
        "error: elsewhere/crm-webhook-connector.json: slug `crm-webhook-connector` is also served from examples/catalog/crm-webhook-connector.json; hint: give every product its own slug"
    );
}

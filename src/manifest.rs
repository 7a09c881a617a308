//! Reading a product manifest and building its record.
//!
//! The manifest's keys are declared with the record in [`crate::product`]
//! ([`ProductManifest`]). Reading types the manifest, and when it does not
//! fit, reports every structural problem at once
//! ([`crate::conformance::validate_manifest`]); building derives
//! everything else and checks the record against every rule of the spec.

use std::fmt;

use serde_json::Value;

use crate::RecordSchema;
use crate::conformance::{Rule, Violation, Violations};
use crate::preview::{ManifestLocation, ProductContext, Sample, SchemaPreview};
use crate::product::{ProductManifest, ProductRecord};
use crate::response::ProductResponse;

/// Why a manifest could not be read.
#[derive(Debug)]
pub enum ManifestError {
    /// The text is not JSON.
    Syntax(serde_json::Error),
    /// The JSON breaks the manifest format; every problem, with pointers.
    Invalid(Violations),
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Syntax(e) => write!(f, "not JSON: {e}"),
            ManifestError::Invalid(violations) => write!(f, "{violations}"),
        }
    }
}

impl std::error::Error for ManifestError {}

impl ProductManifest {
    /// Reads a manifest from JSON text: syntax first, then every structural
    /// problem at once.
    pub fn from_json(text: &str) -> Result<ProductManifest, ManifestError> {
        // The typed model straight from the text; only a manifest that
        // does not fit it is read again as a tree, to report every problem.
        match serde_json::from_str(text) {
            Ok(manifest) => Ok(manifest),
            Err(e) if e.is_syntax() || e.is_eof() || e.is_io() => Err(ManifestError::Syntax(e)),
            Err(_) => {
                let value: Value = serde_json::from_str(text).map_err(ManifestError::Syntax)?;
                ProductManifest::from_value(&value).map_err(ManifestError::Invalid)
            }
        }
    }

    /// Reads a manifest from a JSON value. When it does not fit the typed
    /// model, every structural problem (missing, unknown or derived keys,
    /// types, formats) is reported at once, with pointers
    /// ([`crate::conformance::validate_manifest`]). Rules the typed model
    /// does not enforce (formats of plain strings, cross-field rules) are
    /// checked by [`ProductManifest::build`], all together.
    pub fn from_value(value: &Value) -> Result<ProductManifest, Violations> {
        serde::Deserialize::deserialize(value).map_err(|e: serde_json::Error| {
            let violations = crate::conformance::validate_manifest(value);
            if violations.is_empty() {
                Violations(vec![Violation::new("", Rule::Type, format!("the manifest does not fit the format: {e}"))])
            } else {
                Violations(violations)
            }
        })
    }

    /// Builds the product record: builds the sample and schema preview from
    /// the record type, and checks the result against every rule of the
    /// spec. All problems are returned together; pointers are relative to
    /// the record, whose keys mirror the manifest's (`/marketplaces/0/key`).
    pub fn build(&self) -> Result<ProductRecord, Violations> {
        self.build_with(&[])
    }

    /// [`ProductManifest::build`], knowing `record_types` besides the
    /// generated ones: a serving crate's own (its generated
    /// `RECORD_TYPES`), whose samples are checked at every depth.
    pub fn build_with(&self, record_types: &[RecordSchema]) -> Result<ProductRecord, Violations> {
        let record = self.assemble(record_types)?;
        ProductResponse::body(&record, record_types)?;
        Ok(record)
    }

    /// The record with its sample and schema preview, not yet checked
    /// against the spec: [`ProductResponse::body`] serializes and checks
    /// it in one pass (a catalog build validates each body once this way;
    /// [`ProductManifest::build_with`] is both steps). `record_types` are
    /// known besides the shipped ones, as for `build_with`.
    pub fn assemble(&self, record_types: &[RecordSchema]) -> Result<ProductRecord, Violations> {
        let mut problems = Vec::new();
        let record_type = record_types
            .iter()
            .find(|t| t.record_label == self.record_label)
            .or_else(|| crate::record_type(&self.record_label));
        if record_type.is_none() {
            let known: Vec<&str> = record_types.iter().chain(crate::record_types()).map(|t| &*t.record_label).collect();
            problems.push(Violation::new(
                "/record_label",
                Rule::RecordType,
                format!("no record type `{}`; known: {}", self.record_label, known.join(", ")),
            ));
        }
        let location = match &self.actor_manifest {
            None => Some(ManifestLocation::Generated),
            Some(actor) => ManifestLocation::actor(&actor.scheme, &actor.publisher)
                .map_err(|e| problems.push(Violation::new("/actor_manifest", Rule::ManifestPath, e.to_string())))
                .ok(),
        };
        let (Some(record_type), Some(location)) = (record_type, location) else {
            return Err(Violations(problems));
        };
        let ctx = ProductContext::new(self.slug.clone(), self.freshness_label).with_manifest(location);
        Ok(self.to_record(Sample::new(record_type, &ctx), SchemaPreview::new(record_type, &ctx)))
    }
}

#[cfg(test)]
mod tests {
    use super::ProductManifest;
    use serde_json::{Value, json};

    /// The first example manifest with a listing, `edit` applied, built.
    fn built(edit: impl FnOnce(&mut Value)) -> Result<crate::product::ProductRecord, crate::conformance::Violations> {
        let mut manifest: Value = crate::examples::MANIFESTS
            .iter()
            .map(|(_, text)| serde_json::from_str::<Value>(text).expect("JSON"))
            .find(|m| m["marketplaces"].as_array().is_some_and(|l| !l.is_empty()))
            .expect("an example with a listing");
        edit(&mut manifest);
        ProductManifest::from_value(&manifest)?.build()
    }

    /// Text that reaches a page holds no character that hides or reorders
    /// it (a bidirectional override, a zero-width space); the joiners and
    /// direction marks of real scripts pass.
    #[test]
    fn text_that_hides_or_reorders_itself_is_refused_where_it_is() {
        for c in ['\u{202e}', '\u{2066}', '\u{200b}', '\u{feff}'] {
            let error = built(|m| m["title"] = json!(format!("Safe{c}title"))).expect_err("refused").to_string();
            assert!(error.contains("/title") && error.contains(&format!("U+{:04X}", u32::from(c))), "{error}");
        }
        let error = built(|m| m["use_cases"][1] = json!("a\u{202e}b")).expect_err("refused in a list too").to_string();
        assert!(error.contains("/use_cases/1"), "{error}");
        built(|m| m["title"] = json!("Family 👨\u{200d}👩\u{200d}👧 and \u{200f}שלום"))
            .expect("joiners and marks pass");
    }

    /// A manifest path's scheme is an actor platform's own, never one a
    /// browser or a system acts on; a listing URL carries no user
    /// information.
    #[test]
    fn acted_on_schemes_and_urls_with_user_information_are_refused() {
        for scheme in ["javascript", "data", "file", "https", "vbscript"] {
            let error = built(|m| m["actor_manifest"] = json!({"scheme": scheme, "publisher": "foundry"}))
                .expect_err("refused")
                .to_string();
            assert!(error.contains("/actor_manifest") && error.contains("act on"), "{scheme}: {error}");
        }
        built(|m| m["actor_manifest"] = json!({"scheme": "actorhub", "publisher": "foundry"})).expect("its own");
        for url in ["https://user:pass@example.com/x", "https://example.com@evil.example/x"] {
            let error = built(|m| m["marketplaces"][0]["url"] = json!(url)).expect_err("refused").to_string();
            assert!(error.contains("/marketplaces/0/url"), "{url}: {error}");
        }
    }
}

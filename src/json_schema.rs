//! JSON Schemas (2020-12) for consumers outside Rust, generated from the
//! same key tables as the code ([`crate::shape`]) and from the generated
//! record types:
//!
//! - `schema/product-response.schema.json` ([`response_schema`]);
//! - `schema/product-manifest.schema.json` ([`manifest_schema`]);
//! - `schema/record-types/<record_label>.schema.json` ([`record_type_schema`]);
//! - `schema/openapi.json`, the OpenAPI 3.1 document of the endpoint ([`openapi`]).
//!
//! `foundry-catalog schemas` writes them ([`schema_files`]); a test fails
//! when a committed file is stale.

use serde_json::{Map, Value, json};

use crate::RecordSchema;
use crate::product::{ProductManifest, ProductRecord};
use crate::response::ProductResponse;
use crate::serving::ErrorKind;
use crate::shape::{Field, Format, Role, Shape};

/// JSON Schema (2020-12) of a shape.
fn json_schema(shape: &Shape) -> Value {
    match shape {
        Shape::Str(format) => match format.pattern() {
            Some(pattern) => json!({"type": "string", "pattern": pattern}),
            None => json!({"type": "string"}),
        },
        Shape::Bool => json!({"type": "boolean"}),
        Shape::Integer => json!({"type": "integer"}),
        Shape::Const(c) => json!({"const": c}),
        Shape::OneOf(values) => json!({"enum": values}),
        Shape::Nullable(inner) => json!({"anyOf": [json_schema(inner), {"type": "null"}]}),
        Shape::Array(item) => match item {
            Shape::Any => json!({"type": "array"}),
            item => json!({"type": "array", "items": json_schema(item)}),
        },
        Shape::Any => json!({}),
        Shape::Object(fields) => object_schema(fields.iter(), |_| true, json_schema),
        Shape::OpenObject => json!({"type": "object"}),
    }
}

/// A closed object's schema: each field's schema (made by `schema_of`)
/// with its doc as description; `required` picks the required keys.
fn object_schema<'a>(
    fields: impl Iterator<Item = &'a Field>,
    required: impl Fn(&Field) -> bool,
    schema_of: fn(&Shape) -> Value,
) -> Value {
    let mut properties = Map::new();
    let mut names = Vec::new();
    for field in fields {
        let mut schema = schema_of(&field.shape);
        if let Some(object) = schema.as_object_mut() {
            object.insert("description".to_owned(), Value::String(field.doc.to_owned()));
        }
        if required(field) {
            names.push(field.name);
        }
        properties.insert(field.name.to_owned(), schema);
    }
    json!({"type": "object", "properties": properties, "required": names, "additionalProperties": false})
}

/// The JSON Schema of a response body, generated from [`ProductResponse::KEYS`].
///
/// Cross-field rules (derived values, `primary_cta`, the availability
/// rules, sample rows against the schema preview, the recomputed hash) are
/// beyond this schema; [`crate::conformance::validate`] checks them.
pub fn response_schema() -> Value {
    with_header(
        json_schema(&Shape::Object(ProductResponse::KEYS)),
        "foundry-catalog product response",
        "GET /api/public/foundry/products/{slug}: {\"data\": <product record>}. Generated from foundry_catalog::response::ProductResponse::KEYS; cross-field rules are checked by foundry_catalog::conformance::validate.",
    )
}

/// A schema document: `$schema`, `title` and `description` first, then the schema.
fn with_header(schema: Value, title: &str, description: &str) -> Value {
    let mut document = Map::new();
    document.insert("$schema".to_owned(), json!("https://json-schema.org/draft/2020-12/schema"));
    document.insert("title".to_owned(), json!(title));
    document.insert("description".to_owned(), json!(description));
    if let Value::Object(body) = schema {
        document.extend(body);
    }
    Value::Object(document)
}

/// The JSON Schema of a product manifest: the record's stored keys (those
/// marked optional may be left out), its listings and availability entries
/// without their derived keys, plus [`ProductManifest::KEYS`].
pub fn manifest_schema() -> Value {
    fn manifest_shape(shape: &Shape) -> Value {
        match shape {
            Shape::Object(fields) if fields.iter().any(|f| !stored(f)) => manifest_object(fields.iter()),
            Shape::Array(item) => match json_schema(shape) {
                Value::Object(mut array) => {
                    array.insert("items".to_owned(), manifest_shape(item));
                    Value::Object(array)
                }
                other => other,
            },
            other => json_schema(other),
        }
    }
    fn stored(field: &Field) -> bool {
        matches!(field.role, Role::Stored | Role::Optional)
    }
    /// Derived and built keys are left out; only stored keys are required.
    fn manifest_object<'a>(fields: impl Iterator<Item = &'a Field>) -> Value {
        object_schema(fields.filter(|f| stored(f)), |f| f.role == Role::Stored, manifest_shape)
    }
    let fields = ProductManifest::KEYS.iter().chain(ProductRecord::KEYS);
    with_header(
        manifest_object(fields),
        "foundry-catalog product manifest",
        "What a catalog team writes per product; everything else in the record is derived. Generated from foundry_catalog::product::ProductRecord::KEYS and ProductManifest::KEYS.",
    )
}

/// The JSON Schema of one record type's rows, generated from its schema.
pub fn record_type_schema(schema: &RecordSchema) -> Value {
    let mut properties = Map::new();
    for field in schema.fields.iter() {
        properties.insert(
            field.name.to_string(),
            json!({"type": field.field_type.as_str(), "description": field.description}),
        );
    }
    with_header(
        json!({
        "type": "object",
        "properties": properties,
        "required": schema.required_fields().collect::<Vec<_>>(),
        "additionalProperties": false,
        }),
        &schema.record_label,
        &format!("One `{}` record; schema_hash {}.", schema.record_label, schema.schema_hash),
    )
}

/// The OpenAPI 3.1 document of `GET` and `HEAD
/// /api/public/foundry/products/{slug}`: the slug parameter with its
/// pattern, every status `serving::respond` answers with (from
/// [`ErrorKind::ALL`]), the response headers, and the response body as
/// [`response_schema`].
pub fn openapi() -> Value {
    let mut product = response_schema();
    if let Some(object) = product.as_object_mut() {
        object.remove("$schema");
    }
    let header = |description: &str, required: bool| json!({"description": description, "required": required, "schema": {"type": "string"}});
    let representation_headers = json!({
        "ETag": header("Strong entity tag of the representation sent (SHA-256 of its bytes).", true),
        "Last-Modified": header("The record's last_updated_at as an HTTP date.", true),
        "Cache-Control": header("public, max-age=300", true),
        "Vary": header("Accept-Encoding", true),
        "Content-Encoding": header("br or gzip when the body is compressed.", false),
    });
    let mut statuses: Vec<u16> = ErrorKind::ALL.iter().map(|e| e.status()).collect();
    statuses.dedup();
    let error = |status: u16| {
        let kinds: Vec<&ErrorKind> = ErrorKind::ALL.iter().filter(|e| e.status() == status).collect();
        let codes: Vec<&str> = kinds.iter().map(|e| e.code()).collect();
        let described: Vec<String> = kinds.iter().map(|e| format!("`{}`: {}", e.code(), e.message())).collect();
        (
            status,
            json!({"type": "object", "additionalProperties": false, "required": ["error"], "properties": {
                "error": {"type": "object", "additionalProperties": false, "required": ["status", "code", "message"], "properties": {
                    "status": {"const": status},
                    "code": {"enum": codes},
                    "message": {"type": "string"},
                }},
            }}),
            described.join("; "),
        )
    };
    let errors: Vec<(u16, Value, String)> = statuses.into_iter().filter(|s| *s != 405).map(error).collect();
    let responses = |with_bodies: bool| {
        let mut responses = Map::new();
        let mut ok = json!({"description": "The product record.", "headers": representation_headers});
        let not_modified = json!({"description": "Not modified: a conditional request matched.", "headers": {
            "ETag": header("Strong entity tag of the representation.", true),
        }});
        if with_bodies {
            ok["content"] = json!({"application/json": {"schema": {"$ref": "#/components/schemas/ProductResponse"}}});
        }
        responses.insert("200".to_owned(), ok);
        responses.insert("304".to_owned(), not_modified);
        for (status, _, description) in &errors {
            let mut response = json!({"description": description});
            if with_bodies {
                response["content"] =
                    json!({"application/json": {"schema": {"$ref": format!("#/components/schemas/Error{status}")}}});
            }
            responses.insert(status.to_string(), response);
        }
        Value::Object(responses)
    };
    let request_header = |name: &str, description: &str| json!({"name": name, "in": "header", "required": false, "description": description, "schema": {"type": "string"}});
    // The example catalog's products (served by default), as examples a client can try.
    let examples: Map<String, Value> =
        example_slugs::EXAMPLE_SLUGS.iter().map(|s| ((*s).to_owned(), json!({"value": s}))).collect();
    let slug = json!({
        "name": "slug",
        "in": "path",
        "required": true,
        "description": "Lowercase letters and digits in words joined by single hyphens.",
        "schema": {"type": "string", "minLength": 1, "maxLength": crate::MAX_SLUG_LEN, "pattern": Format::Slug.pattern()},
        "examples": examples,
    });
    let mut schemas = Map::new();
    schemas.insert("ProductResponse".to_owned(), product);
    for (status, schema, _) in &errors {
        schemas.insert(format!("Error{status}"), schema.clone());
    }
    json!({
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {
            "title": "Public product catalog",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Read-only product records. Generated from foundry_catalog's key tables and serving::ErrorKind; the cross-field rules are checked by foundry_catalog::conformance::validate.",
        },
        "paths": {
            format!("{}{{slug}}", crate::product::API_PATH_PREFIX): {
                "parameters": [
                    slug,
                    request_header("If-None-Match", "Entity tags; 304 when one matches the representation (weak comparison)."),
                    request_header("If-Match", "Entity tags; 412 unless one matches the representation (strong comparison)."),
                    request_header("If-Modified-Since", "An HTTP date; without If-None-Match, 304 when the record has not changed since."),
                    request_header("Accept-Encoding", "br, gzip, identity with q-values; 406 when none is acceptable."),
                ],
                "get": {"operationId": "getProduct", "summary": "One product record.", "responses": responses(true)},
                "head": {"operationId": "headProduct", "summary": "The headers of getProduct, without a body.", "responses": responses(false)},
            },
        },
        "components": {"schemas": schemas},
    })
}

mod example_slugs {
    include!(concat!(env!("OUT_DIR"), "/example_slugs.rs"));
}

/// Every generated JSON Schema file as (path within the schema folder, contents):
/// the response, the manifest, and one per generated record type.
pub fn schema_files() -> Vec<(String, String)> {
    let pretty = |value: &Value| serde_json::to_string_pretty(value).map(|s| s + "\n").unwrap_or_default();
    let mut files = vec![
        ("product-response.schema.json".to_owned(), pretty(&response_schema())),
        ("product-manifest.schema.json".to_owned(), pretty(&manifest_schema())),
        ("openapi.json".to_owned(), pretty(&openapi())),
    ];
    for schema in crate::record_types() {
        files.push((format!("record-types/{}.schema.json", schema.record_label), pretty(&record_type_schema(schema))));
    }
    files
}

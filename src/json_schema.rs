//! JSON Schemas (2020-12) for consumers outside Rust, generated from the
//! same key tables as the code (`shape`, internal) and from the generated
//! record types:
//!
//! - `schema/product-response.schema.json` ([`response_schema`]);
//! - `schema/product-manifest.schema.json` ([`manifest_schema`]);
//! - `schema/record-types/<record_label>.schema.json` ([`record_type_schema`]);
//! - `schema/openapi.json`, the OpenAPI 3.1 document of the endpoint ([`openapi`]).
//!
//! `foundry-catalog schemas` writes them ([`schema_files`]); a test fails
//! when a committed file is stale.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::format::pattern_schema;
use crate::preview::{FieldPreview, Sample};
use crate::product::{AvailabilityEntry, AvailabilityStatus, Coverage, ProductManifest, ProductRecord, Route};
use crate::response::ErrorKind;
use crate::response::ProductResponse;
use crate::shape::{Field, Format, Role, Shape};
use crate::{FieldDescriptor, FieldFormat, Kind, RecordSchema, SampleType};

/// Writes the JSON Schema (2020-12) of shapes, in the forms code
/// generators read: a `type` beside every `enum` and `const`, no value
/// listed twice, `items` on every array, open objects marked open, and
/// nullable values as `type: [T, "null"]` ([`nullable`]).
///
/// A writer that [`names`](Writer::naming) objects writes each one once,
/// titled with its Rust type's name, into its definitions, and refers to
/// it there (`{"$ref": "#/$defs/MarketplaceListing"}`), so a generator
/// makes one type of each shape; otherwise objects are written in place.
struct Writer {
    defs: Option<BTreeMap<String, Value>>,
}

impl Writer {
    /// A writer that writes every object in place.
    fn inline() -> Writer {
        Writer { defs: None }
    }

    /// A writer that writes each object once, as a named definition.
    fn naming() -> Writer {
        Writer { defs: Some(BTreeMap::new()) }
    }

    /// The schema of `shape`.
    fn schema(&mut self, shape: &Shape) -> Value {
        match shape {
            Shape::Str(format) => string_schema(*format),
            Shape::Bool => json!({"type": "boolean"}),
            Shape::Integer => json!({"type": "integer"}),
            Shape::Count => json!({"type": "integer", "minimum": 0}),
            Shape::Const(c) => json!({"type": "string", "const": c}),
            Shape::OneOf(values) => json!({"type": "string", "enum": distinct(values)}),
            Shape::Nullable(inner) => nullable(self.schema(inner)),
            Shape::Array(item) => json!({"type": "array", "items": self.schema(item)}),
            Shape::Any => json!({}),
            Shape::Object(name, fields) => {
                if self.defs.as_ref().is_some_and(|defs| defs.contains_key(*name)) {
                    return def_ref(name);
                }
                let schema = self.object(fields);
                match &mut self.defs {
                    Some(defs) => {
                        defs.insert((*name).to_owned(), titled(schema, name, None));
                        def_ref(name)
                    }
                    None => schema,
                }
            }
            Shape::OpenObject => json!({"type": "object", "additionalProperties": true}),
        }
    }

    /// A closed object of `fields`, with its cross-field rules.
    fn object(&mut self, fields: &[Field]) -> Value {
        with_rules(
            object_schema(fields.iter(), |_| true, |shape| self.schema(shape)),
            cross_field_rules(fields).into_iter(),
        )
    }

    /// The definitions written so far, by name.
    fn into_defs(self) -> BTreeMap<String, Value> {
        self.defs.unwrap_or_default()
    }
}

/// `{"$ref": "#/$defs/<name>"}`.
fn def_ref(name: &str) -> Value {
    json!({"$ref": format!("#/$defs/{name}")})
}

/// `schema` with `title` (and `description`, when given) first.
fn titled(schema: Value, title: &str, description: Option<String>) -> Value {
    let Value::Object(body) = schema else { return schema };
    let mut out = Map::new();
    out.insert("title".to_owned(), json!(title));
    if let Some(description) = description {
        out.insert("description".to_owned(), json!(description));
    }
    out.extend(body.into_iter().filter(|(key, _)| key != "title"));
    Value::Object(out)
}

/// `values` in their order, each once.
fn distinct<T: PartialEq + Clone>(values: &[T]) -> Vec<T> {
    let mut out: Vec<T> = Vec::with_capacity(values.len());
    for value in values {
        if !out.contains(value) {
            out.push(value.clone());
        }
    }
    out
}

/// `schema` or `null`, as generators read it: `null` joined to its
/// `type` (and to its `enum`, a `const` becoming a one-value `enum`, as
/// both list every value allowed), the same verdicts as `anyOf: [schema,
/// {"type": "null"}]`, which stays for a schema without a single `type`.
fn nullable(mut schema: Value) -> Value {
    // Every other keyword ignores `null` (as `dependentSchemas` and every
    // keyword of one type do), or lets it through (a `not` of a typed
    // schema): only then is the merge exact.
    let exact = schema.as_object().is_some_and(|object| {
        object.iter().all(|(key, value)| match key.as_str() {
            "not" => value.get("type").is_some_and(|t| t != "null"),
            "allOf" | "anyOf" | "oneOf" | "$ref" | "if" | "then" | "else" => false,
            _ => true,
        })
    });
    let kind = schema.get("type").and_then(Value::as_str).map(str::to_owned);
    let (Some(object), Some(kind), true) = (schema.as_object_mut(), kind, exact) else {
        return json!({"anyOf": [schema, {"type": "null"}]});
    };
    object.insert("type".to_owned(), json!([kind, "null"]));
    if let Some(value) = object.remove("const") {
        object.insert("enum".to_owned(), json!([value]));
    }
    if let Some(Value::Array(values)) = object.get_mut("enum") {
        values.push(Value::Null);
    }
    schema
}

/// A string of a format: its pattern (with the line-feed guard of
/// [`crate::format::pattern_schema`]) and `format` annotation, or the
/// ISO 4217 list for currencies.
fn string_schema(format: Format) -> Value {
    match format {
        Format::Currency => return json!({"type": "string", "enum": crate::Currency::all_codes()}),
        Format::Slug => return crate::format::slug_schema(),
        _ => {}
    }
    let Some(pattern) = format.pattern() else { return json!({"type": "string"}) };
    let mut schema = crate::format::pattern_schema(&pattern);
    if let Some(annotation) = format.annotation() {
        schema["format"] = json!(annotation);
    }
    schema
}

/// `{"type": "object", "properties": {key: schema, …}, "required": [keys]}`:
/// an `if` that holds when every key is present with its schema, or the
/// `then` that gives each key its schema.
fn when(entries: &[(&'static str, Value)]) -> Value {
    let properties: Map<String, Value> = entries.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
    let required: Vec<&str> = entries.iter().map(|(k, _)| *k).collect();
    json!({"type": "object", "properties": properties, "required": required})
}

/// One rule between keys of an object: when every key of `condition` has
/// its schema, each key of `consequence` has its own.
struct CrossRule {
    condition: Vec<(&'static str, Value)>,
    consequence: Vec<(&'static str, Value)>,
}

impl CrossRule {
    /// `{"if": …, "then": …}`; the `then` does not require its keys (the
    /// object's own `required` does).
    fn to_schema(&self) -> Value {
        let mut then = when(&self.consequence);
        if let Some(object) = then.as_object_mut() {
            object.remove("required");
        }
        json!({"if": when(&self.condition), "then": then})
    }

    /// The rule as it applies where only the keys `keep` accepts exist (a
    /// manifest, without derived and built keys): none if its condition
    /// needs another key, else its consequence on the kept keys.
    fn restricted(mut self, keep: impl Fn(&str) -> bool) -> Option<CrossRule> {
        self.consequence.retain(|(key, _)| keep(key));
        (self.condition.iter().all(|(key, _)| keep(key)) && !self.consequence.is_empty()).then_some(self)
    }
}

fn if_then(condition: &[(&'static str, Value)], consequence: &[(&'static str, Value)]) -> CrossRule {
    CrossRule { condition: condition.to_vec(), consequence: consequence.to_vec() }
}

/// An object's schema with its cross-field rules under
/// `dependentSchemas`, each with the first key of its condition:
/// `{"dependentSchemas": {"route": {"allOf": [{"if": …, "then": …}]}}}`.
/// The same verdicts as an `allOf` of the rules on the object (a rule's
/// `if` requires that key, so it holds only when the key is there,
/// exactly when `dependentSchemas` applies it), in the form code
/// generators read past: beside `properties`, an object's `allOf` makes
/// json-schema-to-typescript give up its type, and openapi-generator drops
/// it with a notice.
fn with_rules(mut schema: Value, rules: impl Iterator<Item = CrossRule>) -> Value {
    let mut dependent = Map::new();
    for rule in rules {
        let Some((key, _)) = rule.condition.first() else { continue };
        let entry = dependent.entry((*key).to_owned()).or_insert_with(|| json!({"allOf": []}));
        if let Some(Value::Array(all_of)) = entry.get_mut("allOf") {
            all_of.push(rule.to_schema());
        }
    }
    if !dependent.is_empty() {
        schema["dependentSchemas"] = Value::Object(dependent);
    }
    schema
}

/// The rules between two keys of one object that 2020-12 can state with
/// `if`/`then`, for the objects that have them: route ↔ category (and the
/// route in `canonical_path`), `primary_cta` null exactly without
/// listings, one primary listing, sample rows of a known record type
/// (chosen by `record_label`), clickable ⇔ url is a string,
/// `published_product` ⇒ published + clickable + url, `status_label` per
/// status, no url for unpublished states, `sample_type` ↔
/// `sample_status`, `missing_reason` null when available. Rules that
/// compare two values stay with the validator.
fn cross_field_rules(fields: &[Field]) -> Vec<CrossRule> {
    let string = |value: &str| json!({"type": "string", "const": value});
    let mut rules = Vec::new();
    if fields == ProductRecord::KEYS {
        for route in Route::ALL {
            let path = format!("^/{}/[a-z0-9]+(-[a-z0-9]+)*$", route.as_str());
            rules.push(if_then(
                &[("route", string(route.as_str()))],
                &[("category", string(route.category().as_str())), ("canonical_path", pattern_schema(&path))],
            ));
        }
        rules.push(if_then(
            &[("marketplaces", json!({"type": "array", "items": {}, "maxItems": 0}))],
            &[("primary_cta", json!({"type": "null"}))],
        ));
        let primary = json!({"type": "object", "properties": {"primary": {"type": "boolean", "const": true}}, "required": ["primary"]});
        rules.push(if_then(
            &[("marketplaces", json!({"type": "array", "items": {}, "minItems": 1}))],
            &[
                ("primary_cta", json!({"type": "object"})),
                (
                    "marketplaces",
                    json!({"type": "array", "items": {}, "contains": primary, "minContains": 1, "maxContains": 1}),
                ),
            ],
        ));
        rules.extend(crate::record_types().iter().map(record_type_rule));
    } else if fields == AvailabilityEntry::KEYS {
        rules.push(if_then(
            &[("clickable", json!({"type": "boolean", "const": true}))],
            &[("url", json!({"type": "string"}))],
        ));
        rules.push(if_then(
            &[("clickable", json!({"type": "boolean", "const": false}))],
            &[("url", json!({"type": "null"}))],
        ));
        rules.push(if_then(
            &[("coverage", string(Coverage::PublishedProduct.as_str()))],
            &[
                ("status", string(AvailabilityStatus::Published.as_str())),
                ("clickable", json!({"type": "boolean", "const": true})),
                ("url", json!({"type": "string"})),
            ],
        ));
        for status in AvailabilityStatus::ALL {
            let mut then = vec![("status_label", json!({"type": "string", "enum": status.status_labels()}))];
            if !status.may_have_url() {
                then.push(("url", json!({"type": "null"})));
            }
            rules.push(if_then(&[("status", string(status.as_str()))], &then));
        }
    } else if fields == Sample::KEYS {
        for sample_type in SampleType::ALL {
            rules.push(if_then(
                &[("sample_type", string(sample_type.as_str()))],
                &[("sample_status", string(sample_type.sample_status().as_str()))],
            ));
        }
        rules.push(if_then(
            &[("sample_available", json!({"type": "boolean", "const": true}))],
            &[("missing_reason", json!({"type": "null"}))],
        ));
    }
    rules
}

/// The rule a record type adds to a product record: a preview labelled
/// with it lists exactly its fields. (Its sample rows are its rows by the
/// sample's `oneOf` over `record_label`, [`sample_variants`].)
fn record_type_rule(schema: &RecordSchema) -> CrossRule {
    let label = &*schema.record_label;
    let labelled = json!({
        "type": "object",
        "properties": {"record_label": {"type": "string", "const": label}},
        "required": ["record_label"],
    });
    // A `const`: `prefixItems` is beyond some OpenAPI tools.
    let descriptors: Vec<FieldPreview> = schema.fields.iter().map(FieldPreview::from).collect();
    let preview =
        json!({"type": "object", "properties": {"fields": {"type": "array", "items": {}, "const": descriptors}}});
    if_then(&[("schema_preview", labelled)], &[("schema_preview", preview)])
}

/// A closed object's schema: each field's schema (made by `schema_of`)
/// with its doc as description; `required` picks the required keys.
fn object_schema<'a>(
    fields: impl Iterator<Item = &'a Field>,
    required: impl Fn(&Field) -> bool,
    mut schema_of: impl FnMut(&Shape) -> Value,
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
/// It states every rule 2020-12 can: formats as patterns, counts from 0,
/// the ISO 4217 list, path shapes, the rules between keys of one object
/// with `if`/`then` (route and category, listings and `primary_cta`,
/// availability entries, sample type and status), and sample rows of each
/// generated record type. Rules that compare two values (derived values,
/// `primary_cta` equal to the primary listing, paths from the slug, the
/// first listing's availability, the suffix rule, a payload's `product`
/// equal to the slug, keys unique per row, the recomputed hash) are
/// checked by [`crate::conformance::validate`].
///
/// It is shaped for code generators: the envelope, titled
/// `ProductResponse`, at the root, and every other object once under
/// `$defs`, titled with its name (`ProductRecord`, `MarketplaceListing`,
/// …); `sample` is `Sample`, a `oneOf` over `record_label` of one
/// `<RecordType>Sample` per record type, whose rows are its
/// `<RecordType>Row`.
pub fn response_schema() -> Value {
    response_schema_with(&[])
}

/// The name of a record type's definitions, `<name><suffix>`: its label's
/// words capitalised and joined (`regulatory_status_signal`, `Row` →
/// `RegulatoryStatusSignalRow`). A word that starts with a digit keeps its
/// underscore (`feed_v_2` → `FeedV_2`), so two labels never share a name;
/// and no object of the record is named with these suffixes.
fn def_name(label: &str, suffix: &str) -> String {
    let mut name = String::new();
    for word in label.split('_') {
        let mut chars = word.chars();
        match chars.next() {
            Some(first) if first.is_ascii_digit() => {
                name.push('_');
                name.push_str(word);
            }
            Some(first) => {
                name.push(first.to_ascii_uppercase());
                name.push_str(chars.as_str());
            }
            None => {}
        }
    }
    name.push_str(suffix);
    name
}

/// The `Sample` definition as a closed `oneOf` over `record_label`: for
/// each record type, `<RecordType>Sample` (the sample object with its
/// `record_label` fixed and its rows `<RecordType>Row`) and that row
/// schema, titled, into `defs`, with the `discriminator` that names
/// `record_label`. A sample of no known record type matches no variant
/// and is refused, as `check` refuses it.
fn sample_variants<'a>(defs: &mut BTreeMap<String, Value>, record_types: impl Iterator<Item = &'a RecordSchema>) {
    let Some(generic) = defs.remove("Sample") else { return };
    let mut variants = Vec::new();
    for record_type in record_types {
        let label = &*record_type.record_label;
        let (row_name, sample_name) = (def_name(label, "Row"), def_name(label, "Sample"));
        let row = titled(
            row_schema(record_type),
            &row_name,
            Some(format!("One `{label}` row; schema_hash {}.", record_type.schema_hash)),
        );
        defs.insert(row_name.clone(), row);
        let mut sample = titled(generic.clone(), &sample_name, Some(format!("A sample of `{label}` rows.")));
        if let Some(properties) = sample.get_mut("properties") {
            let description = properties["record_label"]["description"].clone();
            properties["record_label"] = json!({"type": "string", "const": label, "description": description});
            properties["rows"]["items"] = def_ref(&row_name);
        }
        defs.insert(sample_name.clone(), sample);
        variants.push(def_ref(&sample_name));
    }
    defs.insert(
        "Sample".to_owned(),
        json!({
            "title": "Sample",
            "description": "Sample output rows of the product's record type: one variant per record type, chosen by `record_label`.",
            // ajv's strict mode wants the type beside `discriminator`.
            "type": "object",
            "oneOf": variants,
            // OpenAPI's keyword, which 2020-12 validators take as an
            // annotation, ajv reads with its `discriminator` option and
            // datamodel-code-generator turns into a discriminated union
            // (one precise error for a bad row, not one per variant). The
            // OpenAPI document adds the mapping, which ajv refuses.
            "discriminator": {"propertyName": "record_label"},
        }),
    );
}

/// [`response_schema`], checking besides the rows and previews of
/// `record_types` (a serving crate's own, or definitions read at run
/// time; a shipped label is the shipped type's), as
/// [`crate::conformance::validate_with`] does.
pub fn response_schema_with(record_types: &[RecordSchema]) -> Value {
    let mut writer = Writer::naming();
    let Shape::Object(name, fields) = ProductResponse::SHAPE else { unreachable!("the envelope is an object") };
    let root = writer.object(fields);
    let mut defs = writer.into_defs();
    sample_variants(&mut defs, crate::record_types().iter().chain(others(record_types)));
    let rules = others(record_types).map(record_type_rule).map(|rule| rule.to_schema());
    if let Some(Value::Array(all_of)) =
        defs.get_mut("ProductRecord").and_then(|record| record.pointer_mut("/dependentSchemas/schema_preview/allOf"))
    {
        all_of.extend(rules);
    }
    let mut schema = with_header(
        root,
        name,
        "GET /api/public/foundry/products/{slug}: {\"data\": <product record>}. Generated from foundry_catalog::response::ProductResponse::KEYS; rules that compare two values are checked by foundry_catalog::conformance::validate.",
    );
    schema["$defs"] = Value::Object(defs.into_iter().collect());
    schema
}

/// The record types of `record_types` that are not shipped.
fn others(record_types: &[RecordSchema]) -> impl Iterator<Item = &RecordSchema> {
    let shipped = crate::record_types();
    record_types.iter().filter(|t| !shipped.iter().any(|s| s.record_label == t.record_label))
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
            Shape::Object(_, fields) if fields.iter().any(|f| !stored(f)) => {
                with_rules(manifest_object(fields.iter()), manifest_rules(fields))
            }
            Shape::Array(item) => match Writer::inline().schema(shape) {
                Value::Object(mut array) => {
                    array.insert("items".to_owned(), manifest_shape(item));
                    Value::Object(array)
                }
                other => other,
            },
            other => Writer::inline().schema(other),
        }
    }
    fn stored(field: &Field) -> bool {
        matches!(field.role, Role::Stored | Role::Optional)
    }
    /// Derived and built keys are left out; only stored keys are required.
    fn manifest_object<'a>(fields: impl Iterator<Item = &'a Field>) -> Value {
        object_schema(fields.filter(|f| stored(f)), |f| f.role == Role::Stored, manifest_shape)
    }
    /// The object's cross-field rules on its stored keys only.
    fn manifest_rules(fields: &[Field]) -> impl Iterator<Item = CrossRule> {
        let keep = |key: &str| fields.iter().any(|f| f.name == key && stored(f));
        cross_field_rules(fields).into_iter().filter_map(move |rule| rule.restricted(keep))
    }
    let fields = ProductManifest::KEYS.iter().chain(ProductRecord::KEYS);
    with_header(
        with_rules(manifest_object(fields), manifest_rules(ProductRecord::KEYS)),
        "foundry-catalog product manifest",
        "What a catalog team writes per product; everything else in the record is derived. Generated from foundry_catalog::product::ProductRecord::KEYS and ProductManifest::KEYS.",
    )
}

/// The schema of one row of a record type: each field's type and, with a
/// format, the format's schema ([`crate::FieldFormat::json_schema`]), at
/// every depth.
fn row_schema(schema: &RecordSchema) -> Value {
    object_of(&schema.fields)
}

/// A closed object of these fields.
fn object_of(fields: &[FieldDescriptor]) -> Value {
    let mut properties = Map::new();
    for field in fields {
        let mut property = value_schema(field);
        property["description"] = json!(field.description);
        properties.insert(field.name.to_string(), property);
    }
    let required: Vec<&str> = fields.iter().filter(|f| f.required).map(|f| &*f.name).collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The schema of a field's or a list item's values (or `null`, when the
/// value is nullable).
fn value_schema(field: &FieldDescriptor) -> Value {
    let schema = non_null_schema(field);
    if field.nullable { nullable(schema) } else { schema }
}

/// The schema of a field's or a list item's values other than `null`:
/// its type, format, bounds, closed set, fields or items.
fn non_null_schema(field: &FieldDescriptor) -> Value {
    match field.kind() {
        Kind::ClosedSet(values) => {
            let values: Vec<&str> = values.iter().map(|v| &*v.value).collect();
            json!({"type": "string", "enum": values})
        }
        Kind::Text { format } => match format {
            Some(format) => format.json_schema(),
            None => json!({"type": field.field_type.as_str()}),
        },
        Kind::OpenObject { format } => match format {
            Some(format) => format.json_schema(),
            None => json!({"type": "object", "additionalProperties": true}),
        },
        Kind::Number { minimum, maximum, format } => {
            bounded(format.map_or_else(|| json!({"type": "number"}), FieldFormat::json_schema), minimum, maximum)
        }
        // A 64-bit signed integer, as the Rust readers hold it, unless the
        // definition bounds it more tightly.
        Kind::Integer { minimum, maximum } => {
            bounded(json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX}), minimum, maximum)
        }
        Kind::Boolean => json!({"type": "boolean"}),
        Kind::Object(fields) => object_of(fields),
        Kind::List { item, min_items, max_items } => {
            let mut array = json!({"type": "array", "items": {}});
            if let Some(item) = item {
                array["items"] = value_schema(item);
            }
            if let Some(min) = min_items {
                array["minItems"] = json!(min);
            }
            if let Some(max) = max_items {
                array["maxItems"] = json!(max);
            }
            array
        }
    }
}

/// A number's schema with its bounds; a format's own bound (a fraction's
/// minimum 0) stays when it is tighter. Whole bounds are written as
/// integers (`1`, not `1.0`).
fn bounded(mut schema: Value, minimum: Option<f64>, maximum: Option<f64>) -> Value {
    let number = |bound: f64| {
        if bound.fract() == 0.0 && bound.abs() <= crate::MAX_SAFE_INTEGER as f64 {
            json!(bound as i64)
        } else {
            json!(bound)
        }
    };
    let Some(object) = schema.as_object_mut() else { return schema };
    let existing = |object: &Map<String, Value>, key: &str| object.get(key).and_then(Value::as_f64);
    if let Some(minimum) = minimum
        && existing(object, "minimum").is_none_or(|own| own < minimum)
    {
        object.insert("minimum".to_owned(), number(minimum));
    }
    if let Some(maximum) = maximum
        && existing(object, "maximum").is_none_or(|own| own > maximum)
    {
        object.insert("maximum".to_owned(), number(maximum));
    }
    schema
}

/// The JSON Schema of one record type's rows, generated from its schema.
pub fn record_type_schema(schema: &RecordSchema) -> Value {
    with_header(
        row_schema(schema),
        &schema.record_label,
        &format!("One `{}` record; schema_hash {}.", schema.record_label, schema.schema_hash),
    )
}

/// The JSON Schema of every field format a record type may declare
/// (`format` in a definition, [`FieldFormat`]), one `$defs` entry each:
/// what the validator checks of such a field and what every row schema
/// states of it. The schema itself accepts any value.
pub fn field_formats_schema() -> Value {
    let defs: Map<String, Value> = FieldFormat::ALL
        .iter()
        .map(|format| {
            let mut schema = Map::new();
            schema.insert("title".to_owned(), json!(format.as_str()));
            schema.insert("description".to_owned(), json!(format!("{}.", upper_first(format.describe()))));
            if let Value::Object(body) = format.json_schema() {
                schema.extend(body);
            }
            (format.as_str().to_owned(), Value::Object(schema))
        })
        .collect();
    with_header(
        json!({"$defs": defs}),
        "foundry-catalog field formats",
        "The values of each format a record type's field may declare (`format` in record-types/*.json), as the validator checks them and every row schema states them.",
    )
}

/// `text` with its first letter in upper case.
fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// The OpenAPI 3.1 document of `GET` and `HEAD
/// /api/public/foundry/products/{slug}`: the slug parameter with its
/// pattern, every status `foundry_catalog_serving::endpoint::answer` answers with (from
/// [`ErrorKind::ALL`]), the response headers, and the response body as
/// [`response_schema`], each of its definitions a component, with the
/// `Sample` variants' discriminator (`record_label`) stated for OpenAPI
/// tools.
pub fn openapi() -> Value {
    openapi_with(&[])
}

/// [`openapi`], its response knowing `record_types` besides the shipped
/// ones ([`response_schema_with`]).
pub fn openapi_with(record_types: &[RecordSchema]) -> Value {
    let mut product = response_schema_with(record_types);
    // Each definition is a component of its own, referred to as such.
    let mut defs = product.as_object_mut().and_then(|object| {
        object.remove("$schema");
        object.remove("$defs")
    });
    if let Some(defs) = &mut defs {
        rewrite_refs(defs, "#/$defs/", "#/components/schemas/");
        if let Some(sample) = defs.get_mut("Sample") {
            let mapping: Map<String, Value> = crate::record_types()
                .iter()
                .chain(others(record_types))
                .map(|t| {
                    (
                        t.record_label.to_string(),
                        json!(format!("#/components/schemas/{}", def_name(&t.record_label, "Sample"))),
                    )
                })
                .collect();
            sample["discriminator"]["mapping"] = json!(mapping);
        }
    }
    rewrite_refs(&mut product, "#/$defs/", "#/components/schemas/");
    if let Some(Value::Object(defs)) = &mut defs {
        let named = defs.clone();
        defs.values_mut().for_each(|def| nullable_for_openapi_tools(def, &named));
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
                    "status": {"type": "integer", "const": status},
                    "code": {"type": "string", "enum": distinct(&codes)},
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
    let examples: Map<String, Value> = crate::examples::slugs().map(|s| (s.to_owned(), json!({"value": s}))).collect();
    let slug = json!({
        "name": "slug",
        "in": "path",
        "required": true,
        "description": "Lowercase letters and digits in words joined by single hyphens.",
        "schema": string_schema(Format::Slug),
        "examples": examples,
    });
    let mut schemas = Map::new();
    schemas.insert("ProductResponse".to_owned(), product);
    if let Some(Value::Object(defs)) = defs {
        schemas.extend(defs);
    }
    for (status, schema, _) in &errors {
        schemas.insert(format!("Error{status}"), schema.clone());
    }
    json!({
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {
            "title": "Public product catalog",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Read-only product records. Generated from foundry_catalog's key tables and response::ErrorKind; the rules that compare two values are checked by foundry_catalog::conformance::validate.",
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

/// Nullable references under `value` in the form OpenAPI client
/// generators read (openapi-generator 7.26, whose 3.1 support is in
/// beta, stops its Python client on `anyOf: [{"$ref": …}, {"type":
/// "null"}]`): written in place, as the referred object with `type:
/// ["object", "null"]`. The same verdicts.
fn nullable_for_openapi_tools(value: &mut Value, named: &Map<String, Value>) {
    match value {
        Value::Object(object) => {
            let referred = object.get("anyOf").and_then(Value::as_array).and_then(|options| match options.as_slice() {
                [reference, null] if null == &json!({"type": "null"}) => reference.get("$ref").and_then(Value::as_str),
                _ => None,
            });
            let inline = referred
                .and_then(|target| target.strip_prefix("#/components/schemas/"))
                .and_then(|name| named.get(name))
                .cloned();
            if let Some(Value::Object(mut inline)) = inline {
                object.remove("anyOf");
                inline.remove("title");
                inline.insert("type".to_owned(), json!(["object", "null"]));
                inline.extend(std::mem::take(object));
                *object = inline;
            }
            object.values_mut().for_each(|child| nullable_for_openapi_tools(child, named));
        }
        Value::Array(items) => items.iter_mut().for_each(|item| nullable_for_openapi_tools(item, named)),
        _ => {}
    }
}

/// Every `$ref` under `value` that starts with `from` made to start with `to`.
fn rewrite_refs(value: &mut Value, from: &str, to: &str) {
    match value {
        Value::Object(object) => {
            for (key, value) in object.iter_mut() {
                match value {
                    Value::String(target) if key == "$ref" => {
                        if let Some(rest) = target.strip_prefix(from) {
                            *target = format!("{to}{rest}");
                        }
                    }
                    other => rewrite_refs(other, from, to),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| rewrite_refs(item, from, to)),
        _ => {}
    }
}

/// Every generated JSON Schema file as (path within the schema folder, contents):
/// the response, the manifest, and one per generated record type.
pub fn schema_files() -> Vec<(String, String)> {
    schema_files_with(&[])
}

/// [`schema_files`] knowing `record_types` besides the shipped ones (a
/// serving crate's own, or definitions read at run time): the response
/// schema checks their rows and previews too ([`response_schema_with`]),
/// and each has its `record-types/<record_label>.schema.json`; so does
/// the OpenAPI document ([`openapi_with`]).
pub fn schema_files_with(record_types: &[RecordSchema]) -> Vec<(String, String)> {
    let pretty = |value: &Value| serde_json::to_string_pretty(value).map(|s| s + "\n").unwrap_or_default();
    let mut files = vec![
        ("product-response.schema.json".to_owned(), pretty(&response_schema_with(record_types))),
        ("product-manifest.schema.json".to_owned(), pretty(&manifest_schema())),
        ("openapi.json".to_owned(), pretty(&openapi_with(record_types))),
        ("field-formats.schema.json".to_owned(), pretty(&field_formats_schema())),
    ];
    for schema in crate::record_types().iter().chain(others(record_types)) {
        files.push((format!("record-types/{}.schema.json", schema.record_label), pretty(&record_type_schema(schema))));
    }
    files
}

#[cfg(test)]
mod tests {
    use crate::response::ProductResponse;
    use crate::shape::{Format, Shape};

    /// Every schema file is in the forms code generators read: each `enum`
    /// and `const` beside a `type`, no value listed twice, `items` on every
    /// array, and a nullable value as `type: [T, "null"]` wherever its
    /// schema has one `type` (no `anyOf` of a typed schema and `null`).
    #[test]
    fn every_schema_is_in_the_forms_generators_read() {
        fn walk(file: &str, at: &str, value: &serde_json::Value, problems: &mut Vec<String>) {
            match value {
                serde_json::Value::Object(object) => {
                    let typed = object.contains_key("type");
                    if (object.contains_key("enum") || object.contains_key("const")) && !typed {
                        problems.push(format!("{file}{at}: an enum or const without a type"));
                    }
                    if let Some(serde_json::Value::Array(values)) = object.get("enum") {
                        let distinct: std::collections::BTreeSet<String> =
                            values.iter().map(ToString::to_string).collect();
                        if distinct.len() != values.len() {
                            problems.push(format!("{file}{at}: an enum lists a value twice"));
                        }
                    }
                    if object.get("type").is_some_and(|t| t == "array") && !object.contains_key("items") {
                        problems.push(format!("{file}{at}: an array without items"));
                    }
                    if let Some(serde_json::Value::Array(options)) = object.get("anyOf")
                        && options.len() == 2
                        && options.iter().any(|o| o == &serde_json::json!({"type": "null"}))
                        && options.iter().any(|o| {
                            o.get("type").is_some_and(|t| t.is_string() && t != "null") && o.get("anyOf").is_none()
                        })
                    {
                        problems.push(format!("{file}{at}: a nullable value as anyOf, not a type list"));
                    }
                    for (key, child) in object {
                        walk(file, &format!("{at}/{key}"), child, problems);
                    }
                }
                serde_json::Value::Array(items) => {
                    for (n, item) in items.iter().enumerate() {
                        walk(file, &format!("{at}/{n}"), item, problems);
                    }
                }
                _ => {}
            }
        }
        let mut problems = Vec::new();
        for (file, text) in super::schema_files() {
            let schema: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            walk(&file, "", &schema, &mut problems);
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// The format of the string at a JSON Schema pointer
    /// (`/$defs/ProductRecord/properties/slug`), found by walking the key
    /// tables the schema was generated from.
    fn format_at(pointer: &str) -> Format {
        /// The object shape named `name`, anywhere under `shape`.
        fn named(shape: Shape, name: &str) -> Option<Shape> {
            match shape {
                Shape::Object(own, _) if own == name => Some(shape),
                Shape::Object(_, fields) => fields.iter().find_map(|f| named(f.shape, name)),
                Shape::Nullable(inner) | Shape::Array(inner) => named(*inner, name),
                _ => None,
            }
        }
        let mut shape = ProductResponse::SHAPE;
        let mut parts = pointer.split('/').skip(1);
        while let Some(part) = parts.next() {
            shape = match (part, shape) {
                ("$defs", root) => {
                    let name = parts.next().expect("a name after $defs");
                    named(root, name).unwrap_or_else(|| panic!("no object {name}"))
                }
                ("properties", Shape::Object(_, fields)) => {
                    let key = parts.next().expect("a key after properties");
                    fields.iter().find(|f| f.name == key).unwrap_or_else(|| panic!("no key {key}")).shape
                }
                ("items", Shape::Array(item)) => *item,
                (part, shape) => panic!("{part} does not apply to {shape:?}"),
            };
            while let Shape::Nullable(inner) = shape {
                shape = *inner;
            }
        }
        match shape {
            Shape::Str(format) => format,
            other => panic!("{pointer} is {other:?}, not a string format"),
        }
    }

    /// Sample rows are typed for generators: in the response schema,
    /// `Sample` is one titled variant per shipped record type, whose
    /// `record_label` is that type's and whose rows are its row schema; in
    /// the OpenAPI document, each definition is a component of its own, the
    /// variants' discriminator maps each label to its variant, and every
    /// `$ref` there resolves in the document.
    #[test]
    fn sample_rows_are_named_row_types_in_both_documents() {
        let response = super::response_schema();
        let resolve = |document: &serde_json::Value, target: &serde_json::Value| {
            document
                .pointer(target.as_str().expect("a $ref").trim_start_matches('#'))
                .expect("the $ref resolves")
                .clone()
        };
        assert_eq!(response["$defs"]["Sample"]["discriminator"], serde_json::json!({"propertyName": "record_label"}));
        let variants = response["$defs"]["Sample"]["oneOf"].as_array().expect("oneOf").clone();
        assert_eq!(variants.len(), crate::record_types().len());
        for (variant, record_type) in variants.iter().zip(crate::record_types()) {
            let sample = resolve(&response, &variant["$ref"]);
            assert_eq!(sample["properties"]["record_label"]["const"], *record_type.record_label);
            let row = resolve(&response, &sample["properties"]["rows"]["items"]["$ref"]);
            assert_eq!(row["title"], super::def_name(&record_type.record_label, "Row"));
            assert_eq!(row["properties"], super::record_type_schema(record_type)["properties"]);
        }
        let openapi = super::openapi();
        fn refs_in(value: &serde_json::Value, out: &mut Vec<String>) {
            match value {
                serde_json::Value::Object(object) => {
                    out.extend(object.get("$ref").and_then(|r| r.as_str()).map(str::to_owned));
                    object.values().for_each(|v| refs_in(v, out));
                }
                serde_json::Value::Array(items) => items.iter().for_each(|v| refs_in(v, out)),
                _ => {}
            }
        }
        let mut all = Vec::new();
        refs_in(&openapi, &mut all);
        assert!(all.iter().any(|r| r.ends_with("Row")), "{all:?}");
        for target in all {
            assert!(target.starts_with("#/components/schemas/"), "{target}");
            assert!(openapi.pointer(target.trim_start_matches('#')).is_some(), "{target} resolves");
        }
        let sample = &openapi["components"]["schemas"]["Sample"];
        let mapping = sample["discriminator"]["mapping"].as_object().expect("a mapping");
        assert_eq!(mapping.len(), crate::record_types().len());
        for (label, target) in mapping {
            let variant = resolve(&openapi, target);
            assert_eq!(variant["properties"]["record_label"]["const"], **label);
            assert!(sample["oneOf"].as_array().expect("oneOf").contains(&serde_json::json!({"$ref": target})));
        }
    }

    /// Every object of the record is one titled definition, named by its
    /// type, and referred to wherever it appears: no property of a
    /// definition writes an object in place, and the listing shape serves
    /// both `marketplaces` and `primary_cta`.
    #[test]
    fn each_object_is_one_named_definition() {
        fn objects(shape: Shape, out: &mut Vec<&'static str>) {
            match shape {
                Shape::Object(name, fields) if !out.contains(&name) => {
                    out.push(name);
                    fields.iter().for_each(|f| objects(f.shape, out));
                }
                Shape::Nullable(inner) | Shape::Array(inner) => objects(*inner, out),
                _ => {}
            }
        }
        fn in_place(value: &serde_json::Value) -> bool {
            value.get("properties").is_some()
                || value.get("items").is_some_and(in_place)
                || value.get("anyOf").and_then(|a| a.as_array()).is_some_and(|a| a.iter().any(in_place))
        }
        let schema = super::response_schema();
        let mut names = Vec::new();
        objects(ProductResponse::SHAPE, &mut names);
        assert!(names.len() > 8, "{names:?}");
        for name in names.iter().skip(1) {
            let def = &schema["$defs"][name];
            assert_eq!(def["title"], *name, "{name}");
            let variants = def["oneOf"].as_array().cloned().unwrap_or_else(|| vec![def.clone()]);
            for variant in variants {
                let variant = match variant["$ref"].as_str() {
                    Some(target) => schema.pointer(target.trim_start_matches('#')).expect("resolves").clone(),
                    None => variant,
                };
                for (key, property) in variant["properties"].as_object().expect("properties") {
                    assert!(!in_place(property), "{name}.{key} writes an object in place");
                }
            }
        }
        let text = schema.to_string();
        assert_eq!(text.matches(r##""$ref":"#/$defs/MarketplaceListing""##).count(), 2);
    }

    /// In the OpenAPI document, a nullable reference is the referred object
    /// in place, `null` joined to its type: no `anyOf` with `null` is left.
    #[test]
    fn openapi_writes_nullable_references_in_place() {
        let openapi = super::openapi();
        let schemas = &openapi["components"]["schemas"];
        let cta = &schemas["ProductRecord"]["properties"]["primary_cta"];
        assert_eq!(cta["type"], serde_json::json!(["object", "null"]));
        assert_eq!(cta["properties"], schemas["MarketplaceListing"]["properties"]);
        assert_eq!(cta["required"], schemas["MarketplaceListing"]["required"]);
        assert!(cta.get("title").is_none(), "no second type named MarketplaceListing");
        let text = openapi.to_string();
        assert!(!text.contains(r#""anyOf":[{"$ref""#), "an anyOf of a reference is left");
    }

    /// Two labels never share a definition name, and no label's names are
    /// an object's: the words of a label are told apart by the case of a
    /// letter or, for a word that starts with a digit, its underscore.
    #[test]
    fn record_type_definition_names_are_distinct() {
        assert_eq!(super::def_name("regulatory_status_signal", "Row"), "RegulatoryStatusSignalRow");
        assert_ne!(super::def_name("a_b1", "Row"), super::def_name("a_b_1", "Row"));
        assert_ne!(super::def_name("ab", "Row"), super::def_name("a_b", "Row"));
        let schema = super::response_schema();
        let defs = schema["$defs"].as_object().expect("$defs");
        let labelled: Vec<String> = crate::record_types()
            .iter()
            .flat_map(|t| ["Row", "Sample"].map(|suffix| super::def_name(&t.record_label, suffix)))
            .collect();
        for name in defs.keys().filter(|name| !labelled.contains(name)) {
            assert!(!name.ends_with("Row") && (name == "Sample" || !name.ends_with("Sample")), "{name}");
        }
        assert!(labelled.iter().all(|name| defs.contains_key(name)));
    }

    /// Each format's good and bad strings in `cases.json` (which the external
    /// validators check against the schema patterns) are accepted and rejected
    /// by the Rust check too. The Rust check may be stricter than the pattern
    /// (calendar dates, the currency list, URL grammar), never looser.
    #[test]
    fn format_cases_agree_with_the_rust_checks() {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/json-schema/cases.json"),
        )
        .expect("cases.json");
        let cases: serde_json::Value = serde_json::from_str(&text).expect("cases.json is JSON");
        let formats = cases["formats"].as_array().expect("a formats list");
        assert!(!formats.is_empty());
        let mut field_formats = std::collections::BTreeSet::new();
        for case in formats {
            let at = case["at"].as_str().expect("at");
            if case["schema"] == "field-formats.schema.json" {
                // A field format's cases: its own check judges them.
                let name = at.strip_prefix("/$defs/").expect("a field format's pointer");
                let format: crate::FieldFormat = name.parse().expect("a field format");
                let check = |text: &str| format.check(&serde_json::Value::from(text), None);
                for good in case["good"].as_array().expect("good") {
                    let good = good.as_str().expect("a string");
                    assert!(check(good).is_ok(), "{format} rejects {good:?}");
                }
                for bad in case["bad"].as_array().expect("bad") {
                    let bad = bad.as_str().expect("a string");
                    assert!(check(bad).is_err(), "{format} accepts {bad:?}");
                }
                field_formats.insert(format);
                continue;
            }
            assert_eq!(case["schema"], "product-response.schema.json", "the response schema's formats are walked");
            let format = format_at(at);
            assert!(format.pattern().is_some(), "{format:?} has a pattern in the schema");
            for good in case["good"].as_array().expect("good") {
                let good = good.as_str().expect("a string");
                assert!(format.check(good).is_ok(), "{format:?} rejects {good:?}");
            }
            for bad in case["bad"].as_array().expect("bad") {
                let bad = bad.as_str().expect("a string");
                assert!(format.check(bad).is_err(), "{format:?} accepts {bad:?}");
            }
        }
        let string_formats: std::collections::BTreeSet<_> =
            crate::FieldFormat::ALL.iter().copied().filter(|f| f.json_schema()["type"] == "string").collect();
        assert_eq!(field_formats, string_formats, "every string field format has cases");
    }
}

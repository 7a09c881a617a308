//! Generated structs keep their wire names and agree with the data-driven
//! fixture rows, for definitions the main crate does not ship.

use foundry_catalog_compile_check::corpus;
use foundry_catalog_core::{RecordType, Slug, fixture};
use serde_json::Value;

fn slug() -> Slug {
    Slug::new("compile-check").expect("valid slug")
}

/// Typed rows serialize to exactly the data-driven rows (same keys, same
/// order, same values) and deserialize back to the same structs.
fn typed_rows_match_schema<T: RecordType>() {
    let typed = T::fixture_rows(&slug());
    let json = serde_json::to_value(&typed).expect("rows serialize");
    let expected: Vec<Value> = fixture::rows(&T::SCHEMA, slug().as_str()).into_iter().map(Value::Object).collect();
    assert_eq!(json, Value::Array(expected.clone()), "{}", T::LABEL);
    let text = serde_json::to_string(&typed).expect("rows serialize");
    assert_eq!(text, serde_json::to_string(&expected).expect("rows serialize"), "key order of {}", T::LABEL);
    let back: Vec<T> = serde_json::from_value(json).expect("rows deserialize");
    assert_eq!(back, typed);
    assert_eq!(T::REQUIRED_FIELDS, T::SCHEMA.required_fields().collect::<Vec<_>>(), "{}", T::LABEL);
    assert_eq!(typed.len(), T::SAMPLE_ROWS);
}

#[test]
fn every_shipped_type_round_trips() {
    use foundry_catalog::records;
    typed_rows_match_schema::<records::ActorProductRecord>();
    typed_rows_match_schema::<records::AutomationTriggerActionPayload>();
    typed_rows_match_schema::<records::RegulatoryStatusSignal>();
    assert_eq!(foundry_catalog::record_types().len(), 3, "a new shipped definition needs a line above");
}

#[test]
fn every_corpus_type_round_trips() {
    typed_rows_match_schema::<corpus::AllHints>();
    typed_rows_match_schema::<corpus::Formats>();
    typed_rows_match_schema::<corpus::Keywords>();
    typed_rows_match_schema::<corpus::MarkdownDocs>();
    typed_rows_match_schema::<corpus::Minimal>();
    typed_rows_match_schema::<corpus::PriceObservation>();
    typed_rows_match_schema::<corpus::ShipmentEvent>();
    typed_rows_match_schema::<corpus::StockCount>();
    typed_rows_match_schema::<corpus::UpperSelf>();
    typed_rows_match_schema::<corpus::WeatherReading>();
    assert_eq!(corpus::RECORD_TYPES.len(), 10, "a new corpus definition needs a line above");
}

#[test]
fn integers_and_booleans_are_typed_and_step_by_row() {
    let rows = corpus::StockCount::fixture_rows(&slug());
    let units: Vec<i64> = rows.iter().map(|r| r.units_on_shelf).collect();
    let in_stock: Vec<bool> = rows.iter().map(|r| r.in_stock).collect();
    assert_eq!(units, [1, 2, 3]);
    assert_eq!(in_stock, [true, false, true]);
    assert!(rows.iter().all(|r| r.reorder_point.is_none()), "an absent optional field is left out");
    assert_eq!(rows.iter().map(|r| r.audited).collect::<Vec<_>>(), [Some(true), Some(false), Some(true)]);
    let json = serde_json::to_value(&rows[1]).expect("serializes");
    assert_eq!(json["unitsOnShelf"], serde_json::json!(2), "a JSON integer, not 2.0");
    assert!(json["unitsOnShelf"].is_u64());
    assert_eq!(json["inStock"], serde_json::json!(false));
}

#[test]
fn lists_and_nested_objects_are_typed_at_every_depth() {
    use corpus::price_observation::{OffersItem, Seller, SellerAddress};
    let rows = corpus::PriceObservation::fixture_rows(&slug());
    let second = &rows[1];
    // Lists hold two items (within min_items 1, max_items 5), each the
    // item type's value on the row; text follows the suffix rule inside.
    assert_eq!(second.tags, ["Deterministic fixture tag 2", "Deterministic fixture tag 2"]);
    let Seller { name, country, address } = &second.seller;
    assert_eq!(name, "Deterministic fixture name 2");
    assert_eq!(country.as_deref(), Some("de 2"));
    let Some(SellerAddress { city, lines }) = address else { panic!("the nested optional object is filled") };
    assert_eq!(city, "Deterministic fixture city 2");
    assert_eq!(lines, &["Deterministic fixture lines 2", "Deterministic fixture lines 2"]);
    let offers: &Vec<OffersItem> = second.offers.as_ref().expect("optional lists are filled");
    assert_eq!(offers.len(), 2);
    assert_eq!(offers[0].seen_on.to_string(), "2026-01-02", "a date in a nested object is a time::Date");
    let links = offers[0].links.as_ref().expect("filled");
    assert_eq!(links.len(), 1, "max_items 1 caps the fixture list");
    assert_eq!(links[0].as_str(), "https://fixtures.example.org/records/compile-check/2");
    assert!(second.grid.is_none(), "an absent optional list is left out");
    let json = serde_json::to_value(second).expect("serializes");
    assert_eq!(json["seller"]["address"]["lines"][1], "Deterministic fixture lines 2");
    assert_eq!(json["offers"][1]["price"], 0.79);
    assert_eq!(json["quantity"], 2);
}

#[test]
fn closed_sets_are_enums_and_null_is_kept_apart_from_absent() {
    use corpus::price_observation::{Condition, OffersItemChannel};
    let rows = corpus::PriceObservation::fixture_rows(&slug());
    // A closed set's values in turn, row by row; variants follow the naming
    // policy (`2nd-hand` → `V2ndHand`) or the definition's `rust_name`.
    let conditions: Vec<Condition> = rows.iter().map(|r| r.condition).collect();
    assert_eq!(conditions, [Condition::New, Condition::Used, Condition::V2ndHand]);
    assert_eq!(serde_json::to_value(Condition::ForParts).expect("serializes"), "for parts");
    assert_eq!(serde_json::to_value(Condition::Self_).expect("serializes"), "self");
    assert_eq!(rows[1].offers.as_ref().expect("filled")[0].channel, OffersItemChannel::Store);
    assert!(serde_json::from_value::<Condition>(serde_json::json!("broken")).is_err());

    // Optional and nullable: absent, null and a value each read back as
    // they were written.
    let mut json = serde_json::to_value(&rows[0]).expect("serializes");
    for note in [None, Some(Value::Null), Some(Value::from("a remark"))] {
        match &note {
            Some(note) => json["note"] = note.clone(),
            None => drop(json.as_object_mut().and_then(|row| row.remove("note"))),
        }
        let row: corpus::PriceObservation = serde_json::from_value(json.clone()).expect("deserializes");
        assert_eq!(serde_json::to_value(&row).expect("serializes").get("note"), note.as_ref());
    }
    // Required and nullable: null is `None`, and is written as null.
    json["discount"] = Value::Null;
    json["lastSeen"] = Value::Null;
    json["ratings"] = serde_json::json!([5, null]);
    let row: corpus::PriceObservation = serde_json::from_value(json.clone()).expect("deserializes");
    assert_eq!((row.discount, row.last_seen, row.ratings.clone()), (None, Some(None), vec![Some(5), None]));
    assert_eq!(serde_json::to_value(&row).expect("serializes"), json);
}

#[test]
fn keyword_fields_keep_their_wire_names() {
    let row = &corpus::Keywords::fixture_rows(&slug())[0];
    let json = serde_json::to_value(row).expect("serializes");
    let keys: Vec<&str> = json.as_object().expect("object").keys().map(String::as_str).collect();
    let wire: Vec<&str> = corpus::Keywords::FIELDS.iter().map(|f| &*f.name).collect();
    assert_eq!(keys, wire);
    assert_eq!(row.r#type, "Deterministic fixture type");
    assert_eq!(row.self_, "Deterministic fixture self");
    assert_eq!(row._2fa, "Deterministic fixture 2fa");
    assert_eq!(row.x_request_id, "Deterministic fixture x request id");
    assert_eq!(json["x-request-id"], "Deterministic fixture x request id");

    let upper = serde_json::to_value(&corpus::UpperSelf::fixture_rows(&slug())[1]).expect("serializes");
    assert_eq!(upper["Self"], "Deterministic fixture self 2");
    assert_eq!(upper["HTTPStatus"], 2.0);
}

#[test]
fn absent_hints_leave_optional_fields_out() {
    let rows = corpus::AllHints::fixture_rows(&slug());
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r.absent_string.is_none() && r.absent_number.is_none() && r.absent_object.is_none()));
    assert_eq!(rows[0].filled_optional, Some(1.0));
    let json = serde_json::to_value(&rows[3]).expect("serializes");
    assert!(json.get("absentString").is_none());
    assert_eq!(json["date"], "2024-03-02");
    assert_eq!(json["fraction"], 0.99);
    assert_eq!(json["url"], "http://localhost:8080/base/compile-check/4");
    assert_eq!(json["token"], "state:ok 4");
}

#[test]
fn the_registry_holds_every_corpus_type_sorted() {
    let labels: Vec<&str> = corpus::RECORD_TYPES.iter().map(|t| &*t.record_label).collect();
    assert!(labels.is_sorted());
    for schema in corpus::RECORD_TYPES {
        schema.verify_schema_hash().expect("stored hash matches");
    }
}

#[test]
fn formats_are_typed_and_rust_names_keep_the_wire() {
    let rows = corpus::Formats::fixture_rows(&slug());
    let row = &rows[1];
    use foundry_catalog_core::time::{Date, Month};
    let day: Date = row.on_day;
    assert_eq!(Ok(day), Date::from_calendar_date(2024, Month::February, 29));
    assert_eq!(row.maybe_day, Date::from_calendar_date(2026, Month::January, 2).ok());
    assert_eq!(row.absent_day, None);
    let link: &foundry_catalog_core::AbsoluteUrl = &row.link;
    assert_eq!(link.as_str(), "https://fixtures.example.org/records/compile-check/2");
    assert_eq!(row.dedupe_key, "fixture_dedupe_key_2");
    assert_eq!(row.default_state, "fixture_default_state 2");
    let json = serde_json::to_value(row).expect("serializes");
    assert_eq!(json["onDay"], "2024-02-29");
    assert_eq!(json["foo_bar"], row.foo_bar_snake.as_str());
    assert_eq!(json["fooBar"], row.foo_bar.as_str());
    assert_eq!(json["Self"], row.r#type.as_str());
    assert!(json.get("absentDay").is_none());
}

#[test]
fn derives_and_attributes_from_generator_settings_take_effect() {
    use foundry_catalog_compile_check::settings::{Tally, tally::PartsItem};
    let rows = Tally::fixture_rows(&slug());
    // Hash and Eq: rows go in a set; Ord: they sort.
    let set: std::collections::HashSet<&Tally> = rows.iter().collect();
    assert_eq!(set.len(), rows.len());
    let mut sorted = rows.clone();
    sorted.sort();
    assert_eq!(sorted.iter().map(|r| r.count).collect::<Vec<_>>(), [1, 2, 3], "the row numbers: minimum 0 allows them");
    // `#[serde(deny_unknown_fields)]` on the record and the item struct.
    let mut json = serde_json::to_value(&rows[0]).expect("serializes");
    json["extra"] = Value::Bool(true);
    assert!(serde_json::from_value::<Tally>(json).is_err(), "an unknown key is refused");
    // `#[serde(alias = "id")]` on one nested field.
    let part: PartsItem = serde_json::from_value(serde_json::json!({"id": "p-1"})).expect("the alias is read");
    assert_eq!((part.code.as_str(), part.note), ("p-1", None));
    assert!(serde_json::from_value::<PartsItem>(serde_json::json!({"code": "p", "x": 1})).is_err());
}

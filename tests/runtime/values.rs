//! Slugs, timestamps and manifest locations: what is accepted and rejected.

use foundry_catalog::preview::ManifestLocation;
use foundry_catalog_core::{Slug, UtcTimestamp};

#[test]
fn slugs() {
    for good in ["a", "eu-regulatory-signals", "crm-sync-2", "0-day"] {
        assert_eq!(Slug::new(good).map(|s| s.to_string()).as_deref(), Ok(good));
    }
    let long = "a".repeat(201);
    for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a b", "a/b", "..", "é", long.as_str()] {
        assert!(Slug::new(bad).is_err(), "{bad:?}");
    }
    assert!(Slug::new("a".repeat(200)).is_ok());
    let err = Slug::new("Bad Slug").unwrap_err().to_string();
    assert!(err.contains("hint: "), "{err}");
}

#[test]
fn utc_timestamps_need_microseconds_and_z() {
    let t: UtcTimestamp = "2026-03-01T08:30:00.000001Z".parse().expect("valid");
    assert_eq!(t.to_string(), "2026-03-01T08:30:00.000001Z");
    assert_eq!(serde_json::to_string(&t).expect("serializes"), "\"2026-03-01T08:30:00.000001Z\"");
    let back: UtcTimestamp = serde_json::from_str("\"2026-03-01T08:30:00.000001Z\"").expect("deserializes");
    assert_eq!(back, t);
    for bad in [
        "2026-03-01T08:30:00Z",
        "2026-03-01T08:30:00.123Z",
        "2026-03-01T08:30:00.123456789Z",
        "2026-03-01T08:30:00.123456+00:00",
        "2026-03-01 08:30:00.123456Z",
        "2026-02-30T08:30:00.123456Z",
        "",
    ] {
        assert!(bad.parse::<UtcTimestamp>().is_err(), "{bad:?}");
    }
    let nanos = time::OffsetDateTime::from_unix_timestamp_nanos(1_700_000_000_123_456_789).expect("in range");
    assert_eq!(UtcTimestamp::from_datetime(nanos).to_string(), "2023-11-14T22:13:20.123456Z");
    let paris = nanos.to_offset(time::UtcOffset::from_hms(1, 0, 0).expect("offset"));
    assert_eq!(UtcTimestamp::from_datetime(paris).to_string(), "2023-11-14T22:13:20.123456Z");
}

#[test]
fn manifest_locations() {
    let slug = Slug::new("lead-finder").expect("valid");
    assert_eq!(ManifestLocation::default().path(&slug), "products/generated/lead-finder/product.json");
    let actor = ManifestLocation::actor("actorhub", "foundry-labs").expect("valid");
    assert_eq!(actor.path(&slug), "actorhub://actors/foundry-labs/lead-finder");
    for (scheme, publisher) in
        [("", "p"), ("Actor", "p"), ("a b", "p"), ("actorhub", ""), ("actorhub", "a/b"), ("actorhub", "..")]
    {
        assert!(ManifestLocation::actor(scheme, publisher).is_err(), "{scheme:?} {publisher:?}");
    }
}

//! "Did you mean": the name a misspelt key or value most likely meant,
//! among the ones serde's message lists, and the names other schema
//! languages use for what this format calls otherwise.
//!
//! Hand-written rather than `strsim`: a crate of generated types builds
//! this crate, and its package count is held by CI (docs/architecture.md).

/// What other schema languages (JSON Schema, Avro, Protobuf, TypeScript)
/// call a key or value this format names otherwise: (what was written,
/// what to write). Consulted only when what to write is among the
/// candidates, so each entry speaks for one place in the format.
const OTHER_NAMES: &[(&str, &str)] = &[
    ("date-time", "timestamp"),
    ("datetime", "timestamp"),
    ("date_time", "timestamp"),
    ("time", "timestamp"),
    ("uri", "url"),
    ("guid", "uuid"),
    ("int", "integer"),
    ("long", "integer"),
    ("float", "number"),
    ("double", "number"),
    ("decimal", "number"),
    ("bool", "boolean"),
    ("str", "string"),
    ("list", "array"),
    ("map", "object"),
    ("record", "object"),
    ("struct", "object"),
    ("properties", "fields"),
    ("minItems", "min_items"),
    ("maxItems", "max_items"),
    ("min", "minimum"),
    ("max", "maximum"),
    ("example", "fixture"),
    ("examples", "fixture"),
    ("title", "description"),
];

/// What a key of another schema language is written as here, when it is
/// not a plain rename: (what was written, what to write instead).
const OTHER_KEYS: &[(&str, &str, &str)] = &[
    ("optional", "required", "write `\"required\": false` for a field a row may leave out"),
    ("default", "fixture", "a field's sample value comes from its `fixture` hint, such as {\"text\": \"entity name\"}"),
];

/// The hint for `written` when the format expects one of `candidates`:
/// `did you mean `x`?`, or how this format says what `written` says
/// elsewhere; `None` when no candidate is close.
pub(crate) fn hint(written: &str, candidates: &[&str]) -> Option<String> {
    if let Some((_, key, how)) = OTHER_KEYS.iter().find(|(other, key, _)| *other == written && candidates.contains(key))
    {
        return Some(format!("there is no `{written}` here: {how} (`{key}`)"));
    }
    closest(written, candidates).map(|name| format!("did you mean `{name}`?"))
}

/// The candidate `written` most likely meant: a name other schema
/// languages use for it, or the nearest by edits (a transposition counts
/// one) within a third of the longer name, ignoring case. Ties go to the
/// first listed.
pub(crate) fn closest<'a>(written: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = written.to_ascii_lowercase();
    if let Some((_, name)) =
        OTHER_NAMES.iter().find(|(other, name)| other.eq_ignore_ascii_case(written) && candidates.contains(name))
    {
        return candidates.iter().copied().find(|c| c == name);
    }
    let mut best: Option<(usize, &str)> = None;
    for &candidate in candidates {
        let distance = edits(&lower, &candidate.to_ascii_lowercase());
        let longer = lower.chars().count().max(candidate.chars().count());
        if distance * 3 <= longer && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, name)| name)
}

/// The optimal-string-alignment distance: insertions, deletions,
/// substitutions and transpositions of neighbours, one edit each.
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows of the table: two back (for transpositions), one back, this.
    let mut two_back: Vec<usize> = vec![0; b.len() + 1];
    let mut one_back: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (one_back[j] + 1).min(row[j - 1] + 1).min(one_back[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(two_back[j - 2] + 1);
            }
        }
        two_back = std::mem::replace(&mut one_back, row);
    }
    one_back[b.len()]
}

/// The names a serde message lists after "expected one of" (or "expected"
/// and one name), each in backticks.
pub(crate) fn listed(message: &str) -> Vec<&str> {
    let Some((_, list)) = message.split_once(", expected ") else { return Vec::new() };
    list.split('`').skip(1).step_by(2).collect()
}

/// The first name in backticks in a serde message: the unknown key or value.
pub(crate) fn written(message: &str) -> Option<&str> {
    message.split('`').nth(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TYPES: &[&str] = &["string", "number", "integer", "boolean", "object", "array"];
    const FORMATS: &[&str] =
        &["date", "url", "fraction", "token", "payload", "text", "key", "timestamp", "email", "uuid"];
    const KEYS: &[&str] = &["name", "type", "required", "description", "fixture", "format", "items", "nullable"];

    #[test]
    fn a_misspelling_names_what_it_meant() {
        assert_eq!(closest("integr", TYPES), Some("integer"));
        assert_eq!(closest("Strng", TYPES), Some("string"));
        assert_eq!(closest("requird", KEYS), Some("required"));
        assert_eq!(closest("fixtrue", KEYS), Some("fixture"), "a transposition is one edit");
        assert_eq!(closest("emial", FORMATS), Some("email"));
    }

    #[test]
    fn another_languages_name_is_translated_only_where_it_fits() {
        assert_eq!(closest("date-time", FORMATS), Some("timestamp"));
        assert_eq!(closest("int", TYPES), Some("integer"));
        assert_eq!(closest("date-time", TYPES), None, "`timestamp` is not a type");
        assert_eq!(
            hint("optional", KEYS).as_deref(),
            Some(
                "there is no `optional` here: write `\"required\": false` for a field a row may leave out (`required`)"
            )
        );
        assert!(hint("default", KEYS).is_some_and(|h| h.contains("`fixture`")));
        assert_eq!(hint("default", TYPES), None);
    }

    #[test]
    fn nothing_close_is_no_suggestion() {
        assert_eq!(closest("phone", FORMATS), None);
        assert_eq!(closest("colour", KEYS), None);
        assert_eq!(closest("", KEYS), None);
    }

    #[test]
    fn the_distance_counts_each_edit_once() {
        assert_eq!(edits("", "abc"), 3);
        assert_eq!(edits("abc", "abc"), 0);
        assert_eq!(edits("abc", "acb"), 1);
        assert_eq!(edits("kitten", "sitting"), 3);
        assert_eq!(edits("ca", "abc"), 3, "optimal string alignment, not full Damerau");
    }

    #[test]
    fn the_names_are_read_from_serdes_message() {
        let message = "unknown variant `int`, expected one of `string`, `number`";
        assert_eq!(written(message), Some("int"));
        assert_eq!(listed(message), ["string", "number"]);
        assert_eq!(listed("unknown field `x`, expected `name`"), ["name"]);
        assert!(listed("unknown field `x`, there are no fields").is_empty());
    }
}

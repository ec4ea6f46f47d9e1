//! Replays recorded Triton conversions (the conversion files under
//! `tests/data/encodings/`, read through `recorded` and chosen by their
//! header's kind and release) through `convert --batch`'s request handler,
//! and round-trips every attribute through the TTGIR printer.

use crate::recorded::{self, Kind, Recorded};
use linear_layout_triton::request::convert_line;
use linear_layout_triton::{Defs, parse_attr, print_attr};
use serde_json::Value;
use std::collections::BTreeMap;

/// Attribute kinds outside this crate's scope (Blackwell tensor memory): the
/// conversion must say it has no recipe, and those cases are counted apart.
const OUT_OF_SCOPE: &[&str] = &["tmem", "tmem_scales"];

/// Gluon's conversions recorded with the `release` wheel.
fn gluon(release: &str) -> Recorded {
    let file = recorded::one(Kind::Conversions, Some(release));
    let short = file.short_release();
    assert!(
        file.values()
            .all(|c| c["request"]["triton"] == short.as_str()),
        "{}: a request not for {short}",
        file.file()
    );
    file
}

/// Whether our answer matches the recorded one: equal layouts, `none` for
/// `none`, and any error where Triton failed (aborted or raised).
fn agrees(ours: &Value, expect: &Value) -> bool {
    if let Some(want) = expect.get("ok") {
        ours.get("ok") == Some(want)
    } else if expect.get("none").is_some() {
        ours.get("none").is_some()
    } else {
        ours.get("error").is_some()
    }
}

#[test]
fn conversions_agree_with_gluon_3_9() {
    let all = gluon("3.9.0");
    assert!(all.len() >= 3000, "only {} recorded cases", all.len());
    assert_all_agree(&all);
}

/// 3.7.1's Gluon on a random sample (seed 31). Its conversions differ from
/// 3.8's in four ways (`Release::V3_7`); the sample must hold enough
/// of those for the check to mean something, so each case is also asked
/// as 3.8, and at least 30 must get another answer there.
#[test]
fn conversions_agree_with_gluon_3_7() {
    let all = gluon("3.7.1");
    assert!(all.len() >= 700, "only {} recorded cases", all.len());
    assert!(all.values().all(|c| c["request"]["triton"] == "3.7"));
    assert_all_agree(&all);
    let differ_from_3_8 = all
        .values()
        .filter(|case| {
            let mut request = case["request"].clone();
            request["triton"] = "3.8".into();
            !agrees(&convert_line(&request.to_string()), &case["expect"])
        })
        .count();
    assert!(
        differ_from_3_8 >= 30,
        "only {differ_from_3_8} cases answer differently as 3.8"
    );
}

/// Every recorded case agrees (out-of-scope kinds must be refused), with a
/// per-kind table and the first disagreements in the failure message.
fn assert_all_agree(all: &Recorded) {
    let mut per_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for (name, case) in all.records() {
        let kind = case["kind"].as_str().unwrap_or("?").to_string();
        let ours = convert_line(&case["request"].to_string());
        let ok = if OUT_OF_SCOPE.contains(&kind.as_str()) {
            ours["error"]["kind"] == "invalid_attribute"
        } else {
            agrees(&ours, &case["expect"])
        };
        let entry = per_kind.entry(kind.clone()).or_default();
        if ok {
            entry.0 += 1;
        } else {
            entry.1 += 1;
            failures.push(format!(
                "{} {name}: {}\n  triton: {}\n  ours:   {ours}",
                all.file(),
                case["request"],
                case["expect"]
            ));
        }
    }
    let table: Vec<String> = per_kind
        .iter()
        .map(|(k, (p, f))| format!("{k}: {p} agree, {f} disagree"))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases disagree\n{}\n\n{}",
        failures.len(),
        all.len(),
        table.join("\n"),
        failures
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn every_recorded_attribute_prints_and_parses_back() {
    let defs = Defs::new();
    let mut checked = 0;
    for (name, case) in gluon("3.9.0").records() {
        let text = case["request"]["attr"].as_str().unwrap();
        let Ok(attr) = parse_attr(text, &defs) else {
            continue;
        };
        let printed = print_attr(&attr, "ttg");
        let again =
            parse_attr(&printed, &defs).unwrap_or_else(|e| panic!("{name}: {printed}: {e}"));
        assert_eq!(again, attr, "{name}: {text}\nprinted as\n{printed}");
        checked += 1;
    }
    assert!(checked >= 3000, "only {checked} attributes parsed");
}

#[test]
fn conversions_agree_with_triton_3_2_unit_tests() {
    let all = recorded::one(Kind::GoldenConversions, Some("3.2.0"));
    assert!(all.len() >= 100, "only {} golden cases", all.len());
    let failures: Vec<String> = all
        .records()
        .filter_map(|(name, case)| {
            let ours = convert_line(&case["request"].to_string());
            (!agrees(&ours, &case["expect"])).then(|| format!("{name}: ours {ours}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} disagree:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

/// Disagreements the differential campaign found (notes/findings/), fixed and
/// kept: a CGA layout's bits may come in any order, and WMMA parents check
/// their CGA too.
#[test]
fn campaign_findings_stay_fixed() {
    let all = recorded::only(Kind::ConversionRegressions);
    assert!(!all.is_empty(), "{all:?}");
    assert_each_agrees(&all);
}

/// Every case's request, converted by us, gives the case's recorded answer.
fn assert_each_agrees(all: &Recorded) {
    for (name, case) in all.records() {
        let ours = convert_line(&case["request"].to_string());
        assert!(
            agrees(&ours, &case["expect"]),
            "{} {name} ({}) {}: ours {ours}, triton {}",
            all.file(),
            case["source"],
            case["request"]["attr"],
            case["expect"]
        );
    }
}

/// Found by the `convert` fuzz target: rank-1 MMA and dot-operand attributes
/// are refused, not computed with a wrapped `rank - 2`.
#[test]
fn rank_one_mma_and_dot_operands_are_errors() {
    use linear_layout_triton::{Release, to_linear_layout};
    for text in [
        "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1], instrShape = [16, 8]}>",
        "#ttg.dot_op<{opIdx = 1, parent = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [1], warpsPerCTA = [1], order = [0]}>}>",
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1], instrShape = [16, 8]}>, kWidth = 8}>",
    ] {
        let attr = parse_attr(text, &Defs::new()).unwrap();
        for v in Release::ALL {
            let e = to_linear_layout(&attr, &[16], v, None).unwrap_err();
            assert!(e.to_string().contains("rank 2 or 3"), "{text} ({v}): {e}");
        }
    }
}

/// Blocked layouts larger than their shape, as the 3.8.0 and 3.9.0 wheels
/// convert them (Gluon's `to_linear_layout`): 3.8 keeps the register bases
/// that run past the shape as zero (duplicate) bases, 3.9 drops them. Found
/// by running the encodings oracle against the 3.8.0 wheel.
#[test]
fn blocked_register_duplicates_are_kept_by_3_8_and_dropped_by_3_9() {
    let all = recorded::only(Kind::ConversionReleasePairs);
    let releases: std::collections::BTreeSet<&str> = all
        .values()
        .filter_map(|c| c["request"]["triton"].as_str())
        .collect();
    assert_eq!(releases, ["3.8", "3.9"].into_iter().collect());
    assert_each_agrees(&all);
    // The two releases really differ on every attribute here.
    let cases: Vec<(&str, &Value)> = all.records().collect();
    for pair in cases.chunks(2) {
        assert_ne!(
            pair[0].1["expect"], pair[1].1["expect"],
            "{} and {}: {}",
            pair[0].0, pair[1].0, pair[0].1["request"]
        );
    }
}

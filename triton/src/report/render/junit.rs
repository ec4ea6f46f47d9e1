//! The report as JUnit XML, for CI systems that read test results: one
//! test case per configuration and build, failing where the build fails
//! it, with the site, Triton's message and the reproducer. Only a report
//! that keeps every configuration's outcome (a scan's) has cases; a
//! search's gives an empty suite per build.

use crate::SiteKind;
use crate::report::{ConfigOutcome, Configuration, Report, Reproducer};
use std::fmt::Write as _;

/// The report as a JUnit XML document.
pub fn junit<C: Configuration>(report: &Report<C>) -> String {
    let mut suites = String::new();
    let (mut tests, mut failures) = (0usize, 0usize);
    for (b, build) in report.builds.iter().enumerate() {
        let row = report.outcomes.get(b).map_or(&[][..], Vec::as_slice);
        let failed = row.iter().filter(|o| o.fails()).count();
        tests += row.len();
        failures += failed;
        let suite = format!("Triton {build}");
        let _ = writeln!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\">",
            escape(&suite),
            row.len()
        );
        for (c, outcome) in row.iter().enumerate() {
            let name = report.configs.get(c).map(C::to_string).unwrap_or_default();
            let _ = write!(
                suites,
                "    <testcase classname=\"{}\" name=\"{}\"",
                escape(&suite),
                escape(&name)
            );
            match failure(report, b, c, outcome) {
                None => suites.push_str("/>\n"),
                Some((kind, message, body)) => {
                    let _ = writeln!(
                        suites,
                        ">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>",
                        escape(&kind),
                        escape(&message),
                        escape(&body)
                    );
                }
            }
        }
        suites.push_str("  </testsuite>\n");
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"linear-layout\" \
         tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">\n{suites}</testsuites>\n"
    )
}

/// A failing outcome's type, message and body (site, message, reproducer).
fn failure<C>(
    report: &Report<C>,
    build: usize,
    config: usize,
    outcome: &ConfigOutcome,
) -> Option<(String, String, String)> {
    let (kind, message, site) = match outcome {
        ConfigOutcome::Passes => return None,
        ConfigOutcome::Fails { findings } => {
            let f = &findings.first()?.failure;
            let kind = match f.site.kind {
                SiteKind::Bug => "compiler failure",
                SiteKind::Rejection => "front-end rejection",
            };
            (kind.to_string(), f.triton_message.clone(), Some(f.site))
        }
        ConfigOutcome::FrontEnd(f) => (
            format!("front end: {}", f.status),
            f.message.clone(),
            f.site,
        ),
    };
    let mut body = String::new();
    if let Some(site) = site {
        let _ = writeln!(body, "site: {} ({})", site.id, site.title);
    }
    let _ = writeln!(body, "message: {message}");
    let reproducer = report
        .groups
        .iter()
        .filter(|g| g.build == build && g.configs.contains(&config))
        .find_map(|g| g.reproducer.as_ref());
    match reproducer {
        Some(Reproducer::Script { path, .. }) => {
            let _ = writeln!(body, "reproduce: {}", path.display());
        }
        Some(Reproducer::Command(command)) => {
            let _ = writeln!(body, "reproduce: {command}");
        }
        None => {}
    }
    if let Some(site) = site {
        let _ = writeln!(body, "workaround: {}", site.workaround);
    }
    Some((kind, message, body))
}

/// XML text: `&`, `<`, `>`, `"` and `'` escaped, other control characters
/// (which XML 1.0 cannot carry) dropped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' | '\t' => out.push(ch),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Release;
    use crate::finder::Config;
    use crate::report::{Build, FrontEndFailure, RunStatus, Subject};

    fn report() -> Report<Config> {
        let config: Config = serde_json::from_value(serde_json::json!({
            "pattern": "dot", "m": 16, "n": 16, "k": 16, "dtype": "int8",
            "num_warps": 4, "num_stages": 1, "arch": "sm80", "triton": "3.1"
        }))
        .unwrap();
        Report {
            subject: Subject::Space {
                skipped: Vec::new(),
            },
            builds: vec![
                Build::modelled(Release::V3_1, None),
                Build::modelled(Release::V3_2, None),
            ],
            configs: vec![config.clone(), config],
            outcomes: vec![
                vec![
                    ConfigOutcome::Passes,
                    ConfigOutcome::FrontEnd(FrontEndFailure {
                        status: RunStatus::Error,
                        message: "AssertionError: K < 16 & \"x\"".into(),
                        exception: None,
                        stage: None,
                        site: crate::finder::site("dot_k"),
                    }),
                ],
                vec![ConfigOutcome::Passes, ConfigOutcome::Passes],
            ],
            total: 4,
            failing: 1,
            groups: Vec::new(),
            front_end: Vec::new(),
            regressions: Vec::new(),
            confirmations: Vec::new(),
            risks: Vec::new(),
            seconds: 0.0,
        }
    }

    #[test]
    fn one_case_per_configuration_and_build_failing_where_the_build_fails() {
        let xml = junit(&report());
        assert!(xml.contains("<testsuites name=\"linear-layout\" tests=\"4\" failures=\"1\""));
        assert!(xml.contains("<testsuite name=\"Triton 3.1\" tests=\"2\" failures=\"1\""));
        assert!(xml.contains("<testsuite name=\"Triton 3.2\" tests=\"2\" failures=\"0\""));
        assert_eq!(xml.matches("<testcase ").count(), 4);
        assert_eq!(xml.matches("<failure ").count(), 1);
        // the message is escaped, and the site named with its workaround
        assert!(xml.contains("message=\"AssertionError: K &lt; 16 &amp; &quot;x&quot;\""));
        assert!(xml.contains("site: dot_k ("));
        assert!(xml.contains("workaround: "));
        // every tag opened is closed
        assert_eq!(
            xml.matches("<testsuite ").count(),
            xml.matches("</testsuite>").count()
        );
    }
}

//! What the finder says about a configuration.

use super::Config;
use crate::{Entry, Failure};
use serde::Serialize;
use serde::ser::SerializeMap;

pub use crate::Verdict;

/// One step of the modelled lowering: what Triton computes, and the layout
/// (Triton's text) where there is one.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct LoweringStep {
    /// What happens, in words.
    pub what: String,
    /// The layout involved, as Triton's `toString` prints it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
}

impl LoweringStep {
    /// A step without a layout.
    pub fn note(what: impl Into<String>) -> Self {
        LoweringStep {
            what: what.into(),
            layout: None,
        }
    }

    /// A step with the layout it produced.
    pub fn with(what: impl Into<String>, layout: &linear_layout::LinearLayout) -> Self {
        LoweringStep {
            what: what.into(),
            layout: Some(layout.to_string()),
        }
    }
}

/// The prediction for one configuration.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Prediction {
    /// The verdict.
    pub verdict: Verdict,
    /// Where and how it fails, for a verdict other than `ok`.
    pub failure: Option<Failure>,
    /// The chain of decisions and layouts that led there.
    pub steps: Vec<LoweringStep>,
}

impl Prediction {
    /// A successful compile.
    pub fn ok(steps: Vec<LoweringStep>) -> Self {
        Prediction {
            verdict: Verdict::Ok,
            failure: None,
            steps,
        }
    }

    /// A failure of a compile from source.
    pub fn fail(failure: Failure, steps: Vec<LoweringStep>) -> Self {
        Prediction {
            verdict: failure.verdict(Entry::Source),
            failure: Some(failure),
            steps,
        }
    }

    /// The failing site's id.
    pub fn site_id(&self) -> Option<&'static str> {
        self.failure.as_ref().map(|f| f.site.id)
    }

    /// The JSON line `predict --json` prints (and Python's `predict`
    /// returns): the prediction with the `release` and the `config` it is
    /// for.
    pub fn to_json_line(&self, cfg: &Config) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(map) = v.as_object_mut() {
            map.insert("release".into(), cfg.triton.to_string().into());
            map.insert(
                "config".into(),
                serde_json::to_value(cfg).unwrap_or_default(),
            );
        }
        v
    }
}

impl Serialize for Prediction {
    /// `{"verdict", "failure"?: Failure::to_json, "steps"}`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("verdict", &self.verdict)?;
        if let Some(f) = &self.failure {
            map.serialize_entry("failure", &f.to_json(Entry::Source))?;
        }
        map.serialize_entry("steps", &self.steps)?;
        map.end()
    }
}

/// Collects steps when asked to; a search predicts millions of
/// configurations and only renders the few it reports.
#[derive(Default)]
pub struct Trace {
    steps: Vec<LoweringStep>,
    on: bool,
}

impl Trace {
    /// A trace that records (`on`) or only counts nothing.
    pub fn new(on: bool) -> Self {
        Trace {
            steps: Vec::new(),
            on,
        }
    }

    /// Records a note.
    pub fn note(&mut self, what: impl FnOnce() -> String) {
        if self.on {
            self.steps.push(LoweringStep::note(what()));
        }
    }

    /// Records a layout.
    pub fn layout(&mut self, what: impl FnOnce() -> String, layout: &linear_layout::LinearLayout) {
        if self.on {
            self.steps.push(LoweringStep::with(what(), layout));
        }
    }

    /// The recorded steps.
    pub fn into_steps(self) -> Vec<LoweringStep> {
        self.steps
    }
}

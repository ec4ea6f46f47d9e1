//! What the finder says about a configuration.

use serde::Serialize;
use std::fmt;

/// How the real compiler ends.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// `triton.compile` returns a kernel.
    Ok,
    /// The process dies on a signal (a failed `assert` in 3.1 and 3.2).
    Abort,
    /// `triton.compile` raises: a diagnosed error, or (from 3.3) a failed
    /// assertion inside the pass pipeline turned into `PassManager::run failed`.
    Error,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Ok => "ok",
            Verdict::Abort => "abort",
            Verdict::Error => "error",
        })
    }
}

/// One step of the modelled lowering: what Triton computes, and the layout
/// (Triton's text) where there is one.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct Step {
    /// What happens, in words.
    pub what: String,
    /// The layout involved, as Triton's `toString` prints it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<String>,
}

impl Step {
    /// A step without a layout.
    pub fn note(what: impl Into<String>) -> Self {
        Step {
            what: what.into(),
            layout: None,
        }
    }

    /// A step with the layout it produced.
    pub fn with(what: impl Into<String>, layout: &crate::LinearLayout) -> Self {
        Step {
            what: what.into(),
            layout: Some(layout.to_string()),
        }
    }
}

/// The prediction for one configuration.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct Prediction {
    /// The verdict.
    pub verdict: Verdict,
    /// The failing site: function and file as named in that release.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site: Option<String>,
    /// The message Triton prints there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The chain of decisions and layouts that led there.
    pub steps: Vec<Step>,
}

impl Prediction {
    /// A successful compile.
    pub fn ok(steps: Vec<Step>) -> Self {
        Prediction {
            verdict: Verdict::Ok,
            site: None,
            message: None,
            steps,
        }
    }

    /// A failure at `site`.
    pub fn fail(
        verdict: Verdict,
        site: impl Into<String>,
        message: impl Into<String>,
        steps: Vec<Step>,
    ) -> Self {
        Prediction {
            verdict,
            site: Some(site.into()),
            message: Some(message.into()),
            steps,
        }
    }
}

/// Collects steps when asked to; a search predicts millions of
/// configurations and only renders the few it reports.
#[derive(Default)]
pub struct Trace {
    steps: Vec<Step>,
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
            self.steps.push(Step::note(what()));
        }
    }

    /// Records a layout.
    pub fn layout(&mut self, what: impl FnOnce() -> String, layout: &crate::LinearLayout) {
        if self.on {
            self.steps.push(Step::with(what(), layout));
        }
    }

    /// The recorded steps.
    pub fn into_steps(self) -> Vec<Step> {
        self.steps
    }
}

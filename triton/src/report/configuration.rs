//! What a report needs of a configuration: a one-line text, a JSON value
//! and its shape. `search` reports the finder's [`Config`]s; `scan` its
//! own configurations of the user's kernel.

use crate::finder::Config;
use crate::finder::layouts::{TileLayout, layouts};
use serde_json::Value;
use std::fmt;

/// A configuration a report lists: `Display` gives its one-line text.
pub trait Configuration: fmt::Display {
    /// The configuration as the JSON report prints it.
    fn to_json(&self) -> Value;

    /// The configuration without its element type, pipeline stages and
    /// target: the text lists one configuration per shape, since the
    /// smallest failing ones of a site mostly differ in those alone. By
    /// default, the whole text (every configuration its own shape).
    fn shape(&self) -> String {
        self.to_string()
    }

    /// The layouts its tiles are held in, for pictures (the HTML report
    /// draws the smallest configuration's of each site group). By default,
    /// none: a configuration that does not know its layouts.
    fn layouts(&self) -> Vec<TileLayout> {
        Vec::new()
    }
}

impl Configuration for Config {
    fn to_json(&self) -> Value {
        // A `Config` is plain data: serialising it cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    fn shape(&self) -> String {
        let x = self.x.map(|x| format!(" x={x}")).unwrap_or_default();
        let k = if self.pattern.takes_k() {
            format!(" k={}", self.k)
        } else {
            String::new()
        };
        format!(
            "{} m={} n={}{k}{x} warps={} ctas={} triton={} {:?}",
            self.pattern.name(),
            self.m,
            self.n,
            self.num_warps,
            self.num_ctas,
            self.triton,
            self.variant
        )
    }

    /// The load and accumulator layouts `predict` chooses for it.
    fn layouts(&self) -> Vec<TileLayout> {
        layouts(self)
    }
}

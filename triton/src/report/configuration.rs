//! What a report needs of a configuration: a one-line text and a JSON
//! value. `search` reports the finder's [`Config`]s; `scan` its own
//! configurations of the user's kernel.

use crate::finder::Config;
use serde_json::Value;
use std::fmt;

/// A configuration a report lists: `Display` gives its one-line text.
pub trait Configuration: fmt::Display {
    /// The configuration as the JSON report prints it.
    fn to_json(&self) -> Value;
}

impl Configuration for Config {
    fn to_json(&self) -> Value {
        // A `Config` is plain data: serialising it cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

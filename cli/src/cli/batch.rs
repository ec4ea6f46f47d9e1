//! JSON Lines batches (`eval`, `convert --batch`, `predict --batch`): one
//! answer per input line, in order, whatever the line holds.
//!
//! - A request may carry an `"id"`; its answer echoes it.
//! - A line that is empty, not UTF-8, longer than [`MAX_LINE`] or not JSON
//!   is answered with an error naming its line number; the batch goes on.
//! - A line is read strictly: a key given twice in an object is a
//!   `bad_json` error naming the key (not the last one silently winning).
//! - Answers are JSON, their control characters escaped as JSON escapes
//!   (so a request cannot drive the terminal the answers go to).
//! - Each answer is written as soon as it is made, so a program can drive
//!   the batch one request at a time.
//! - A closed stdout (`| head`) ends the batch quietly.

use super::input::{Line, MAX_LINE, lines};
use linear_layout::eval::parse_strict;
use linear_layout_triton::escape;
use serde_json::{Map, Value, json};
use std::io::{BufWriter, Write};

/// What one request's handler gives back: the answer, and whether it
/// found a failure (for the exit status).
pub struct Answer {
    /// `{"ok": …}`, `{"none": …}` or `{"error": {"kind", "message"}}`.
    pub value: Value,
    /// Whether the answer reports a failure the command looks for.
    pub found: bool,
}

impl Answer {
    /// An answer that finds nothing.
    pub fn plain(value: Value) -> Answer {
        Answer {
            value,
            found: false,
        }
    }
}

/// An error answer for line `line`.
fn error(kind: &str, message: impl std::fmt::Display, line: usize) -> Value {
    json!({"error": {"kind": kind, "message": message.to_string(), "line": line}})
}

/// Answers every line of stdin with `handle`; whether any answer found a
/// failure.
pub fn run(handle: impl Fn(&Value) -> Answer) -> Result<bool, String> {
    let stdin = std::io::stdin();
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut found = false;
    for (number, line) in lines(stdin.lock()) {
        let answer = match line {
            Line::Bad(why) => error("bad_line", why, number),
            Line::Text(text) if text.trim().is_empty() => {
                error("empty_line", "an empty line holds no request", number)
            }
            Line::Text(text) => match parse_strict(&text) {
                Err(e) => error("bad_json", e, number),
                Ok(request) => {
                    let (request, id) = take_id(request);
                    let answer = handle(&request);
                    found |= answer.found;
                    let mut value = answer.value;
                    if let Some(err) = value.get_mut("error").and_then(Value::as_object_mut) {
                        err.insert("line".into(), json!(number));
                    }
                    with_id(value, id)
                }
            },
        };
        // Each answer goes out as soon as it is made: a program driving the
        // batch line by line waits for it.
        let answer = answer.to_string();
        if let Err(e) = writeln!(out, "{}", escape::controls(&answer)).and_then(|()| out.flush()) {
            return quiet_on_closed_pipe(e).map(|()| found);
        }
    }
    match out.flush() {
        Ok(()) => Ok(found),
        Err(e) => quiet_on_closed_pipe(e).map(|()| found),
    }
}

/// A reader that went away is the end of the batch, not an error.
fn quiet_on_closed_pipe(e: std::io::Error) -> Result<(), String> {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(format!("cannot write: {e}"))
    }
}

/// The request without its `"id"`, and the id.
fn take_id(request: Value) -> (Value, Option<Value>) {
    match request {
        Value::Object(mut map) => {
            let id = map.remove("id");
            (Value::Object(map), id)
        }
        other => (other, None),
    }
}

/// `answer` with `"id"` first, when the request had one.
fn with_id(answer: Value, id: Option<Value>) -> Value {
    match (id, answer) {
        (Some(id), Value::Object(map)) => {
            let mut with = Map::new();
            with.insert("id".into(), id);
            with.extend(map);
            Value::Object(with)
        }
        (_, answer) => answer,
    }
}

/// The help text every batch mode shares.
pub fn help() -> String {
    format!(
        "Each line is one JSON request and gets one answer line, in order. A request may carry an \
         \"id\", which its answer repeats. An empty line, a line that is not UTF-8 or not JSON \
         (a key given twice in one object included), or a line longer than {} MiB gets an error \
         answer naming its line number, and the batch goes on. A value of the wrong type is an \
         error naming its key path.",
        MAX_LINE >> 20
    )
}

//! Reading requests strictly: JSON text into a [`Value`] that refuses a key
//! given twice (serde_json's own `Value` keeps the last one silently, so
//! `{"op": "apply", "op": "compose"}` would run `compose`), and a `Value`
//! into a typed argument with errors that name the key path where the type
//! is wrong (`a.bases[0][1]`). Every JSON Lines reader of the command line
//! (`eval`, `convert --batch`, `predict --batch`, `shrink-trace`) reads its
//! lines here.

use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// Parses `text` as one JSON value; a key repeated within an object is an
/// error naming the key (and, as every syntax error, its line and column).
pub fn parse_strict(text: &str) -> Result<Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = de.deserialize_any(StrictVisitor)?;
    de.end()?;
    Ok(value)
}

/// Reads `value` as a `T`. On a type error, the message names the path to
/// the offending value (`bases[0][1]: invalid type: ...`; no path when the
/// value itself has the wrong type). A number where an integer belongs
/// that is not one (a fraction, or an integer past 64 bits, which JSON
/// readers hold as a float) says so.
pub fn typed<T: DeserializeOwned>(value: &Value) -> Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = path_text(e.path());
        let mut message = e.inner().to_string();
        if message.starts_with("invalid type: floating point") {
            message += " (an integer was expected: this number has a fraction or an exponent, \
                        or is outside the 64-bit range)";
        }
        if path.is_empty() {
            message
        } else {
            format!("`{path}`: {message}")
        }
    })
}

/// `a.bases[0][1]`; empty for the value itself.
fn path_text(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path {
        match segment {
            Segment::Seq { index } => out += &format!("[{index}]"),
            Segment::Map { key } | Segment::Enum { variant: key } => {
                if !out.is_empty() {
                    out.push('.');
                }
                out += key;
            }
            Segment::Unknown => out += "?",
        }
    }
    out
}

/// Builds a [`Value`] as serde_json does, refusing repeated keys.
struct StrictVisitor;

/// One nested value, read by [`StrictVisitor`].
struct Strict(Value);

impl<'de> de::Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(Strict)
    }
}

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // JSON text holds no NaN or infinity, so every float is a number.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "duplicate key `{key}` (a key may appear once in an object)"
                )));
            }
            let Strict(value) = map.next_value()?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_key_is_an_error_naming_it_at_any_depth() {
        let e = parse_strict(r#"{"op": "apply", "op": "compose"}"#).unwrap_err();
        assert!(e.to_string().contains("duplicate key `op`"), "{e}");
        let e = parse_strict(r#"{"a": [{"x": 1, "y": 2, "x": 3}]}"#).unwrap_err();
        assert!(e.to_string().contains("duplicate key `x`"), "{e}");
        let v = parse_strict(r#"{"a": [1, -2, 2.5, "s", null, true, {}], "b": {"c": 1}}"#).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"a": [1, -2, 2.5, "s", null, true, {}], "b": {"c": 1}})
        );
        assert!(parse_strict("{} {}").is_err(), "trailing text");
    }

    #[test]
    fn a_type_error_names_the_path() {
        let v = serde_json::json!({"bases": [["lane", [[1], ["x"]]]]});
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct L {
            bases: Vec<(String, Vec<Vec<u64>>)>,
        }
        let e = typed::<L>(&v).unwrap_err();
        assert!(e.starts_with("`bases[0][1][1][0]`: invalid type"), "{e}");
        let e = typed::<u64>(&serde_json::json!(18446744073709551616.0)).unwrap_err();
        assert!(e.contains("outside the 64-bit range"), "{e}");
        assert_eq!(typed::<u64>(&serde_json::json!(7)), Ok(7));
    }
}

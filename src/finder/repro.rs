//! Reproducers for the real compiler: a Python script that compiles the
//! pattern kernel on CPU, and a TTGIR module with just the failing op.

use super::config::{Config, Pattern};

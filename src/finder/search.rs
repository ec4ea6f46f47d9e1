//! Enumerating the parameter space.

use super::config::Config;

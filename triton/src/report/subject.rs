//! What a report is about: a parameter space of the finder's patterns
//! (`search`), or a user's kernel run through each release's real front
//! end (`scan`).

/// What a report is about.
#[derive(Clone, Debug)]
pub enum Subject {
    /// The finder's kernel patterns over a parameter space.
    Space {
        /// The values of the space dropped as invalid, as written.
        skipped: Vec<String>,
    },
    /// A user's kernel.
    Kernel(Kernel),
}

/// A scanned kernel.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The kernel as named (`path/file.py::name`).
    pub kernel: String,
    /// The JIT function's name.
    pub name: String,
    /// How it was imported: `import`, or `bare packages` when its
    /// package's `__init__` could not run.
    pub import: String,
    /// `torch`, or `stand-in` when torch is not installed beside the
    /// releases.
    pub torch: String,
    /// `(wheel, why)` of the releases asked for but not scanned.
    pub not_scanned: Vec<(String, String)>,
    /// Where the time went.
    pub timing: Timing,
}

/// Seconds a scan spent per phase, and how much came from the cache (the
/// whole is the report's `seconds`).
#[derive(Clone, Debug, Default)]
pub struct Timing {
    /// Interpreters and inspection.
    pub inspect_s: f64,
    /// Front ends run.
    pub front_end_s: f64,
    /// The model over every module.
    pub check_s: f64,
    /// Front ends found in the cache.
    pub cached: usize,
    /// Front ends run.
    pub ran: usize,
}

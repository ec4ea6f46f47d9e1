//! Real TTGIR emitted by Triton wheels (`tests/data/ttgir/triton-<version>/`):
//! every attribute definition parses, and every tensor or memory-descriptor
//! type in the module converts to a linear layout (or, where the release has
//! none, says so) for that release.

use linear_layout_triton::{Attr, Conversion, Defs, Release, parse_attr, to_linear_layout};
use std::path::{Path, PathBuf};

fn corpus_dirs() -> Vec<(Release, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/ttgir");
    let mut dirs: Vec<(Release, PathBuf)> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", root.display()))
        .filter_map(|e| {
            let path = e.ok()?.path();
            let version = path
                .file_name()?
                .to_str()?
                .strip_prefix("triton-")?
                .parse()
                .ok()?;
            path.is_dir().then_some((version, path))
        })
        .collect();
    dirs.sort();
    dirs
}

/// The element bit width of an MLIR element type.
fn elem_bits(ty: &str) -> Option<u64> {
    let ty = ty.trim();
    if ty.starts_with("!tt.ptr") {
        return Some(64);
    }
    let digits: String = ty
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// `tensor<64x64xf16, #blocked>` and `!ttg.memdesc<2x64x64xf16, #shared, ...>`:
/// (shape, element type, encoding) for every such type in the text.
fn typed_encodings(text: &str) -> Vec<(Vec<u64>, String, String)> {
    let mut out = Vec::new();
    for opener in ["tensor<", "memdesc<"] {
        for (at, _) in text.match_indices(opener) {
            let body = &text[at + opener.len()..];
            let Some(comma) = body.find(", #") else {
                continue;
            };
            let dims_and_type = &body[..comma];
            if dims_and_type.contains('<') && !dims_and_type.starts_with("!tt.ptr") {
                // A nested type we cannot split simply (e.g. pointer tensors).
                if !dims_and_type.contains("!tt.ptr") {
                    continue;
                }
            }
            let mut parts: Vec<&str> = dims_and_type.split('x').collect();
            let ty = parts.pop().unwrap_or("").to_string();
            let Ok(shape) = parts
                .iter()
                .map(|p| p.parse::<u64>())
                .collect::<Result<Vec<u64>, _>>()
            else {
                continue;
            };
            let enc: String = body[comma + 2..]
                .chars()
                .take_while(|&c| c.is_ascii_alphanumeric() || c == '_' || c == '#')
                .collect();
            if !shape.is_empty() && enc.len() > 1 {
                out.push((shape, ty, enc));
            }
        }
    }
    out
}

#[test]
fn emitted_ttgir_parses_and_converts() {
    let dirs = corpus_dirs();
    let versions: Vec<Release> = dirs.iter().map(|d| d.0).collect();
    assert!(
        versions.contains(&Release::V3_2),
        "no 3.2 corpus under tests/data/ttgir"
    );
    assert!(
        versions.contains(&Release::V3_9),
        "no newest (3.9) corpus under tests/data/ttgir"
    );
    let (mut files, mut defs_seen, mut conversions) = (0, 0, 0);
    let mut failures = Vec::new();
    for (version, dir) in dirs {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ttgir"))
            .collect();
        paths.sort();
        for path in paths {
            files += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            let defs = match Defs::from_module(&text) {
                Ok(d) => d,
                Err(e) => {
                    failures.push(format!("{}: {e}", path.display()));
                    continue;
                }
            };
            defs_seen += defs.len();
            for (shape, ty, enc) in typed_encodings(&text) {
                let Ok(attr) = parse_attr(&enc, &defs) else {
                    continue;
                };
                if matches!(attr, Attr::Other { .. }) {
                    continue;
                }
                // Memory descriptors may carry leading buffer dims.
                let rank = attr.rank().unwrap_or(shape.len()).min(shape.len());
                let shape = &shape[shape.len() - rank..];
                // Barrier arrays such as `memdesc<3xi64>` are never converted
                // (Triton asserts power-of-two shapes there too).
                if shape.iter().any(|d| !d.is_power_of_two()) {
                    continue;
                }
                match to_linear_layout(&attr, shape, version, elem_bits(&ty)) {
                    Ok(Conversion::Layout(l)) => {
                        conversions += 1;
                        assert_eq!(
                            l.out_dims().map(|x| x.1).collect::<Vec<_>>(),
                            shape,
                            "{}",
                            path.display()
                        );
                    }
                    Ok(Conversion::NoLayout(_)) => {}
                    Err(e) => failures.push(format!(
                        "{} ({version}): {enc} on {shape:?} {ty}: {e}",
                        path.display()
                    )),
                }
            }
        }
    }
    assert!(files >= 20, "only {files} TTGIR files");
    assert!(
        defs_seen >= files,
        "only {defs_seen} attribute definitions in {files} files"
    );
    assert!(
        conversions >= files,
        "only {conversions} conversions in {files} files"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every file in the corpus comes from a compile that succeeded, so
/// `check-ttgir`'s models must find nothing in any of them: no false alarms
/// on real modules (pipelined copies, rank-3 dot operands, two-CTA layouts).
#[test]
fn check_ttgir_finds_nothing_in_modules_that_compiled() {
    let mut checked = 0;
    let mut alarms = Vec::new();
    for (version, dir) in corpus_dirs() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|x| x != "ttgir") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let findings = linear_layout_triton::finder::check_ttgir::check(&text, version)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            checked += 1;
            for f in findings {
                alarms.push(format!(
                    "{}:{}: {} — {}",
                    path.display(),
                    f.line,
                    f.op,
                    f.failure
                ));
            }
        }
    }
    assert!(checked >= 200, "only {checked} modules checked");
    assert!(alarms.is_empty(), "{}", alarms.join("\n"));
}

/// A malformed attribute in a dump (here a Hopper MMA with a one-entry
/// instruction shape) is skipped by the site models, not a panic.
#[test]
fn check_ttgir_skips_malformed_mma_attributes() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fuzz/corpus/parse/seed-ttgir-short-instr-shape"),
    )
    .unwrap();
    for release in Release::ALL {
        let findings = linear_layout_triton::finder::check_ttgir::check(&text, release).unwrap();
        assert_eq!(findings, vec![], "{release}");
    }
    // A conversion to that attribute, and one of a well-formed MMA on a
    // 48-row tensor (not a power of two): our converter refuses both, which
    // is not a Triton assertion, so no finding in any release.
    let mma = "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>";
    let converts = text
        .replace(
            "    %buf = ttg.local_alloc",
            "    %c = ttg.convert_layout %x : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #mma>\n    %buf = ttg.local_alloc",
        )
        .replace(
            "    tt.return",
            "    %d = ttg.convert_layout %y : tensor<48x64xf16, #good> -> tensor<48x64xf16, #blocked>\n    tt.return",
        )
        .replace("#smem = ", &format!("#good = {mma}\n#smem = "));
    for release in Release::ALL {
        let findings =
            linear_layout_triton::finder::check_ttgir::check(&converts, release).unwrap();
        assert_eq!(findings, vec![], "{release}:\n{converts}");
    }
}

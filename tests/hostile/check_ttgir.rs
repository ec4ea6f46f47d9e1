//! `check-ttgir` on modules it must not misread: sizes no integer holds,
//! shapes Triton never writes, undefined or twice-defined aliases, two
//! dumps concatenated, scans whose region never closes, and a module of
//! thousands of failing ops (reported one at a time, in bounded memory).

use super::memory::peak_during;
use linear_layout_triton::Release;
use linear_layout_triton::finder::check_ttgir::{Item, check, check_each, report};
use std::path::Path;

fn data(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/compile")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A one-op 3.7 module: a shared-linear buffer whose local_load miscompiles
/// (`shared_linear_xor`), with `SHAPE` for the ops' shape.
const MODULE: &str = r#"#L0 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#S0 = #ttg.shared_linear<{offset = [[1, 0], [1, 3], [0, 2], [0, 4]]}, alignment = 16>
#L1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
    %m2 = ttg.local_alloc %v1 : (tensor<SHAPExf16, #L0>) -> !ttg.memdesc<SHAPExf16, #S0, #smem>
    %v3 = ttg.local_load %m2 : !ttg.memdesc<SHAPExf16, #S0, #smem> -> tensor<SHAPExf16, #L1>
}
"#;

fn module(shape: &str) -> String {
    MODULE.replace("SHAPE", shape)
}

/// The shape the recorded miscompile has: one finding, on the load.
#[test]
fn the_reference_module_has_its_finding() {
    let r = report(&module("2x8"), Release::V3_7).unwrap();
    assert_eq!(r.findings.len(), 1);
    assert_eq!(r.findings[0].line, 7);
    assert!(r.unchecked.is_empty());
    assert_eq!((r.summary.modules, r.summary.checked), (1, 2));
}

/// A size past 64 bits, a negative or symbolic one, a dim that is not a
/// power of two, more than 2^30 elements: each op is reported as not
/// checked, with its line and why; never as "no modelled check fails".
#[test]
fn sizes_no_integer_holds_leave_the_op_unchecked() {
    for (shape, says) in [
        ("18446744073709551616x8", "is not a size MLIR reads"),
        ("2x-8", "is not a size MLIR reads"),
        ("?x8", "is not a size MLIR reads"),
        ("3x8", "powers of two, not 3"),
        ("0x8", "powers of two, not 0"),
        ("65536x32768", "more than 2^30 elements"),
        (&"1x".repeat(300)[..599], "rank 300, more than the 256 dims"),
    ] {
        let r = report(&module(shape), Release::V3_7).unwrap();
        assert!(r.findings.is_empty(), "{shape}: {:?}", r.findings);
        assert_eq!(r.unchecked.len(), 2, "{shape}");
        assert_eq!(r.unchecked[0].line, 6);
        assert_eq!(r.unchecked[1].line, 7);
        assert!(
            r.unchecked[0].reason.contains(says),
            "{shape}: {}",
            r.unchecked[0].reason
        );
        assert_eq!(r.summary.checked, 0);
        // `check`, which lists findings only, finds none either: the
        // command line says so with exit status 3 (cli/tests/hostile.rs)
        assert!(check(&module(shape), Release::V3_7).unwrap().is_empty());
    }
}

/// An encoding the module never defines cannot be checked; an alias
/// defined twice in one module is an error naming both lines (MLIR refuses
/// it; the later one would silently win).
#[test]
fn undefined_and_twice_defined_aliases() {
    let undefined = module("2x8").replace("tensor<2x8xf16, #L1>", "tensor<2x8xf16, #L9>");
    let r = report(&undefined, Release::V3_7).unwrap();
    assert_eq!(r.unchecked.len(), 1);
    assert!(
        r.unchecked[0].reason.contains("`#L9` is not defined"),
        "{}",
        r.unchecked[0].reason
    );
    let twice = module("2x8").replace(
        "#smem = #ttg.shared_memory",
        "#smem = #ttg.shared_memory\n#L1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>",
    );
    let e = report(&twice, Release::V3_7).unwrap_err().to_string();
    assert!(
        e.contains("line 5") && e.contains("`#L1` is defined again (first on line 3)"),
        "{e}"
    );
}

/// Two dumps written one after the other are two modules, each read with
/// its own definitions (the same alias names mean different layouts in
/// each): the findings are those of each module alone, at their lines in
/// the whole text.
#[test]
fn concatenated_modules_are_checked_each_on_its_own() {
    let (w4, w8) = (data("fla-3.2.0-w4.ttgir"), data("fla-3.2.0-w8.ttgir"));
    let lines = |f: &[linear_layout_triton::finder::check_ttgir::Finding], shift: usize| {
        f.iter().map(|f| f.line + shift).collect::<Vec<_>>()
    };
    let alone4 = check(&w4, Release::V3_2).unwrap();
    let alone8 = check(&w8, Release::V3_2).unwrap();
    assert!(alone4.is_empty() && !alone8.is_empty());
    for (text, expected) in [
        (format!("{w4}{w8}"), lines(&alone8, w4.lines().count())),
        (format!("{w8}{w4}"), lines(&alone8, 0)),
        (
            format!("{w8}{w8}"),
            [lines(&alone8, 0), lines(&alone8, w8.lines().count())].concat(),
        ),
    ] {
        let r = report(&text, Release::V3_2).unwrap();
        assert_eq!(r.summary.modules, 2);
        assert_eq!(lines(&r.findings, 0), expected);
        assert!(r.unchecked.is_empty());
    }
}

/// Scans whose region never closes: each is reported, and finding the
/// closing line is one forward pass however many scans there are (a
/// search from each scan to the end would read 40,000 x 40,000 lines).
#[test]
fn unclosed_scans_are_reported_in_one_pass() {
    let n = 40_000;
    let scan = "    %s = \"tt.scan\"(%x) <{axis = 0 : i32, reverse = false}> ({\n";
    let text = module("2x8").replace("}\n", &format!("{}}}\n", scan.repeat(n)));
    let r = report(&text, Release::V3_7).unwrap();
    assert_eq!(r.unchecked.len(), n);
    assert!(
        r.unchecked
            .iter()
            .all(|u| u.op == "scan" && u.reason.contains("does not close"))
    );
    assert_eq!(r.findings.len(), 1);
}

/// Thousands of failing ops: each finding is handed out as it is found,
/// in line order, and the check holds less than twice the text's size
/// however many findings there are (collecting them would hold about six
/// times the text: half a kilobyte per finding).
#[test]
fn findings_are_streamed_in_bounded_memory() {
    let load = "    %v3 = ttg.local_load %m2 : !ttg.memdesc<2x8xf16, #S0, #smem> -> tensor<2x8xf16, #L1>\n";
    for n in [200, 3_000] {
        let text = module("2x8").replace("}\n", &format!("{}}}\n", load.repeat(n)));
        let ((count, last), peak) = peak_during(|| {
            let (mut count, mut last) = (0usize, 0usize);
            check_each(&text, Release::V3_7, |item| {
                if let Item::Finding(f) = item {
                    assert!(f.line > last, "in file order");
                    last = f.line;
                    count += 1;
                }
            })
            .unwrap();
            (count, last)
        });
        assert_eq!(count, n + 1);
        assert_eq!(last, 8 + n - 1);
        // the text's lines and its module's copy; keeping every finding
        // (as `report` does) holds about 6 times the text here
        assert!(
            peak < 2 * text.len() + (1 << 16),
            "{n} findings held {peak} bytes for a text of {}",
            text.len()
        );
    }
}

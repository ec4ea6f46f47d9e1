//! The operations `eval` answers, with their arguments: the table behind
//! `eval --describe` and the check that a request names no argument its
//! operation does not take (a misspelt argument is an error, not ignored).

/// One argument of an operation.
#[derive(Debug)]
pub struct Arg {
    /// Its key in the request.
    pub name: &'static str,
    /// Its JSON shape, in words.
    pub shape: &'static str,
    /// Whether it may be left out.
    pub optional: bool,
}

/// One operation.
#[derive(Debug)]
pub struct OpSpec {
    /// Its `op` value.
    pub name: &'static str,
    /// What it answers.
    pub doc: &'static str,
    /// Its arguments, besides `op` and `check`.
    pub args: &'static [Arg],
}

const fn req(name: &'static str, shape: &'static str) -> Arg {
    Arg {
        name,
        shape,
        optional: false,
    }
}

const fn opt(name: &'static str, shape: &'static str) -> Arg {
    Arg {
        name,
        shape,
        optional: true,
    }
}

const LAYOUT: &str =
    "a layout: {\"bases\": [[in_dim, [[...], ...]], ...], \"out_dims\": [[name, size], ...]}";
const DIM: &str = "a dim name, e.g. \"lane\"";
const DIMS: &str = "a list of dim names";
const DIM_SIZES: &str = "a list of [dim, size] pairs";
const SIZE: &str = "a power of two";

const A: Arg = req("a", LAYOUT);
const B: Arg = req("b", LAYOUT);

/// Every operation, in the order of Triton's binding where it has them.
pub const SPECS: &[OpSpec] = &[
    OpSpec {
        name: "from_bases",
        doc: "a layout from its bases; out-dim sizes inferred (surjective) unless given",
        args: &[
            req("bases", "a list of [in_dim, [[component, ...], ...]]"),
            req("out_dim_names", DIMS),
            opt("out_dim_sizes", "a list of sizes, one per out-dim"),
            opt(
                "require_surjective",
                "true (default) or false; false needs out_dim_sizes",
            ),
        ],
    },
    OpSpec {
        name: "identity_1d",
        doc: "in_dim → out_dim, the identity on size elements",
        args: &[req("size", SIZE), req("in_dim", DIM), req("out_dim", DIM)],
    },
    OpSpec {
        name: "strided_1d",
        doc: "in_dim → out_dim, i ↦ i·stride",
        args: &[
            req("size", SIZE),
            req("stride", SIZE),
            req("in_dim", DIM),
            req("out_dim", DIM),
        ],
    },
    OpSpec {
        name: "zeros_1d",
        doc: "in_dim → out_dim, every element to 0",
        args: &[
            req("size", SIZE),
            req("in_dim", DIM),
            req("out_dim", DIM),
            opt("out_dim_size", "the out-dim's size (default 1)"),
        ],
    },
    OpSpec {
        name: "product",
        doc: "a × b (Triton's operator*)",
        args: &[A, B],
    },
    OpSpec {
        name: "compose",
        doc: "b ∘ a",
        args: &[A, B],
    },
    OpSpec {
        name: "invert_and_compose",
        doc: "C with b(C(x)) = a(x)",
        args: &[A, B],
    },
    OpSpec {
        name: "invert",
        doc: "a⁻¹ (a must be bijective)",
        args: &[A],
    },
    OpSpec {
        name: "pseudoinvert",
        doc: "a right inverse of a",
        args: &[A],
    },
    OpSpec {
        name: "apply",
        doc: "a's output for the given input values",
        args: &[A, req("input", DIM_SIZES)],
    },
    OpSpec {
        name: "reshape_ins",
        doc: "a with its in-dims regrouped",
        args: &[A, req("dims", DIM_SIZES)],
    },
    OpSpec {
        name: "reshape_outs",
        doc: "a with its out-dims regrouped",
        args: &[A, req("dims", DIM_SIZES)],
    },
    OpSpec {
        name: "flatten_ins",
        doc: "a with one in-dim",
        args: &[A],
    },
    OpSpec {
        name: "flatten_outs",
        doc: "a with one out-dim",
        args: &[A],
    },
    OpSpec {
        name: "transpose_ins",
        doc: "a with its in-dims reordered",
        args: &[A, req("order", DIMS)],
    },
    OpSpec {
        name: "transpose_outs",
        doc: "a with its out-dims reordered",
        args: &[A, req("order", DIMS)],
    },
    OpSpec {
        name: "sublayout",
        doc: "a restricted to some in-dims and out-dims",
        args: &[A, req("ins", DIMS), req("outs", DIMS)],
    },
    OpSpec {
        name: "concat_ins",
        doc: "a and b side by side on disjoint in-dims",
        args: &[A, B],
    },
    OpSpec {
        name: "concat_outs",
        doc: "a and b side by side on disjoint out-dims",
        args: &[A, B],
    },
    OpSpec {
        name: "divide_left",
        doc: "C with a = b × C, if any",
        args: &[A, B],
    },
    OpSpec {
        name: "divide_right",
        doc: "C with a = C × b, if any",
        args: &[A, B],
    },
    OpSpec {
        name: "product_then_divide",
        doc: "(a × b) divided on the left by a",
        args: &[A, B],
    },
    OpSpec {
        name: "quotient",
        doc: "a with the given dims divided out",
        args: &[A, req("dims", DIMS)],
    },
    OpSpec {
        name: "remove_zero_bases_along_dim",
        doc: "a without its zero bases of one in-dim",
        args: &[A, req("dim", DIM)],
    },
    OpSpec {
        name: "squeeze_ins",
        doc: "a without a size-1 in-dim",
        args: &[A, req("dim", DIM)],
    },
    OpSpec {
        name: "squeeze_outs",
        doc: "a without a size-1 out-dim",
        args: &[A, req("dim", DIM)],
    },
    OpSpec {
        name: "resize_in_dim",
        doc: "a with one in-dim grown (zero bases) or cut",
        args: &[A, req("dim", DIM), req("size", SIZE)],
    },
    OpSpec {
        name: "resize_out_dim",
        doc: "a with one out-dim grown or cut",
        args: &[A, req("dim", DIM), req("size", SIZE)],
    },
    OpSpec {
        name: "rename_in_dim",
        doc: "a with one in-dim renamed",
        args: &[A, req("old", DIM), req("new", DIM)],
    },
    OpSpec {
        name: "sublayout_is_zero",
        doc: "whether a maps the given in-dims to 0 on the given out-dims",
        args: &[A, req("ins", DIMS), req("outs", DIMS)],
    },
    OpSpec {
        name: "square_sublayout_is_identity",
        doc: "whether a is the identity on the given dims",
        args: &[A, req("dims", DIMS)],
    },
    OpSpec {
        name: "is_trivial_over",
        doc: "whether a is the identity over the given dims and separate from the rest",
        args: &[A, req("dims", DIMS)],
    },
    OpSpec {
        name: "free_variable_masks",
        doc: "per in-dim, the bits a solve leaves free",
        args: &[A],
    },
    OpSpec {
        name: "num_consecutive_in_out",
        doc: "how many consecutive inputs map to consecutive outputs",
        args: &[A],
    },
    OpSpec {
        name: "is_surjective",
        doc: "whether a reaches every output",
        args: &[A],
    },
    OpSpec {
        name: "is_injective",
        doc: "whether a maps distinct inputs apart",
        args: &[A],
    },
    OpSpec {
        name: "is_invertible",
        doc: "whether a is a bijection",
        args: &[A],
    },
    OpSpec {
        name: "to_string",
        doc: "a as Triton's toString prints it",
        args: &[A],
    },
    OpSpec {
        name: "parse",
        doc: "a layout from Triton's text, the binding's JSON or a #ttg.linear attribute",
        args: &[req("text", "the text")],
    },
];

/// Keys every request may carry besides its operation's arguments.
pub const COMMON: &[&str] = &["op", "check"];

/// The specification of `op`.
pub fn spec(op: &str) -> Option<&'static OpSpec> {
    SPECS.iter().find(|s| s.name == op)
}

/// The first key of `request` that `spec` does not take, if any.
pub fn unknown_key<'a>(
    spec: &OpSpec,
    keys: impl IntoIterator<Item = &'a String>,
) -> Option<&'a str> {
    keys.into_iter()
        .map(String::as_str)
        .find(|k| !COMMON.contains(k) && !spec.args.iter().any(|a| a.name == *k))
}

/// Every operation with its arguments, for `eval --describe`.
pub fn describe() -> String {
    let mut out = String::new();
    for s in SPECS {
        let args: Vec<String> = s
            .args
            .iter()
            .map(|a| {
                if a.optional {
                    format!("{}?", a.name)
                } else {
                    a.name.to_string()
                }
            })
            .collect();
        out += &format!("{}({}): {}\n", s.name, args.join(", "), s.doc);
        for a in s.args {
            let optional = if a.optional { " (optional)" } else { "" };
            out += &format!("    {}{optional}: {}\n", a.name, a.shape);
        }
    }
    out + "Every request may add \"check\": true (check the answer against the brute-force reference).\n"
}

"""What a predicted failure looks like: findings, the exception and the warning."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cache
from typing import Any, cast

from linear_layout import Site, sites

from ._release import order
from ._release import table as _release_table


@cache
def _descriptors() -> dict[str, Site]:
    """Return the crate's site descriptors by id."""
    return {s.id: s for s in sites()}


def _change_text(pr: str | None, what: str) -> str:
    return f"PR {pr}: {what}" if pr else what


def _later_changes(site: Site, release: str) -> dict[str, Any]:
    """Say what the site's descriptor knows about releases after ``release``.

    ``fixed_in``: the first later release in which the site has no failing
    location (it cannot fail there at all), and ``fix``: the latest recorded
    change up to it. ``changed_in`` and ``change``: the first recorded change
    after ``release``, which may only move the failure (a rewrite that fails
    the same tiles).
    """
    out: dict[str, Any] = {"fixed_in": None, "fix": None, "changed_in": None, "change": None}
    try:
        after = order(release)
    except KeyError:
        return out
    failing = {name for loc in site.locations for name in loc.releases}
    for info in _release_table()[after + 1 :]:
        if info.name not in failing:
            out["fixed_in"] = info.name
            break
    changes = [(order(c.release), c) for c in site.changes if _known(c.release)]
    later = [(i, c) for i, c in changes if i > after]
    if later:
        first = later[0][1]
        out["changed_in"], out["change"] = first.release, _change_text(first.pr, first.what)
    if out["fixed_in"] is not None:
        upto = order(out["fixed_in"])
        fixing = [c for i, c in later if i <= upto]
        if fixing:
            out["fix"] = _change_text(fixing[-1].pr, fixing[-1].what)
    return out


def _known(name: str) -> bool:
    try:
        order(name)
    except KeyError:
        return False
    return True


@dataclass(frozen=True)
class Finding:
    """One op of a TTGIR module that the modelled release fails on.

    Read from :func:`linear_layout.check_ttgir`'s findings, with the failing
    site's descriptor (:func:`linear_layout.sites`) for what to do about it.

    Attributes:
        line: 1-based line of the op in the TTGIR text.
        op: the op's name (``local_alloc``, ``convert_layout``...), or
            ``#name`` for a layout definition the release cannot parse.
        verdict: how the compile of this TTGIR from a ``.ttgir`` file ends
            (``abort``, ``error``).
        verdict_from_source: how it ends compiled from Python source (the
            JIT, ``triton.compile(ASTSource)``): from 3.3 the pass manager
            catches most aborts there.
        site: the failing site's id (``stmatrix``...; see
            :func:`linear_layout.sites`).
        release: the release the check ran for.
        ending: how Triton fails there (``assertion``, ``fatal_error``,
            ``diagnostic``, ``crash``).
        function: the Triton function that fails.
        location: where, in the release's source (``v3.2.0:lib/...:562``).
        triton_message: what Triton itself prints there.
        explanation: why the layouts reach that site, in this package's words.
        title: what fails at the site, in one line (its descriptor's).
        fixed_in: the first release after ``release`` in which the site
            cannot fail at all (its descriptor has no location there), if any.
            The op compiles there unless another site stops it; the finder's
            :func:`linear_layout.fix_for` answers for a whole configuration.
        fix: the recorded change that made it so (``"PR #6609: ..."``).
        changed_in: the release of the site's first recorded change after
            ``release``, if any: a change that moved or removed failures,
            which need not fix this op (``fixed_in`` is later then).
        change: that change in words.
        workaround: what a user can do without changing Triton (the site's).

    """

    line: int | None
    op: str | None
    verdict: str
    verdict_from_source: str | None = None
    site: str | None = None
    release: str | None = None
    ending: str | None = None
    function: str | None = None
    location: str | None = None
    triton_message: str | None = None
    explanation: str | None = None
    title: str | None = None
    fixed_in: str | None = None
    fix: str | None = None
    changed_in: str | None = None
    change: str | None = None
    workaround: str | None = None

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Finding:
        """Read a finding from one item of ``check_ttgir``'s ``findings`` (a dict)."""
        failure = d.get("failure") if isinstance(d.get("failure"), dict) else {}
        assert isinstance(failure, dict)
        site = _opt_str(failure.get("site"))
        release = _opt_str(failure.get("release"))
        title = workaround = None
        later: dict[str, Any] = {}
        descriptor = _descriptors().get(site) if site else None
        if descriptor is not None:
            title, workaround = descriptor.title, descriptor.workaround
            if release is not None:
                later = _later_changes(descriptor, release)
        line = d.get("line")
        return cls(
            line=line if isinstance(line, int) else None,
            op=_opt_str(d.get("op")),
            verdict=str(d.get("verdict") or failure.get("verdict") or "abort"),
            verdict_from_source=_opt_str(d.get("verdict_from_source")),
            site=site,
            release=release,
            ending=_opt_str(failure.get("ending")),
            function=_opt_str(failure.get("function")),
            location=_opt_str(failure.get("location")),
            triton_message=_opt_str(failure.get("triton_message")) or None,
            explanation=_opt_str(failure.get("explanation")) or None,
            title=title,
            fixed_in=later.get("fixed_in"),
            fix=later.get("fix"),
            changed_in=later.get("changed_in"),
            change=later.get("change"),
            workaround=workaround,
        )

    def to_json(self) -> dict[str, Any]:
        """Return the finding as a plain dict (``Finding(**d)`` reads it back)."""
        return asdict(self)

    @property
    def message(self) -> str:
        """Triton's message, and why, in one line."""
        why = f" ({self.explanation})" if self.explanation else ""
        return f"{self.triton_message or 'failure'}{why}"

    def describe(self) -> str:
        """Describe the finding in a few lines: where, what Triton says, why, what to do."""
        where = f"TTGIR line {self.line}" if self.line is not None else "the module"
        lines = [f"{self.op or 'op'} at {where}: {self.triton_message or 'failure'}"]
        if self.site:
            place = f" in {self.function} ({self.location})" if self.function else ""
            lines.append(f"  site: {self.site}{place}")
        if self.explanation:
            lines.append(f"  why: {self.explanation}")
        if self.fixed_in:
            how = f" ({self.fix})" if self.fix else ""
            lines.append(f"  fixed in: Triton {self.fixed_in}{how}")
        elif self.changed_in:
            lines.append(f"  changed in Triton {self.changed_in}, still failing: {self.change}")
        if self.workaround:
            lines.append(f"  workaround: {self.workaround}")
        return "\n".join(lines)


def _opt_str(v: Any) -> str | None:
    return None if v is None else str(v)


def _outcome(verdict: str, ending: str | None) -> str:
    """How the compile would end, in words."""
    if verdict == "wrong":
        return "emit wrong code (a kernel that computes wrong values, no error)"
    if verdict == "abort" and ending == "crash":
        return "crash the whole Python process (a signal nothing catches)"
    if verdict == "abort":
        return "abort the whole Python process (SIGABRT)"
    return "fail with RuntimeError: PassManager::run failed"


class LayoutCompileError(Exception):
    """A compile that a modelled Triton release fails on, stopped before it fails.

    What is raised is an instance of ``SkippableLayoutCompileError``
    (:func:`error_class`), a subclass of both this class and the installed
    release's exception that ``triton.autotune`` skips a configuration on, so
    an autotuner moves on to the next configuration. Catch this class to
    handle every release alike.

    Attributes:
        findings: every failing op of the module (at least one).
        release: the modelled release the check ran for (``"3.2"``...).
        triton_version: the installed ``triton.__version__``.
        kernel: the kernel's name, when known.
        entry: ``"source"`` (the JIT, ``triton.compile(ASTSource)``) or
            ``"file"`` (``triton.compile("kernel.ttgir")``): which verdict
            applies.
        verdict: how the compile would have ended (``abort``, ``error``).

    The first finding's fields are also the error's, for the common case of
    one failing op: ``site`` (the site's id), ``location``,
    ``triton_message``, ``explanation``, ``fixed_in`` and ``fix`` (the first
    release in which the site cannot fail, and the change responsible, from
    the site's descriptor) and ``workaround``.

    """

    findings: tuple[Finding, ...]
    release: str
    triton_version: str
    kernel: str | None
    entry: str

    def __init__(
        self,
        findings: tuple[Finding, ...] | list[Finding],
        release: str,
        triton_version: str,
        kernel: str | None = None,
        entry: str = "source",
    ) -> None:
        self.findings = tuple(findings)
        self.release = release
        self.triton_version = triton_version
        self.kernel = kernel
        self.entry = entry
        text = self._text()
        Exception.__init__(self, text)
        # the attributes Triton's own exception classes print or read
        # (CompilationError, PTXASError, OutOfResources)
        self.error_message = text
        self.message = text
        self.src = None
        self.node = None
        self.required = None
        self.limit = None
        self.name = "layout"

    @property
    def verdict(self) -> str:
        """How the compile would have ended: ``abort``, ``error`` or ``wrong`` (it compiles)."""
        if not self.findings:
            return "abort"
        first = self.findings[0]
        if self.entry == "source" and first.verdict_from_source:
            return first.verdict_from_source
        return first.verdict

    def _text(self) -> str:
        name = f"kernel {self.kernel!r}" if self.kernel else "this kernel"
        ending = self.findings[0].ending if self.findings else None
        head = (
            f"linear_layout: Triton {self.triton_version} would "
            f"{_outcome(self.verdict, ending)} lowering {name} "
            f"to LLVM IR; the compile was stopped after its TTGIR stage."
        )
        return "\n".join([head, *(f.describe() for f in self.findings)])

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            _rebuild,
            (
                [f.to_json() for f in self.findings],
                self.release,
                self.triton_version,
                self.kernel,
                self.entry,
            ),
        )

    # the first finding's fields, for the common case of one failing op
    @property
    def site(self) -> str | None:
        """The failing site's id of the first finding (``stmatrix``...)."""
        return self.findings[0].site if self.findings else None

    @property
    def location(self) -> str | None:
        """Where in Triton's source the first finding fails."""
        return self.findings[0].location if self.findings else None

    @property
    def triton_message(self) -> str | None:
        """What Triton prints at the first finding's site."""
        return self.findings[0].triton_message if self.findings else None

    @property
    def explanation(self) -> str | None:
        """Why the first finding's layouts reach its site."""
        return self.findings[0].explanation if self.findings else None

    @property
    def fixed_in(self) -> str | None:
        """The first release in which the first finding's site cannot fail, if any."""
        return self.findings[0].fixed_in if self.findings else None

    @property
    def fix(self) -> str | None:
        """The change that fixed it (``"PR #6609: ..."``)."""
        return self.findings[0].fix if self.findings else None

    @property
    def workaround(self) -> str | None:
        """A configuration change avoiding the first finding, if known."""
        return self.findings[0].workaround if self.findings else None


class LayoutWarning(RuntimeWarning):
    """Issued in ``mode="warn"`` for a compile the release is predicted to fail."""


_ERROR_CLASS: type[LayoutCompileError] | None = None


def skip_bases() -> tuple[type[Exception], ...]:
    """Return the installed release's exceptions the raised error also is.

    ``Autotuner._bench`` skips a configuration on ``OutOfResources`` and
    ``CompileTimeAssertionFailure``, and also on ``PTXASError`` in the
    releases that have it (3.3 on). The primary base is the compile failure
    among them: ``PTXASError`` (the backend compiler failed) where it
    exists, else ``CompileTimeAssertionFailure``. Inductor's Triton
    heuristics skip a configuration on ``OutOfResources`` and ``PTXASError``
    (so without ``PTXASError``, ``OutOfResources`` is a second base), and
    its ``max-autotune`` benchmark skips a choice on ``RuntimeError`` (what
    Triton's own pass failures are), the last base.
    """
    from triton.runtime import errors

    ptxas = getattr(errors, "PTXASError", None)
    if isinstance(ptxas, type) and issubclass(ptxas, Exception):
        return (ptxas, RuntimeError)
    from triton.compiler.errors import CompileTimeAssertionFailure

    return (
        cast("type[Exception]", CompileTimeAssertionFailure),
        cast("type[Exception]", errors.OutOfResources),
        RuntimeError,
    )


def error_class() -> type[LayoutCompileError]:
    """Return ``SkippableLayoutCompileError``: :class:`LayoutCompileError` + :func:`skip_bases`."""
    global _ERROR_CLASS
    if _ERROR_CLASS is None:
        bases = skip_bases()
        names = " and ".join(f"{b.__module__}.{b.__name__}" for b in bases)
        cls = type(
            "SkippableLayoutCompileError",
            (LayoutCompileError, *bases),
            {
                "__module__": "linear_layout.triton",
                "__qualname__": "SkippableLayoutCompileError",
                "__doc__": (
                    f"A predicted layout failure; also a {names}, so the installed "
                    "release's autotuner skips the configuration."
                ),
            },
        )
        _ERROR_CLASS = cls
    return _ERROR_CLASS


def _rebuild(
    findings: list[dict[str, Any]],
    release: str,
    triton_version: str,
    kernel: str | None,
    entry: str,
) -> LayoutCompileError:
    return error_class()([Finding(**f) for f in findings], release, triton_version, kernel, entry)

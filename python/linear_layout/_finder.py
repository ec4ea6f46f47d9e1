"""The bug finder's answers, as records.

:func:`~linear_layout.predict`, :func:`~linear_layout.fix_for`,
:func:`~linear_layout.check_ttgir`, :func:`~linear_layout.explain`,
:func:`~linear_layout.sites` and
:func:`~linear_layout.releases` (native, in ``linear_layout._native``) build
the JSON the command line tool prints for the same question and return it as
the record classes below: read-only, with the JSON keys as attributes, and
``to_json()`` giving the CLI's text back. The classes only name the fields
(for type checkers and ``help()``); a field the crate adds later is readable
all the same.
"""

from __future__ import annotations

from linear_layout._records import Record

__all__ = [
    "CheckReport",
    "ExplainedLocation",
    "ExplainedSite",
    "Explanation",
    "Failure",
    "Fix",
    "KernelConfig",
    "Prediction",
    "ReleaseInfo",
    "Site",
    "SiteChange",
    "SiteLocation",
    "SiteVerdict",
    "Step",
    "TtgirFinding",
    "TtgirSpelling",
]


class KernelConfig(Record):
    """A kernel configuration in its JSON form (``predict --batch``'s input).

    Its fields are :data:`~linear_layout.CONFIG_FIELDS` (the crate's):
    ``pattern`` (``dot``, ``chain-a``, ``chain-b``...), block sizes ``m``,
    ``n``, ``k`` (``None`` for a pattern without one) and ``x`` (chain
    patterns; else ``None``), ``dtype``, ``num_warps``, ``num_stages``,
    ``arch``, ``num_ctas`` (left out of the JSON when 1), ``triton`` (the
    release) and ``variant`` (a development build, else left out). Any
    finder function takes one back as its configuration.
    """

    __slots__ = ()
    pattern: str
    m: int
    n: int
    k: int | None
    x: int | None
    dtype: str
    num_warps: int
    num_stages: int
    arch: str
    triton: str

    @property
    def num_ctas(self) -> int:
        """CTAs per program (1 when the JSON leaves it out)."""
        return self.get("num_ctas", 1)  # type: ignore[no-any-return]

    @property
    def variant(self) -> str | None:
        """The development build the configuration is for, or ``None``."""
        return self.get("variant")  # type: ignore[no-any-return]


class Failure(Record):
    """Where and how a release fails: the crate's ``Failure::to_json``.

    ``release``, ``site`` (the site's id, see :func:`~linear_layout.sites`),
    ``ending`` (``assertion``, ``fatal_error``, ``diagnostic``, ``crash``),
    ``verdict`` (``abort`` or ``error``), ``function`` and ``location`` (the
    failing code, ``v3.2.0:lib/Tools/LinearLayout.cpp:562``),
    ``triton_message`` (what Triton prints) and ``explanation`` (why these
    layouts get there).
    """

    __slots__ = ()
    release: str
    site: str
    ending: str
    verdict: str
    function: str
    location: str
    triton_message: str
    explanation: str


class Step(Record):
    """One step of the modelled lowering: ``what`` happens, and the ``layout`` (if any)."""

    __slots__ = ()
    what: str

    @property
    def layout(self) -> str | None:
        """The layout this step produced, as Triton prints it; ``None`` for a note."""
        return self.get("layout")  # type: ignore[no-any-return]


class Prediction(Record):
    """The prediction for one configuration in one release (``predict --json``'s line).

    ``verdict`` (``ok``, ``abort`` or ``error``: how a compile from Python
    source ends), ``failure`` (absent when ``ok``), ``steps``, ``release`` and
    ``config``.
    """

    __slots__ = ()
    _field_types = {"failure": Failure, "steps": Step, "config": KernelConfig}  # noqa: RUF012
    verdict: str
    steps: list[Step]
    release: str
    config: KernelConfig

    @property
    def failure(self) -> Failure | None:
        """Where and how the release fails; ``None`` when the verdict is ``ok``."""
        return self.get("failure")  # type: ignore[no-any-return]

    @property
    def fails(self) -> bool:
        """Whether the release fails to compile the configuration."""
        return self.verdict != "ok"


class BrokenAgain(Record):
    """A later release where a fixed configuration fails again: ``release``, ``site``."""

    __slots__ = ()
    release: str
    site: str


class Fix(Record):
    """The first release that compiles a configuration, and the change responsible.

    ``config`` and ``release`` (what was asked), ``fixed_in`` (or ``None``),
    ``change`` (in words), ``pr``, ``blocker`` (the site it fails at until
    ``fixed_in``) and ``broken_again``.
    """

    __slots__ = ()
    _field_types = {"config": KernelConfig, "broken_again": BrokenAgain}  # noqa: RUF012
    config: KernelConfig
    release: str
    fixed_in: str | None
    change: str
    pr: str | None
    blocker: str | None
    broken_again: BrokenAgain | None


class TtgirFinding(Record):
    """One op of a TTGIR module the release fails on (``check-ttgir --json``).

    ``line`` (1-based), ``op`` (``local_alloc``...; ``#name`` for a layout
    definition the release cannot parse), ``verdict`` (compiling the file),
    ``verdict_from_source`` (compiling the kernel from Python) and
    ``failure``.
    """

    __slots__ = ()
    _field_types = {"failure": Failure}  # noqa: RUF012
    line: int
    op: str
    verdict: str
    verdict_from_source: str
    failure: Failure


class UncheckedOp(Record):
    """A layout-sensitive op the models could not run on (``check-ttgir``).

    ``line`` (1-based), ``op`` and ``reason`` (a type whose sizes are not
    numbers MLIR reads, a tensor shape that is not Triton's, an encoding the
    module does not define).
    """

    __slots__ = ()
    line: int
    op: str
    reason: str


class CheckReport(Record):
    """The checks of one release over a TTGIR module (``check-ttgir --json``).

    ``file``, ``triton`` (the release), ``warnings``, ``findings`` (empty
    when no modelled check fails), ``unchecked`` (the ops that could not be
    checked: the module is then not known to compile even without
    findings), ``unchecked_count``, ``modules`` (a text of several modules
    is checked module by module) and ``checked`` (the ops checked).
    """

    __slots__ = ()
    _field_types = {"findings": TtgirFinding, "unchecked": UncheckedOp}  # noqa: RUF012
    file: str
    triton: str
    warnings: list[str]
    findings: list[TtgirFinding]
    unchecked: list[UncheckedOp]
    unchecked_count: int
    modules: int
    checked: int


class SiteVerdict(Record):
    """How a failure at a location ends in one release: ``from_source``, ``from_file``."""

    __slots__ = ()
    release: str
    from_source: str
    from_file: str


class SiteLocation(Record):
    """Where a site fails in a span of releases.

    ``releases``, ``open_ended`` (the span goes on past the newest
    release), ``ending``, ``function``, ``file``, ``line``, ``location``,
    ``message`` (Triton's text) and ``verdicts``.
    """

    __slots__ = ()
    _field_types = {"verdicts": SiteVerdict}  # noqa: RUF012
    releases: list[str]
    open_ended: bool
    ending: str
    function: str
    file: str
    line: int | None
    location: str
    message: str
    verdicts: list[SiteVerdict]


class SiteChange(Record):
    """A change in Triton that moved or removed a site's failures: ``release``, ``pr``, ``what``."""

    __slots__ = ()
    release: str
    pr: str | None
    what: str


class Site(Record):
    """A failure site's descriptor (``sites --json``).

    ``id``, ``kind`` (``bug`` or ``rejection``), ``title``, ``workaround``,
    ``locations`` and ``changes`` (oldest first).
    """

    __slots__ = ()
    _field_types = {"locations": SiteLocation, "changes": SiteChange}  # noqa: RUF012
    id: str
    kind: str
    title: str
    workaround: str
    locations: list[SiteLocation]
    changes: list[SiteChange]


class TtgirSpelling(Record):
    """How a release spells TTGIR beyond its layout attributes (``ReleaseInfo.ttgir``).

    ``dialect`` (``triton_gpu`` or ``ttg``), ``nvidia_dialect``
    (``triton_nvidia_gpu`` or ``ttng``), ``memdesc_dialect`` (``tt`` or
    ``ttg``: ``!tt.memdesc``), ``memory_space`` (whether a memdesc type
    names one), ``commit_tokens`` (``async_commit_group tokens ...``),
    ``cga`` (``"lists"``: ``CTAsPerCGA``...; ``"bases"``: ``CGALayout``),
    and whether it has each attribute or op that came or went:
    ``legacy_shared``, ``linear``, ``generic_linear``, ``padded_shared``
    (``padded_shape``: whether it names its ``shape``; ``padded_lowers``:
    whether its lowering has a layout for it), ``shared_linear``,
    ``f8e4m3fn`` (tensors of it), ``gather``, ``memdesc_trans``, and
    ``wmma_v1_transposes`` (whether a version-1 ``amd_wmma`` may be
    transposed).
    """

    __slots__ = ()
    dialect: str
    nvidia_dialect: str
    memdesc_dialect: str
    memory_space: bool
    commit_tokens: bool
    cga: str
    legacy_shared: bool
    linear: bool
    generic_linear: bool
    padded_shared: bool
    padded_shape: bool
    padded_lowers: bool
    shared_linear: bool
    f8e4m3fn: bool
    gather: bool
    memdesc_trans: bool
    wmma_v1_transposes: bool


class ReleaseInfo(Record):
    """A row of the release table (``linear-layout releases --json``).

    ``name`` (what the finder's functions take), ``minors`` (every
    ``major.minor`` it stands for), ``wheel``, ``wheels``, ``tag``,
    ``dialect``, ``latest`` (the newest release), ``models_multi_cta``
    (several CTAs a program are modelled), ``models_amd`` (its AMD targets
    are modelled), ``gluon_oracle`` (its wheel's
    Gluon is the oracle of the attribute conversions), ``catches_crashes``
    (a failed assertion raises instead of killing the process) and
    ``ttgir`` (:class:`TtgirSpelling`).
    """

    __slots__ = ()
    _field_types = {"ttgir": TtgirSpelling}  # noqa: RUF012
    name: str
    minors: list[str]
    wheel: str
    wheels: list[str]
    tag: str
    dialect: str
    latest: bool
    models_multi_cta: bool
    models_amd: bool
    gluon_oracle: bool
    catches_crashes: bool
    ttgir: TtgirSpelling


class ExplainedLocation(Record):
    """A location whose message is in the log.

    ``releases``, ``function``, ``location`` (``file:line`` of the
    release), ``ending`` and ``message``.
    """

    __slots__ = ()
    releases: str
    function: str
    location: str
    ending: str
    message: str


class ExplainedSite(Record):
    """A site whose message is in a crash log (``explain --json``'s ``site``).

    ``site``, ``kind``, ``title``, ``releases`` (those whose wheels print
    exactly that message, narrowed by the log's other clues), ``wheels``,
    ``all_releases``, ``line_matched``, ``locations``, ``fixed_in`` (the
    first release that no longer fails there), ``changes``,
    ``workaround`` and ``line`` (where the message starts in the log).
    """

    __slots__ = ()
    _field_types = {"locations": ExplainedLocation}  # noqa: RUF012
    site: str
    kind: str
    title: str
    releases: list[str]
    wheels: list[str]
    all_releases: list[str]
    line_matched: bool
    locations: list[ExplainedLocation]
    fixed_in: str | None
    changes: list[str]
    workaround: str
    line: int


class Explanation(Record):
    """What a crash log is (``explain --json``).

    ``known``, ``site`` (the best match, or ``None``: named only when the
    log shows Triton printed the message), ``others``, ``unconfirmed``
    (sites whose message is in the log without that evidence), ``failures``
    (how many failures the log holds), ``nearest`` (for an unknown message:
    the known sites sharing words with it, each with ``site``, ``message``,
    ``releases``), ``front_end`` (a front-end rejection of the kernel's own
    code), ``generic``, ``key_lines`` and ``key_line_count``, ``findings``
    (on a TTGIR module in the log), ``context`` (kernel, file, warps,
    stages, CTAs, arch, shapes, version, dialect, caught, triton) and
    ``scan`` (the command to scan the kernel, when the log names it).
    """

    __slots__ = ()
    _field_types = {  # noqa: RUF012
        "site": ExplainedSite,
        "others": ExplainedSite,
        "unconfirmed": ExplainedSite,
        "findings": TtgirFinding,
    }
    known: bool
    site: ExplainedSite | None
    others: list[ExplainedSite]
    unconfirmed: list[ExplainedSite]
    failures: int
    key_line_count: int
    nearest: list[Record]
    front_end: Record | None
    generic: str | None
    key_lines: list[str]
    findings: list[TtgirFinding]
    context: Record
    scan: str | None

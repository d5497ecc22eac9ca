"""Fit each software stack's and platform's few constants over all of its measurements together.

The calibration's second stage (``python -m model.validation.calibrate``). With the global factors
fixed at a setting of the grid, three kinds of group are fitted in turn (data/stacks.yaml,
``fitted``), each on every measurement it runs:

1. a platform's constants (its kernels' least time and share of the peaks, relative to CUDA's), on
   its runs by stacks that bring no build of their own for it;
2. a family's constants (the desk runners', the data-centre servers'), on every run of every member,
   the members' own constants and builds at their priors: the prior of each member;
3. a stack's own build on a platform (SGLang's ROCm kernels), on that stack's runs there, its
   other constants at its family's;
4. a stack's constants (llama.cpp's quantised read share, kernel floor, row-split synchronisation),
   on every run of it (and of the stacks that run its kernels: Ollama runs llama.cpp's), each run's
   platform at the fits above.

Each fit is the setting of the group's small grid (:data:`GROUP_GRID`) with the lowest median
|predicted / measured - 1| over the runs it moves, ties to the lower mean |log(predicted /
measured)|, then to the grid's first value, the prior (the constant left out: typical's); it leaves
the prior only when that median improves by :data:`MATERIAL` or more. The constants that move every
run of the group are fitted together over all of them, then each one that moves only some (a split's
synchronisation moves only multi-card runs) over those. A group with no run keeps its prior. Never
one entry, never by model: a constant moves every run of its mechanism in its group. The same
procedure refits without a held-out source (:func:`fit_groups` ``excluded``), which is how the leave-one-source-out
figures predict a held-out run of a stack.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from model.catalog import Catalog, default_catalog
from model.efficiency import EXPECTED, Efficiencies
from model.stacks import platform_of, with_constants
from model.validation.reference import Reference
from model.validation.validate import predict

__all__ = [
    "GROUP_GRID",
    "Constants",
    "Group",
    "GroupFits",
    "GroupPredictor",
    "fit_groups",
    "group_key",
]

GROUP_GRID: dict[str, tuple[float | None, ...]] = {
    # Each range reaches past its fits, so that no fit is cut off at the grid's end, as far as the
    # mechanism allows: a read share stops at the full streaming bandwidth (1.0), and a CUDA-graph
    # kernel's floor at 10 us (launch, ramp and drain take a few). The Metal and XLA floors' fits sat at
    # 5x, the range's end, and vLLM's host time a sequence at 20 us (issue 33, sixth pass): both reach
    # further now, and their fits (7x, 30 us) lie inside.
    "quantized_read_share": (None, 0.8, 0.9, 1.0),
    "kernel_floor_s": (None, 2e-6, 3e-6, 4e-6, 5e-6, 8e-6, 10e-6),
    "split_sync_s": (None, 20e-6, 40e-6, 60e-6, 80e-6),
    "sequence_host_s": (None, 2e-6, 5e-6, 10e-6, 20e-6, 30e-6, 50e-6),
    "kernel_floor_scale": (None, 1.25, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0),
    # Down to half the peaks: TPU serving's published runs (JetStream, 2024) need it, no other group reaches past 0.7.
    "throughput_scale": (None, 0.9, 0.8, 0.7, 0.6, 0.5),
}
"""The values each group constant is tried at; None (first) is the prior: the constant left out, typical's."""

Constants = tuple[tuple[str, float], ...]
"""A group's constants as sorted (name, value) pairs, hashable (a constant left out is absent)."""


def group_key(kind: str, ident: str, platform: str = "") -> str:
    """Name a group's fit: 'platform:rocm', 'stack:llamacpp', 'stack:sglang@rocm' (a stack's build on a platform)."""
    return f"{kind}:{ident}@{platform}" if platform else f"{kind}:{ident}"


class Group(NamedTuple):
    """A platform, a stack, or a stack's build on a platform, whose constants are fitted, and its runs."""

    kind: str
    """"platform", "family", "build" (a stack on one platform) or "stack"."""
    id: str
    """The platform's, family's or stack's id."""
    platform: str
    """The platform of a build ("" otherwise)."""
    fitted: tuple[str, ...]
    members: frozenset[str]

    @property
    def key(self) -> str:
        """The name its fit is reported under (:func:`group_key`)."""
        return group_key("stack" if self.kind == "build" else self.kind, self.id, self.platform)

    def settings(self) -> list[Constants]:
        """Every combination of its constants' grid values, the prior (all left out) first."""
        grids = [GROUP_GRID[name] for name in self.fitted]
        return [
            tuple(sorted((name, value) for name, value in zip(self.fitted, values, strict=True) if value is not None))
            for values in itertools.product(*grids)
        ]


class GroupFits(NamedTuple):
    """The constants each group was fitted to, by :attr:`Group.key`."""

    constants: Mapping[str, Constants]

    def as_dict(self) -> dict[str, dict[str, float]]:
        """Return the fits as plain data (the shipped file's ``in_sample_groups``)."""
        return {key: dict(values) for key, values in sorted(self.constants.items())}


def _pairs(constants: Mapping[str, float]) -> Constants:
    return tuple(sorted(constants.items()))


class GroupPredictor:
    """Predict a measurement under a global setting and its stack's and platform's constants (memoised)."""

    def __init__(
        self, references: Sequence[Reference], settings: Sequence[Mapping[str, float]], catalog: Catalog | None = None
    ) -> None:
        self.catalog = catalog or default_catalog()
        self.references = {ref.id: ref for ref in references if ref.scenario is not None}
        self.settings = settings
        self.owner_of: dict[str, str] = {}
        """The stack whose constants each run takes (llama.cpp's for an Ollama run)."""
        self.platform_of: dict[str, str] = {}
        for ident, ref in self.references.items():
            assert ref.scenario is not None
            stack = self.catalog.stacks[ref.scenario.stack]
            self.owner_of[ident] = stack.constants_of or stack.id
            gpu = self.catalog.gpus.get(ref.scenario.gpu)
            self.platform_of[ident] = platform_of(self.catalog, gpu).id if gpu is not None else "cuda"
        self._efficiencies: dict[int, Efficiencies] = {}
        self._catalogs: dict[tuple[str, Constants, str, Constants], Catalog] = {}
        self._memo: dict[tuple[str, int, Constants, Constants], float] = {}

    def family_of(self, ident: str) -> str:
        """The family of run ``ident``'s stack ("" for none)."""
        return str(self.catalog.stacks[self.owner_of[ident]].family)

    def has_build(self, ident: str) -> bool:
        """Whether run ``ident``'s stack brings its own build's constants for the run's platform."""
        stack, platform = self.catalog.stacks[self.owner_of[ident]], self.platform_of[ident]
        return platform in stack.on_platforms or platform in stack.platform_fitted

    def groups(self) -> list[Group]:
        """Return the groups with constants to fit, in fitting order (platforms, families, builds, stacks)."""
        runs = self.owner_of.items()
        groups = [
            Group(
                "platform", platform.id, "", platform.fitted,
                frozenset(i for i, _ in runs if self.platform_of[i] == platform.id and not self.has_build(i)),
            )
            for platform in self.catalog.platforms.values()
            if platform.fitted
        ]  # fmt: skip
        groups += [
            Group(
                "family", family.id, "", family.fitted, frozenset(i for i, _ in runs if self.family_of(i) == family.id)
            )
            for family in self.catalog.families.values()
            if family.fitted
        ]
        for stack in self.catalog.stacks.values():
            for platform, fitted in stack.platform_fitted.items():
                members = frozenset(i for i, o in runs if o == stack.id and self.platform_of[i] == platform)
                groups.append(Group("build", stack.id, platform, fitted, members))
        groups += [
            Group("stack", stack.id, "", stack.fitted, frozenset(i for i, o in runs if o == stack.id))
            for stack in self.catalog.stacks.values()
            if stack.fitted
        ]
        return groups

    def shipped(self, ident: str) -> tuple[Constants, Constants]:
        """Return the catalog's stack (its family's and its own) and platform constants for run ``ident``."""
        stack, platform = self.catalog.stacks[self.owner_of[ident]], self.platform_of[ident]
        build = stack.on_platforms.get(platform)
        kind = self.catalog.platforms.get(platform)
        return _pairs(stack.effective_constants), _pairs(build if build is not None else kind.constants if kind else {})

    def constants(self, ident: str, fits: GroupFits) -> tuple[Constants, Constants, bool]:
        """Return the stack and platform constants run ``ident`` takes under ``fits`` (the catalog's where none).

        The stack's are its family's (fitted or shipped) overridden by its own (fitted or shipped). The
        flag says whether any fit applies to it.
        """
        owner, platform = self.owner_of[ident], self.platform_of[ident]
        stack = self.catalog.stacks[owner]
        stack_key, family = group_key("stack", owner), self.family_of(ident)
        family_key = group_key("family", family) if family else ""
        platform_key = group_key("stack", owner, platform) if self.has_build(ident) else group_key("platform", platform)
        _, shipped_platform = self.shipped(ident)
        shared = dict(fits.constants.get(family_key, _pairs(stack.family_constants)))
        own = dict(fits.constants.get(stack_key, _pairs(stack.constants)))
        kind = fits.constants.get(platform_key, shipped_platform)
        grouped = any(key in fits.constants for key in (stack_key, family_key, platform_key) if key)
        return _pairs({**shared, **own}), kind, grouped

    def __call__(self, ident: str, setting: int, stack: Constants, platform: Constants) -> float:
        """Return run ``ident``'s prediction under global setting ``setting`` with these constants."""
        key = (ident, setting, stack, platform)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._predict(ident, setting, stack, platform)
        return found

    def _predict(self, ident: str, setting: int, stack: Constants, platform: Constants) -> float:
        eff = self._efficiencies.get(setting)
        if eff is None:
            changes: dict[str, Any] = dict(self.settings[setting])
            eff = self._efficiencies[setting] = dataclasses.replace(EXPECTED, **changes)
        owner, platform_id = self.owner_of[ident], self.platform_of[ident]
        where = (owner, stack, platform_id, platform)
        catalog = self._catalogs.get(where)
        if catalog is None:
            # ``stack`` is the run's whole stack constants (its family's and its own): the families are emptied.
            families: dict[str, dict[str, float]] = {key: {} for key in self.catalog.families}
            if self.has_build(ident):
                builds = {(owner, platform_id): dict(platform)}
                catalog = with_constants(self.catalog, {owner: dict(stack)}, {}, builds, families)
            else:
                kinds = {platform_id: dict(platform)} if platform_id in self.catalog.platforms else {}
                catalog = with_constants(self.catalog, {owner: dict(stack)}, kinds, None, families)
            self._catalogs[where] = catalog
        return predict(self.references[ident], catalog, eff).value


def _score(predictions: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Median |p / m - 1|, then mean |log(p / m)|, over (predicted, measured) pairs."""
    errors = [abs(p / m - 1.0) for p, m in predictions]
    logs = [abs(math.log(p / m)) if p > 0 else math.inf for p, m in predictions]
    return statistics.median(errors), sum(logs) / len(logs)


MATERIAL = 0.005
"""How much a group's median |error| must improve on its prior's for a fit to leave the prior (half a
point): on runs a constant barely moves (a kernel floor under an offline benchmark's large batches)
the objective is flat, and the best of a flat grid is noise, often at the grid's end."""


def _choose(
    group: Group, rows: Sequence[str], trial: Callable[[str, Constants], float], measured: Mapping[str, float]
) -> Constants:
    """Return the group's constants that predict ``rows`` best, each fitted over the runs it moves.

    The constants that move every run (a kernel floor) are fitted together over all of them; then each
    one that moves only some (a multi-card split's synchronisation, the quantised read share a 16-bit
    run never pays) alone over the runs it moves, the others held at their fit. A median over all of a
    stack's runs would not see a mechanism of a few of them: 36 one-card runs on a Mac outvoted the
    two two-card splits that fix llama.cpp's synchronisation. The prior when no run, or no fit
    materially better.
    """
    if not rows:
        return group.settings()[0]
    moved = {name: _moved(name, rows, trial) for name in group.fitted}
    shared = tuple(name for name in group.fitted if len(moved[name]) == len(rows))
    fitted = _best_of(group._replace(fitted=shared), rows, trial, measured, {})
    for name in group.fitted:
        if name not in shared:
            fitted = _best_of(group._replace(fitted=(name,)), moved[name], trial, measured, dict(fitted))
    return fitted


def _moved(name: str, rows: Sequence[str], trial: Callable[[str, Constants], float]) -> list[str]:
    """Return the runs whose prediction any of ``name``'s grid values changes, the others at the prior."""
    values = [value for value in GROUP_GRID[name] if value is not None]
    prior = {i: trial(i, ()) for i in rows}
    # A relative tolerance: a constant that does not enter a run's mechanism may still move its float noise.
    return [i for i in rows if any(not math.isclose(trial(i, ((name, value),)), prior[i]) for value in values)]


def _best_of(
    group: Group,
    rows: Sequence[str],
    trial: Callable[[str, Constants], float],
    measured: Mapping[str, float],
    held: Mapping[str, float],
) -> Constants:
    """Return ``held`` with the setting of ``group``'s constants that predicts ``rows`` best (none if not material)."""
    if not rows or not group.fitted:
        return _pairs(dict(held))
    settings = [_pairs({**held, **dict(constants)}) for constants in group.settings()]
    scored = [(_score([(trial(i, c), measured[i]) for i in rows]), index) for index, c in enumerate(settings)]
    best = min(scored)
    if best[0][0] > scored[0][0][0] - MATERIAL:
        return settings[0]
    return settings[best[1]]


def fit_groups(
    predictor: GroupPredictor,
    setting: int,
    measured: Mapping[str, float],
    excluded: frozenset[str] = frozenset(),
    stacks: frozenset[str] | None = None,
) -> GroupFits:
    """Fit every group's constants at global setting ``setting`` on the runs not ``excluded``.

    Platforms first and stacks' builds on a platform next, each run's stack at its prior; then the
    stacks, each run's platform at its fit. ``measured`` gives each run's value (runs not in it are
    ignored); ``stacks`` limits the stacks fitted to these (a held-out source's: the others' fits
    predict nothing held out).
    """
    fits: dict[str, Constants] = {}
    wanted = [g for g in predictor.groups() if g.kind in ("platform", "family") or stacks is None or g.id in stacks]
    for group in wanted:
        rows = sorted(i for i in group.members if i in measured and i not in excluded)
        fits[group.key] = _choose(group, rows, _trial(predictor, setting, group, fits), measured)
    return GroupFits(fits)


def _trial(
    predictor: GroupPredictor, setting: int, group: Group, fits: Mapping[str, Constants]
) -> Callable[[str, Constants], float]:
    """Return how a run is predicted with a trial of ``group``'s constants, the fits so far around it."""

    def family(ident: str) -> dict[str, float]:
        name = predictor.family_of(ident)
        return dict(fits.get(group_key("family", name), ())) if name else {}

    if group.kind == "platform":
        return lambda ident, constants: predictor(ident, setting, (), constants)
    if group.kind == "family":  # the members' own constants and builds at their priors
        return lambda ident, constants: predictor(ident, setting, constants, ())
    if group.kind == "build":
        return lambda ident, constants: predictor(ident, setting, _pairs(family(ident)), constants)

    def stack(ident: str, constants: Constants) -> float:
        _, platform, _ = predictor.constants(ident, GroupFits(fits))
        return predictor(ident, setting, _pairs({**family(ident), **dict(constants)}), platform)

    return stack

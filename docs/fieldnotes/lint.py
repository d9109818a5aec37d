"""``fieldnotes lint``: the site's pitfalls found in a reader's own code, each linked to its proof.

    python -m fieldnotes.lint PATH... [--lang zh] [--select ID,...] [--ignore ID,...]

PATH: Python files, folders (every ``*.py`` and ``*.ipynb`` under them) and notebooks. Each
finding is ``file:line:col ID symptom`` and the URL of the pitfall's section on the site, in the
language asked for. A comment ``# fieldnotes: ignore[ID]`` (or ``ignore[ID1,ID2]``, or bare
``ignore``) silences its line.

The run never stops at a file: as a pre-commit hook or in CI it meets every kind of file a
repository holds. A file is read as Python reads it (the encoding its byte-order mark or its
coding comment declares, :func:`read_source`); a notebook's IPython magics become ``pass`` (or
``x = None`` for ``x = !cmd``) at their own indentation, so the cell stays valid Python; a file
that still cannot be checked (syntax Python rejects, too deep to parse, JSON that is not an
nbformat 4 notebook, a file that cannot be opened) is named on one line of standard error with
the reason, and the others are checked. Exit status (:data:`FOUND`, :data:`UNCHECKED`): 0
nothing found, 1 findings, 2 a file could not be checked (or the command line is wrong); when
both happen, 2: the run has not shown every file, so it must not read as "only findings".

Why the standard library's ``ast`` and not libcst: the rules read code, they never rewrite it,
so a concrete syntax tree (whitespace, comments) buys nothing but a dependency; ``ast`` gives
line and column, and comments are read from the source lines for the ignore markers.

A rule *is* a pitfall: it is registered under the pitfall's id (:func:`rule`), its symptom and
URL come from the catalogue (the pages' front matter, :mod:`fieldnotes.pitfalls`), and the tests
prove each on the pages' own code: it fires on every block marked
``<!--pytest.mark.lint(mistake="ID")-->`` and stays silent on every block marked ``lint(fix="ID")``,
in both languages (tests/test_lint.py). Names are resolved through the file's imports, with the
usual aliases (``F``, ``nn``, ``optim``, ``dist``) when a block uses them without importing.
"""

from __future__ import annotations

import argparse
import functools
import ast
import json
import io
import os
import re
import sys
import tokenize
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

IGNORE = re.compile(r"#\s*fieldnotes:\s*ignore(?:\[([\w\s,-]+)\])?")
FOUND, UNCHECKED = 1, 2  # exit statuses; UNCHECKED wins when both happen
DEFAULT_ALIASES = {"F": "torch.nn.functional", "nn": "torch.nn", "optim": "torch.optim",
                   "dist": "torch.distributed", "np": "numpy"}


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    col: int
    rule: str
    detail: str = ""
    where: str = ""  # in a notebook: "cell N, line M" (line counts through the code cells)


class Source:
    """One file's code, parsed, with its import aliases resolved."""

    def __init__(self, code: str, path: str = "<code>", context: str | Sequence[str] = "",
                 cell_ends: Sequence[int] = ()):
        self.code, self.path = code, path
        self.tree = ast.parse(code, filename=path)
        self.nodes = list(ast.walk(self.tree))  # walked once; every rule reads this list
        self.lines = python_lines(code)
        # the lines where a statement's value is not thrown away: a notebook cell's last statement
        # (displayed), a page block's that is marked to raise (it never returns)
        self.shown = set(cell_ends)
        self.aliases = dict(DEFAULT_ALIASES)
        # the code that ran before this (a page's earlier blocks, each read once): only its imports count
        for earlier in [context] if isinstance(context, str) else context:
            self.aliases.update(_import_aliases(earlier))
        self.aliases.update(_aliases(self.nodes))
        self.parents: dict[ast.AST, ast.AST] = {}
        for parent in self.nodes:
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent

    def name(self, node: ast.AST) -> str | None:
        """The dotted name an expression stands for, imports resolved: ``F.dropout`` ->
        ``torch.nn.functional.dropout``; None for anything but names and attributes."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        head = self.aliases.get(node.id, node.id)
        return ".".join([head, *reversed(parts)])

    def calls(self, *names: str) -> Iterator[ast.Call]:
        """Calls of the given dotted names (imports resolved), in source order."""
        wanted = set(names)
        for node in self.nodes:
            if isinstance(node, ast.Call) and self.name(node.func) in wanted:
                yield node

    def enclosing(self, node: ast.AST, kinds: tuple) -> ast.AST | None:
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, kinds):
                return node
        return None


def _aliases(nodes: list[ast.AST]) -> dict[str, str]:
    """The names the imports among ``nodes`` bind, each to the dotted name it stands for."""
    aliases: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[(a.asname or a.name).split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    return aliases


@functools.lru_cache(maxsize=4096)
def _import_aliases(code: str) -> dict[str, str]:
    """The import aliases of earlier code (parsed once per piece: a page's blocks are the context of
    every later block, which made linting a page quadratic); code that does not parse binds none."""
    if not code:
        return {}
    try:
        return _aliases(list(ast.walk(ast.parse(code))))
    except SyntaxError:
        return {}


def keyword(call: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in call.keywords if k.arg == name), None)


def constant(node: ast.AST | None):
    return node.value if isinstance(node, ast.Constant) else None


Check = Callable[[Source], Iterator[tuple[ast.AST, str]]]
RULES: dict[str, Check] = {}
"""Pitfall id -> its check, which yields (node, detail) for each place the pitfall shows."""


def rule(pitfall: str) -> Callable[[Check], Check]:
    def register(check: Check) -> Check:
        RULES[pitfall] = check
        return check
    return register


# --- the rules, by page -------------------------------------------------------------------------

DROPOUTS = tuple(f"torch.nn.functional.{n}" for n in ("dropout", "dropout1d", "dropout2d", "dropout3d",
                                                      "alpha_dropout", "feature_alpha_dropout"))


@rule("dropout-functional-in-eval")
def _dropout_without_training(src: Source):
    """F.dropout in forward() without training=: it keeps dropping in eval()."""
    for call in src.calls(*DROPOUTS):
        method = src.enclosing(call, (ast.FunctionDef, ast.AsyncFunctionDef))
        if method is not None and method.name == "forward" and keyword(call, "training") is None \
                and len(call.args) < 3:  # (input, p, training, inplace)
            yield call, "pass training=self.training"


@rule("optim-scheduler-before-optimizer")
def _scheduler_first(src: Source):
    """scheduler.step() before optimizer.step() in the same block of statements."""
    made = _constructed(src)
    schedulers = {n for n, kind in made.items() if kind.startswith("torch.optim.lr_scheduler.")}
    optimizers = {n for n, kind in made.items() if kind.startswith("torch.optim.") and
                  not kind.startswith("torch.optim.lr_scheduler.") and kind.split(".")[-1][:1].isupper()}
    for body in _bodies(src.tree):
        seen_scheduler = None
        for stmt in body:
            for call in _step_calls(stmt):
                owner = call.func.value.id
                if owner in schedulers and seen_scheduler is None:
                    seen_scheduler = call
                elif owner in optimizers and seen_scheduler is not None:
                    yield seen_scheduler, f"{owner}.step() comes after it"
                    seen_scheduler = None


def _step_calls(stmt: ast.stmt) -> list[ast.Call]:
    """``x.step()`` calls of one statement, in order; an ``if`` counts as part of the body it
    sits in (a step taken only sometimes is still taken before what follows)."""
    if isinstance(stmt, ast.If):
        return [c for s in stmt.body + stmt.orelse for c in _step_calls(s)]
    if isinstance(stmt, (ast.For, ast.While, ast.With, ast.FunctionDef, ast.Try)):
        return []  # a nested loop or block is checked as a body of its own
    return [n for n in ast.walk(stmt) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            and n.func.attr == "step" and isinstance(n.func.value, ast.Name)]


def _bodies(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield body


def _constructed(src: Source) -> dict[str, str]:
    """Names assigned the result of a call, with the callee's dotted name (``opt = optim.SGD(...)``)."""
    found = {}
    for node in src.nodes:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            callee = src.name(node.value.func)
            for target in node.targets:
                if isinstance(target, ast.Name) and callee:
                    found[target.id] = callee
    return found


@rule("module-plain-list-not-trained")
def _layers_in_a_list(src: Source):
    """self.layers = [nn.Linear(...), ...] in a Module: not registered, not trained."""
    for node in src.nodes:
        if not (isinstance(node, ast.Assign) and any(_self_attribute(t) for t in node.targets)) or \
                not _in_module_class(src, node):
            continue
        value = node.value
        elements = value.elts if isinstance(value, (ast.List, ast.Tuple)) else \
            [value.elt] if isinstance(value, ast.ListComp) else []
        if any(isinstance(e, ast.Call) and (src.name(e.func) or "").startswith("torch.nn.")
               and (src.name(e.func) or "").split(".")[-1][:1].isupper() for e in elements):
            yield node, "use nn.ModuleList"


def _in_module_class(src: Source, node: ast.AST) -> bool:
    """Inside a class that derives from nn.Module (or, by its name, from another Module class)."""
    cls = src.enclosing(node, (ast.ClassDef,))
    return cls is not None and any((src.name(b) or "").endswith("Module") for b in cls.bases)


def _self_attribute(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


FACTORIES = {f"torch.{n}" for n in ("tensor", "zeros", "ones", "empty", "full", "randn", "rand", "arange",
                                     "eye", "linspace", "zeros_like", "ones_like")}


@rule("module-tensor-attribute-not-buffer")
def _tensor_attribute(src: Source):
    """self.x = torch.zeros(...) in a Module's __init__: not in state_dict, not moved by .to()."""
    for node in src.nodes:
        if isinstance(node, ast.Assign) and any(_self_attribute(t) for t in node.targets) and \
                isinstance(node.value, ast.Call) and src.name(node.value.func) in FACTORIES:
            method = src.enclosing(node, (ast.FunctionDef,))
            if method is not None and method.name == "__init__" and _in_module_class(src, node):
                yield node, "register_buffer() it, or wrap it in nn.Parameter"


# not yet a rule (no page block shows it as a reader writes it): cross-entropy-double-softmax
def _softmax_into_cross_entropy(src: Source):
    """cross_entropy / CrossEntropyLoss given probabilities: it applies log_softmax itself."""
    losses = {n for n, kind in _constructed(src).items() if kind == "torch.nn.CrossEntropyLoss"}
    for node in src.nodes:
        if not isinstance(node, ast.Call) or not node.args:
            continue
        callee = src.name(node.func)
        if callee == "torch.nn.functional.cross_entropy" or (isinstance(node.func, ast.Name) and node.func.id in losses):
            if _is_softmax(src, node.args[0]):
                yield node, "pass the logits"


SOFTMAX = {"torch.softmax", "torch.nn.functional.softmax", "torch.special.softmax"}


def _is_softmax(src: Source, node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        if src.name(node.func) in SOFTMAX:
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr == "softmax":
            return True
        if isinstance(node.func, ast.Call) and src.name(node.func.func) == "torch.nn.Softmax":
            return True
    return False


@rule("cross-entropy-log-of-softmax")
def _log_of_softmax(src: Source):
    """torch.log(softmax(x)): -inf where a probability underflows; log_softmax does not."""
    for node in src.nodes:
        if isinstance(node, ast.Call):
            if src.name(node.func) == "torch.log" and node.args and _is_softmax(src, node.args[0]):
                yield node, "use log_softmax"
            elif isinstance(node.func, ast.Attribute) and node.func.attr == "log" and _is_softmax(src, node.func.value):
                yield node, "use log_softmax"


@rule("optim-adam-weight-decay-is-l2")
def _adam_weight_decay(src: Source):
    """Adam(weight_decay=...) is an L2 penalty scaled by Adam, not decoupled decay (AdamW)."""
    for call in src.calls("torch.optim.Adam"):
        decay = keyword(call, "weight_decay")
        # A value named for L2 (args.l2, l2_reg) is an L2 penalty on purpose, as in the GCN paper.
        if decay is not None and constant(decay.value) not in (0, 0.0) and \
                "l2" not in (ast.get_source_segment(src.code, decay.value) or "").lower():
            yield call, "AdamW decouples the decay"


@rule("inference-volatile-ignored")
def _volatile(src: Source):
    """volatile=True has done nothing since torch 0.4."""
    for node in src.nodes:
        if isinstance(node, ast.Call) and keyword(node, "volatile") is not None:
            yield node, "use torch.no_grad() or torch.inference_mode()"


@rule("cudnn-benchmark-written-as-call")
def _benchmark_called(src: Source):
    for call in src.calls("torch.backends.cudnn.benchmark", "torch.backends.cudnn.deterministic"):
        yield call, "assign it: torch.backends.cudnn.benchmark = True"


CUDNN_FLAGS = {"benchmark", "deterministic", "enabled", "allow_tf32", "benchmark_limit"}


@rule("cudnn-benchmark-typo-silent")
def _cudnn_typo(src: Source):
    for node in src.nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                name = src.name(target) if isinstance(target, ast.Attribute) else None
                if name and name.startswith("torch.backends.cudnn.") and name.count(".") == 3 \
                        and name.split(".")[-1] not in CUDNN_FLAGS:
                    yield node, f"torch.backends.cudnn has no flag {name.split('.')[-1]!r}"


@rule("amp-deprecated-cuda-amp")
def _cuda_amp(src: Source):
    for call in src.calls("torch.cuda.amp.autocast", "torch.cuda.amp.GradScaler", "torch.cpu.amp.autocast"):
        device = src.name(call.func).split(".")[1]
        yield call, f"use torch.amp.{src.name(call.func).split('.')[-1]}({device!r}, ...)"


@rule("hooks-old-backward-hook")
def _old_backward_hook(src: Source):
    for node in src.nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "register_backward_hook":
            yield node, "use register_full_backward_hook"


# not yet a rule (no page block shows it as a reader writes it): gpu-memory-empty-cache-in-loop
def _empty_cache_in_loop(src: Source):
    for call in src.calls("torch.cuda.empty_cache"):
        if src.enclosing(call, (ast.For, ast.While, ast.AsyncFor)) is not None:
            yield call, "it frees nothing that is in use, and slows every step"


# not yet a rule (no page block shows it as a reader writes it): ddp-sampler-set-epoch-missing
def _sampler_without_set_epoch(src: Source):
    made = [n for n in src.nodes if isinstance(n, ast.Call)
            and src.name(n.func) == "torch.utils.data.distributed.DistributedSampler"
            or isinstance(n, ast.Call) and src.name(n.func) == "torch.utils.data.DistributedSampler"]
    sets = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "set_epoch"
               for n in src.nodes)
    if made and not sets:
        for call in made:
            if keyword(call, "shuffle") is None or constant(keyword(call, "shuffle").value) is not False:
                yield call, "call sampler.set_epoch(epoch) at the start of each epoch"


@rule("init-called-in-forward")
def _init_in_forward(src: Source):
    for node in src.nodes:
        if isinstance(node, ast.Call) and (src.name(node.func) or "").startswith("torch.nn.init."):
            method = src.enclosing(node, (ast.FunctionDef,))
            if method is not None and method.name == "forward":
                yield node, "initialise once, in __init__ or before training"


@rule("ddp-local-rank-argument-required")
def _local_rank_argument(src: Source):
    """A script that needs --local_rank on its command line: torchrun passes none."""
    reads_env = "LOCAL_RANK" in src.code
    for node in src.nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument" \
                and any(constant(a) in ("--local_rank", "--local-rank") for a in node.args):
            required = constant(keyword(node, "required").value) if keyword(node, "required") else False
            if required or (keyword(node, "default") is None and not reads_env):
                yield node, 'read os.environ["LOCAL_RANK"] (torchrun sets it)'


def _flag_set(src: Source, callee: str, name: str, value: bool, hint: str):
    """Calls of ``callee`` with the keyword ``name`` given the literal ``value``."""
    for call in src.calls(callee):
        flag = keyword(call, name)
        if flag is not None and constant(flag.value) is value:
            yield call, hint


@rule("checkpoint-weights-only-false-runs-code")
def _weights_only_false(src: Source):
    """torch.load(..., weights_only=False) unpickles: a file can run code."""
    yield from _flag_set(src, "torch.load", "weights_only", False,
                         "load trusted files only, or allow the classes with torch.serialization.add_safe_globals")


@rule("checkpoint-load-weights-only-implicit")
def _weights_only_implicit(src: Source):
    """torch.load(f) without weights_only: True from torch 2.6, False before (plain unpickling)."""
    for call in src.calls("torch.load"):
        if keyword(call, "weights_only") is None and not any(k.arg is None for k in call.keywords):
            yield call, "pass weights_only=True: before torch 2.6 the default is False"


@rule("cudnn-benchmark-int-not-bool")
def _cudnn_int(src: Source):
    for node in src.nodes:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and \
                type(node.value.value) is int:
            for target in node.targets:
                name = src.name(target) if isinstance(target, ast.Attribute) else None
                if name in {f"torch.backends.cudnn.{f}" for f in ("benchmark", "deterministic", "enabled")}:
                    yield node, f"assign {bool(node.value.value)}, a bool"


@rule("nan-anomaly-slow")
def _anomaly_left_on(src: Source):
    """set_detect_anomaly(True) for the whole run, not a `with` around the step under suspicion."""
    for call in src.calls("torch.autograd.set_detect_anomaly"):
        if call.args and constant(call.args[0]) is True and not isinstance(src.parents.get(call), ast.withitem):
            yield call, "use `with torch.autograd.detect_anomaly():` around one step, then remove it"


@rule("repro-warn-only-still-nondeterministic")
def _warn_only(src: Source):
    yield from _flag_set(src, "torch.use_deterministic_algorithms", "warn_only", True,
                         "warn_only=True only warns: the results can still differ between runs")


@rule("loop-tensor-class-uninitialized")
def _tensor_class_with_sizes(src: Source):
    """torch.Tensor(3, 4) allocates uninitialized memory; torch.tensor([...]) or torch.zeros(...) was meant."""
    for call in src.calls("torch.Tensor", "torch.FloatTensor", "torch.DoubleTensor", "torch.LongTensor",
                          "torch.IntTensor"):
        if call.args and all(isinstance(a, ast.Constant) and type(a.value) is int for a in call.args):
            yield call, "use torch.empty(...) if you mean it, torch.zeros(...) or torch.tensor([...])"


@rule("module-missing-super-init")
def _no_super_init(src: Source):
    for cls in src.nodes:
        if not (isinstance(cls, ast.ClassDef) and any((src.name(b) or "").endswith("Module") for b in cls.bases)):
            continue
        for method in cls.body:
            if isinstance(method, ast.FunctionDef) and method.name == "__init__" and not any(
                    isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "__init__"
                    for n in ast.walk(method)):
                yield method, "call super().__init__() first"


@rule("compile-orig-mod-prefix")
def _compiled_state_dict(src: Source):
    """state_dict() of the object torch.compile returns: every key starts with _orig_mod. The
    object is followed through aliases, conditional expressions and DDP's ``.module`` (nanoGPT:
    ``raw_model = model.module if ddp else model`` after ``model = torch.compile(model)``)."""
    for call, kinds in _state_dict_calls(src):
        if "compiled" in kinds:
            yield call, "save the original module's state_dict() (or compiled._orig_mod's)"


WRAPPERS = ("DistributedDataParallel", "DataParallel", "DDP")
Kinds = frozenset  # what a name may hold: "compiled" (torch.compile's result), "ddp:compiled"...


def _kinds_of(src: Source, node: ast.AST | None, state: dict[str, Kinds]) -> Kinds:
    """What an expression may evaluate to, as far as wrapping goes (empty: a plain module or
    anything else)."""
    if isinstance(node, ast.Name):
        return state.get(node.id, Kinds())
    if isinstance(node, ast.IfExp):
        body, orelse = _kinds_of(src, node.body, state), _kinds_of(src, node.orelse, state)
        # the unwrap idiom, `m.module if ddp else m`: the branch that keeps m runs when m is no wrapper
        for unwrap, keep, keep_kinds in ((node.body, node.orelse, orelse), (node.orelse, node.body, body)):
            if isinstance(unwrap, ast.Attribute) and unwrap.attr == "module" \
                    and ast.unparse(unwrap.value) == ast.unparse(keep):
                return _kinds_of(src, unwrap, state) | Kinds(k for k in keep_kinds if not k.startswith("ddp:"))
        return body | orelse
    if isinstance(node, ast.BoolOp):
        return Kinds().union(*(_kinds_of(src, v, state) for v in node.values))
    if isinstance(node, ast.NamedExpr):
        return _kinds_of(src, node.value, state)
    if isinstance(node, ast.Attribute):
        if node.attr == "module":  # DDP(x).module is x
            return Kinds(k.removeprefix("ddp:") for k in _kinds_of(src, node.value, state) if k.startswith("ddp:"))
        return Kinds()  # compiled._orig_mod, or any other attribute: not the wrapper
    if isinstance(node, ast.Call):
        callee = src.name(node.func) or ""
        first = node.args[0] if node.args else None
        if callee == "torch.compile":
            return Kinds({"compiled"})
        if callee.rsplit(".", 1)[-1] in WRAPPERS:
            inner = _kinds_of(src, first, state) or Kinds({"plain"})
            return Kinds("ddp:" + k for k in inner if not k.startswith("ddp:ddp:"))
        if callee == "getattr" and len(node.args) >= 2 and constant(node.args[1]) in ("module", "_orig_mod"):
            inner = _kinds_of(src, first, state)
            default = _kinds_of(src, node.args[2], state) if len(node.args) > 2 else Kinds()
            if constant(node.args[1]) == "_orig_mod":  # getattr(m, "_orig_mod", m): never the compiled one
                return (inner | default) - {"compiled"}
            return Kinds(k.removeprefix("ddp:") for k in inner if k.startswith("ddp:")) | default
    return Kinds()


def _own_nodes(stmt: ast.stmt) -> Iterator[ast.AST]:
    """A statement's expressions, not the statements nested in its bodies."""
    todo = [child for child in ast.iter_child_nodes(stmt) if not isinstance(child, ast.stmt)]
    while todo:
        node = todo.pop()
        yield node
        todo += [child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.stmt)]


def _merge(state: dict[str, Kinds], *branches: dict[str, Kinds]) -> None:
    for branch in branches:
        for name, kinds in branch.items():
            state[name] = state.get(name, Kinds()) | kinds


def _state_dict_calls(src: Source) -> list[tuple[ast.Call, Kinds]]:
    """Each ``X.state_dict()`` with what X may hold at that point, in source order: an assignment
    replaces a name's kinds, the branches of an ``if``/``try`` and a loop's passes are merged, a
    function's body starts from the names as they are where it is defined."""
    found: list[tuple[ast.Call, Kinds]] = []

    def body(stmts: list[ast.stmt], state: dict[str, Kinds]) -> None:
        for stmt in stmts:
            for node in _own_nodes(stmt):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr == "state_dict":
                    found.append((node, _kinds_of(src, node.func.value, state)))
            if isinstance(stmt, ast.Assign):
                kinds = _kinds_of(src, stmt.value, state)
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        state[target.id] = kinds
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = stmt.args  # a parameter is whatever the caller passes: not the outer name
                params = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x}
                body(stmt.body, {n: k for n, k in state.items() if n not in params})
            elif isinstance(stmt, ast.ClassDef):
                body(stmt.body, dict(state))
            elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                for _ in range(2):  # a second pass sees what the first assigned
                    again = dict(state)
                    if not isinstance(stmt, ast.While):  # the loop variable: not followed
                        again.update({n.id: Kinds() for n in ast.walk(stmt.target) if isinstance(n, ast.Name)})
                    body(stmt.body, again)
                    _merge(state, again)
                body(stmt.orelse, state)
            elif isinstance(stmt, (ast.If, ast.Try, ast.TryStar, ast.Match, ast.With, ast.AsyncWith)):
                branches = []
                parts = {ast.If: ("body", "orelse"), ast.Try: ("body", "orelse", "finalbody"),
                         ast.TryStar: ("body", "orelse", "finalbody"), ast.With: ("body",),
                         ast.AsyncWith: ("body",), ast.Match: ()}[type(stmt)]
                lists = [getattr(stmt, part) for part in parts]
                lists += [h.body for h in getattr(stmt, "handlers", [])] + [c.body for c in getattr(stmt, "cases", [])]
                bound = [i.optional_vars for i in getattr(stmt, "items", []) if i.optional_vars is not None]
                for stmts_ in lists:
                    branch = dict(state)
                    branch.update({n.id: Kinds() for v in bound for n in ast.walk(v) if isinstance(n, ast.Name)})
                    branch.update({h.name: Kinds() for h in getattr(stmt, "handlers", []) if h.name})
                    body(stmts_, branch)
                    branches.append(branch)
                if isinstance(stmt, (ast.With, ast.AsyncWith)):
                    state.update(branches[0])
                else:
                    _merge(state, *branches)

    body(src.tree.body, {})
    return found


@rule("checkpoint-ddp-module-prefix")
def _ddp_state_dict(src: Source):
    """torch.save(ddp_model.state_dict()): every key starts with module. The wrapper is followed
    in source order (:func:`_state_dict_calls`): a state_dict() taken before the model is wrapped
    is the plain one (MAE's fine-tuning scripts), a wrapper assigned deeper in the file still
    counts (DINO's)."""
    for call, kinds in _state_dict_calls(src):
        if any(k.startswith("ddp:") for k in kinds):
            yield call, "save model.module.state_dict()"


@rule("rnn-pack-batch-first")
def _pack_without_batch_first(src: Source):
    """The RNN takes batch-first data, the packing call is told time-first (its default)."""
    made = list(src.calls(*(f"torch.nn.{n}" for n in ("RNN", "LSTM", "GRU")), "torch.nn.utils.rnn.pad_sequence"))
    if not any(constant(getattr(keyword(c, "batch_first"), "value", None)) is True for c in made):
        return
    for call in src.calls("torch.nn.utils.rnn.pack_padded_sequence", "torch.nn.utils.rnn.pad_packed_sequence"):
        flag = keyword(call, "batch_first")
        if flag is None and len(call.args) < 3:
            yield call, "pass batch_first=True, as the RNN has"


@rule("amp-clip-before-unscale")
def _clip_before_unscale(src: Source):
    """With a GradScaler, clip_grad_norm_ before scaler.unscale_(optimizer) clips scaled gradients."""
    if not any(src.calls("torch.amp.GradScaler", "torch.cuda.amp.GradScaler")):
        return
    for body in _bodies(src.tree):
        scaled = unscaled = False  # in this body: scaler.scale(loss).backward(), scaler.unscale_(opt)
        for stmt in body:
            if isinstance(stmt, (ast.For, ast.While, ast.With, ast.If, ast.FunctionDef, ast.Try)):
                continue  # a nested block is a body of its own (an `else:` without AMP is not this one)
            for node in ast.walk(stmt):
                attr = node.func.attr if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else None
                if attr == "scale":
                    scaled = True
                elif attr == "unscale_":
                    unscaled = True
                elif isinstance(node, ast.Call) and src.name(node.func) in (
                        "torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_") and scaled and not unscaled:
                    yield node, "call scaler.unscale_(optimizer) first"


SCALERS = ("torch.amp.GradScaler", "torch.cuda.amp.GradScaler", "torch.cpu.amp.GradScaler")


def _mentions(node: ast.AST, names: set[str]) -> bool:
    return any(ast.unparse(n) in names for n in ast.walk(node) if isinstance(n, (ast.Name, ast.Attribute)))


@rule("amp-scaler-not-checkpointed")
def _scaler_not_checkpointed(src: Source):
    """A resume checkpoint (a dict holding the optimizer's state) of a file that makes a
    GradScaler, without the scaler's state: resuming starts the loss scale again (nanoGPT,
    yolov5). Quiet when the file saves the scaler's state_dict() anywhere, or adds the scaler to
    that dict later (``ckpt["scaler"] = ...``)."""
    scalers = {ast.unparse(t) for node in src.nodes if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
               and src.name(node.value.func) in SCALERS for t in node.targets}
    if not scalers:
        return
    def a_scaler(expr: ast.AST) -> bool:  # one made here, or one named so (made in an earlier block)
        return ast.unparse(expr) in scalers or "scaler" in ast.unparse(expr).lower()

    for node in src.nodes:  # the scaler's state stored anywhere in the file (not printed): not this mistake
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "state_dict" \
                and a_scaler(node.func.value):
            parent = src.parents.get(node)
            if isinstance(parent, ast.Dict) or isinstance(parent, ast.Call) and src.name(parent.func) == "torch.save" \
                    or isinstance(parent, ast.Assign) and any(isinstance(t, ast.Subscript) for t in parent.targets):
                return
    named = {ast.unparse(t): node.value for node in src.nodes if isinstance(node, ast.Assign)
             and isinstance(node.value, ast.Dict) for t in node.targets}
    optimizers = {n for n, kind in _constructed(src).items() if kind.startswith("torch.optim.")}
    added = {ast.unparse(t.value) for node in src.nodes if isinstance(node, ast.Assign)
             for t in node.targets if isinstance(t, ast.Subscript) and _mentions(node.value, scalers)}
    for node in src.nodes:
        if not isinstance(node, ast.Dict):
            continue
        keys = [constant(k) for k in node.keys if k is not None]
        optimizer = any(  # a value optimizer.state_dict(): a resume checkpoint, not a config or a log
            isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "state_dict"
            and (optimizers & {ast.unparse(v.func.value)} or "optim" in ast.unparse(v.func.value).lower()
                 or ast.unparse(v.func.value).rsplit(".", 1)[-1].lower() == "opt") for v in node.values)
        if not optimizer or _mentions(node, scalers) or any(isinstance(k, str) and "scaler" in k.lower() for k in keys):
            continue
        if any(value is node and name in added for name, value in named.items()):
            continue
        yield node, f"add {sorted(scalers)[0]}.state_dict() to the checkpoint and load it when resuming"


PURE_FUNCTIONS = {f"torch.nn.functional.{n}" for n in (
    "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "relu", "relu6",
    "elu", "selu", "celu", "leaky_relu", "hardtanh", "gelu", "silu", "mish", "softmax", "log_softmax",
    "normalize", "pad", "interpolate", "layer_norm", "group_norm", "one_hot")} | {f"torch.{n}" for n in (
    "clamp", "clip", "where", "cat", "stack", "sigmoid", "tanh", "relu", "softmax", "log_softmax", "masked_fill",
    "flatten", "reshape", "transpose", "permute", "squeeze", "unsqueeze", "nan_to_num", "abs", "exp", "log",
    "sqrt", "matmul", "clone", "detach")}
"""Functions that return a new tensor and change nothing else: a call of one as a statement of
its own throws its only effect away (``inplace=True``, where a function takes it, is the exception)."""
TENSOR_ONLY_METHODS = {"masked_fill", "masked_scatter", "index_fill", "index_add", "index_copy", "index_put",
                       "scatter_add", "scatter_reduce", "clamp", "clamp_min", "clamp_max", "unsqueeze",
                       "contiguous", "nan_to_num", "type_as", "view_as", "reshape_as", "expand_as",
                       "masked_select"}
"""Out-of-place methods no module, list or plotting object has (not ``scatter``: ``ax.scatter``)."""
CONVERSIONS = {"to", "float", "half", "double", "bfloat16", "long", "int", "bool", "cuda", "cpu"}
"""Out of place on a tensor, in place on an ``nn.Module``: flagged only on a name assigned a
tensor made by a torch factory (:data:`FACTORIES`)."""
FACTORIES = {f"torch.{n}" for n in ("tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "rand",
                                    "randn", "randint", "arange", "linspace", "zeros_like", "ones_like",
                                    "randn_like", "rand_like", "full_like", "empty_like", "eye")}


INPLACE_AT = {"relu": 1, "relu6": 1, "selu": 1, "silu": 1, "mish": 1, "elu": 2, "celu": 2, "leaky_relu": 2,
              "hardtanh": 3, "dropout": 3, "dropout1d": 3, "dropout2d": 3, "dropout3d": 3, "alpha_dropout": 3,
              "feature_alpha_dropout": 3}
"""Where ``inplace`` is passed by position (``F.relu(x, True)``), in torch.nn.functional."""


def _acts_in_place(src: Source, call: ast.Call) -> bool:
    """``out=``, or ``inplace`` true by keyword or by position: the call changes a tensor."""
    if keyword(call, "out") is not None:
        return True
    inplace = keyword(call, "inplace")
    if inplace is None:
        at = INPLACE_AT.get((src.name(call.func) or "").rsplit(".", 1)[-1]) \
            if (src.name(call.func) or "").startswith("torch.nn.functional.") else None
        inplace = call.args[at] if at is not None and len(call.args) > at else None
        return inplace is not None and constant(inplace) is not False
    return constant(inplace.value) is not False


def _bare_calls(src: Source) -> Iterator[ast.Call]:
    """Calls written as statements of their own whose value is lost: not a notebook cell's
    displayed last statement (:attr:`Source.shown`), not one that writes through ``out=`` or
    ``inplace``."""
    for node in src.nodes:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            if node in src.tree.body and getattr(node, "end_lineno", 0) in src.shown:
                continue
            if not _acts_in_place(src, node.value):
                yield node.value


@rule("inplace-result-discarded")
def _result_discarded(src: Source):
    """``x.masked_fill(mask, 0)`` or ``F.dropout(x, p)`` as a statement of its own: the new
    tensor is thrown away and ``x`` is unchanged (timm's xception: its ``drop_rate`` had no effect)."""
    for call in _bare_calls(src):
        name = src.name(call.func) or ""
        method = call.func.attr if isinstance(call.func, ast.Attribute) else None
        if name in PURE_FUNCTIONS or method in TENSOR_ONLY_METHODS and not name.startswith(("torch.", "numpy.")):
            yield call, "assign the result, or use the in-place form where there is one"


@rule("devices-to-not-assigned")
def _to_discarded(src: Source):
    """``x.to(torch.float16)``, ``x.cuda()``, ``x.double()`` as a statement of its own, on a name
    assigned a tensor made by a torch factory: on a tensor it is out of place (on a module, in place:
    that is why only a name known to hold a tensor is read)."""
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    kinds: dict[tuple[ast.AST | None, str], set[bool]] = {}  # (scope, name) -> made by a factory?
    for node in src.nodes:
        if isinstance(node, ast.Assign):
            factory = isinstance(node.value, ast.Call) and src.name(node.value.func) in FACTORIES
            for target in node.targets:
                for n in ast.walk(target):
                    if isinstance(n, ast.Name):
                        kinds.setdefault((src.enclosing(node, scopes), n.id), set()).add(factory and n is target)
    for call in _bare_calls(src):
        if isinstance(call.func, ast.Attribute) and call.func.attr in CONVERSIONS \
                and isinstance(call.func.value, ast.Name) \
                and kinds.get((src.enclosing(call, scopes), call.func.value.id)) == {True}:
            yield call, "assign the result: x = x.to(...)"


@rule("inference-no-grad-not-entered")
def _no_grad_statement(src: Source):
    """``torch.no_grad()`` on a line of its own: a context manager built and dropped, recording
    stays on (kuprel/min-dalle#24). Even a notebook's displayed last line: showing the object
    enters nothing. ``torch.set_grad_enabled(False)`` works as a call, and is not flagged."""
    for node in src.nodes:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            name = (src.name(node.value.func) or "").replace("torch.autograd.grad_mode.", "torch.")
            name = name.replace("torch.autograd.", "torch.")
            if name in ("torch.no_grad", "torch.enable_grad", "torch.inference_mode"):
                yield node.value, f"use it in a with statement: with {name}():"


@rule("ddp-launch-unrecognized-local-rank")
def _underscore_only(src: Source):
    """Only --local_rank: torch.distributed.launch passes --local-rank since torch 2.0."""
    for node in src.nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument":
            flags = {constant(a) for a in node.args}
            if "--local_rank" in flags and "--local-rank" not in flags:
                yield node, 'accept both: add_argument("--local-rank", "--local_rank", ...)'


@rule("dataloader-spawn-without-main-guard")
def _loader_without_guard(src: Source):
    """A DataLoader with workers iterated at a script's top level: with spawn (macOS, Windows)
    each worker re-imports the script and starts the loop again."""
    loaders = {n for n, kind in _constructed(src).items() if kind.endswith("DataLoader")}
    for stmt in src.tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef, ast.If, ast.Import, ast.ImportFrom)):
            continue
        for node in ast.walk(stmt):
            target = node.iter if isinstance(node, ast.For) else node.args[0] if (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "iter"
                and node.args) else None
            if isinstance(target, ast.Name) and target.id in loaders and _has_workers(src, target.id):
                yield node, 'put the code that runs under if __name__ == "__main__":'


def _has_workers(src: Source, name: str) -> bool:
    for node in src.nodes:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets) \
                and isinstance(node.value, ast.Call):
            workers = keyword(node.value, "num_workers")
            return workers is not None and constant(workers.value) != 0
    return False


# --- running it ---------------------------------------------------------------------------------

def lint_code(code: str, path: str = "<code>", select: set[str] | None = None,
              ignore: set[str] | None = None, context: str | Sequence[str] = "",
              cell_ends: Sequence[int] = ()) -> list[Finding]:
    """Every finding in one piece of code (raises SyntaxError if it does not parse); ``context``:
    code that ran before it in the same namespace (a page's earlier blocks), read for its imports."""
    src = Source(code, path, context, cell_ends)
    found = []
    for pid, check in RULES.items():
        if (select and pid not in select) or (ignore and pid in ignore):
            continue
        for node, detail in check(src):
            line = getattr(node, "lineno", 1)
            if _silenced(src.lines, line, pid):
                continue
            found.append(Finding(path, line, getattr(node, "col_offset", 0) + 1, pid, detail))
    return sorted(set(found))


def _silenced(lines: list[str], line: int, pid: str) -> bool:
    m = IGNORE.search(lines[line - 1]) if 0 < line <= len(lines) else None
    return m is not None and (m.group(1) is None or pid in {s.strip() for s in m.group(1).split(",")})


class Unreadable(Exception):
    """A file that cannot be checked; the message says why, for the one line that names it."""


def read_source(path: Path) -> str:
    """A Python file's text decoded as Python decodes it: the encoding its byte-order mark or
    its coding comment (PEP 263) declares, else UTF-8 (``tokenize.open``); the BOM is dropped."""
    with tokenize.open(path) as f:
        return f.read()


MAGIC_ASSIGN = re.compile(r"^(\s*)([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*[!%]")
HELP = re.compile(r"^(?:\?{1,2}[\w.]+|[\w.]+\?{1,2})$")
PYTHON_CELL_MAGICS = ("time", "timeit", "capture", "prun")  # their body is Python: checked
# (so is %%writefile NAME.py's, the way a notebook holds a DDP script, and %%script python's)
LINE_BREAK = re.compile(r"\r\n|\r|\n")


def python_lines(code: str) -> list[str]:
    """The lines as Python numbers them: split at \\n, \\r\\n and \\r only (``str.splitlines``
    also splits at a form feed or U+2028, which Python does not count: a finding or an ignore
    comment would be read off the wrong line)."""
    lines = LINE_BREAK.split(code)
    return lines[:-1] if lines and lines[-1] == "" else lines


def _starts_a_statement(before: list[str]) -> bool:
    """Whether the line after ``before`` begins a logical line (not inside brackets, a string or
    a backslash continuation): a ``%`` there is a magic, inside brackets it is an operator."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO("\n".join(before) + "\n").readline):
            pass
    except tokenize.TokenError:  # EOF in a multi-line statement or string
        return False
    except (SyntaxError, ValueError):  # e.g. a dedent that matches nothing: not ours to judge
        return True
    return True


def without_magics(source: str) -> list[str]:
    """A code cell's lines with IPython's syntax made Python, one line for one line (findings keep
    their line numbers). A cell that parses as Python is left as it is. A cell magic whose body is
    Python (``%%time``, ``%%timeit``, ``%%capture``, ``%%prun``) has its first line blanked and its
    body checked; any other (``%%bash``, ``%%html``) blanks the cell, which is not Python. At the
    start of a logical line (not inside brackets or a string: ``(a\\n % b)`` is Python), a line
    magic, a shell line (``!pip``) or a help line (``x?``) becomes ``pass`` at its own indentation
    (blank, an ``elif`` holding only magics would have no body: yolov5's notebooks); ``x = !cmd``
    and ``x = %magic`` become ``x = None``; a magic's backslash continuations go with it."""
    lines = python_lines(source)
    first = source.lstrip()
    if first.startswith("%%"):
        words = first[2:].split("\n", 1)[0].split()
        name = words[0] if words else ""
        at = next(i for i, line in enumerate(lines) if line.strip())
        python = name in PYTHON_CELL_MAGICS or name in ("writefile", "file") and words[-1].endswith(".py") \
            or name == "script" and words[-1:] in (["python"], ["python3"])
        if not python:
            return ["" for _ in lines]
        return without_magics("\n".join(["" for _ in lines[:at + 1]] + lines[at + 1:]) + "\n")
    try:
        ast.parse(source)
        return lines
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    out: list[str] = []
    continued = False
    for line in lines:
        stripped = line.strip()
        indent = line[:len(line) - len(line.lstrip())]
        assign = MAGIC_ASSIGN.match(line)
        magic = stripped.startswith(("%", "!")) or HELP.match(stripped) or assign
        if continued:
            out.append("")
        elif magic and _starts_a_statement(out):
            out.append(f"{assign.group(1)}{assign.group(2)} = None" if assign else indent + "pass")
        else:
            out.append(line)
            continue
        continued = stripped.endswith("\\")
    return out


NOT_PYTHON = "not Python"  # the reason of a notebook in another language: skipped, not unchecked


def notebook(path: Path) -> tuple[str, list[tuple[int, int]]]:
    """A notebook's code cells as one file, cell lines kept in place (:func:`without_magics`), and
    for each of its lines the cell (counted from 1, every cell) and the line in it;
    :class:`Unreadable` for JSON that is not an nbformat 4 notebook or a notebook not in Python."""
    try:
        nb = json.loads(path.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise Unreadable(f"not a notebook: its JSON does not parse ({e})") from None
    if not isinstance(nb, dict):
        raise Unreadable(f"not a notebook: its JSON is a {type(nb).__name__}, not an object")
    if nb.get("nbformat") != 4:
        raise Unreadable(f"nbformat {nb.get('nbformat', '(none)')!r}: only nbformat 4 notebooks are read "
                         "(jupyter nbconvert --to notebook --nbformat 4 converts one)")
    if not isinstance(nb.get("cells"), list):
        raise Unreadable("not a notebook: nbformat 4 but no list of cells")
    meta = nb.get("metadata") if isinstance(nb.get("metadata"), dict) else {}
    info = meta.get("language_info") if isinstance(meta.get("language_info"), dict) else {}
    kernel = meta.get("kernelspec") if isinstance(meta.get("kernelspec"), dict) else {}
    language = info.get("name") or kernel.get("language")
    if isinstance(language, str) and language.lower() != "python":
        raise Unreadable(f"{NOT_PYTHON}: the notebook's language is {language}")
    lines: list[str] = []
    where: list[tuple[int, int]] = []
    for number, cell in enumerate(nb["cells"], 1):
        if not isinstance(cell, dict):
            raise Unreadable(f"cell {number} is a {type(cell).__name__}, not an object")
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(part, str) for part in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise Unreadable(f"cell {number}: its source is neither text nor a list of lines")
        cell_lines = without_magics(source)
        lines += cell_lines
        where += [(number, k) for k in range(1, len(cell_lines) + 1)]
    return "\n".join(lines) + "\n", where


def _displayed(code: str, where: list[tuple[int, int]]) -> list[int]:
    """The line where each cell's last statement ends, when Jupyter displays its value: a bare
    expression not ended by ``;``."""
    lines = python_lines(code)
    cells: dict[int, list[int]] = {}
    for i, (cell, _) in enumerate(where, 1):
        cells.setdefault(cell, []).append(i)
    shown = []
    for numbers in cells.values():
        try:
            tree = ast.parse("\n".join(lines[i - 1] for i in numbers) + "\n")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            end = numbers[0] + tree.body[-1].end_lineno - 1
            if not lines[end - 1].split("#", 1)[0].rstrip().endswith(";"):
                shown.append(end)
    return shown


def _last_statement_end(code: str) -> list[int]:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    return [tree.body[-1].end_lineno] if tree.body else []


def notebook_code(path: Path) -> str:
    """A notebook's code cells as one file (:func:`notebook`)."""
    return notebook(path)[0]


def check_file(path: Path, select: set[str] | None = None,
               ignore: set[str] | None = None) -> tuple[list[Finding], str | None]:
    """One file's findings, or why it cannot be checked; never raises (but for an interrupt)."""
    try:
        if path.suffix == ".ipynb":
            code, where = notebook(path)
            found = lint_code(code, str(path), select, ignore, cell_ends=_displayed(code, where))
            return [replace(f, where="cell {}, line {}".format(*where[f.line - 1])) if f.line <= len(where) else f
                    for f in found], None
        return lint_code(read_source(path), str(path), select, ignore), None
    except Unreadable as e:
        return [], str(e)
    except RecursionError as e:  # a 200,000-term expression: CPython cannot compile it either
        return [], f"too deeply nested to parse (RecursionError: {e})"
    except (OSError, SyntaxError, ValueError, MemoryError) as e:  # UnicodeDecodeError is a ValueError
        return [], f"{type(e).__name__}: {e}"
    except Exception as e:  # a rule that fails on code it did not expect: a bug of the checker
        return [], f"the checker failed on it ({type(e).__name__}: {e}); please report this file"


SKIPPED_FOLDERS = {"venv", "site-packages", "node_modules", "__pycache__", "__pypackages__", "build", "dist",
                   "_build"}  # as black's and ruff's defaults: installed, built or copied code
LINKED_FOLDER = "a link to a folder, not followed (name it on the command line to check it)"


def files(paths: list[Path]) -> Iterator[tuple[Path, str | None]]:
    """Each file to check, with None, or a folder that could not be listed, with the reason.
    A folder named on the command line is walked without its hidden folders (``.git``, ``.venv``,
    ``.ipynb_checkpoints``: a checkpoint would repeat its notebook's findings) and without
    installed packages (:data:`SKIPPED_FOLDERS`); a file named on the command line is always read."""
    for path in paths:
        if not path.is_dir():
            yield path, None
            continue
        errors: list[OSError] = []
        found: list[Path] = []
        linked: list[Path] = []
        for folder, dirs, names in os.walk(path, onerror=errors.append):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_FOLDERS)
            linked.extend(Path(folder) / d for d in dirs if (Path(folder) / d).is_symlink())
            for name in names:
                p = Path(folder) / name
                # a dangling link is named (it cannot be opened)
                if p.suffix in (".py", ".ipynb") and (p.is_file() or p.is_symlink() and not p.exists()):
                    found.append(p)
        yield from ((p, None) for p in sorted(found))
        yield from ((p, LINKED_FOLDER) for p in sorted(linked))
        for e in errors:
            yield Path(e.filename or path), f"the folder cannot be listed ({type(e).__name__}: {e.strerror})"


@dataclass(frozen=True)
class Entry:
    symptom: str
    url: str


def catalogue(lang: str, site_url: str | None = None) -> dict[str, Entry]:
    """Each pitfall's symptom and URL, from the pages' front matter (this checkout's docs)."""
    from fieldnotes.blocks import find_root
    from fieldnotes.pitfalls import _url_of, load

    root = find_root(Path(__file__).resolve().parent)
    docs = root / "docs" / lang
    base = (site_url or f"http://127.0.0.1:8000/{lang}/").rstrip("/") + "/"
    found = {}
    for page in sorted(docs.rglob("*.md")):
        for p in load(page, docs):
            found[p.id] = Entry(p.symptom.strip(), f"{base}{_url_of(p.page)}#{p.id}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fieldnotes-lint", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--lang", default="en", choices=["en", "zh"])
    parser.add_argument("--select", type=lambda s: {x.strip() for x in s.split(",") if x.strip()})
    parser.add_argument("--ignore", type=lambda s: {x.strip() for x in s.split(",") if x.strip()})
    parser.add_argument("--site-url", help="the site's root in that language (default: the local preview)")
    args = parser.parse_args(argv)
    unknown = (args.select or set()) | (args.ignore or set())
    if unknown - set(RULES):
        parser.error(f"no rule {', '.join(sorted(unknown - set(RULES)))}; rules: {', '.join(sorted(RULES))}")
    try:
        entries = catalogue(args.lang, args.site_url)
    except (FileNotFoundError, ImportError) as e:  # installed without the site's pages (pre-commit)
        entries = {}
        print(f"fieldnotes-lint: no pitfall catalogue here ({e}): findings without symptoms and links; "
              "run from a checkout of the site for them", file=sys.stderr)
    status = 0
    for path, unlisted in files(args.paths):
        found, reason = check_file(path, args.select, args.ignore) if unlisted is None else ([], unlisted)
        if reason is not None and reason.startswith((NOT_PYTHON, LINKED_FOLDER)):
            print(f"{path}: skipped: {reason}", file=sys.stderr)
            continue
        if reason is not None:
            print(f"{path}: cannot be checked: {reason}", file=sys.stderr)
            status = UNCHECKED
            continue
        for f in found:
            entry = entries.get(f.rule)
            parts = [f"{f.path}:{f.line}:{f.col}", f"({f.where})" if f.where else "", f.rule, _plain(entry.symptom) if entry else "",
                     f"({hint(f.detail, args.lang)})" if f.detail else "", entry.url if entry else ""]
            print(" ".join(part for part in parts if part))
        status = max(status, FOUND if found else 0)
    return status


def _plain(markdown: str) -> str:
    return re.sub(r"`([^`]*)`", r"\1", markdown)


HINTS_ZH: dict[str, str] = {
    "pass training=self.training": "传入 training=self.training",
    "use nn.ModuleList": "改用 nn.ModuleList",
    "register_buffer() it, or wrap it in nn.Parameter": "用 register_buffer() 注册为缓冲区，或包成 nn.Parameter",
    "pass the logits": "传入 logits",
    "use log_softmax": "改用 log_softmax",
    "AdamW decouples the decay": "AdamW 的权重衰减与梯度解耦",
    "use torch.no_grad() or torch.inference_mode()": "改用 torch.no_grad() 或 torch.inference_mode()",
    "assign it: torch.backends.cudnn.benchmark = True": "应赋值：torch.backends.cudnn.benchmark = True",
    "use register_full_backward_hook": "改用 register_full_backward_hook",
    "it frees nothing that is in use, and slows every step": "它释放不了仍在使用的显存，还会拖慢每一步",
    "call sampler.set_epoch(epoch) at the start of each epoch": "每个 epoch 开始时调用 sampler.set_epoch(epoch)",
    "initialise once, in __init__ or before training": "只初始化一次：放在 __init__ 里或训练开始之前",
    "pass weights_only=True: before torch 2.6 the default is False":
        "传入 weights_only=True：torch 2.6 之前它的默认值是 False",
    "load trusted files only, or allow the classes with torch.serialization.add_safe_globals":
        "只加载可信的文件，或用 torch.serialization.add_safe_globals 放行所需的类",
    "use `with torch.autograd.detect_anomaly():` around one step, then remove it":
        "只用 `with torch.autograd.detect_anomaly():` 包住出问题的那一步，查完就删掉",
    "warn_only=True only warns: the results can still differ between runs": "warn_only=True 只发警告：结果仍可能每次运行都不同",
    "use torch.empty(...) if you mean it, torch.zeros(...) or torch.tensor([...])":
        "确实需要未初始化的内存就写 torch.empty(...)，否则用 torch.zeros(...) 或 torch.tensor([...])",
    "call super().__init__() first": "先调用 super().__init__()",
    "save the original module's state_dict() (or compiled._orig_mod's)": "保存原模块的 state_dict()（或 compiled._orig_mod 的）",
    "save model.module.state_dict()": "保存 model.module.state_dict()",
    "pass batch_first=True, as the RNN has": "与 RNN 一样传入 batch_first=True",
    "call scaler.unscale_(optimizer) first": "先调用 scaler.unscale_(optimizer)",
    "assign the result, or use the in-place form where there is one": "把结果赋给变量，或改用原地版本（如果有的话）",
    "assign the result: x = x.to(...)": "把结果赋回去：x = x.to(...)",

    'accept both: add_argument("--local-rank", "--local_rank", ...)': '两种写法都接受：add_argument("--local-rank", "--local_rank", ...)',
    'read os.environ["LOCAL_RANK"] (torchrun sets it)': '读取 os.environ["LOCAL_RANK"]（torchrun 会设置它）',
    'put the code that runs under if __name__ == "__main__":': '把要执行的代码放进 if __name__ == "__main__": 之下',
}
"""The hints in Chinese; the ones with a value in them are :data:`HINT_PATTERNS_ZH`."""
HINT_PATTERNS_ZH: list[tuple[str, str]] = [
    (r"(\w+)\.step\(\) comes after it", r"\1.step() 在它之后才调用"),
    (r"torch\.backends\.cudnn has no flag '(\w+)'", r"torch.backends.cudnn 没有名为 '\1' 的标志"),
    (r"assign (True|False), a bool", r"应赋值为布尔值 \1"),
    (r"use torch\.amp\.(\w+)\('(\w+)', \.\.\.\)", r"改用 torch.amp.\1('\2', ...)"),
    (r"use it in a with statement: with ([\w.]+)\(\):", r"放进 with 语句：with \1():"),
    (r"add ([\w.]+)\.state_dict\(\) to the checkpoint and load it when resuming",
     r"把 \1.state_dict() 存进检查点，恢复训练时再加载它"),
]


def hint(detail: str, lang: str) -> str:
    """A rule's hint in ``lang`` (English if it has no translation)."""
    if lang != "zh" or not detail:
        return detail
    if detail in HINTS_ZH:
        return HINTS_ZH[detail]
    for pattern, replacement in HINT_PATTERNS_ZH:
        if re.fullmatch(pattern, detail):
            return re.sub(pattern, replacement, detail)
    return detail


# --- the site's own code (docs/site.py check, tests/test_lint.py) --------------------------------

def page_problems(page: Path, root: Path) -> list[str]:
    """What the checker says of one page's own code: a finding in a block not marked
    ``lint(mistake=ID)`` for it (a reader who copies that block would copy the pitfall: fix it,
    mark it if it shows the mistake on purpose, or silence the line with a comment that says why),
    a block marked as a rule's mistake that the rule misses, a fix block it flags, a marker that
    names no rule. Each problem names the page's line (or the included file's)."""
    from fieldnotes.blocks import read_blocks

    problems, before = [], []
    for block in read_blocks(page, root=root):
        for pid in block.lint_mistake + block.lint_fix:
            if pid not in RULES:
                problems.append(f"{block.where}: lint marker names {pid!r}, which is no rule")
        if block.syntax != "python":
            continue
        context, before = before, before + ([block.code] if not block.file else [])
        # a notebook page's cell displays its last value; a block marked to raise never returns one
        kept = _last_statement_end(block.code) if block.raises else \
            _displayed(block.code, [(1, i) for i in range(1, len(python_lines(block.code)) + 1)]) \
            if page.suffix == ".ipynb" else []
        try:
            findings = lint_code(block.code, block.where, context=context, cell_ends=kept)
        except SyntaxError as e:
            if block.lint_mistake or block.lint_fix:
                problems.append(f"{block.where}: a block with a lint marker does not parse: {e.msg}")
            continue
        found = {f.rule for f in findings}
        for f in findings:
            if f.rule not in block.lint_mistake:
                problems.append(f"{block.origin(f.line)}: {f.rule} ({f.detail}): fix it, mark the block "
                                f'<!--pytest.mark.lint(mistake="{f.rule}")--> if it shows the mistake on '
                                f"purpose, or end the line with # fieldnotes: ignore[{f.rule}] and say why")
        for pid in set(block.lint_mistake) - found:
            if pid in RULES:
                problems.append(f"{block.where}: {pid} does not fire on the mistake this block is marked for")
        for pid in set(block.lint_fix) & found:
            problems.append(f"{block.where}: {pid} fires on the fix this block is marked for")
    return problems


def snippet_problems(root: Path, pages: list[Path]) -> list[str]:
    """Findings in ``snippets/*.py`` (run by bash blocks, so not always shown in a page): each
    must be a mistake that a page block including the file is marked for."""
    from fieldnotes.blocks import read_blocks

    shown: dict[str, set[str]] = {}
    for page in pages:
        for block in read_blocks(page, root=root):
            if block.file:
                shown.setdefault(block.file, set()).update(block.lint_mistake)
    problems = []
    for snippet in sorted((root / "snippets").rglob("*.py")):
        name = snippet.relative_to(root).as_posix()
        for f in lint_code(snippet.read_text(encoding="utf-8"), name):
            if f.rule not in shown.get(name, set()):
                problems.append(f"{name}:{f.line}: {f.rule} ({f.detail}), and no page block that shows the "
                                "file is marked lint(mistake=...) for it")
    return problems


# --- the site's page of rules (docs/hooks/lint.py) -----------------------------------------------

RULES_MARKER = "<!-- lint-rules -->"
PAGE = "reference/lint.md"
"""The page that explains the checker; each pitfall with a rule links to it."""


def rules_table(docs: Path, page: str, lang: str) -> str:
    """Every rule as a table row: its id, linked to the pitfall's section, the symptom, and the
    torch versions on which the pitfall's code showed it (this build's and the version matrix's,
    as the pitfall's own section says)."""
    import posixpath

    from fieldnotes.blocks import find_root
    from fieldnotes.languages import text
    from fieldnotes.pitfalls import gpu_runs, load, where_shown

    t = text(lang)
    root = find_root(docs)
    rows = [f"| {t['lint_rule']} | {t['lint_symptom']} | {t['lint_versions']} |", "|---|---|---|"]
    found = {p.id: (p, path) for path in sorted(docs.rglob("*.md")) for p in load(path, docs)}
    shown: dict[Path, dict] = {}
    for pid in sorted(RULES):
        p, path = found[pid]
        link = posixpath.relpath(p.page, posixpath.dirname(page) or ".")
        if p.gpu and not gpu_runs():
            versions = t["not_run"]
        else:
            if path not in shown:  # once per page, not per rule
                shown[path] = where_shown(path, docs, root)
            held, failed = shown[path][pid]
            versions = t["and"].join(held) + (t["lint_not_held"].format(versions=t["and"].join(failed))
                                              if failed else "")
        rows.append(f"| [`{pid}`]({link}#{pid}) | {' '.join(p.symptom.split()).replace('|', '&#124;')} | {versions} |")
    return "\n".join(rows)


def on_page_markdown(markdown, page, config, files):
    if RULES_MARKER not in markdown:
        return markdown
    return markdown.replace(RULES_MARKER, rules_table(Path(config.docs_dir), page.file.src_uri,
                                                      config.theme["language"]))


if __name__ == "__main__":
    sys.exit(main())

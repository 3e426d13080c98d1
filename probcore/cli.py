"""The ``probcore`` command (also ``python -m probcore``): check a file of outputs, or write the reference.

    probcore check LOGITS PROBS --mapping NAME [--param name=value ...] [--atol A] [--rtol R] [--json]
    probcore reference LOGITS --mapping NAME [--param name=value ...] [-o OUT.npy|OUT.csv]

LOGITS / PROBS: a ``.npy`` file (numeric, no pickle), a ``.csv`` file (comma separated, optional
header line) or ``-`` for CSV text on stdin; one row per line, any number of rows (limits of
:func:`probcore.check.load_rows`). ``check`` prints one verdict per row, with the likely cause of a
failing row (the diagnosis of :func:`probcore.check.check_outputs`, as on the Check page), then a
summary line. Parameters are typed by the registry (float, int, choice, bool) and validated by it;
nothing is evaluated. ``target=`` (am_softmax) is one class index or one per row, comma separated.

Exit status: 0 every row matches (or the reference was written), 1 some rows do not match,
2 bad usage or unreadable input (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
from typing import Any, BinaryIO, TextIO
import json
import math
import os
import sys

import numpy as np

from probcore import __version__
from probcore.check import (
    DTYPES,
    MAX_FILE_BYTES,
    RowVerdict,
    check_outputs,
    load_rows,
    reference_rows,
    rows_bytes,
    summary,
)
from probcore.registry import Mapping, Param, get_mapping

EXIT_MATCH, EXIT_MISMATCH, EXIT_USAGE = 0, 1, 2
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


class UsageError(ValueError):
    """Bad arguments or unreadable input: exit 2 with the message."""


# ---------------------------------------------------------------- parameters


def _float(param: Param, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"{param.name} must be a number, got {text!r}") from None


def _int(param: Param, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"{param.name} must be an integer, got {text!r}") from None


def _choice(param: Param, text: str) -> str:
    if text not in param.choices:
        raise UsageError(f"{param.name} must be one of {', '.join(param.choices)}, got {text!r}")
    return text


def _bool(param: Param, text: str) -> bool:
    if text.lower() in _TRUE:
        return True
    if text.lower() in _FALSE:
        return False
    raise UsageError(f"{param.name} must be true or false, got {text!r}")


_PARSERS = {"float": _float, "int": _int, "choice": _choice, "bool": _bool}


def _target(text: str) -> np.ndarray:
    """One class index or one per row, comma separated (the registry's am_softmax check bounds them)."""
    try:
        return np.array([int(t) for t in text.split(",")], dtype=np.int64)
    except ValueError:
        raise UsageError(
            f"target must be a class index or comma-separated indices (one per row), got {text!r}"
        ) from None


def parse_params(mapping: Mapping, items: list[str]) -> dict:
    """``name=value`` strings -> keyword arguments typed by the registry's Param.kind. The values'
    ranges are checked later by the registry (Mapping.validate), which knows n."""
    known = {p.name: p for p in mapping.params}
    params: dict = {}
    for item in items:
        name, sep, text = item.partition("=")
        name, text = name.strip(), text.strip()
        if not sep or not name or not text:
            raise UsageError(f"--param must look like name=value, got {item!r}")
        if name in params:
            raise UsageError(f"--param {name} is given twice")
        if name == "target" and mapping.needs_target:
            params[name] = _target(text)
        elif name in known:
            params[name] = _PARSERS[known[name].kind](known[name], text)
        else:
            valid = [*known, *(["target"] if mapping.needs_target else [])]
            raise UsageError(f"unknown parameter {name!r} for {mapping.name}; valid: {', '.join(valid) or 'none'}")
    return params


# ---------------------------------------------------------------- files


def read_rows(path: str, what: str, stdin: BinaryIO | None = None) -> np.ndarray:
    """(rows, n) float64 from a .npy / .csv file, or CSV text on stdin for ``-`` (nan / inf kept:
    check_outputs refuses them in logits and reports them in outputs)."""
    if path == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        data = stream.read(MAX_FILE_BYTES + 1)
        return load_rows(data, "stdin.csv", allow_nonfinite=True, name=f"{what} (stdin)")
    try:
        size = os.stat(path).st_size
        if size > MAX_FILE_BYTES:
            raise UsageError(
                f"{what} {path!r} must be at most {MAX_FILE_BYTES // 2**20} MiB, got {size / 2**20:.1f} MiB"
            )
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as err:
        raise UsageError(f"cannot read {what} {path!r}: {err.strerror or err}") from None
    return load_rows(data, path, allow_nonfinite=True, name=f"{what} {path!r}")


# ---------------------------------------------------------------- commands


def _finite_or_none(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _plain(value: Any) -> Any:
    """JSON-safe copy of a verdict's numbers (numpy scalars -> Python, nan / inf -> None)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return _finite_or_none(float(value))
    return value


def _report_json(
    args: argparse.Namespace, params: dict[str, Any], verdicts: list[RowVerdict], counts: dict[str, Any]
) -> str:
    return json.dumps(
        {
            "mapping": args.mapping,
            "params": _plain({k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in params.items()}),
            "atol": args.atol,
            "rtol": args.rtol,
            "ok": counts["failed"] == 0,
            "rows": counts["rows"],
            "passed": counts["passed"],
            "failed": counts["failed"],
            "max_abs_error": _finite_or_none(counts["max_abs_error"]),
            "causes": counts["causes"],
            "summary": counts["text"],
            "verdicts": [
                {
                    "row": v.row,
                    "ok": v.ok,
                    "max_abs_error": _finite_or_none(v.max_abs_error),
                    "differing": list(v.differing),
                    "cause": v.cause,
                    "likely_cause": v.likely_cause,
                    "fitted": _plain(v.fitted),
                }
                for v in verdicts
            ],
        },
        indent=2,
    )


def _report_text(verdicts: list[RowVerdict], counts: dict[str, Any]) -> str:
    lines = []
    for v in verdicts:
        if v.ok:
            lines.append(f"row {v.row}: ok (max abs error {v.max_abs_error:.3g})")
        else:
            n = len(v.reference)
            cause = v.likely_cause or "no known cause found"
            lines.append(
                f"row {v.row}: MISMATCH at {len(v.differing)} of {n} entries "
                f"(max abs error {v.max_abs_error:.3g}); likely cause: {cause}"
            )
    lines.append(counts["text"])
    return "\n".join(lines)


def _check(args: argparse.Namespace, stdout: TextIO) -> int:
    mapping = get_mapping(args.mapping)
    params = parse_params(mapping, args.param)
    if args.logits == "-" and args.probs == "-":
        raise UsageError("only one of LOGITS and PROBS can be read from stdin ('-')")
    x = read_rows(args.logits, "logits", args.stdin)
    p = read_rows(args.probs, "probs", args.stdin)
    if x.shape != p.shape:
        raise UsageError(
            f"probs must have the shape of logits: logits are {x.shape[0]} rows x {x.shape[1]}, "
            f"probs {p.shape[0]} rows x {p.shape[1]}"
        )
    verdicts = check_outputs(x, p, mapping.name, atol=args.atol, rtol=args.rtol, dtype=args.dtype, **params)
    counts = summary(verdicts)
    stdout.write((_report_json(args, params, verdicts, counts) if args.json else _report_text(verdicts, counts)) + "\n")
    return EXIT_MATCH if counts["failed"] == 0 else EXIT_MISMATCH


def _reference(args: argparse.Namespace, stdout: TextIO) -> int:
    mapping = get_mapping(args.mapping)
    params = parse_params(mapping, args.param)
    suffix = "csv"
    if args.output is not None:
        suffix = args.output.lower().rsplit(".", 1)[-1]
        if suffix not in ("csv", "npy"):
            raise UsageError(f"-o must name a .npy or .csv file, got {args.output!r}")
    ref = reference_rows(read_rows(args.logits, "logits", args.stdin), mapping.name, **params)
    data = rows_bytes(ref, suffix)
    if args.output is None:
        stdout.write(data.decode())
        return EXIT_MATCH
    try:
        with open(args.output, "wb") as f:
            f.write(data)
    except OSError as err:
        raise UsageError(f"cannot write {args.output!r}: {err.strerror or err}") from None
    return EXIT_MATCH


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="probcore",
        description="Check probabilities against probcore's exact reference, or write the reference.",
        epilog="Exit status: 0 all rows match, 1 some rows do not, 2 bad usage or unreadable input.",
    )
    parser.add_argument("--version", action="version", version=f"probcore {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{check,reference}")
    files = "a .npy or .csv file (one row per line), or - for CSV text on stdin"
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--mapping", "-m", required=True, help="a mapping in probcore.MAPPINGS, e.g. softmax, sparsemax"
    )
    common.add_argument(
        "--param",
        "-p",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter of the mapping, e.g. temperature=2 (repeat for several)",
    )

    check = commands.add_parser(
        "check",
        parents=[common],
        help="compare PROBS with the mapping of LOGITS, row by row",
        description="Per-row verdict and likely cause; exit 0 all match, 1 some do not, 2 bad input.",
    )
    check.add_argument("logits", metavar="LOGITS", help=files)
    check.add_argument("probs", metavar="PROBS", help=f"your probabilities, the shape of LOGITS: {files}")
    check.add_argument("--atol", type=float, default=1e-6, help="absolute tolerance (default 1e-6)")
    check.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance (default 1e-5)")
    check.add_argument(
        "--dtype",
        choices=DTYPES,
        default=None,
        help="the type PROBS were computed in, if known: overflows are diagnosed at its limits",
    )
    check.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    check.set_defaults(run=_check)

    ref = commands.add_parser(
        "reference",
        parents=[common],
        help="write the mapping of LOGITS (float64)",
        description="Write the reference output (float64, row by row).",
    )
    ref.add_argument("logits", metavar="LOGITS", help=files)
    ref.add_argument("-o", "--output", metavar="OUT", help="a .npy or .csv file (default: CSV on stdout)")
    ref.set_defaults(run=_reference)
    return parser


def main(
    argv: list[str] | None = None,
    *,
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the command; returns the exit status (argparse's own errors included). stdin (a binary
    stream), stdout and stderr (text) default to the process's."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:  # argparse: --help / --version (0) or a usage error (2), already printed
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    args.stdin = stdin
    try:
        return args.run(args, stdout)
    except ValueError as err:  # UsageError, and the registry's / loaders' messages
        stderr.write(f"probcore {args.command}: error: {err}\n")
        return EXIT_USAGE

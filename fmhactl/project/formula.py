"""Integer formulas of a project file (launch grid, block, dynamic SMEM, params fields).

A formula is a Python expression over named integers: numbers, + - * // / % (division rounds
down), parentheses, comparisons, `a if cond else b`, and the functions ceil_div, min, max. It is
parsed once at load (an unknown name or construct is bad input naming the field) and evaluated
with no access to anything else (no attributes, no calls but the three functions).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Mapping

FUNCTIONS = {"ceil_div": lambda a, b: -(-a // b), "min": min, "max": max}
# How many arguments each function takes (min, max: two or more; one would be iterated).
ARITY = {"ceil_div": (2, 2), "min": (2, 64), "max": (2, 64)}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.FloorDiv: operator.floordiv, ast.Div: operator.floordiv, ast.Mod: operator.mod}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}
_BOOL = {ast.And: all, ast.Or: any}
MAX_LENGTH = 400


class FormulaError(ValueError):
    """A formula that cannot be parsed or names something unknown; the message says which."""


def parse(text: str | int | float, names: frozenset[str] | set[str]) -> ast.Expression:
    """The checked expression tree, or FormulaError saying what is wrong with text."""
    if isinstance(text, bool):
        raise FormulaError(f"{text!r} is not a formula")
    if isinstance(text, (int, float)):
        text = repr(text)
    if not text.strip() or len(text) > MAX_LENGTH:
        raise FormulaError(f"a formula has 1..{MAX_LENGTH} characters, got {len(text)}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"{text!r} is not a formula ({exc.msg})") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id not in names and node.id not in FUNCTIONS:
                raise FormulaError(f"{text!r}: unknown name {node.id!r} (known: {', '.join(sorted(names))})")
        elif isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
                raise FormulaError(f"{text!r}: only {', '.join(FUNCTIONS)} may be called")
            low, high = ARITY[node.func.id]
            if not low <= len(node.args) <= high:
                count = f"{low}" if low == high else f"{low} to {high}"
                raise FormulaError(f"{text!r}: {node.func.id} takes {count} arguments, got {len(node.args)}")
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise FormulaError(f"{text!r}: only numbers are allowed as constants")
            if not math.isfinite(node.value):
                raise FormulaError(f"{text!r}: {node.value!r} is not a finite number")
        elif not isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.USub, ast.UAdd, ast.Compare,
                                   ast.IfExp, ast.BoolOp, ast.Load, *_BINARY, *_COMPARE, *_BOOL)):
            raise FormulaError(f"{text!r}: {type(node).__name__} is not allowed in a formula")
    return tree


def evaluate(tree: ast.Expression, values: Mapping[str, int | float]) -> int | float:
    """The value of a parsed formula; ZeroDivisionError propagates (the caller names the field), a
    result out of float range (1e308 * 10) is FormulaError: no caller can turn it into an integer."""
    try:
        value = _eval(tree.body, values)
    except OverflowError:
        raise FormulaError(f"{ast.unparse(tree)[:80]!r} overflows") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise FormulaError(f"{ast.unparse(tree)[:80]!r} is {value} for these values, not a finite number")
    return value


def _eval(node: ast.AST, values: Mapping[str, int | float]):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return values[node.id]
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](_eval(node.left, values), _eval(node.right, values))
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, values)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.Compare):
        left = _eval(node.left, values)
        for op, right_node in zip(node.ops, node.comparators):
            right = _eval(right_node, values)
            if not _COMPARE[type(op)](left, right):
                return 0
            left = right
        return 1
    if isinstance(node, ast.BoolOp):
        return int(_BOOL[type(node.op)](bool(_eval(v, values)) for v in node.values))
    if isinstance(node, ast.IfExp):
        return _eval(node.body, values) if _eval(node.test, values) else _eval(node.orelse, values)
    if isinstance(node, ast.Call):
        return FUNCTIONS[node.func.id](*[_eval(a, values) for a in node.args])  # type: ignore[union-attr]
    raise FormulaError(f"{type(node).__name__} is not allowed in a formula")  # parse() refused it already

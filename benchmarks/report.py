"""The table `python -m benchmarks` prints, built from the result rows (the same dicts --json saves)."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from benchmarks.suite import GROUPS

SLOW = 0.67   # Ember/torch below this is flagged


def number(v: float) -> str:
    """Three significant figures or so, never scientific notation."""
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def duration(seconds: float) -> str:
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if seconds >= scale:
            return f"{number(seconds / scale)} {unit}"
    return f"{number(seconds * 1e9)} ns"


def cell(result: Optional[Dict[str, Any]]) -> str:
    if result is None:
        return ""
    if "error" in result:
        return "-" if result["error"] == "no equivalent" else "n/a"
    return number(result["value"])


def ratio_cell(row: Dict[str, Any]) -> str:
    return "" if row.get("ratio") is None else f"{row['ratio']:.2f}x"


def notes(row: Dict[str, Any], compare_name: str) -> str:
    """Why a figure is missing: each implementation's exception, one line each, joined."""
    parts = []
    for key, name in (("ember", "Ember"), ("compare", compare_name)):
        result = row.get(key)
        if result and "error" in result:
            parts.append(f"{name}: {result['error']}")
    text = "; ".join(parts)
    return text if len(text) <= 110 else text[:107] + "..."


def render(rows: List[Dict[str, Any]], header: List[str], compare_name: Optional[str]) -> str:
    """The whole report: header lines, then one section per group with aligned columns."""
    columns = ["benchmark", "unit", "Ember", "time/call", "NumPy"]
    if compare_name is not None:
        columns += [compare_name, "Ember/ref"]
    columns += ["mem limit", "flag", "notes"]
    body: List[Any] = []
    group = None
    for row in rows:
        if row["group"] != group:
            group = row["group"]
            body.append(f"-- {GROUPS.get(group, group)} --")
        ember = row["ember"]
        cells = [row["label"], row["unit"], cell(ember),
                 duration(ember["seconds"]) if "seconds" in ember else "", cell(row["numpy"])]
        if compare_name is not None:
            cells += [cell(row.get("compare")), ratio_cell(row)]
        limit = row.get("limit")
        cells += [f"{limit['kernel']} {number(limit['gbs'])}" if limit else "",
                  "SLOW" if row.get("slow") else "", notes(row, compare_name or "ref")]
        body.append(cells)
    widths = [len(c) for c in columns]
    for cells in body:
        if isinstance(cells, list):
            widths = [max(w, len(c)) for w, c in zip(widths, cells)]

    def line(cells: List[str]) -> str:
        # the label and notes align left, the figures right
        out = [c.ljust(w) if i in (0, 1) or i == len(cells) - 1 else c.rjust(w)
               for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(out).rstrip()

    lines = list(header) + ["", line(columns)]
    lines += [cells if isinstance(cells, str) else line(cells) for cells in body]
    return "\n".join(lines)

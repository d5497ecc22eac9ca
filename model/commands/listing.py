"""``python -m model list``: a catalog as an aligned text table or JSON rows."""

from __future__ import annotations

import json
from typing import Any

from model.catalog import Catalog
from model.precision import PRECISIONS
from model.precision.formats import FORMATS
from model.units import GB

__all__ = ["LISTS", "catalog_table"]

LISTS = ("gpus", "models", "interconnects", "networks", "precisions", "stacks")


def catalog_table(kind: str, catalog: Catalog, as_json: bool) -> str:
    """Return one of the catalog's tables (``kind`` is one of LISTS) as aligned text or JSON rows."""
    rows: list[dict[str, Any]]
    if kind == "gpus":
        rows = [
            {
                "id": g.id,
                "name": g.name,
                "memory_gb": g.memory_bytes / GB,
                "bandwidth_gb_per_s": g.memory_bandwidth_bytes_per_s / GB,
                "bf16_dense_tflops": (g.dense_flops_per_s.get("bf16") or g.dense_flops_per_s.get("fp16") or 0) / 1e12,
                "usd_per_gpu_hour": g.cloud_usd_per_gpu_hour,
            }
            for g in catalog.gpus.values()
        ]
    elif kind == "models":
        rows = [
            {
                "id": m.id,
                "name": m.name,
                "params_b": m.architecture.stats.total_params / 1e9,
                "active_params_b": m.architecture.stats.active_params / 1e9,
            }
            for m in catalog.models.values()
        ]
    elif kind in ("interconnects", "networks"):
        table = catalog.interconnects if kind == "interconnects" else catalog.networks
        rows = [
            {
                "id": link.id,
                "name": link.name,
                "gb_per_s_per_direction": link.bandwidth_bytes_per_s / GB,
                "latency_us": link.latency_s * 1e6,
            }
            for link in table.values()
        ]
    elif kind == "stacks":
        rows = [
            {
                "id": stack.id,
                "name": stack.name,
                "serves": stack.serves,
                "trains": stack.trains,
                "multi_card": stack.multi_card if stack.serves else None,
                "split": stack.split if stack.serves else None,
                "platforms": ",".join(stack.platforms),
            }
            for stack in catalog.stacks.values()
        ]
    else:
        rows = [
            {
                "id": p,
                "family": FORMATS[p].family,
                "bits_per_weight": FORMATS[p].bits,
                "trainable": FORMATS[p].trainable,
                "kv_default": FORMATS[p].kv_default,
            }
            for p in PRECISIONS
        ]
    if as_json:
        return json.dumps(rows, allow_nan=False)
    keys = list(rows[0])
    widths = {k: max(len(k), *(len(_cell(r[k])) for r in rows)) for k in keys}
    out = ["  ".join(k.ljust(widths[k]) for k in keys)]
    out += ["  ".join(_cell(r[k]).ljust(widths[k]) for k in keys) for r in rows]
    return "\n".join(out)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.4g}" if value < 1000 else f"{value:,.0f}"
    return str(value)

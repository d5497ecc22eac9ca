import streamlit as st

from model.analyses.compare import cpu_versus_gpu, serving_pair
from model.layouts.serving import replica_name
from model.units import format_usd
from ui.catalog import session_catalog
from ui.charts import show_chart
from ui.charts.memory import memory_breakdown_chart
from ui.charts.overview import token_time_chart
from ui.format import bytes_gb, duration, milliseconds, per_second, percent, short_milliseconds
from ui.page import estimate_or_stop
from ui.rows.layout import training_layout_text
from ui.rows.memory import capacity_row, memory_rows
from ui.rows.overview import token_time_rows
from ui.sidebar import current_scenario
from ui.text import joined, likely_text, overview_takeaway, range_text

catalog = session_catalog()
scenario = current_scenario()
estimate_or_stop(scenario)  # shows a bad scenario plainly, then stops
one, full = serving_pair(scenario, catalog)
gpu = catalog.gpus[scenario.gpu]
training, single, loaded = one.training, one.inference, full.inference

st.title(f"{one.inputs['model_name']} on {scenario.cards:,} × {gpu.short_name}")
st.markdown(overview_takeaway(one, full, gpu.memory_bytes))

st.subheader("Training", divider="gray")
c1, c2, c3, c4 = st.columns(4)
c1.metric(
    "Memory per card",
    bytes_gb(training.memory_per_gpu.total),
    "fits" if training.fits else "does not fit",
    delta_color="normal" if training.fits else "inverse",
    delta_arrow="off",
    border=True,
    help=f"Of {bytes_gb(gpu.memory_bytes, 0)} per card. Layout: {training_layout_text(one)}.",
)
QUIET = {"delta_color": "off", "delta_arrow": "off"}
RANGE_NOTE = " The likely range moves every efficiency together (Method page, Validation page)."
c2.metric(
    "Training time",
    duration(training.time_s),
    likely_text(one, "time_s", duration) or None,
    **QUIET,
    border=True,
    help=f"{training.tokens:,.3g} tokens, wall time with interruptions.{RANGE_NOTE}",
)
c3.metric(
    "Training cost",
    format_usd(training.cost_usd),
    likely_text(one, "cost_usd", format_usd) or None,
    **QUIET,
    border=True,
    help=f"{training.gpu_hours:,.0f} GPU-hours at ${one.inputs['price_per_gpu_hour'] or 0:,.2f} per GPU-hour."
    f"{RANGE_NOTE}",
)
c4.metric(
    "Model FLOPs utilisation",
    percent(training.mfu),
    likely_text(one, "mfu", percent) or None,
    **QUIET,
    border=True,
    help=f"{per_second(training.tokens_per_s_per_gpu)} per card in steady-state steps.{RANGE_NOTE}",
)

st.subheader("Serving", divider="gray")
c1, c2, c3, c4 = st.columns(4)
c1.metric(
    "Time per token, one user",
    milliseconds(single.tpot_s),
    joined(f"ideal {short_milliseconds(single.tpot_roofline_s)}", likely_text(one, "tpot_s", short_milliseconds)),
    **QUIET,
    border=True,
    help=f"Expected (with efficiencies) beside the roofline at datasheet peaks. Replica: "
    f"{replica_name(single.tp, single.pp, single.ep)}.{RANGE_NOTE}",
)
c2.metric(
    "Tokens/s, one user",
    f"{single.decode_tokens_per_s_per_user:,.0f}",
    likely_text(one, "decode_tokens_per_s_per_user", lambda v: f"{v:,.0f}") or None,
    **QUIET,
    border=True,
    help=f"Batch 1, {scenario.prompt_len:,}-token prompt; first token after {milliseconds(single.ttft_s, 0)} "
    f"(range {range_text(one, 'ttft_s', milliseconds)}). {single.bound.capitalize()}-bound.{RANGE_NOTE}",
)
c3.metric(
    "Tokens/s at full load",
    f"{loaded.decode_tokens_per_s:,.0f}",
    likely_text(full, "decode_tokens_per_s", lambda v: f"{v:,.0f}") or None,
    **QUIET,
    border=True,
    help=f"Output tokens over prefill plus decode time: {loaded.batch:,} sequences on each of {loaded.dp:,} "
    f"replicas.{RANGE_NOTE}",
)
c4.metric(
    "$ per million output tokens",
    format_usd(loaded.cost_per_million_output_tokens_usd),
    likely_text(full, "cost_per_million_output_tokens_usd", format_usd) or None,
    **QUIET,
    border=True,
    help=f"Full load at {percent(scenario.utilization)} utilisation.{RANGE_NOTE}",
)

left, right = st.columns([3, 2])
with left:
    st.markdown("**Memory per card** (training, and serving at full load)")
    show_chart(memory_breakdown_chart, parts=memory_rows(full), capacity=capacity_row(gpu))
with right:
    comparison = cpu_versus_gpu(scenario, catalog)
    cpu = catalog.gpus["cpu-server"]
    st.markdown(
        f"**Why GPUs**: one token on the GPU vs a 64 GB/s server CPU — **{comparison.gpu_speedup:,.0f}×** faster"
    )
    show_chart(token_time_chart, rows=token_time_rows(comparison, gpu.short_name, "Server CPU, 64 GB/s"))
    st.caption(
        "The seeds' rule: time per token ≈ bytes of weights read ÷ memory bandwidth "
        f"({cpu.short_name} has {cpu.memory_bandwidth_bytes_per_s / 1e9:g} GB/s)."
    )

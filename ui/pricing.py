"""The price of a GPU-hour: the catalog's rental rate, one the user types, or owning the cards.

Bound to the URL (``pricing=own``, ``price=``, ``years=``, ``kwh=``, ``pue=``); the arithmetic is the
engine's (:mod:`model.pricing`), this module only draws the controls and says where a price comes from.
"""

from __future__ import annotations

import streamlit as st

from model.pricing import Owning, PriceQuote, market_rent_ratio, owning_price, rental_price
from ui.catalog import session_catalog
from ui.controls import PRICING_OPTIONS, bounds
from ui.i18n import tr, translatable
from ui.remount import held_value

__all__ = ["current_price", "price_caption", "render_prices"]

PRICING_LABELS = {"rent": translatable("Rent"), "own": translatable("Own")}


def render_prices() -> None:
    """Renting at a rate (the catalog's unless typed) or owning: purchase over years plus power."""
    gpu = session_catalog().gpus[st.session_state["gpu"]]
    with st.expander(tr("Price of a GPU-hour"), expanded=False):
        st.segmented_control(
            tr("Pricing"),
            PRICING_OPTIONS,
            default=held_value("pricing", PRICING_OPTIONS),
            format_func={pricing: tr(label) for pricing, label in PRICING_LABELS.items()}.get,
            key="pricing",
            required=True,
            label_visibility="collapsed",
        )
        if st.session_state["pricing"] == "rent":
            catalog_price = rental_price(gpu, market_rent_ratio())
            st.number_input(
                tr("USD per GPU-hour"),
                *bounds("price"),
                held_value("price"),
                step=0.1,
                format="%.2f",
                key="price",
                placeholder=tr("{price} (catalog)", price=f"{catalog_price.usd_per_gpu_hour:.2f}")
                if catalog_price.usd_per_gpu_hour is not None
                else tr("type a price"),
                help=tr("Empty: the catalog's rate for this GPU."),
            )
        else:
            c1, c2, c3 = st.columns(3)
            c1.number_input(tr("Years"), *bounds("years"), held_value("years"), step=0.5, key="years")
            c2.number_input(tr("$/kWh"), *bounds("kwh"), held_value("kwh"), step=0.01, format="%.2f", key="kwh")
            c3.number_input("PUE", *bounds("pue"), held_value("pue"), step=0.05, format="%.2f", key="pue")
        quote = current_price(gpu.id)
        st.caption(price_caption(gpu.short_name, quote))


def current_price(gpu_id: str) -> PriceQuote:
    """Return the price of a GPU-hour the sidebar sets for ``gpu_id``: typed, the catalog's rental rate, or owning."""
    state = st.session_state
    gpu = session_catalog().gpus[gpu_id]
    if state["pricing"] == "own":
        owned = owning_price(gpu, Owning(years=state["years"], usd_per_kwh=state["kwh"], pue=state["pue"]))
        if owned.usd_per_gpu_hour is not None:
            return owned
        rented = rental_price(gpu, market_rent_ratio())  # a TPU is not sold: its rental rate stands in
        said = tr("{owned}; the rental rate is used ({rented})", owned=_said(owned), rented=_said(rented))
        return rented._replace(note=said, template="")  # said in the visit's language already
    if state["price"] is not None:
        return PriceQuote(float(state["price"]), "given", tr("typed"))
    return rental_price(gpu, market_rent_ratio())


def price_caption(gpu_name: str, quote: PriceQuote) -> str:
    """Say what a GPU-hour costs and where the figure comes from."""
    if quote.usd_per_gpu_hour is None:
        return tr("No price known for {gpu}: {note}.", gpu=gpu_name, note=_said(quote))
    note = _said(quote).replace("$", r"\$")  # our own sentence: only the dollar sign would turn into LaTeX
    price = tr("{price} per GPU-hour", price=f"${quote.usd_per_gpu_hour:,.2f}")
    return tr("{gpu}: **{price}**, {note}.", gpu=gpu_name, price=price, note=note)


def _said(quote: PriceQuote) -> str:
    """Return where a price comes from in the visit's language (the engine's note is English)."""
    return tr(quote.template, **dict(quote.values)) if quote.template else quote.note

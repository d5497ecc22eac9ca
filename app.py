"""GPU what-if explorer: page config, navigation, the shared sidebar, then the page."""

import streamlit as st

from ui.i18n import current_language, tr
from ui.navigation import build_pages
from ui.share import render_share
from ui.sidebar import init_state, render_link_notice, render_scenario_sidebar, sync_url

st.set_page_config(page_title=tr("GPU what-if explorer"), page_icon=":material/memory:", layout="wide")
init_state()
pages_key = f"_pages_{current_language()}"  # titles in the visit's language; the addresses stay
if pages_key not in st.session_state:
    st.session_state[pages_key] = build_pages()
page = st.navigation(st.session_state[pages_key])
render_scenario_sidebar()
render_share(page.title)
render_link_notice()
page.run()
sync_url()

"""GPU what-if explorer: page config, navigation, the shared sidebar, then the page."""

import streamlit as st

from ui.navigation import build_pages
from ui.share import render_share
from ui.sidebar import init_state, render_scenario_sidebar, sync_url

st.set_page_config(page_title="GPU what-if explorer", page_icon=":material/memory:", layout="wide")
init_state()
if "_pages" not in st.session_state:
    st.session_state["_pages"] = build_pages()
page = st.navigation(st.session_state["_pages"])
render_scenario_sidebar()
render_share(page.title)
page.run()
sync_url()

"""GPU what-if explorer: page config, navigation, the shared sidebar, then the page."""

import streamlit as st

from ui.charts import presenting
from ui.i18n import current_language, tr
from ui.navigation import build_pages
from ui.share import render_share
from ui.sidebar import init_state, render_link_notice, render_scenario_sidebar, sync_url

st.set_page_config(page_title=tr("GPU what-if explorer"), page_icon=":material/memory:", layout="wide")
init_state()
pages_key = f"_pages_{current_language()}"  # titles in the visit's language; the addresses stay
if pages_key not in st.session_state:
    st.session_state[pages_key] = build_pages()
# The pages across the top, four links and two drop-downs (ui/navigation.py): the sidebar starts with
# the scenario, which fits a projector's 720 px.
page = st.navigation(st.session_state[pages_key], position="top")
render_scenario_sidebar()
render_share(page.title)
render_link_notice()
if presenting():  # the first screen is the page's: less empty space above the title
    st.html("<style>[data-testid='stMainBlockContainer']{padding-top:3.5rem}</style>")
page.run()
sync_url()

"""GPU what-if explorer: page config, navigation, the shared sidebar, then the page."""

import streamlit as st

from ui.share import render_share
from ui.sidebar import init_state, render_scenario_sidebar, sync_url


def build_pages() -> list[st.Page]:
    """Return the app's pages, built once per visit and reused by its reruns.

    st.Page resolves and checks its file, about 0.2 ms a page on every rerun; the objects hold no
    scenario, and st.navigation only flags which one may run, so one visit's reruns can share them.
    """
    return [
        st.Page("app_pages/overview.py", title="Overview", icon=":material/dashboard:", default=True),
        st.Page("app_pages/costs.py", title="Training vs inference cost", icon=":material/payments:", url_path="costs"),
        st.Page("app_pages/vram.py", title="VRAM", icon=":material/memory:", url_path="vram"),
        st.Page("app_pages/throughput.py", title="Tokens per second", icon=":material/speed:", url_path="tokens"),
        st.Page("app_pages/compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"),
        st.Page("app_pages/anatomy.py", title="GPU anatomy", icon=":material/developer_board:", url_path="anatomy"),
        st.Page("app_pages/method.py", title="Method", icon=":material/menu_book:", url_path="method"),
        st.Page("app_pages/validation.py", title="Validation", icon=":material/verified:", url_path="validation"),
        st.Page("app_pages/custom.py", title="Add a GPU or model", icon=":material/add_circle:", url_path="add"),
    ]


st.set_page_config(page_title="GPU what-if explorer", page_icon=":material/memory:", layout="wide")
init_state()
if "_pages" not in st.session_state:
    st.session_state["_pages"] = build_pages()
page = st.navigation(st.session_state["_pages"])
render_scenario_sidebar()
render_share(page.title)
page.run()
sync_url()

import streamlit as st

st.title("vram")
st.info("This page is being built.")

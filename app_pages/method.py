import streamlit as st

st.title("method")
st.info("This page is being built.")

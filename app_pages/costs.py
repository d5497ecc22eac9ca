import streamlit as st

st.title("costs")
st.info("This page is being built.")

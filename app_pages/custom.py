import streamlit as st

st.title("custom")
st.info("This page is being built.")

import streamlit as st

st.title("anatomy")
st.info("This page is being built.")

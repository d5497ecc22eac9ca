import streamlit as st

st.title("throughput")
st.info("This page is being built.")

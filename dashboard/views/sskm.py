"""SSKM_DP page (paper 003): arrives with issue #5."""
import streamlit as st

st.title("SSKM_DP")
st.info("This page arrives with issue #5 (paper 003). Until then, the Data page works.")

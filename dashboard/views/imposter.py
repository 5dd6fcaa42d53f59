"""IMPOSTER page (paper 002): arrives with issue #4."""
import streamlit as st

st.title("IMPOSTER")
st.info("This page arrives with issue #4 (paper 002). Until then, the Data page works.")

"""DC-FBFS page (paper 000): arrives with issue #3."""
import streamlit as st

st.title("DC-FBFS")
st.info("This page arrives with issue #3 (paper 000). Until then, the Data page works.")

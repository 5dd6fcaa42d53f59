"""Paper 003 (SSKM_DP): its page, cached work, sections and charts."""

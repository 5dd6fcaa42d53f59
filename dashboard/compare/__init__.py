"""Compare: every method on one dataset on one frontier; the page, its cached run, its charts and the HTML report."""

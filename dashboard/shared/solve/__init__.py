"""Solve for epsilon: the panel every page that draws a measure against epsilon shares, its
offers ("use this epsilon") and its charts. May import serving and widgets."""

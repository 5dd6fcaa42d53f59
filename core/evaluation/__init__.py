"""What a release still gives and still leaks: utility metrics and the same empirical attacks for every release."""

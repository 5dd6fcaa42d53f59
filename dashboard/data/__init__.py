"""The Data page: choose a table, set its roles, review its public schema."""

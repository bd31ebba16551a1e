"""Implementations of the ports: SQLite and PostgreSQL stores, embedders, the Markdown vault."""

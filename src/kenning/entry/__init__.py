"""Doors into Kenning: MCP server, CLI (and later REST and dashboard). Each calls the services directly."""

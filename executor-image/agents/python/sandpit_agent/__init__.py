"""Sandpit's in-container Python agent, one module per role (see ../agent.py, the entry, and ../../PROTOCOL.md).

Every module is imported when the agent starts (main.py), before the working directory joins the import path;
none has side effects on import beyond reading the process's own pid and file limit. Standard library only.
"""

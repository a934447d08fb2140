"""The agent's own imports between runs never load a module planted in the workspace (issue 20 #2)."""

import importlib.machinery
import os


class OwnImports:
    """Meta-path finder: outside a run, a module is looked up first where the agent's own come from.

    User code imports from the working directory (sys.path[0] is ''), as an interactive interpreter does. The
    agent's own late imports (and those of the standard library it calls) happen between runs too: answering a
    file request, the after-run scan, a hello after a restart. There a module planted in the workspace (a
    `json.py` written with write_file) must never be what loads: between runs, names that exist on the agent's
    own import path (the standard library, the image's site-packages, the package store, none of which the
    sandbox can write) resolve there. During a run, Python's usual order holds.
    """

    def __init__(self, agent, own_path):
        self.agent = agent
        self.own_path = own_path

    def find_spec(self, name, path=None, target=None):
        if path is not None or self.agent.running is not None:
            return None  # submodules follow their package; a run imports as the user's code says
        return importlib.machinery.PathFinder.find_spec(name, self.own_path, target)


def in_workspace(workspace, entry):
    """Whether an import path entry is (or is in) the workspace; '' and '.' are the working directory."""
    if entry in ('', '.'):
        return True
    full = os.path.abspath(entry)
    return full == workspace or full.startswith(workspace.rstrip('/') + '/')

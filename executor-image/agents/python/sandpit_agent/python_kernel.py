"""The Python kernel: one persistent `__main__` namespace, a cell's last expression as its result, top-level
await, matplotlib figures and display()."""

import ast
import builtins
import linecache
import platform
import sys
import types

from .display import PyplotHook, make_display, make_show
from .errors import error_report
from .limits import clip
from .protocol import result_message

CO_COROUTINE = 0x80


class PythonKernel:
    """Runs cells in one `__main__` namespace kept between executions."""

    language = 'python'

    def __init__(self, emit_display):
        self.cells = 0
        self.loop = None
        module = types.ModuleType('__main__')
        module.__dict__.update(__builtins__=builtins, display=make_display(emit_display))
        sys.modules['__main__'] = module  # so pickle and multiprocessing find user-defined names
        self.globals = module.__dict__
        self.show = make_show(emit_display)
        sys.meta_path.insert(0, PyplotHook(self.show))

    @staticmethod
    def version():
        return platform.python_version()

    def run(self, eid, source, cancelled):
        """Execute a cell; returns the repr of its last expression, or None."""
        self.cells += 1
        filename = '<cell-%d>' % self.cells
        if eid in cancelled:
            raise KeyboardInterrupt
        lines = source.replace('\r\n', '\n').replace('\r', '\n').split('\n')
        linecache.cache[filename] = (len(source), None, [line + '\n' for line in lines], filename)
        flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        tree = compile(source, filename, 'exec', flags | ast.PyCF_ONLY_AST, dont_inherit=True)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        if tree.body:  # a cell that is one expression needs no statements compiled
            self.evaluate(compile(tree, filename, 'exec', flags, dont_inherit=True))
        if last is None:
            return None
        value = self.evaluate(compile(ast.Expression(last.value), filename, 'eval', flags, dont_inherit=True))
        rest = lines[last.end_lineno - 1].encode('utf-8')[last.end_col_offset:]
        if value is None or rest.lstrip().startswith(b';'):  # a trailing ';' hides the value, as in IPython
            return None
        self.globals['_'] = value
        return repr(value)

    def evaluate(self, code):
        """eval() a code object in the user namespace, awaiting it when it uses top-level await."""
        value = eval(code, self.globals)
        if code.co_flags & CO_COROUTINE:
            import asyncio

            if self.loop is None or self.loop.is_closed():
                self.loop = asyncio.new_event_loop()
            value = self.loop.run_until_complete(value)
        return value

    @staticmethod
    def outcome(eid, status, text, exc, limit):
        """(status, the result or error message or None, no exitCode) of a finished cell."""
        if exc is not None:
            return status, error_report(eid, exc, limit), None
        if text is not None:
            return status, result_message(eid, clip(text, limit)), None
        return status, None, None

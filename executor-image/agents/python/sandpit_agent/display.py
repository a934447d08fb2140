"""Rich output: display() in the user namespace, matplotlib figures (pyplot.show() and at the end of a run),
objects with _repr_png_ / _repr_svg_ / _repr_html_."""

import base64
import importlib.machinery
import io
import sys


class PyplotHook:
    """Meta-path finder that patches `matplotlib.pyplot.show` when user code imports pyplot."""

    def __init__(self, show):
        self.show = show

    def find_spec(self, name, path=None, target=None):
        if name != 'matplotlib.pyplot':
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        exec_module = getattr(getattr(spec, 'loader', None), 'exec_module', None)
        if exec_module is None:
            return None

        def exec_and_patch(module):
            exec_module(module)
            module.show = self.show

        try:
            spec.loader.exec_module = exec_and_patch
        except (AttributeError, TypeError):
            return None
        return spec


def rich_repr(obj):
    """(mime, data, encoding) for an object with a rich representation, else (None, None, None)."""
    if isinstance(obj, type):
        return None, None, None
    if type(obj).__module__.startswith('matplotlib.') and hasattr(obj, 'savefig'):
        return 'image/png', figure_png(obj), 'base64'
    for attr, mime in (('_repr_png_', 'image/png'), ('_repr_svg_', 'image/svg+xml'), ('_repr_html_', 'text/html')):
        method = getattr(obj, attr, None)
        data = method() if callable(method) else None
        if isinstance(data, tuple) and data:  # IPython's (data, metadata) convention
            data = data[0]
        if isinstance(data, (bytes, bytearray)):
            if mime == 'image/png':
                return mime, base64.b64encode(data).decode('ascii'), 'base64'
            data = bytes(data).decode('utf-8', 'replace')
        if isinstance(data, str):
            return mime, data, 'base64' if mime == 'image/png' else 'utf8'
    return None, None, None


def figure_png(fig):
    """A matplotlib figure as base64 PNG."""
    buf = io.BytesIO()
    fig.savefig(buf, format='png', bbox_inches='tight')
    return base64.b64encode(buf.getvalue()).decode('ascii')


def make_display(emit):
    """The display() function injected into the user namespace; `emit(mime, data, encoding)` sends one."""

    def display(*objs):
        """Show objects: PNG/SVG/HTML for objects with _repr_png_/_repr_svg_/_repr_html_ and
        matplotlib figures, else their repr() on stdout."""
        for obj in objs:
            mime, data, encoding = rich_repr(obj)
            if mime is None:
                print(repr(obj))
            else:
                emit(mime, data, encoding)

    return display


def make_show(emit):
    """The replacement for matplotlib.pyplot.show()."""

    def show(*_args, **_kwargs):
        """Sandpit's matplotlib.pyplot.show(): send every open figure as PNG, then close them."""
        plt = sys.modules.get('matplotlib.pyplot')
        if plt is None:
            return
        for num in plt.get_fignums():
            try:
                png = figure_png(plt.figure(num))
            except Exception as exc:
                print('Could not render figure %s: %s: %s' % (num, type(exc).__name__, exc), file=sys.stderr)
                continue
            emit('image/png', png, 'base64')
        plt.close('all')

    return show


def pyplot_imported():
    return 'matplotlib.pyplot' in sys.modules

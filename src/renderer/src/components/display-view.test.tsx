import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ContentView } from './display-view';

const b64 = (text: string): string => btoa(text);

describe('ContentView', () => {
  it('shows HTML and SVG only in a frame with an empty sandbox, never as markup of the page', () => {
    for (const mime of ['text/html', 'image/svg+xml']) {
      const html = renderToStaticMarkup(
        <ContentView mime={mime} base64={b64('<script>alert(1)</script><b>x</b>')} title="t" />,
      );
      expect(html).toMatch(/^<iframe /);
      expect(html).toContain('sandbox=""');
      expect(html).not.toMatch(/allow-scripts|allow-same-origin/);
      expect(html).toContain('srcDoc="&lt;script&gt;');
      expect(html).not.toContain('<script>');
    }
  });

  it('shows pictures as data URLs, text as text, and other files as a note', () => {
    expect(renderToStaticMarkup(<ContentView mime="image/png" base64="iVBO" title="p" />)).toContain(
      'src="data:image/png;base64,iVBO"',
    );
    expect(renderToStaticMarkup(<ContentView mime="text/csv" base64={b64('a,b')} title="c" />)).toContain(
      '<pre class="content-text">a,b</pre>',
    );
    expect(renderToStaticMarkup(<ContentView mime="application/zip" base64="UEsD" title="z" />)).toContain(
      'cannot be shown here',
    );
  });
});

import { describe, expect, it } from 'vitest';
import type { Display, StreamName } from '../../shared/domain/execution';
import { ExecutionCollector, truncationMarker } from './execution-collector';
import type { CollectorSink } from './execution-collector';
import type { AgentMessage, DoneMessage } from '../sandbox/protocol';

interface RecordingSink extends CollectorSink {
  outputs: Array<{ stream: StreamName; text: string }>;
  displays: Display[];
}

function recordingSink(): RecordingSink {
  const outputs: RecordingSink['outputs'] = [];
  const displays: Display[] = [];
  return {
    outputs,
    displays,
    output: (stream, text) => outputs.push({ stream, text }),
    display: (display) => displays.push(display),
  };
}

function stream(name: StreamName, text: string): AgentMessage {
  return { type: 'stream', id: 'e1', name, text };
}

function done(extra: Partial<DoneMessage> = {}): DoneMessage {
  return { type: 'done', id: 'e1', status: 'ok', durationMs: 5, ...extra };
}

function display(n: number, data = 'AAAA'): AgentMessage {
  return { type: 'display', id: 'e1', mime: `image/png;n=${n}`, data, encoding: 'base64' };
}

describe('truncationMarker', () => {
  it('names the stream, the dropped bytes and the limit in KiB', () => {
    expect(truncationMarker('stdout', 1234, 1024 * 1024)).toBe(
      '\n[output truncated: 1234 more bytes of stdout not shown (limit 1024 KiB per stream)]\n',
    );
  });

  it('says "more output" when the number of dropped bytes is unknown', () => {
    expect(truncationMarker('stderr', 0, 2048)).toBe(
      '\n[output truncated: more output of stderr not shown (limit 2 KiB per stream)]\n',
    );
  });
});

describe('ExecutionCollector', () => {
  it('keeps output below the cap as it came, forwards it live, and marks nothing truncated', () => {
    const sink = recordingSink();
    const c = new ExecutionCollector(1024, sink);
    c.accept(stream('stdout', 'hello '));
    c.accept(stream('stderr', 'warn\n'));
    c.accept(stream('stdout', 'world\n'));
    const out = c.snapshot();
    expect(out.stdout).toBe('hello world\n');
    expect(out.stderr).toBe('warn\n');
    expect(out.truncated).toEqual({ stdout: false, stderr: false });
    expect(sink.outputs).toEqual([
      { stream: 'stdout', text: 'hello ' },
      { stream: 'stderr', text: 'warn\n' },
      { stream: 'stdout', text: 'world\n' },
    ]);
  });

  it('caps each stream separately and appends the exact truncation marker', () => {
    const sink = recordingSink();
    const c = new ExecutionCollector(1024, sink);
    c.accept(stream('stdout', 'a'.repeat(1000)));
    c.accept(stream('stdout', 'b'.repeat(100))); // 24 kept, 76 dropped
    c.accept(stream('stdout', 'c'.repeat(50))); // all dropped
    c.accept(stream('stderr', 'e'.repeat(1024))); // exactly at the cap: nothing dropped
    const out = c.snapshot();
    expect(out.stdout).toBe(
      `${'a'.repeat(1000)}${'b'.repeat(24)}\n[output truncated: 126 more bytes of stdout not shown (limit 1 KiB per stream)]\n`,
    );
    expect(out.stderr).toBe('e'.repeat(1024));
    expect(out.truncated).toEqual({ stdout: true, stderr: false });
  });

  it('sends only kept output to the live sink', () => {
    const sink = recordingSink();
    const c = new ExecutionCollector(1024, sink);
    c.accept(stream('stdout', 'a'.repeat(1000)));
    c.accept(stream('stdout', 'b'.repeat(100)));
    c.accept(stream('stdout', 'c'.repeat(50)));
    expect(sink.outputs.map((o) => o.text)).toEqual(['a'.repeat(1000), 'b'.repeat(24)]);
    expect(sink.outputs.map((o) => o.text).join('')).not.toContain('c');
  });

  it('never calls the sink with an empty string', () => {
    const sink = recordingSink();
    const c = new ExecutionCollector(1024, sink);
    c.accept(stream('stdout', 'x'.repeat(1023)));
    c.accept(stream('stdout', '€')); // 3 bytes, only 1 byte of room: nothing whole fits
    expect(sink.outputs.map((o) => o.text)).toEqual(['x'.repeat(1023)]);
  });

  it('cuts multi-byte text at the cap without a broken character and counts every dropped byte', () => {
    const sink = recordingSink();
    const c = new ExecutionCollector(1024, sink);
    c.accept(stream('stdout', 'x'.repeat(1022)));
    c.accept(stream('stdout', '€uro')); // € is 3 bytes and does not fit in the 2 left
    c.accept(stream('stderr', '𝄞'.repeat(300))); // 4 bytes each: 256 fit exactly
    c.accept(stream('stderr', 'é'.repeat(3)));
    const out = c.snapshot();
    expect(out.stdout).toBe(
      `${'x'.repeat(1022)}\n[output truncated: 6 more bytes of stdout not shown (limit 1 KiB per stream)]\n`,
    );
    expect(out.stderr).toBe(
      `${'𝄞'.repeat(256)}\n[output truncated: 182 more bytes of stderr not shown (limit 1 KiB per stream)]\n`,
    );
    expect(out.stdout).not.toContain('\uFFFD');
    expect(out.stderr).not.toContain('\uFFFD');
    expect(sink.outputs.map((o) => o.text).join('')).not.toContain('\uFFFD');
  });

  it('keeps the whole characters before a cut in the middle of a later one', () => {
    const c = new ExecutionCollector(1024, recordingSink());
    c.accept(stream('stdout', 'x'.repeat(1020)));
    c.accept(stream('stdout', 'é€')); // é (2 bytes) fits, € (3 bytes) does not fit in the 2 left
    const out = c.snapshot();
    expect(out.stdout.startsWith(`${'x'.repeat(1020)}é\n[output truncated: 3 more bytes`)).toBe(true);
  });

  it('adds the bytes the agent dropped (from its done) to the marker', () => {
    const c = new ExecutionCollector(1024, recordingSink());
    c.accept(stream('stdout', 'a'.repeat(1000)));
    c.accept(stream('stdout', 'b'.repeat(30))); // 6 dropped by the host
    c.accept(stream('stderr', 'small'));
    c.accept(done({ dropped: { stdout: 500, stderr: 7 } }));
    const out = c.snapshot();
    expect(
      out.stdout.endsWith('\n[output truncated: 506 more bytes of stdout not shown (limit 1 KiB per stream)]\n'),
    ).toBe(true);
    expect(out.stderr).toBe('small\n[output truncated: 7 more bytes of stderr not shown (limit 1 KiB per stream)]\n');
    expect(out.truncated).toEqual({ stdout: true, stderr: true });
  });

  it('shows no marker when the agent reports zero dropped bytes or only one stream', () => {
    const c = new ExecutionCollector(1024, recordingSink());
    c.accept(stream('stdout', 'out'));
    c.accept(done({ dropped: { stdout: 0 } }));
    const out = c.snapshot();
    expect(out.stdout).toBe('out');
    expect(out.stderr).toBe('');
    expect(out.truncated).toEqual({ stdout: false, stderr: false });
  });

  it('keeps the done message, the result and the error', () => {
    const c = new ExecutionCollector(1024, recordingSink());
    expect(c.done).toBeUndefined();
    c.accept({ type: 'result', id: 'e1', text: '42' });
    c.accept({ type: 'error', id: 'e1', name: 'ValueError', value: 'bad', traceback: 'Traceback…' });
    const message = done({ status: 'error', exitCode: 1 });
    c.accept(message);
    expect(c.done).toEqual(message);
    const out = c.snapshot();
    expect(out.result).toBe('42');
    expect(out.error).toEqual({ name: 'ValueError', value: 'bad', traceback: 'Traceback…' });
    expect(out.done).toEqual(message);
  });

  it('caps the result, the error name, value and traceback', () => {
    const c = new ExecutionCollector(1024, recordingSink());
    c.accept({ type: 'result', id: 'e1', text: 'r'.repeat(300 * 1024) });
    c.accept({
      type: 'error',
      id: 'e1',
      name: 'N'.repeat(500),
      value: 'v'.repeat(20_000),
      traceback: 't'.repeat(300 * 1024),
    });
    const out = c.snapshot();
    expect(out.result).toHaveLength(256 * 1024);
    expect(out.error?.name).toHaveLength(200);
    expect(out.error?.value).toHaveLength(10_000);
    expect(out.error?.traceback).toHaveLength(256 * 1024);
  });

  it('keeps displays in order and forwards them live', () => {
    const sink = recordingSink();
    const c = new ExecutionCollector(1024, sink);
    c.accept(display(1));
    c.accept({ type: 'display', id: 'e1', mime: 'text/html', data: '<b>hi</b>', encoding: 'utf8' });
    const expected = [
      { mime: 'image/png;n=1', data: 'AAAA', encoding: 'base64' },
      { mime: 'text/html', data: '<b>hi</b>', encoding: 'utf8' },
    ];
    expect(c.snapshot().displays).toEqual(expected);
    expect(sink.displays).toEqual(expected);
  });

  it('keeps at most 50 displays and says so on stderr', () => {
    const sink = recordingSink();
    const c = new ExecutionCollector(1024, sink);
    for (let n = 1; n <= 52; n += 1) c.accept(display(n));
    const out = c.snapshot();
    expect(out.displays).toHaveLength(50);
    expect(out.displays.at(-1)?.mime).toBe('image/png;n=50');
    expect(sink.displays).toHaveLength(50);
    expect(out.stderr).toBe('\n[2 outputs were not kept (image/png;n=51, image/png;n=52): more than 50 outputs, over 16 MiB each or over 32 MiB in all]\n');
  });

  it('refuses a display over 16 MiB and says so on stderr', () => {
    const sink = recordingSink();
    const c = new ExecutionCollector(1024, sink);
    c.accept(display(1, 'A'.repeat(16 * 1024 * 1024 + 1)));
    c.accept(display(2, 'A'.repeat(16 * 1024 * 1024)));
    const out = c.snapshot();
    expect(out.displays.map((d) => d.mime)).toEqual(['image/png;n=2']);
    expect(sink.displays.map((d) => d.mime)).toEqual(['image/png;n=2']);
    expect(out.stderr).toBe('\n[1 output was not kept (image/png;n=1): more than 50 outputs, over 16 MiB each or over 32 MiB in all]\n');
  });

  it('says once, at the end of stderr, how many displays it refused, however many came', () => {
    const c = new ExecutionCollector(1024, recordingSink());
    const oversized = 'A'.repeat(16 * 1024 * 1024 + 1);
    c.accept(stream('stderr', 'before\n'));
    for (let n = 0; n < 1_000; n += 1) c.accept({ type: 'display', id: 'e1', mime: `image/png;n=${n % 5}`, data: oversized, encoding: 'base64' });
    c.accept(stream('stderr', 'after\n'));
    const out = c.snapshot();
    expect(out.displays).toEqual([]);
    expect(out.stderr).toBe(
      'before\nafter\n\n[1000 outputs were not kept (image/png;n=0, image/png;n=1, image/png;n=2, …): more than 50 outputs, over 16 MiB each or over 32 MiB in all]\n',
    );
    expect(out.truncated.stderr).toBe(false);
  });

  it('keeps at most 32 MiB of displays per run in all', () => {
    const sink = recordingSink();
    const c = new ExecutionCollector(1024, sink);
    const twelve = 'A'.repeat(12 * 1024 * 1024);
    c.accept(display(1, twelve));
    c.accept(display(2, twelve));
    c.accept(display(3, twelve)); // 36 MiB in all: refused
    c.accept(display(4, 'A'.repeat(8 * 1024 * 1024))); // exactly 32 MiB in all: kept
    c.accept(display(5, 'AAAA')); // over 32 MiB: refused
    const out = c.snapshot();
    expect(out.displays.map((d) => d.mime)).toEqual(['image/png;n=1', 'image/png;n=2', 'image/png;n=4']);
    expect(sink.displays.map((d) => d.mime)).toEqual(['image/png;n=1', 'image/png;n=2', 'image/png;n=4']);
    expect(out.stderr).toBe('\n[2 outputs were not kept (image/png;n=3, image/png;n=5): more than 50 outputs, over 16 MiB each or over 32 MiB in all]\n');
  });

  it('adds host notes to a stream without counting them against the cap', () => {
    const c = new ExecutionCollector(1024, recordingSink());
    c.accept(stream('stdout', 'a'.repeat(1024)));
    c.note('stdout', '\n[the sandbox was restarted]\n');
    const out = c.snapshot();
    expect(out.stdout).toBe(`${'a'.repeat(1024)}\n[the sandbox was restarted]\n`);
    expect(out.truncated.stdout).toBe(false);
  });

  it('returns snapshots that later messages do not change', () => {
    const c = new ExecutionCollector(1024, recordingSink());
    c.accept(display(1));
    const first = c.snapshot();
    c.accept(display(2));
    c.accept(stream('stdout', 'later'));
    expect(first.displays).toHaveLength(1);
    expect(first.stdout).toBe('');
    expect(c.snapshot().displays).toHaveLength(2);
  });
});

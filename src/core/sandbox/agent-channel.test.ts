import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { isSandpitError } from '../../shared/api/errors';
import { pollUntil } from '../util/with-timeout';
import { LineChannel } from './agent-channel';
import type { AgentMessage } from './protocol';

function setup(): {
  channel: LineChannel;
  input: PassThrough;
  output: PassThrough;
  dispose: ReturnType<typeof vi.fn>;
  messages: AgentMessage[];
  closes: Array<string | undefined>;
} {
  const input = new PassThrough();
  const output = new PassThrough();
  const dispose = vi.fn();
  const channel = new LineChannel('attach', input, output, dispose);
  const messages: AgentMessage[] = [];
  const closes: Array<string | undefined> = [];
  channel.onMessage((m) => messages.push(m));
  channel.onClose((reason) => closes.push(reason));
  return { channel, input, output, dispose, messages, closes };
}

function readAll(stream: PassThrough): string {
  const chunks: Buffer[] = [];
  for (let chunk = stream.read() as Buffer | null; chunk !== null; chunk = stream.read() as Buffer | null)
    chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

describe('LineChannel', () => {
  it('parses JSON lines from the input into messages, across chunks', async () => {
    const { input, messages } = setup();
    input.write('{"type":"stream","id":"e1","name":"stdout",');
    input.write('"text":"hi"}\n{"type":"result","id":"e1","text":"2"}\n');
    await pollUntil(() => (messages.length === 2 ? true : undefined), 2_000, 'two messages');
    expect(messages).toEqual([
      { type: 'stream', id: 'e1', name: 'stdout', text: 'hi' },
      { type: 'result', id: 'e1', text: '2' },
    ]);
  });

  it('ignores lines that are not valid agent messages and keeps going', async () => {
    const { channel, input, messages } = setup();
    input.write('garbage\n{"type":"nope","id":"x"}\n{"type":"done","id":"e1","status":"ok","durationMs":1}\n');
    await pollUntil(() => (messages.length === 1 ? true : undefined), 2_000, 'the done message');
    expect(messages).toEqual([{ type: 'done', id: 'e1', status: 'ok', durationMs: 1 }]);
    expect(channel.closed).toBe(false);
  });

  it('delivers each message to every listener', async () => {
    const { channel, input, messages } = setup();
    const second: AgentMessage[] = [];
    channel.onMessage((m) => second.push(m));
    input.write('{"type":"result","id":"e1","text":"2"}\n');
    await pollUntil(() => (second.length === 1 ? true : undefined), 2_000, 'the message');
    expect(messages).toEqual(second);
  });

  it('writes host messages to the output as JSON lines', () => {
    const { channel, output } = setup();
    channel.send({ type: 'hello', id: 'h1' });
    channel.send({ type: 'execute', id: 'e1', code: 'print(1)\nprint(2)', outputLimit: 1024 });
    const lines = readAll(output).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(JSON.parse(lines[0] ?? '')).toEqual({ type: 'hello', id: 'h1' });
    expect(JSON.parse(lines[1] ?? '')).toEqual({
      type: 'execute',
      id: 'e1',
      code: 'print(1)\nprint(2)',
      outputLimit: 1024,
    });
  });

  it('closes once when the input ends, calls dispose once, and reports a clean close', async () => {
    const { channel, input, dispose, closes } = setup();
    const inputClosed = once(input, 'close'); // 'end' and then 'close': both reach the channel
    input.end();
    await inputClosed;
    expect(channel.closed).toBe(true);
    expect(closes).toEqual([undefined]);
    expect(dispose).toHaveBeenCalledTimes(1);
  });

  it('reports the error message when the input fails', async () => {
    const { channel, input, closes } = setup();
    input.destroy(new Error('connection reset'));
    await pollUntil(() => (closes.length > 0 ? true : undefined), 2_000, 'the close');
    expect(channel.closed).toBe(true);
    expect(closes).toEqual(['connection reset']);
  });

  it('closes when the output fails', async () => {
    const { channel, output, closes } = setup();
    output.destroy(new Error('EPIPE'));
    await pollUntil(() => (closes.length > 0 ? true : undefined), 2_000, 'the close');
    expect(channel.closed).toBe(true);
    expect(closes).toEqual(['EPIPE']);
  });

  it('calls a close listener registered after the close at once, with the reason', async () => {
    const { channel, input } = setup();
    input.destroy(new Error('gone'));
    await pollUntil(() => (channel.closed ? true : undefined), 2_000, 'the close');
    const late: Array<string | undefined> = [];
    channel.onClose((reason) => late.push(reason));
    expect(late).toEqual(['gone']);
  });

  it('close() closes once, even when called again or followed by the end of the input', async () => {
    const { channel, input, dispose, closes } = setup();
    channel.close();
    channel.close();
    const inputClosed = once(input, 'close');
    input.end();
    await inputClosed;
    expect(channel.closed).toBe(true);
    expect(closes).toEqual([undefined]);
    expect(dispose).toHaveBeenCalledTimes(1);
  });

  it('still closes when dispose throws', () => {
    const input = new PassThrough();
    const channel = new LineChannel('socket', input, new PassThrough(), () => {
      throw new Error('already gone');
    });
    const closes: Array<string | undefined> = [];
    channel.onClose((reason) => closes.push(reason));
    expect(() => channel.close()).not.toThrow();
    expect(closes).toEqual([undefined]);
    expect(channel.kind).toBe('socket');
  });

  it('refuses to send after the close with CONTAINER_DIED', () => {
    const { channel, output } = setup();
    channel.close();
    let thrown: unknown;
    try {
      channel.send({ type: 'interrupt', id: 'e1' });
    } catch (error) {
      thrown = error;
    }
    expect(isSandpitError(thrown, 'CONTAINER_DIED')).toBe(true);
    expect(readAll(output)).toBe('');
  });

  it('closes with a reason when the agent sends a line longer than the host accepts', async () => {
    const { channel, input, messages, closes } = setup();
    input.write(Buffer.alloc(32 * 1024 * 1024 + 1, 0x61));
    input.write('\n{"type":"result","id":"e1","text":"2"}\n');
    await pollUntil(() => (channel.closed ? true : undefined), 5_000, 'the close');
    expect(closes).toEqual(['the agent sent a line longer than the host accepts']);
    expect(messages).toEqual([]);
  });
});

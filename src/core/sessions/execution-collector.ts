import type { Display, ExecutionError, StreamName } from '../../shared/domain/execution';
import type { AgentMessage, DoneMessage } from '../sandbox/protocol';

const MAX_DISPLAYS = 50;
const MAX_DISPLAY_BYTES = 16 * 1024 * 1024;
/** All the displays of one run together: what the host holds for a run, whatever the agent sends. */
const MAX_DISPLAY_TOTAL_BYTES = 32 * 1024 * 1024;
/** How many types of refused displays the note names. */
const MAX_NAMED_MIMES = 3;
const MAX_RESULT_CHARS = 256 * 1024;
const MAX_TRACEBACK_CHARS = 256 * 1024;

export interface CollectedOutput {
  stdout: string;
  stderr: string;
  truncated: { stdout: boolean; stderr: boolean };
  result?: string;
  error?: ExecutionError;
  displays: Display[];
  done?: DoneMessage;
}

export interface CollectorSink {
  output(stream: StreamName, text: string): void;
  display(display: Display): void;
}

/** Formats the visible marker that replaces output beyond the cap. */
export function truncationMarker(stream: StreamName, droppedBytes: number, limitBytes: number): string {
  const kib = Math.round(limitBytes / 1024);
  const more = droppedBytes > 0 ? `${droppedBytes} more bytes` : 'more output';
  return `\n[output truncated: ${more} of ${stream} not shown (limit ${kib} KiB per stream)]\n`;
}

/**
 * Accumulates one execution's messages with host-side caps (the agent is untrusted): output per
 * stream, number and size of displays, length of result and traceback. Forwards kept output live.
 */
export class ExecutionCollector {
  private readonly parts: Record<StreamName, string[]> = { stdout: [], stderr: [] };
  private readonly bytes: Record<StreamName, number> = { stdout: 0, stderr: 0 };
  private readonly dropped: Record<StreamName, number> = { stdout: 0, stderr: 0 };
  private readonly displays: Display[] = [];
  private displayBytes = 0;
  /** Displays refused by the caps: counted, and named in one note on stderr at the end (never one note each). */
  private refusedDisplays = 0;
  private readonly refusedMimes: string[] = [];
  private moreRefusedMimes = false;
  private result: string | undefined;
  private error: ExecutionError | undefined;
  private doneMessage: DoneMessage | undefined;

  constructor(
    private readonly limitBytes: number,
    private readonly sink: CollectorSink,
  ) {}

  get done(): DoneMessage | undefined {
    return this.doneMessage;
  }

  accept(message: AgentMessage): void {
    switch (message.type) {
      case 'stream':
        this.addOutput(message.name, message.text);
        break;
      case 'display':
        this.addDisplay({ mime: message.mime, data: message.data, encoding: message.encoding });
        break;
      case 'result':
        this.result = message.text.slice(0, MAX_RESULT_CHARS);
        break;
      case 'error':
        this.error = { name: message.name.slice(0, 200), value: message.value.slice(0, 10_000), traceback: message.traceback.slice(0, MAX_TRACEBACK_CHARS) };
        break;
      case 'done':
        this.doneMessage = message;
        break;
      default:
        break;
    }
  }

  /** Adds host-generated text (e.g. a note that the container was restarted) to a stream. */
  note(stream: StreamName, text: string): void {
    this.parts[stream].push(text);
  }

  snapshot(): CollectedOutput {
    const finish = (stream: StreamName): string => {
      const agentDropped = this.doneMessage?.dropped?.[stream] ?? 0;
      const dropped = this.dropped[stream] + agentDropped;
      const text = this.parts[stream].join('');
      const marked = dropped > 0 ? text + truncationMarker(stream, dropped, this.limitBytes) : text;
      return stream === 'stderr' && this.refusedDisplays > 0 ? marked + this.refusedNote() : marked;
    };
    const truncated = {
      stdout: this.dropped.stdout + (this.doneMessage?.dropped?.stdout ?? 0) > 0,
      stderr: this.dropped.stderr + (this.doneMessage?.dropped?.stderr ?? 0) > 0,
    };
    return {
      stdout: finish('stdout'),
      stderr: finish('stderr'),
      truncated,
      result: this.result,
      error: this.error,
      displays: [...this.displays],
      done: this.doneMessage,
    };
  }

  private addOutput(stream: StreamName, text: string): void {
    const size = Buffer.byteLength(text, 'utf8');
    const room = this.limitBytes - this.bytes[stream];
    if (room <= 0) {
      this.dropped[stream] += size;
      return;
    }
    let kept = text;
    if (size > room) {
      kept = Buffer.from(text, 'utf8').subarray(0, room).toString('utf8').replace(/\uFFFD$/, '');
      this.dropped[stream] += size - Buffer.byteLength(kept, 'utf8');
    }
    this.bytes[stream] += Buffer.byteLength(kept, 'utf8');
    this.parts[stream].push(kept);
    if (kept) this.sink.output(stream, kept);
  }

  private addDisplay(display: Display): void {
    const size = display.data.length;
    if (this.displays.length >= MAX_DISPLAYS || size > MAX_DISPLAY_BYTES || this.displayBytes + size > MAX_DISPLAY_TOTAL_BYTES) {
      this.refusedDisplays += 1;
      if (!this.refusedMimes.includes(display.mime)) {
        if (this.refusedMimes.length < MAX_NAMED_MIMES) this.refusedMimes.push(display.mime);
        else this.moreRefusedMimes = true;
      }
      return;
    }
    this.displayBytes += size;
    this.displays.push(display);
    this.sink.display(display);
  }

  private refusedNote(): string {
    const n = this.refusedDisplays;
    const mimes = `${this.refusedMimes.join(', ')}${this.moreRefusedMimes ? ', …' : ''}`;
    const mib = (bytes: number): number => bytes / 1024 / 1024;
    return (
      `\n[${n === 1 ? '1 output was' : `${n} outputs were`} not kept (${mimes}): more than ${MAX_DISPLAYS} outputs, ` +
      `over ${mib(MAX_DISPLAY_BYTES)} MiB each or over ${mib(MAX_DISPLAY_TOTAL_BYTES)} MiB in all]\n`
    );
  }
}

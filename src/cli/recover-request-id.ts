import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * The id of a JSON-RPC request that is too long to parse, from what was kept of it: its beginning (where
 * most encoders put `"jsonrpc"` and `"id"`) or its end (the SDK's client writes `method`, `params`,
 * `jsonrpc`, `id` in that order, so the id closes the message). Null when neither shows a top-level id,
 * or when the message is a response (a `result` or `error` before the id): those are not answered.
 */
export function recoverRequestId(head: string, tail: string): RequestId | null {
  const fromHead = idFromHead(head);
  if (fromHead !== undefined) return fromHead;
  return idFromTail(tail) ?? null;
}

/** A top-level `"id": <number or string>` followed by the object's last brace, at the very end. */
const TAIL_ID = /[{,]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\\n]|\\.)*")\s*\}\s*$/;

function idFromTail(tail: string): RequestId | undefined {
  const match = TAIL_ID.exec(tail);
  return match?.[1] === undefined ? undefined : toRequestId(match[1]);
}

/** Reads the top-level keys of the object that `text` begins (maybe cut short) until it finds `id`. */
function idFromHead(text: string): RequestId | null | undefined {
  const scan = new Scanner(text);
  if (!scan.take('{')) return undefined;
  for (;;) {
    const key = scan.string();
    if (key === undefined || !scan.take(':')) return undefined;
    if (key === 'result' || key === 'error') return null;
    if (key === 'id') {
      const raw = scan.scalar();
      // A value at the cut-off point may be incomplete: only one that a delimiter ends is trusted.
      if (raw === undefined || !(scan.peek(',') || scan.peek('}'))) return undefined;
      return toRequestId(raw);
    }
    if (!scan.skipValue() || !scan.take(',')) return undefined;
  }
}

function toRequestId(raw: string): RequestId | undefined {
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value === 'string') return value;
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  } catch {
    // not a literal after all
  }
  return undefined;
}

/** Just enough of a JSON tokenizer to walk the top level of an object that may be cut off anywhere. */
class Scanner {
  private at = 0;

  constructor(private readonly text: string) {}

  take(char: string): boolean {
    this.space();
    if (this.text[this.at] !== char) return false;
    this.at += 1;
    return true;
  }

  peek(char: string): boolean {
    this.space();
    return this.text[this.at] === char;
  }

  /** A complete string's value, or undefined. */
  string(): string | undefined {
    this.space();
    const raw = this.rawString();
    if (raw === undefined) return undefined;
    try {
      return JSON.parse(raw) as string;
    } catch {
      return undefined;
    }
  }

  /** The source text of a string or number literal (or true/false/null), or undefined. */
  scalar(): string | undefined {
    this.space();
    if (this.text[this.at] === '"') return this.rawString();
    const match = /^[-+.\w]+/.exec(this.text.slice(this.at, this.at + 64));
    if (!match) return undefined;
    this.at += match[0].length;
    return match[0];
  }

  /** Skips one value of any kind; false when the text ends inside it. */
  skipValue(): boolean {
    this.space();
    const first = this.text[this.at];
    if (first === '"') return this.rawString() !== undefined;
    if (first !== '{' && first !== '[') return this.scalar() !== undefined && this.at < this.text.length;
    let depth = 0;
    while (this.at < this.text.length) {
      const char = this.text[this.at];
      if (char === '"') {
        if (this.rawString() === undefined) return false;
        continue;
      }
      this.at += 1;
      if (char === '{' || char === '[') depth += 1;
      else if (char === '}' || char === ']') {
        depth -= 1;
        if (depth === 0) return true;
      }
    }
    return false;
  }

  private rawString(): string | undefined {
    if (this.text[this.at] !== '"') return undefined;
    let i = this.at + 1;
    while (i < this.text.length) {
      const char = this.text[i];
      if (char === '\\') i += 2;
      else if (char === '"') {
        const raw = this.text.slice(this.at, i + 1);
        this.at = i + 1;
        return raw;
      } else i += 1;
    }
    return undefined;
  }

  private space(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at] as string)) this.at += 1;
  }
}

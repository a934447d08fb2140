import { describe, expect, it } from 'vitest';
import { methods } from '../../shared/api/contract';
import { DEFAULT_HTTP_LIMITS } from '../http/http-limits';
import {
  describeToolInputLimits,
  formatSize,
  JSON_ESCAPE_FACTOR,
  MCP_MAX_MESSAGE_BYTES,
  TOOL_INPUT_LIMITS,
} from './mcp-limits';

const MIB = 1024 * 1024;

describe('MCP size limits', () => {
  it('fit the largest tool call a schema accepts, every character escaped to 6 bytes, with room to spare', () => {
    // What a client writes for write_file at its limits, with the worst characters JSON has.
    const request = {
      jsonrpc: '2.0',
      id: Number.MAX_SAFE_INTEGER,
      method: 'tools/call',
      params: {
        name: 'write_file',
        arguments: {
          path: '\u0001'.repeat(TOOL_INPUT_LIMITS.pathChars),
          content: '\u0002'.repeat(TOOL_INPUT_LIMITS.fileContentChars),
          session_id: '\u0003'.repeat(64),
          append: true,
        },
        _meta: { progressToken: 'p'.repeat(64) },
      },
    };
    const bytes = Buffer.byteLength(JSON.stringify(request));
    expect(bytes).toBeGreaterThan(JSON_ESCAPE_FACTOR * TOOL_INPUT_LIMITS.fileContentChars);
    expect(bytes + 2 * MIB).toBeLessThan(MCP_MAX_MESSAGE_BYTES);
    // No character escapes to more than the factor, whatever it is (a lone surrogate, a control character).
    for (const char of ['\u0000', '\u001f', '\ud800', '\udfff', '"', '\\', '\u2028', '\uffff']) {
      expect(Buffer.byteLength(JSON.stringify(char)) - 2).toBeLessThanOrEqual(JSON_ESCAPE_FACTOR);
    }
    expect(JSON_ESCAPE_FACTOR * TOOL_INPUT_LIMITS.codeChars).toBeLessThan(MCP_MAX_MESSAGE_BYTES);
    // Over HTTP the same call is one request body.
    expect(DEFAULT_HTTP_LIMITS.maxBodyBytes).toBeGreaterThanOrEqual(MCP_MAX_MESSAGE_BYTES);
  });

  it('never exceed what the API behind the tools accepts', () => {
    const at = (chars: number): string => 'a'.repeat(chars);
    expect(methods['sessions.execute'].input.safeParse({ code: at(TOOL_INPUT_LIMITS.codeChars) }).success).toBe(true);
    const write = { path: at(TOOL_INPUT_LIMITS.pathChars), content: at(TOOL_INPUT_LIMITS.fileContentChars) };
    expect(methods['files.write'].input.safeParse(write).success).toBe(true);
    expect(
      methods['sessions.runCommand'].input.safeParse({ command: at(TOOL_INPUT_LIMITS.commandChars) }).success,
    ).toBe(true);
  });

  it('are stated in the words a model reads', () => {
    expect(formatSize(MCP_MAX_MESSAGE_BYTES)).toBe('10 MiB');
    expect(formatSize(64 * 1024)).toBe('64 KiB');
    expect(formatSize(1000)).toBe('1000 B');
    expect(describeToolInputLimits()).toContain('execute_code code at most 1,048,576 characters');
    expect(describeToolInputLimits()).toContain('run_command command at most 65,536 characters');
  });
});

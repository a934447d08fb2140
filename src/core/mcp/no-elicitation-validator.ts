import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * The MCP server's JSON Schema validator. The SDK needs one only to check what a client answers to its
 * `elicitInput` helper, which Sandpit does not use: approval questions in the chat (chat-approval.ts) go out
 * as plain requests and their answers are checked against the offered choices there; tools' inputs and
 * outputs are checked with their zod schemas. Passing this one spares every MCP connection an
 * Ajv instance, and lets the CLI bundle leave Ajv out (see scripts/build-cli.mjs).
 */
export class NoElicitationValidator implements jsonSchemaValidator {
  getValidator<T>(_schema: JsonSchemaType): JsonSchemaValidator<T> {
    throw new Error('Sandpit checks the answers to its own questions in the chat itself (chat-approval.ts), so it has no JSON Schema validator.');
  }
}

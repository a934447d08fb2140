import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

/**
 * The MCP server's JSON Schema validator. The SDK needs one only to check what a client answers to an
 * elicitation (asking the person a question through the client), which Sandpit never does: its tools'
 * inputs and outputs are checked with their zod schemas. Passing this one spares every MCP connection an
 * Ajv instance, and lets the CLI bundle leave Ajv out (see scripts/build-cli.mjs).
 */
export class NoElicitationValidator implements jsonSchemaValidator {
  getValidator<T>(_schema: JsonSchemaType): JsonSchemaValidator<T> {
    throw new Error('Sandpit does not ask MCP clients for input (elicitation), so it has no JSON Schema validator for their answers.');
  }
}

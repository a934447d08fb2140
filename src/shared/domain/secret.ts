import { z } from 'zod';

/**
 * Secrets a sandbox can use but never read (issue 18): the egress proxy adds the value to requests for the
 * secret's own hosts; the sandbox holds only a placeholder. The value goes in once (`secrets.save`) and is
 * never sent back by any method.
 */

/** A secret's name: 1–40 lowercase letters, digits and inner hyphens (it is part of the placeholder). */
export const secretNameSchema = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/, 'a secret name is 1–40 lowercase letters, digits and inner hyphens')
  .describe('Name of the secret (openai, github, …)');

/** `api.example.com`, `api.example.com:8443` or `*.example.com`; checked further by the core (allowed-host rules). */
export const secretHostSchema = z
  .string()
  .min(1)
  .max(260)
  .regex(/^(\*\.)?[A-Za-z0-9_.-]+(:[0-9]{1,5})?$/, 'must be a host name, optionally with :port, and at most one leading *. label');

/** An HTTP header name (RFC 9110 token). */
export const headerNameSchema = z.string().min(1).max(100).regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name');

export const secretSendAsSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('header'),
    header: headerNameSchema.default('Authorization'),
    template: z
      .string()
      .min(1)
      .max(500)
      .regex(/\{value\}/, 'the template must contain {value}')
      .regex(/^[^\r\n\0]*$/, 'the template cannot contain line breaks')
      .default('Bearer {value}'),
  }),
  z.object({ kind: z.literal('basic'), username: z.string().min(0).max(200).regex(/^[^:\r\n\0]*$/, 'a user name cannot contain ":" or line breaks') }),
]);
export type SecretSendAs = z.infer<typeof secretSendAsSchema>;

export const envVarNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/, 'must be an environment variable name (letters, digits, _)');

/** What anyone may see of a secret: everything but its value. */
export const secretInfoSchema = z.object({
  name: secretNameSchema,
  hosts: z.array(secretHostSchema).min(1).max(20),
  sendAs: secretSendAsSchema,
  envVar: envVarNameSchema.describe('The variable that holds the placeholder inside the sandbox'),
  placeholder: z.string().describe('What the sandbox sees instead of the value'),
  environments: z.array(z.string()).describe('Ids of the environments whose sessions may use it'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type SecretInfo = z.infer<typeof secretInfoSchema>;

/** What an assistant sees of a secret an environment (or one session) may use: its name, hosts and variable. Never the value. */
export const secretUseSchema = z.object({
  name: secretNameSchema,
  hosts: z.array(z.string()),
  envVar: z.string(),
  forSession: z.literal(true).optional().describe('Ticked for this one session by the person in the panel (not one of its environment\'s)'),
});
export type SecretUse = z.infer<typeof secretUseSchema>;

/** A value must be one header-safe line: no CR, LF or NUL (a value with them could smuggle a header). */
export const secretValueSchema = z
  .string()
  .min(1)
  .max(8_192)
  .regex(/^[^\r\n\0]*$/, 'a secret value cannot contain line breaks');

export const secretSaveInputSchema = z.object({
  name: secretNameSchema,
  value: secretValueSchema.optional().describe('Required for a new secret; left out, a saved secret keeps its value'),
  hosts: z.array(secretHostSchema).min(1).max(20),
  sendAs: secretSendAsSchema.default({ kind: 'header', header: 'Authorization', template: 'Bearer {value}' }),
  envVar: envVarNameSchema.optional().describe('Default: the name in capitals with _API_KEY (openai → OPENAI_API_KEY)'),
  environments: z.array(z.string().max(48)).max(100).default([]),
});
export type SecretSaveInput = z.input<typeof secretSaveInputSchema>;

/** The placeholder a sandbox sees for a secret: `sandpit-secret-<name>`. */
export function secretPlaceholder(name: string): string {
  return `sandpit-secret-${name}`;
}

/** The default variable of a secret: openai → OPENAI_API_KEY. */
export function defaultEnvVar(name: string): string {
  return `${name.toUpperCase().replace(/-/g, '_')}_API_KEY`;
}

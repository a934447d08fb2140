import { z } from 'zod';

/** The engines Sandpit runs sandboxes on (a new engine adds its name here: the status and the port read it). */
export const ENGINE_PRODUCTS = ['docker', 'podman'] as const;
export type EngineProduct = (typeof ENGINE_PRODUCTS)[number];

/** Whether the engine answers, where it is, how it was found, and what to do when it does not answer. */
export const engineStatusSchema = z.object({
  state: z.enum(['up', 'down', 'connecting']),
  endpoint: z.string(),
  source: z.string().optional().describe('How the engine was found: "the Sandpit setting", "DOCKER_HOST", "docker context \\"x\\"", "Docker Desktop" …'),
  version: z.string().optional(),
  product: z.enum(ENGINE_PRODUCTS).optional().describe('Docker itself, or Podman through its Docker-compatible API (Strong isolation is not offered there)'),
  runtimes: z.array(z.string()).optional(),
  message: z.string().optional().describe('What is wrong, in plain words'),
  fix: z.string().optional().describe('How to fix it'),
});
export type EngineStatus = z.infer<typeof engineStatusSchema>;

/** An engine found on this computer that Settings offers. */
export const engineCandidateSchema = z.object({
  host: z.string().describe('The address, as Settings takes it'),
  source: z.string().describe('Where it was found'),
  inUse: z.boolean(),
  reachable: z.boolean(),
  version: z.string().optional(),
  problem: z.string().optional().describe('Why it does not answer, in plain words'),
});

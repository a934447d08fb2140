import { z } from 'zod';
import { partialLimitsSchema } from './limits';
import { installDiagnosisSchema, packageSpecSchema } from './packages';
import { isolationSchema } from './isolation';
import { shareFolderInputSchema } from './shared-folder';
import { hostEntrySchema } from './settings';
import { secretUseSchema } from './secret';
import { languageSchema } from './session';
import { FLAVOURS, FLAVOUR_ENTRIES, LANGUAGES, LANGUAGE_ENTRIES, defaultFlavourOf, languageLabel, languagesOf, packageManagerOf, runsOn } from './languages';
import type { Flavour, Language } from './languages';
import { APT_NAME, MANAGER_IDS, PACKAGE_MANAGERS, noPackages } from './package-managers';
import type { ManagerId } from './package-managers';

/**
 * Environments: a language, a base image flavour, packages and a network policy, built to an image
 * tagged by the hash of what goes into it (DESIGN §4).
 *
 * These schemas check shape only (lengths, enums, the apt name rule, which manager fits which
 * language, which base runs the language). Every spec is checked further by the store with its manager's
 * grammar (package-managers.ts, through `parsePackageSpec`), which also normalises it, so a definition is
 * only trusted once the store has accepted it.
 */

export const NETWORK_POLICY_MEANINGS = {
  none: 'No network at all (the default): the session reaches nothing outside its container',
  packages: `Only the configured package indexes (${MANAGER_IDS.filter((m) => PACKAGE_MANAGERS[m].indexSetting !== undefined).join(', ')}), through Sandpit's egress proxy`,
  open: 'Unrestricted outbound network',
} as const;

export const networkPolicySchema = z
  .enum(['none', 'packages', 'open'])
  .describe(
    `Network access of sessions: ${Object.entries(NETWORK_POLICY_MEANINGS)
      .map(([policy, meaning]) => `"${policy}" = ${meaning}`)
      .join('; ')}`,
  );
export type NetworkPolicy = z.infer<typeof networkPolicySchema>;

/** Executor image flavours (executor-image/bases.json), from the language registry. */
export const ENVIRONMENT_BASES = FLAVOURS;
export const environmentBaseSchema = z
  .enum(FLAVOURS)
  .describe(`Executor image flavour: ${FLAVOURS.map((f) => `"${f}" (${FLAVOUR_ENTRIES[f].words})`).join(', ')}`);
export type EnvironmentBase = Flavour;

/** The bases a language can run on; the first is its default (the registry's flavours). */
export const BASES_BY_LANGUAGE: Record<Language, readonly EnvironmentBase[]> = Object.fromEntries(
  LANGUAGES.map((language) => [language, LANGUAGE_ENTRIES[language].flavours]),
) as Record<Language, readonly EnvironmentBase[]>;

export function defaultBaseFor(language: Language): EnvironmentBase {
  return defaultFlavourOf(language);
}

export { APT_NAME };
/** How environment names are compared (an assistant finds one by name): spaces collapsed, capitals ignored. Two may not be equal so. */
export function environmentNameKey(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Why `name` cannot be given to an environment (another one is called so), or undefined. */
export function nameTakenMessage(name: string, others: ReadonlyArray<{ name: string }>): string | undefined {
  const key = environmentNameKey(name);
  const same = others.find((e) => environmentNameKey(e.name) === key);
  return same ? `An environment is already called “${same.name}” (capitals and spaces do not tell names apart). Choose another name.` : undefined;
}

export const ENVIRONMENT_ID = /^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/;
const MAX_PACKAGES = 200;

const aptNameSchema = z.string().max(100).regex(APT_NAME, 'apt package names are lowercase letters, digits and + . -');
/** One manager's list, as a caller writes it: shape only (the store applies the manager's grammar). */
function specListSchema(manager: ManagerId): z.ZodArray<z.ZodString> {
  return z.array(manager === 'apt' ? aptNameSchema : packageSpecSchema).max(MAX_PACKAGES);
}
function managerDescription(manager: ManagerId): string {
  const entry = PACKAGE_MANAGERS[manager];
  const languages = entry.layer === 'system' ? 'any language' : languagesOf(manager).join(', ');
  return `${entry.label}, e.g. "${entry.example}" (${languages})`;
}
/** An object with one key per manager of the registry. */
function perManager<S extends z.ZodType>(make: (manager: ManagerId) => S): z.ZodObject<{ [M in ManagerId]: S }> {
  return z.object(Object.fromEntries(MANAGER_IDS.map((m) => [m, make(m)])) as { [M in ManagerId]: S });
}
/** The packages of an environment, keyed by manager (package-managers.ts); a manager left out has none. */
const packageListsSchema = perManager((m) => specListSchema(m).default([]).describe(managerDescription(m)));
export type PackageLists = Record<ManagerId, string[]>;

const nameSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[^\p{Cc}]*$/u, 'a name cannot contain control characters')
  .describe('Display name');
const descriptionSchema = z.string().max(1_000).describe('What the environment is for');

/** Fields shared by the definition (input and resolved) and the stored environment. */
const definitionShape = {
  name: nameSchema,
  language: languageSchema,
  packages: packageListsSchema.default(noPackages()),
  network: networkPolicySchema.default('none'),
  limits: partialLimitsSchema.default({}).describe('Default limits of sessions in this environment'),
  isolation: isolationSchema.optional().describe('Isolation of its sessions; default: the Settings default'),
  allowedHosts: z
    .array(hostEntrySchema)
    .max(100)
    .default([])
    .describe('With the network policy "packages": more hosts its sessions may reach besides the package indexes (files.example.org, *.example.org)'),
  description: descriptionSchema.optional(),
  folders: z
    .array(shareFolderInputSchema)
    .max(20)
    .optional()
    .describe('Folders of this computer every session of this environment gets (checked when saved and again when a session starts)'),
};

interface RuleInput {
  language: Language;
  base?: EnvironmentBase | undefined;
  packages: Record<ManagerId, string[]>;
}

/**
 * Why sessions of `language` cannot run on `base`, in the words the form shows under its "Starting point"
 * (the base's agent does not run the language: bash on the node image), or undefined when it can.
 */
export function baseRefusal(language: Language, base: EnvironmentBase): string | undefined {
  if (runsOn(language, base)) return undefined;
  const bases = BASES_BY_LANGUAGE[language].map((b) => `"${b}"`).join(' or ');
  return `${language} runs on base ${bases}, not "${base}": ${languageLabel(language)} code cannot run on the "${base}" image, whose agent does not run ${languageLabel(language)}. Choose ${bases}.`;
}

/** Cross-field rules: the installer must fit the language, the base must run it. */
function checkDefinitionRules(value: RuleInput, ctx: z.RefinementCtx): void {
  const { language, base, packages } = value;
  for (const manager of MANAGER_IDS) {
    if (PACKAGE_MANAGERS[manager].layer === 'language' && packages[manager].length > 0 && packageManagerOf(language) !== manager) {
      ctx.addIssue({ code: 'custom', path: ['packages', manager], message: `${manager} packages need language ${languagesOf(manager).join(' or ')}` });
    }
  }
  const refusal = base === undefined ? undefined : baseRefusal(language, base);
  if (refusal !== undefined) ctx.addIssue({ code: 'custom', path: ['base'], message: refusal });
}

/**
 * What a caller sends to create an environment. `base` may be left out: it defaults by language
 * (python → python, javascript → node, bash → python); see `resolveDefinition`. No transforms, so
 * the schema converts to JSON Schema (MCP, forms) as it is.
 */
export const environmentDefinitionInputSchema = z
  .object({
    ...definitionShape,
    base: environmentBaseSchema.optional().describe('Executor image flavour; default by language: python → python, javascript → node, bash → python'),
  })
  .superRefine(checkDefinitionRules);
export type EnvironmentDefinitionInput = z.input<typeof environmentDefinitionInputSchema>;

/** A definition with its base resolved: what is stored and hashed. */
export const environmentDefinitionSchema = z
  .object({ ...definitionShape, base: environmentBaseSchema })
  .superRefine(checkDefinitionRules);
export type EnvironmentDefinition = z.output<typeof environmentDefinitionSchema>;

/** Parses a definition (throws a ZodError) and fills in the default base of its language. */
export function resolveDefinition(input: unknown): EnvironmentDefinition {
  const parsed = environmentDefinitionInputSchema.parse(input);
  return { ...parsed, base: parsed.base ?? defaultBaseFor(parsed.language) };
}

/**
 * A change to an environment: every field optional, none defaulted. `packages` replaces the lists it
 * names (the others stay), `limits` replaces the limits, an empty `description` removes it.
 */
export const environmentPatchSchema = z.object({
  name: nameSchema.optional(),
  language: languageSchema.optional(),
  base: environmentBaseSchema.optional(),
  packages: perManager((m) => specListSchema(m).optional()).optional(),
  network: networkPolicySchema.optional(),
  limits: partialLimitsSchema.optional(),
  isolation: isolationSchema.nullable().optional().describe('null: back to the Settings default'),
  allowedHosts: z.array(hostEntrySchema).max(100).optional(),
  description: descriptionSchema.optional(),
  folders: z.array(shareFolderInputSchema).max(20).optional().describe('Replaces the list; [] shares none'),
});
export type EnvironmentPatch = z.infer<typeof environmentPatchSchema>;

export const environmentIdSchema = z
  .string()
  .regex(ENVIRONMENT_ID, 'an environment id is 1–48 lowercase letters, digits and inner hyphens')
  .describe('Environment id (a slug of its name)');

/** The last image that built successfully. */
export const environmentImageSchema = z.object({
  tag: z.string().min(1).max(256),
  builtAt: z.string(),
  hash: z.string().regex(/^[a-f0-9]{64}$/).describe('definitionHash of what the image was built from'),
});
export type EnvironmentImage = z.infer<typeof environmentImageSchema>;

export const BUILD_STATES = ['idle', 'building', 'failed', 'ready'] as const;
export const buildStateSchema = z.enum(BUILD_STATES);
export type BuildState = z.infer<typeof buildStateSchema>;

export const environmentBuildSchema = z.object({
  state: buildStateSchema,
  error: z.string().max(10_000).optional().describe('Why the last build failed, in plain words'),
  failedPackage: z.string().max(200).optional().describe('The package that could not be installed'),
  diagnosis: installDiagnosisSchema.optional().describe('The cause, the packages it hit and what to do'),
  /** The end of the last failed build's log (the raw details, one click away). */
  logTail: z.array(z.string().max(2_000)).max(200).optional(),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
});
export type EnvironmentBuild = z.infer<typeof environmentBuildSchema>;

export const environmentSchema = z
  .object({
    ...definitionShape,
    base: environmentBaseSchema,
    id: environmentIdSchema,
    preset: z.boolean().describe('Built in: cannot be edited or deleted, only copied'),
    createdAt: z.string(),
    updatedAt: z.string(),
    image: environmentImageSchema.optional(),
    build: environmentBuildSchema.optional(),
  })
  .superRefine(checkDefinitionRules);
export type Environment = z.infer<typeof environmentSchema>;

/** Whether sessions can start from an environment now, as an assistant or a person needs to know it. */
export const ENVIRONMENT_STATES = ['ready', 'building', 'failed', 'not-built'] as const;
export const environmentStatusSchema = z.object({
  state: z
    .enum(ENVIRONMENT_STATES)
    .describe('ready: sessions start at once; building: being built now; failed: the last build failed (see message); not-built: built when a session first needs it'),
  message: z.string().describe('The state in plain words (for failed: why, and what to do)'),
});
export type EnvironmentStatus = z.infer<typeof environmentStatusSchema>;

/** An environment as every surface shows it: its definition, its build record and its status now. */
export const environmentViewSchema = z.intersection(
  environmentSchema,
  z.object({
    status: environmentStatusSchema,
    // Secrets (issue 18): what its sessions may use, by name and host; attached in the panel only, never a value.
    secrets: z.array(secretUseSchema).optional().describe('Secrets its sessions may use (names, hosts, the variable holding the placeholder); the egress proxy adds the value for those hosts only'),
  }),
);
export type EnvironmentView = z.infer<typeof environmentViewSchema>;

/** A line of an imported file that Sandpit does not install, and why (never dropped silently). */
export const unsupportedEntrySchema = z.object({
  line: z.number().int().min(1),
  text: z.string(),
  reason: z.string(),
});
export type UnsupportedEntry = z.infer<typeof unsupportedEntrySchema>;

/** What an import of requirements.txt, package.json or environment.yml yields. */
export const importedDependenciesSchema = z.object({
  language: languageSchema.describe('The language the file implies'),
  name: z.string().optional().describe('A name found in the file (package.json, environment.yml)'),
  packages: z.partialRecord(z.enum(MANAGER_IDS), z.array(z.string())).describe('The packages found, keyed by manager'),
  unsupported: z.array(unsupportedEntrySchema),
});
export type ImportedDependencies = z.infer<typeof importedDependenciesSchema>;

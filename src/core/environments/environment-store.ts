import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { SandpitError, toErrorBody } from '../../shared/api/errors';
import {
  nameTakenMessage,
  baseRefusal,
  environmentBaseSchema,
  BASES_BY_LANGUAGE,
  defaultBaseFor,
  ENVIRONMENT_ID,
  environmentBuildSchema,
  environmentImageSchema,
  environmentPatchSchema,
  environmentSchema,
  resolveDefinition,
} from '../../shared/domain/environment';
import type {
  Environment,
  EnvironmentBuild,
  EnvironmentDefinition,
  EnvironmentDefinitionInput,
  EnvironmentImage,
  EnvironmentPatch,
} from '../../shared/domain/environment';
import { languageSchema } from '../../shared/domain/session';
import { createLogger } from '../log';
import type { Logger } from '../log';
import { syncFolder, writeFileAtomic } from '../util/atomic-write';
import { SerialQueue } from '../util/serial-queue';
import { isPresetId, presetDefinitions, PRESET_TIMESTAMP } from './environment-presets';
import type { PresetDefinition, PresetOptions } from './environment-presets';
import { parsePackageSpec } from '../installers/package-specs';
import { checkAllowedHost } from '../egress/allowed-host-check';
import { MANAGER_IDS, PACKAGE_MANAGERS } from '../../shared/domain/package-managers';
import type { ManagerId } from '../../shared/domain/package-managers';

export interface EnvironmentStoreOptions {
  /** One `<id>.json` per environment, e.g. `$SANDPIT_HOME/environments`. Nothing is written outside it. */
  dir: string;
  /** Where corrupt files are reported. Default: the stderr logger. */
  logger?: Logger;
  /** Which presets to offer. Default `{ offlineBase: true }` (bases.json bootstraps python-data from Debian). */
  presets?: PresetOptions;
  /** Clock for createdAt/updatedAt (tests). */
  now?: () => Date;
}

const DIR_MODE = 0o700;
const MAX_FILE_BYTES = 1024 * 1024;
const FILE_NAME = /^([a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?)\.json$/;

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

function invalid(error: unknown, what: string): never {
  // The fields it is about, so a form shows the words at the field (the base a language cannot run on).
  if (error instanceof z.ZodError) throw new SandpitError('INVALID_INPUT', `Invalid ${what}: ${toErrorBody(error).message}`, { fields: error.issues.map((i) => i.path.join('.')) });
  throw error;
}

/** Every spec of one manager through its grammar (normalised), a name listed twice (as the manager compares names) refused. */
function checkSpecs(specs: string[], manager: ManagerId): string[] {
  const seen = new Set<string>();
  return specs.map((input) => {
    const spec = parsePackageSpec(input, manager);
    const key = PACKAGE_MANAGERS[manager].compareKey(spec.name);
    if (seen.has(key)) throw new SandpitError('INVALID_INPUT', `"${spec.name}" is listed twice in the ${manager} packages`, { package: input });
    seen.add(key);
    return spec.raw;
  });
}

/**
 * Checks a definition completely: shape and cross-field rules (zod), then every pip and npm spec
 * with parsePackageSpec (the first bad one is named), duplicates refused; specs come back normalised.
 */
export function validateDefinition(input: unknown): EnvironmentDefinition {
  let definition: EnvironmentDefinition;
  try {
    definition = resolveDefinition(input);
  } catch (error) {
    invalid(error, 'environment');
  }
  const { description, ...rest } = definition;
  const allowedHosts = definition.allowedHosts.map((entry, i) => {
    try {
      return checkAllowedHost(entry);
    } catch (error) {
      throw new SandpitError('INVALID_INPUT', `allowedHosts.${i}: ${error instanceof Error ? error.message : String(error)}`, { fields: [`allowedHosts.${i}`] });
    }
  });
  return {
    ...rest,
    allowedHosts: [...new Set(allowedHosts)],
    packages: Object.fromEntries(MANAGER_IDS.map((m) => [m, checkSpecs(definition.packages[m], m)])) as Record<ManagerId, string[]>,
    ...(description ? { description } : {}),
  };
}

/**
 * A stored environment as an earlier Sandpit wrote it, brought to today's shape before it is validated like a
 * person's input: a manager it left out has no packages, and a base its language cannot run on (bash on the
 * node image, which older versions accepted and whose sessions then failed at the agent's hello) moves to the
 * language's default base. A manager the registry does not know is refused (the file is skipped): nothing is guessed.
 */
export function migrateStored(raw: unknown, note: (what: string) => void): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const record = raw as Record<string, unknown>;
  const packages = record.packages;
  if (typeof packages === 'object' && packages !== null && !Array.isArray(packages)) {
    const unknown = Object.keys(packages).filter((key) => !(MANAGER_IDS as readonly string[]).includes(key));
    if (unknown.length > 0) throw new Error(`it lists packages of a manager Sandpit does not have: ${unknown.join(', ')}`);
  }
  const language = languageSchema.safeParse(record.language);
  const base = environmentBaseSchema.safeParse(record.base);
  if (language.success && base.success && baseRefusal(language.data, base.data) !== undefined) {
    note(`moved an environment to the "${defaultBaseFor(language.data)}" base: ${language.data} cannot run on "${base.data}"`);
    return { ...record, base: defaultBaseFor(language.data) };
  }
  return record;
}

/** A file-name-safe id from a display name: lowercase ASCII letters, digits and hyphens. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug === '' ? 'environment' : slug;
}

/** The definition part of an environment (what create and update accept). */
function definitionOf(environment: Environment): EnvironmentDefinition {
  const { name, language, base, packages, network, limits, isolation, allowedHosts, description, folders } = environment;
  return {
    name,
    language,
    base,
    packages,
    network,
    limits,
    allowedHosts,
    ...(isolation === undefined ? {} : { isolation }),
    ...(description === undefined ? {} : { description }),
    ...(folders?.length ? { folders } : {}),
  };
}

/**
 * Environments on disk: `<dir>/<id>.json` (0600, folder 0700), each written atomically (temp file,
 * fsync, rename) one at a time. Presets live in code and are merged in; a preset's file only keeps
 * its build state. Corrupt files are skipped with a warning, never fatal.
 */
export class EnvironmentStore {
  readonly dir: string;
  private readonly logger: Logger;
  private readonly now: () => Date;
  private readonly presets: PresetDefinition[];
  private readonly writes = new SerialQueue();
  /** Corrupt files already reported (path, size and mtime), so a polling list() logs each once. */
  private readonly reported = new Set<string>();

  constructor(options: EnvironmentStoreOptions) {
    this.dir = resolve(options.dir);
    this.logger = options.logger ?? createLogger({ component: 'environment-store' });
    this.now = options.now ?? ((): Date => new Date());
    this.presets = presetDefinitions(options.presets ?? { offlineBase: true });
  }

  /** Presets first (in their order), then the user's environments by name. */
  async list(): Promise<Environment[]> {
    const stored = await this.readAll();
    const presets = this.presets.map((preset) => this.presetEnvironment(preset, stored.get(preset.id)));
    const own = [...stored.values()]
      .filter((environment) => !isPresetId(environment.id))
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    return [...presets, ...own];
  }

  async get(id: string): Promise<Environment> {
    this.assertId(id);
    const preset = this.presets.find((p) => p.id === id);
    const stored = await this.readOne(id);
    if (preset !== undefined) return this.presetEnvironment(preset, stored);
    if (stored === undefined) throw new SandpitError('NOT_FOUND', `No environment "${id}"`);
    return stored;
  }

  /** Adds an environment; its id is the slug of its name, with `-2`, `-3`… when taken. */
  async create(input: EnvironmentDefinitionInput): Promise<Environment> {
    const definition = validateDefinition(input);
    return this.writes.run(async () => {
      await this.refuseTakenName(definition.name);
      const at = this.now().toISOString();
      const environment = this.record({ ...definition, id: await this.freeId(definition.name), preset: false, createdAt: at, updatedAt: at });
      await this.write(environment);
      this.logger.info('created environment', { environmentId: environment.id });
      return environment;
    });
  }

  /** A new, editable environment with the same definition (not the build state), named "<name> (copy)" by default. */
  async copy(id: string, options: { name?: string } = {}): Promise<Environment> {
    const source = await this.get(id);
    return this.create({ ...definitionOf(source), name: options.name ?? (await this.freeCopyName(source.name)) });
  }

  /** "<name> (copy)", else "<name> (copy 2)", "(copy 3)"… : the first no environment is called. */
  private async freeCopyName(name: string): Promise<string> {
    const all = await this.list();
    for (let n = 1; n < 1_000; n += 1) {
      const suffix = n === 1 ? ' (copy)' : ` (copy ${n})`;
      const candidate = `${name.slice(0, 64 - suffix.length)}${suffix}`;
      if (nameTakenMessage(candidate, all) === undefined) return candidate;
    }
    throw new SandpitError('CONFLICT', `Too many copies of "${name}"`);
  }

  /** Two environments may not have the same name (ignoring capitals and spaces): an assistant picks one by its name. */
  private async refuseTakenName(name: string, exceptId?: string): Promise<void> {
    const problem = nameTakenMessage(name, (await this.list()).filter((e) => e.id !== exceptId));
    if (problem) throw new SandpitError('CONFLICT', problem, { field: 'name' });
  }

  /** Changes the definition; the last good image and the build state are kept (the hash tells if it is stale). */
  async update(id: string, patch: EnvironmentPatch): Promise<Environment> {
    this.assertId(id);
    this.refusePreset(id, 'edited');
    let change: EnvironmentPatch;
    try {
      change = environmentPatchSchema.parse(patch);
    } catch (error) {
      invalid(error, 'change');
    }
    return this.writes.run(async () => {
      const current = await this.get(id);
      if (change.name !== undefined) await this.refuseTakenName(change.name, id);
      const language = change.language ?? current.language;
      // A new language that cannot run on the current base moves to its default base.
      const base = change.base ?? (BASES_BY_LANGUAGE[language].includes(current.base) ? current.base : defaultBaseFor(language));
      const description = change.description ?? current.description;
      const isolation = change.isolation === null ? undefined : (change.isolation ?? current.isolation);
      const folders = change.folders ?? current.folders;
      const definition = validateDefinition({
        ...(folders?.length ? { folders } : {}),
        ...(isolation === undefined ? {} : { isolation }),
        name: change.name ?? current.name,
        language,
        base,
        packages: { ...current.packages, ...change.packages },
        network: change.network ?? current.network,
        limits: change.limits ?? current.limits,
        allowedHosts: change.allowedHosts ?? current.allowedHosts,
        ...(description ? { description } : {}),
      });
      const { image, build } = current;
      const environment = this.record({
        ...definition,
        id,
        preset: false,
        createdAt: current.createdAt,
        updatedAt: this.now().toISOString(),
        ...(image ? { image } : {}),
        ...(build ? { build } : {}),
      });
      await this.write(environment);
      return environment;
    });
  }

  async remove(id: string): Promise<void> {
    this.assertId(id);
    this.refusePreset(id, 'deleted');
    await this.writes.run(async () => {
      try {
        await unlink(this.fileOf(id));
      } catch (error) {
        if (isMissing(error)) throw new SandpitError('NOT_FOUND', `No environment "${id}"`);
        throw error;
      }
      this.logger.info('removed environment', { environmentId: id });
    });
  }

  /** Records the builder's progress (presets too). Does not touch updatedAt. */
  async setBuild(id: string, build: EnvironmentBuild): Promise<Environment> {
    let checked: EnvironmentBuild;
    try {
      checked = environmentBuildSchema.parse(build);
    } catch (error) {
      invalid(error, 'build state');
    }
    return this.writes.run(async () => this.writeState(await this.get(id), { build: checked }));
  }

  /**
   * Records the last image that built successfully (presets too) with the build's state, in one write (the first
   * session of a fresh data folder waits for it). Does not touch updatedAt.
   */
  async setBuilt(id: string, image: EnvironmentImage, build: EnvironmentBuild): Promise<Environment> {
    let checked: { image: EnvironmentImage; build: EnvironmentBuild };
    try {
      checked = { image: environmentImageSchema.parse(image), build: environmentBuildSchema.parse(build) };
    } catch (error) {
      invalid(error, 'image or build state');
    }
    return this.writes.run(async () => this.writeState(await this.get(id), checked));
  }

  private async writeState(current: Environment, state: { build?: EnvironmentBuild; image?: EnvironmentImage }): Promise<Environment> {
    const environment = this.record({ ...current, ...state });
    await this.write(environment);
    return environment;
  }

  private assertId(id: string): void {
    if (typeof id !== 'string' || !ENVIRONMENT_ID.test(id)) {
      throw new SandpitError('INVALID_INPUT', `"${String(id)}" is not an environment id (1–48 lowercase letters, digits and hyphens)`);
    }
  }

  private refusePreset(id: string, action: string): void {
    if (isPresetId(id)) throw new SandpitError('CONFLICT', `"${id}" is a preset and cannot be ${action}; copy it instead`, { environmentId: id });
  }

  private presetEnvironment(preset: PresetDefinition, stored: Environment | undefined): Environment {
    return this.record({
      ...preset.definition,
      id: preset.id,
      preset: true,
      createdAt: PRESET_TIMESTAMP,
      updatedAt: PRESET_TIMESTAMP,
      ...(stored?.image ? { image: stored.image } : {}),
      ...(stored?.build ? { build: stored.build } : {}),
    });
  }

  /** Fixes the key order of what is written and returned. */
  private record(environment: Environment): Environment {
    const { id, name, description, language, base, packages, network, limits, isolation, allowedHosts, folders, preset, createdAt, updatedAt, image, build } = environment;
    return {
      id,
      name,
      ...(description === undefined ? {} : { description }),
      language,
      base,
      packages,
      network,
      limits,
      allowedHosts: allowedHosts ?? [],
      ...(isolation === undefined ? {} : { isolation }),
      ...(folders?.length ? { folders } : {}),
      preset,
      createdAt,
      updatedAt,
      ...(image === undefined ? {} : { image }),
      ...(build === undefined ? {} : { build }),
    };
  }

  private fileOf(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  private async freeId(name: string): Promise<string> {
    const slug = slugify(name);
    const taken = new Set(await this.fileIds());
    for (let n = 1; n < 1_000; n += 1) {
      const id = n === 1 ? slug : `${slug}-${n}`;
      if (!isPresetId(id) && !taken.has(id)) return id;
    }
    throw new SandpitError('CONFLICT', `Too many environments named like "${name}"`);
  }

  /** Ids of every `<id>.json` entry, readable or not (a corrupt file still holds its id). */
  private async fileIds(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
    return names.flatMap((name) => FILE_NAME.exec(name)?.[1] ?? []);
  }

  private async readAll(): Promise<Map<string, Environment>> {
    const result = new Map<string, Environment>();
    for (const id of await this.fileIds()) {
      const environment = await this.readOne(id);
      if (environment !== undefined) result.set(id, environment);
    }
    return result;
  }

  /** The stored environment, or undefined when missing or unreadable (logged). */
  private async readOne(id: string): Promise<Environment | undefined> {
    const path = this.fileOf(id);
    let version = path;
    const skip = (reason: string): undefined => {
      if (!this.reported.has(version)) this.logger.warn('skipped a corrupt environment file', { path, reason });
      this.reported.add(version);
      return undefined;
    };
    try {
      const info = await lstat(path);
      version = `${path}:${info.size}:${info.mtimeMs}`;
      if (!info.isFile()) return skip('not a regular file');
      if (info.size > MAX_FILE_BYTES) return skip('too large');
      const parsed = environmentSchema.safeParse(migrateStored(JSON.parse(await readFile(path, 'utf8')) as unknown, (note) => this.logger.warn(note, { path })));
      if (!parsed.success) return skip(toErrorBody(parsed.error).message);
      if (parsed.data.id !== id) return skip(`it holds environment "${parsed.data.id}"`);
      // A host entered before such hosts were refused is left out (the proxy never let it through), not the environment.
      const allowedHosts = parsed.data.allowedHosts.filter((entry) => {
        try {
          checkAllowedHost(entry);
          return true;
        } catch (error) {
          this.logger.warn('left out an allowed host no sandbox may reach', { path, host: entry, reason: toErrorBody(error).message });
          return false;
        }
      });
      const definition = validateDefinition(definitionOf({ ...parsed.data, allowedHosts }));
      // Presets live in code: a file can only claim to be one through its id.
      return this.record({ ...parsed.data, ...definition, preset: isPresetId(id) });
    } catch (error) {
      if (isMissing(error)) return undefined;
      return skip(error instanceof Error ? error.message : String(error));
    }
  }

  private async write(environment: Environment): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: DIR_MODE });
    // A dot name for the temp file: never taken for an environment, and hidden from listings.
    const temp = join(this.dir, `.${environment.id}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await writeFileAtomic(this.fileOf(environment.id), `${JSON.stringify(environment, null, 2)}\n`, temp);
    } catch (error) {
      this.logger.error('failed to write an environment', { environmentId: environment.id, error: String(error) });
      throw error;
    }
    await syncFolder(this.dir);
  }
}

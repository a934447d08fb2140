import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { SandpitError } from '../../shared/api/errors';
import { defaultEnvVar, secretInfoSchema, secretPlaceholder, secretSaveInputSchema } from '../../shared/domain/secret';
import type { SecretInfo, SecretSaveInput, SecretSendAs, SecretUse } from '../../shared/domain/secret';
import { writeFileAtomic } from '../util/atomic-write';
import { SerialQueue } from '../util/serial-queue';
import type { SecretCipher } from './secret-cipher';
import { parseSecretHost, secretHostText } from './secret-hosts';
import type { SecretHost } from './secret-hosts';

const recordSchema = secretInfoSchema.omit({ placeholder: true }).extend({ sealed: z.string().min(1).max(20_000) });
type SecretRecord = z.infer<typeof recordSchema>;
const fileSchema = z.object({ version: z.literal(1), secrets: z.array(recordSchema).max(200) });

/** A secret as the egress proxy uses it: the value, unsealed in this process only. */
export interface UsableSecret {
  name: string;
  hosts: SecretHost[];
  sendAs: SecretSendAs;
  placeholder: string;
  value: string;
}

/**
 * The secrets a person saved (Settings → Secrets), in `secrets.json` of the data folder: everything but the
 * value in clear, the value sealed by the cipher (a key file, or the OS keychain). No method returns a value:
 * `usable` hands unsealed values to the egress proxy of this process, nothing else.
 */
export class SecretStore {
  private records: SecretRecord[] | undefined;
  /** Unsealed values, by name (this process's memory only). */
  private readonly values = new Map<string, string>();
  private readonly writes = new SerialQueue();

  constructor(
    private readonly deps: {
      path: string;
      cipher: SecretCipher;
      /** Told after each change is on disk, with the names of the secrets it touched (never a value). Must not throw. */
      onChange?: (names: string[]) => void;
    },
  ) {}

  get protection(): SecretCipher['protection'] {
    return this.deps.cipher.protection;
  }

  async list(): Promise<SecretInfo[]> {
    return (await this.load()).map(toInfo);
  }

  /**
   * The secrets an environment's sessions may use — and, with `forSession`, one session besides (the names the person
   * ticked for it; a name no secret has is left out): names, hosts and variables, never values.
   */
  async usesOf(environmentId: string | undefined, forSession: readonly string[] = []): Promise<SecretUse[]> {
    return (await this.load())
      .filter((r) => attached(r, environmentId, forSession))
      .map((r) => ({ name: r.name, hosts: r.hosts, envVar: r.envVar, ...(forSession.includes(r.name) ? { forSession: true as const } : {}) }));
  }

  /** The names no saved secret has. */
  async unknown(names: readonly string[]): Promise<string[]> {
    const records = await this.load();
    return [...new Set(names)].filter((name) => !records.some((r) => r.name === name));
  }

  /** Adds a secret or changes one; a value left out keeps the saved one (a new secret needs one). */
  save(input: SecretSaveInput): Promise<SecretInfo> {
    return this.writes.run(async () => {
      const parsed = secretSaveInputSchema.parse(input);
      const hosts = [...new Set(parsed.hosts.map((h) => secretHostText(parseSecretHost(h))))];
      const records = await this.load();
      const old = records.find((r) => r.name === parsed.name);
      if (!old && parsed.value === undefined) throw new SandpitError('INVALID_INPUT', `The secret "${parsed.name}" is new: give its value.`);
      const envVar = parsed.envVar ?? old?.envVar ?? defaultEnvVar(parsed.name);
      const clash = records.find((r) => r.name !== parsed.name && r.envVar === envVar);
      if (clash) throw new SandpitError('CONFLICT', `The variable ${envVar} is the secret "${clash.name}"'s already: choose another one.`);
      const now = new Date().toISOString();
      const sealed = parsed.value === undefined ? old?.sealed : (await this.deps.cipher.seal(Buffer.from(parsed.value, 'utf8'), parsed.name)).toString('base64');
      if (sealed === undefined) throw new SandpitError('INTERNAL', 'A saved secret lost its sealed value.');
      const record: SecretRecord = { name: parsed.name, hosts, sendAs: parsed.sendAs, envVar, environments: [...new Set(parsed.environments)], createdAt: old?.createdAt ?? now, updatedAt: now, sealed };
      const next = [...records.filter((r) => r.name !== parsed.name), record].sort((a, b) => a.name.localeCompare(b.name));
      await this.persist(next, [parsed.name]);
      if (parsed.value !== undefined) this.values.set(parsed.name, parsed.value);
      return toInfo(record);
    });
  }

  delete(name: string): Promise<void> {
    return this.writes.run(async () => {
      const records = await this.load();
      if (!records.some((r) => r.name === name)) throw new SandpitError('NOT_FOUND', `There is no secret "${name}".`);
      await this.persist(records.filter((r) => r.name !== name), [name]);
      this.values.delete(name);
    });
  }

  /** Forgets an environment that is gone from every secret's list. */
  forgetEnvironment(environmentId: string): Promise<void> {
    return this.writes.run(async () => {
      const records = await this.load();
      const touched = records.filter((r) => r.environments.includes(environmentId)).map((r) => r.name);
      if (touched.length === 0) return;
      await this.persist(records.map((r) => ({ ...r, environments: r.environments.filter((e) => e !== environmentId) })), touched);
    });
  }

  /**
   * The host names the secrets of an environment (and of one session's own, `forSession`) may go to (allow-list
   * entries, no ports), from what is loaded; call list() once first.
   */
  loadedHostsOf(environmentId: string | undefined, forSession: readonly string[] = []): string[] {
    return (this.records ?? []).filter((r) => attached(r, environmentId, forSession)).flatMap((r) => r.hosts.map((h) => parseSecretHost(h).host));
  }

  /** The secrets of an environment (and of one session's own, `forSession`) with their values, for the egress proxy. */
  async usable(environmentId: string | undefined, forSession: readonly string[] = []): Promise<UsableSecret[]> {
    const records = (await this.load()).filter((r) => attached(r, environmentId, forSession));
    return Promise.all(
      records.map(async (r) => ({
        name: r.name,
        hosts: r.hosts.map(parseSecretHost),
        sendAs: r.sendAs,
        placeholder: secretPlaceholder(r.name),
        value: await this.valueOf(r),
      })),
    );
  }

  private async valueOf(record: SecretRecord): Promise<string> {
    const known = this.values.get(record.name);
    if (known !== undefined) return known;
    const value = (await this.deps.cipher.open(Buffer.from(record.sealed, 'base64'), record.name)).toString('utf8');
    this.values.set(record.name, value);
    return value;
  }

  private async load(): Promise<SecretRecord[]> {
    if (this.records) return this.records;
    let text: string | undefined;
    try {
      text = await readFile(this.deps.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (text === undefined) {
      this.records = [];
      return this.records;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const parsed = fileSchema.safeParse(json);
    if (!parsed.success) throw new SandpitError('CONFLICT', `${this.deps.path} is not a secrets file Sandpit wrote; move it away to start with no secrets.`);
    this.records = parsed.data.secrets;
    return this.records;
  }

  private async persist(records: SecretRecord[], touched: string[]): Promise<void> {
    await writeFileAtomic(this.deps.path, `${JSON.stringify({ version: 1, secrets: records }, null, 2)}\n`);
    this.records = records;
    try {
      this.deps.onChange?.(touched);
    } catch {
      // A listener's failure is its own: the change is saved.
    }
  }
}

/** A secret an environment's sessions may use, or one the person ticked for the session itself. */
function attached(record: SecretRecord, environmentId: string | undefined, forSession: readonly string[]): boolean {
  return (environmentId !== undefined && record.environments.includes(environmentId)) || forSession.includes(record.name);
}

function toInfo(record: SecretRecord): SecretInfo {
  const { sealed: _sealed, ...info } = record;
  return { ...info, placeholder: secretPlaceholder(record.name) };
}

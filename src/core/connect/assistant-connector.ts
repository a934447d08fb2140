import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { SandpitError } from '../../shared/api/errors';
import type { AssistantChange, AssistantId, AssistantStatus } from '../../shared/domain/assistants';
import type { StdioCommand } from '../../shared/domain/connect';
import type { Logger } from '../log';
import { assistantTargets, commandFor } from './assistant-targets';
import type { AssistantTarget, UserPlaces } from './assistant-targets';
import { ConfigUnreadableError } from './config-unreadable';
import type { ServersEdit } from './config-unreadable';
import { ConnectRecords } from './connect-records';
import { deepLinkFor } from './deep-links';
import { exists, readIfThere, removeFile, writeInPlace } from './config-files';
import { jsonServersEdit } from './json-config-edit';
import { tomlServersEdit } from './toml-config-edit';

/** The name Sandpit's entry has in every assistant's configuration. */
export const ENTRY_NAME = 'sandpit';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function editorFor(target: AssistantTarget, path: string, text: string): ServersEdit {
  if (target.format === 'toml') return tomlServersEdit(path, text, target.serversKey);
  return jsonServersEdit(path, text, target.serversKey, target.format === 'jsonc');
}

export interface AssistantConnectorOptions {
  /** Sandpit's data folder (where the files as they were before are kept). */
  dataHome: string;
  places: UserPlaces;
  /** How an assistant starts `sandpit mcp` for this data folder. */
  stdio: StdioCommand;
  log?: Logger;
}

/**
 * One click to connect: finds the assistants on this computer and writes Sandpit into (or out of) their
 * configuration files — merged into what is there, the file as it was kept first, undone byte for byte.
 * A file that does not parse is never written.
 */
export class AssistantConnector {
  private readonly targets: Map<AssistantId, AssistantTarget>;
  private readonly records: ConnectRecords;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: AssistantConnectorOptions) {
    this.targets = new Map(assistantTargets(options.places).map((target) => [target.id, target]));
    this.records = new ConnectRecords(options.dataHome);
  }

  async list(): Promise<AssistantStatus[]> {
    return Promise.all([...this.targets.keys()].map((id) => this.status(id)));
  }

  async status(id: AssistantId): Promise<AssistantStatus> {
    const target = this.target(id);
    const base = {
      id,
      label: target.label,
      configPath: target.configPath,
      format: target.format,
      restart: target.restart,
      undoable: (await this.records.read(id, target.configPath)) !== undefined,
      ...this.deepLink(id),
    };
    if (!(await exists(target.foundBy)) && !(await exists(target.configPath))) return { ...base, state: 'not-found' };
    const text = (await readIfThere(target.configPath)) ?? '';
    try {
      const entry = editorFor(target, target.configPath, text).entry(ENTRY_NAME);
      if (entry === undefined) return { ...base, state: 'not-connected' };
      return {
        ...base,
        state: isDeepStrictEqual(JSON.parse(JSON.stringify(entry)), this.desired(target)) ? 'connected' : 'outdated',
      };
    } catch (error) {
      if (error instanceof ConfigUnreadableError) return { ...base, state: 'unreadable', problem: error.message };
      throw error;
    }
  }

  /** Writes Sandpit into the assistant's configuration (one at a time: two clicks never interleave). */
  connect(id: AssistantId): Promise<AssistantChange> {
    return this.serial(() => this.doConnect(id));
  }

  /** Takes Sandpit out again: the file exactly as it was when nothing changed it since, else only Sandpit's entry removed. */
  disconnect(id: AssistantId): Promise<AssistantChange> {
    return this.serial(() => this.doDisconnect(id));
  }

  private async doConnect(id: AssistantId): Promise<AssistantChange> {
    const target = this.target(id);
    if (!(await exists(target.foundBy)) && !(await exists(target.configPath))) {
      throw new SandpitError(
        'NOT_FOUND',
        `${target.label} is not set up on this computer (there is no ${target.foundBy}). Install it and open it once, then connect.`,
      );
    }
    const existing = await readIfThere(target.configPath);
    const before = existing ?? '';
    const after = editorFor(target, target.configPath, before).set(ENTRY_NAME, this.desired(target));
    const recorded = await this.records.read(id, target.configPath);
    // A record counts only while the file is still what Sandpit wrote: else the file as it is now is the one to go back to.
    const record =
      recorded && existing !== undefined && sha256(existing) === recorded.afterSha256 ? recorded : undefined;
    if (after === before) {
      return {
        status: await this.status(id),
        changed: false,
        before,
        after,
        ...(record ? { backupPath: record.backupPath } : {}),
        message: `${target.label} already has Sandpit in ${target.configPath}. ${target.restart}`,
      };
    }
    // The file as it was before Sandpit first touched it is kept until Disconnect; a second Connect keeps the first one.
    const kept = record ?? (await this.records.keep(id, target.configPath, existing));
    await writeInPlace(target.configPath, after);
    await this.records.wrote(id, target.configPath, kept, sha256(after));
    this.options.log?.info('connected an assistant', { assistant: id, path: target.configPath });
    return {
      status: await this.status(id),
      changed: true,
      before,
      after,
      backupPath: kept.backupPath,
      message: `Sandpit is now in ${target.label}'s configuration (${target.configPath}); the rest of the file is as it was. ${existing === undefined ? 'There was no file before: Disconnect removes it again.' : `The file as it was is kept in ${kept.backupPath}.`} ${target.restart}`,
    };
  }

  private async doDisconnect(id: AssistantId): Promise<AssistantChange> {
    const target = this.target(id);
    const current = await readIfThere(target.configPath);
    const record = await this.records.read(id, target.configPath);
    if (record && current !== undefined && sha256(current) === record.afterSha256) {
      const original = await this.records.original(record);
      if (original === undefined) await removeFile(target.configPath);
      else await writeInPlace(target.configPath, original);
      await this.records.forget(id);
      this.options.log?.info('disconnected an assistant (file put back as it was)', {
        assistant: id,
        path: target.configPath,
      });
      return {
        status: await this.status(id),
        changed: true,
        before: current,
        after: original ?? '',
        message:
          original === undefined
            ? `${target.configPath} is removed again: there was none before Sandpit connected. ${target.restart}`
            : `${target.configPath} is back exactly as it was before Sandpit connected. ${target.restart}`,
      };
    }
    const before = current ?? '';
    const after = editorFor(target, target.configPath, before).remove(ENTRY_NAME);
    if (after !== before) await writeInPlace(target.configPath, after);
    await this.records.forget(id);
    const message =
      after === before
        ? `Sandpit is not in ${target.label}'s configuration (${target.configPath}); nothing to undo.`
        : `Sandpit's entry is removed from ${target.configPath}. The file changed since Sandpit connected, so only that entry was taken out and everything else is kept as it is now. ${target.restart}`;
    return { status: await this.status(id), changed: after !== before, before, after, message };
  }

  private desired(target: AssistantTarget): Record<string, unknown> {
    return target.entry(commandFor(this.options.stdio, target.id));
  }

  private deepLink(id: AssistantId): { deepLink?: string } {
    const link = deepLinkFor(id, ENTRY_NAME, commandFor(this.options.stdio, id));
    return link === undefined ? {} : { deepLink: link };
  }

  private target(id: AssistantId): AssistantTarget {
    const target = this.targets.get(id);
    if (!target) throw new SandpitError('INVALID_INPUT', `There is no assistant called "${String(id)}".`);
    return target;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

import { lstat, mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SandpitError } from '../../../shared/api/errors';
import type { ChangeOutcome, FolderChange } from '../../../shared/domain/folder-changes';
import { newId } from '../../util/ids';
import { SerialQueue } from '../../util/serial-queue';
import { ApplyTemps } from './apply-temps';
import { applyChange, discardChange } from './review-apply';
import type { ApplyContext } from './review-apply';
import { copyIntoLayer } from './review-copy';
import type { LayerOwner } from './review-copy';
import { readManifest, writeManifest } from './review-manifest';
import type { ReviewManifest } from './review-manifest';
import { scanChanges } from './review-scan';
import type { Trash } from './system-trash';

export interface ReviewLayersOptions {
  /** Sandpit's data folder: layers live in its `review-layers` folder. */
  dataFolder: string;
  /** The sandbox user, when Sandpit may give it the copies (Docker Engine on Linux, Sandpit as root). */
  owner?: LayerOwner | undefined;
  trash?: Trash | undefined;
}

/** Which changes to apply or discard: the paths, or every one. */
export type ChangeSelection = { paths: readonly string[] } | { all: true };

const LAYER_ID = /^rv-[A-Za-z0-9_-]{4,40}$/;

/**
 * The session layers of review folders ("Changes need my OK"), copy backend: each is `<id>/files` (the copy
 * the sandbox mounts read-write) and `<id>/base.json` (the person's folder as the session read it). The
 * person's folder is only read until a change is applied. One queue per layer: a listing never sees half an apply.
 */
export class ReviewLayers {
  readonly root: string;
  private readonly queues = new Map<string, SerialQueue>();

  constructor(private readonly options: ReviewLayersOptions) {
    this.root = join(options.dataFolder, 'review-layers');
  }

  /** Copies the person's folder into a new layer; returns the folder the sandbox mounts. */
  async create(hostPath: string): Promise<string> {
    const id = newId('rv');
    const dir = join(this.root, id);
    await mkdir(this.root, { recursive: true, mode: 0o711 });
    await mkdir(dir, { mode: 0o711 });
    try {
      const manifest = await copyIntoLayer(hostPath, join(dir, 'files'), this.options.owner);
      await writeManifest(dir, manifest);
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    return join(dir, 'files');
  }

  /** The layer's own folder for a mount source, refused unless it is exactly `<root>/<id>/files`, a real folder. */
  async layerDir(layerPath: string): Promise<string> {
    const dir = dirname(layerPath);
    if (basename(layerPath) !== 'files' || dirname(dir) !== this.root || !LAYER_ID.test(basename(dir))) {
      throw new SandpitError('DENIED', `${layerPath} is not a review layer of this Sandpit.`, {
        reason: 'not-a-layer',
      });
    }
    for (const path of [dir, layerPath]) {
      const info = await lstat(path).catch(() => undefined);
      if (!info?.isDirectory())
        throw new SandpitError('NOT_FOUND', `The session's changes to this folder are gone (${path} is missing).`, {
          reason: 'layer-missing',
        });
    }
    return dir;
  }

  private queue(dir: string): SerialQueue {
    let q = this.queues.get(dir);
    if (!q) this.queues.set(dir, (q = new SerialQueue()));
    return q;
  }

  private async manifestOf(layerPath: string, hostPath: string): Promise<{ dir: string; manifest: ReviewManifest }> {
    const dir = await this.layerDir(layerPath);
    const manifest = await readManifest(dir);
    if (manifest.hostPath !== hostPath)
      throw new SandpitError('DENIED', `The layer at ${layerPath} is of ${manifest.hostPath}, not ${hostPath}.`, {
        reason: 'record-mismatch',
      });
    return { dir, manifest };
  }

  /** What the session changed in this folder (pending, not applied). */
  async changes(layerPath: string, hostPath: string): Promise<FolderChange[]> {
    const { dir, manifest } = await this.manifestOf(layerPath, hostPath);
    return this.queue(dir).run(async () => {
      // what a killed apply left in the person's folder goes first (it is never a change of the session's)
      await new ApplyTemps(dir, hostPath).sweep();
      return scanChanges(manifest, layerPath);
    });
  }

  private async run(
    layerPath: string,
    hostPath: string,
    selection: ChangeSelection,
    what: 'apply' | 'discard',
    extra: Pick<ApplyContext, 'confirmDelete' | 'expect'>,
  ): Promise<ChangeOutcome[]> {
    const dir = await this.layerDir(layerPath);
    return this.queue(dir).run(async () => {
      const { manifest } = await this.manifestOf(layerPath, hostPath);
      const temps = new ApplyTemps(dir, hostPath);
      await temps.sweep();
      const changes = await scanChanges(manifest, layerPath, { exact: what === 'apply' });
      const wanted = 'all' in selection ? changes : changes.filter((c) => selection.paths.includes(c.path));
      const missing = 'all' in selection ? [] : selection.paths.filter((p) => !changes.some((c) => c.path === p));
      const ctx: ApplyContext = {
        manifest,
        filesDir: layerPath,
        owner: this.options.owner,
        trash: this.options.trash,
        temps,
        ...extra,
      };
      const outcomes: ChangeOutcome[] = missing.map((path) => ({
        path,
        done: false,
        message: 'There is no pending change to this file (any more).',
      }));
      try {
        for (const change of wanted)
          outcomes.push(what === 'apply' ? await applyChange(ctx, change) : await discardChange(ctx, change));
      } finally {
        await writeManifest(dir, manifest);
        await temps.sweep();
      }
      return outcomes;
    });
  }

  apply(
    layerPath: string,
    hostPath: string,
    selection: ChangeSelection,
    options: { confirmDelete?: boolean; expect?: Record<string, string | null> } = {},
  ): Promise<ChangeOutcome[]> {
    return this.run(layerPath, hostPath, selection, 'apply', {
      confirmDelete: options.confirmDelete === true,
      expect: options.expect,
    });
  }

  discard(layerPath: string, hostPath: string, selection: ChangeSelection): Promise<ChangeOutcome[]> {
    return this.run(layerPath, hostPath, selection, 'discard', { confirmDelete: false });
  }

  /** Removes a layer (its session ended, or the folder was removed from it): pending changes go with it. */
  async remove(layerPath: string): Promise<void> {
    const dir = await this.layerDir(layerPath).catch(() => undefined);
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

import { lstat, mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SandpitError } from '../../../shared/api/errors';
import type { ChangeOutcome, FolderChange } from '../../../shared/domain/folder-changes';
import { newId } from '../../util/ids';
import { SerialQueue } from '../../util/serial-queue';
import { ApplyTemps } from './apply-temps';
import { HashCache } from './hash-cache';
import { OpaqueMarks } from './overlay-upper';
import { applyChange, discardChange } from './review-apply';
import type { ApplyContext } from './review-apply';
import { copyIntoLayer } from './review-copy';
import type { LayerOwner } from './review-copy';
import { ManifestFiles } from './review-manifest';
import type { ReviewBackend, ReviewManifest } from './review-manifest';
import { makeOverlayLayer, overlayMountOf, unmountablePath } from './review-overlay';
import { pendingOf, seedPending } from './review-pending';
import type { PendingChanges, PendingEntry } from './review-pending';
import { scanSettled } from './review-scan';
import type { Trash } from './system-trash';

/** What an engine tells about overlays: why it cannot mount one over this folder (plain words), or undefined when it can. */
export interface OverlaySupport {
  refusal(hostPath: string, layerDir: string): Promise<string | undefined>;
}

/** Which backend review folders get: the overlay where it works (else a copy), always a copy, or the overlay or nothing. */
export type ReviewLayersSetting = 'auto' | 'copy' | 'overlay';

export interface ReviewLayersOptions {
  /** Sandpit's data folder: layers live in its `review-layers` folder. */
  dataFolder: string;
  /** The sandbox user, when Sandpit may give it the copies (Docker Engine on Linux, Sandpit as root). */
  owner?: LayerOwner | undefined;
  trash?: Trash | undefined;
  /** The engine's overlays; absent: every layer is a copy. */
  overlay?: OverlaySupport | undefined;
  setting?: ReviewLayersSetting;
  /** Whether Sandpit runs as root (default: asked of the process; tests say). */
  asRoot?: boolean;
}

/** A layer as a session mounts it: `layerPath` (the copy, or the overlay's upper folder with its work folder beside it). */
export interface ReviewLayer {
  layerPath: string;
  backend: ReviewBackend;
  /** The overlay's work folder (overlay backend only). */
  overlayWorkPath?: string;
  /** Why a copy was made where an overlay was not possible. */
  reason?: string;
}

/** Which changes to apply or discard: the paths, or every one. */
export type ChangeSelection = { paths: readonly string[] } | { all: true };

const APPLIES_AT_ONCE = 8;
const LAYER_ID = /^rv-[A-Za-z0-9_-]{4,40}$/;
const LAYER_FOLDERS: Record<string, ReviewBackend> = { files: 'copy', upper: 'overlay' };

/**
 * The session layers of review folders ("Changes need my OK"). Each is `<id>/base.json` (the person's folder as
 * the session read it) and either `<id>/files` (copy backend: a copy the sandbox mounts read-write) or
 * `<id>/upper` and `<id>/work` (overlay backend: the engine mounts an overlay of `upper` over the person's
 * folder, which stays read-only below). The person's folder is only read until a change is applied. One queue
 * per layer: a listing never sees half an apply.
 */
export class ReviewLayers {
  readonly root: string;
  private readonly queues = new Map<string, SerialQueue>();
  private readonly manifests = new ManifestFiles();
  private readonly hashes = new HashCache();
  private readonly marks = new OpaqueMarks();

  constructor(private readonly options: ReviewLayersOptions) {
    this.root = join(options.dataFolder, 'review-layers');
  }

  /** Why this folder's layer would not be an overlay (undefined: it would). */
  private async overlayRefusal(
    hostPath: string,
    dir: string,
    sandboxCannotWrite: string | undefined,
  ): Promise<string | undefined> {
    if (this.options.setting === 'copy') return 'SANDPIT_REVIEW_LAYERS asks for copies';
    if (!this.options.overlay) return 'this engine cannot mount an overlay over a folder of this computer';
    if (process.platform !== 'linux') return 'overlays are a Linux feature';
    if (!(this.options.asRoot ?? process.getuid?.() === 0))
      return "Sandpit does not run as root, so it could not read the overlay's marks of deleted folders";
    const path = unmountablePath(hostPath) ?? unmountablePath(dir);
    if (path) return path;
    if (sandboxCannotWrite) return sandboxCannotWrite;
    return this.options.overlay.refusal(hostPath, dir);
  }

  /**
   * Makes a new layer for the person's folder: an overlay where the engine can mount one over it (and the
   * sandbox user may write to the folder as it is), else a copy. `sandboxCannotWrite` says why the sandbox user
   * could not change the folder under its own permissions (an overlay keeps them; the copy is given to it).
   */
  async create(hostPath: string, sandboxCannotWrite?: string): Promise<ReviewLayer> {
    const id = newId('rv');
    const dir = join(this.root, id);
    await mkdir(this.root, { recursive: true, mode: 0o711 });
    await mkdir(dir, { mode: 0o711 });
    try {
      const refusal = await this.overlayRefusal(hostPath, dir, sandboxCannotWrite);
      if (refusal === undefined) {
        await this.manifests.write(dir, await makeOverlayLayer(hostPath, dir));
        return { layerPath: join(dir, 'upper'), backend: 'overlay', overlayWorkPath: join(dir, 'work') };
      }
      if (this.options.setting === 'overlay')
        throw new SandpitError('DENIED', `The folder cannot be kept as an overlay, as SANDPIT_REVIEW_LAYERS asks: ${refusal}.`, {
          reason: 'no-overlay',
        });
      if (!this.options.owner && sandboxCannotWrite)
        throw new SandpitError(
          'DENIED',
          `The sandbox (user 10001) could not change ${hostPath}: Sandpit does not run as root here, so it cannot give the sandbox a copy of its own, and the folder's own permissions do not let the sandbox write to it. Make it writable for its group (chmod -R g+w "${hostPath}", with a group of your own, gid 1000 or above: Sandpit adds the folder's group to the sandbox user), or share it read-only.`,
          { reason: 'permissions' },
        );
      const manifest = await copyIntoLayer(hostPath, join(dir, 'files'), this.options.owner);
      await this.manifests.write(dir, { ...manifest, reason: refusal });
      return { layerPath: join(dir, 'files'), backend: 'copy', reason: refusal };
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      this.manifests.forget(dir);
      throw error;
    }
  }

  /**
   * The layer's own folder for a mount source, refused unless it is exactly `<root>/<id>/files` or
   * `<root>/<id>/upper` (with `<root>/<id>/work` beside it), every one a real folder, never a link.
   */
  async layerDir(layerPath: string): Promise<string> {
    const dir = this.layerDirOf(layerPath);
    const backend = LAYER_FOLDERS[basename(layerPath)];
    const folders = [this.root, dir, layerPath, ...(backend === 'overlay' ? [join(dir, 'work')] : [])];
    for (const path of folders) {
      const info = await lstat(path).catch(() => undefined);
      if (!info)
        throw new SandpitError('NOT_FOUND', `The session's changes to this folder are gone (${path} is missing).`, {
          reason: 'layer-missing',
        });
      if (!info.isDirectory())
        throw new SandpitError(
          'DENIED',
          `${path} is not a folder (${info.isSymbolicLink() ? 'a link' : 'something else'}): the layer is not used.`,
          { reason: 'not-a-layer' },
        );
    }
    return dir;
  }

  /**
   * Checks a layer as a sandbox is about to mount it (`overlayWorkPath` given for an overlay): its folders are
   * real folders where Sandpit makes them, and the work folder is the layer's own.
   */
  async checkMount(layerPath: string, overlayWorkPath: string | undefined): Promise<void> {
    const dir = await this.layerDir(layerPath);
    const overlay = LAYER_FOLDERS[basename(layerPath)] === 'overlay';
    if (
      overlay !== (overlayWorkPath !== undefined) ||
      (overlayWorkPath !== undefined && overlayWorkPath !== join(dir, 'work'))
    )
      throw new SandpitError(
        'DENIED',
        `${layerPath} is not mounted: its record names ${overlayWorkPath ?? 'no'} work folder, not the layer's own.`,
        { reason: 'not-a-layer' },
      );
  }

  /** The layer's own folder, by the shape of the path alone (`<root>/<id>/files` or `<root>/<id>/upper`). */
  private layerDirOf(layerPath: string): string {
    const dir = dirname(layerPath);
    if (!LAYER_FOLDERS[basename(layerPath)] || dirname(dir) !== this.root || !LAYER_ID.test(basename(dir))) {
      throw new SandpitError('DENIED', `${layerPath} is not a review layer of this Sandpit.`, {
        reason: 'not-a-layer',
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
    const manifest = await this.manifests.read(dir);
    if (manifest.hostPath !== hostPath)
      throw new SandpitError('DENIED', `The layer at ${layerPath} is of ${manifest.hostPath}, not ${hostPath}.`, {
        reason: 'record-mismatch',
      });
    if (LAYER_FOLDERS[basename(layerPath)] !== manifest.backend)
      throw new SandpitError(
        'DENIED',
        `The layer at ${layerPath} is recorded as a${manifest.backend === 'overlay' ? 'n overlay' : ' copy'}: it is not used.`,
        { reason: 'record-mismatch' },
      );
    return { dir, manifest };
  }

  /** How this layer is kept, and why a copy when it is one. */
  async describe(layerPath: string, hostPath: string): Promise<{ backend: ReviewBackend; reason?: string }> {
    const dir = await this.layerDir(layerPath);
    return this.queue(dir).run(async () => {
      const { manifest } = await this.manifestOf(layerPath, hostPath);
      return { backend: manifest.backend, ...(manifest.reason ? { reason: manifest.reason } : {}) };
    });
  }

  /** What the session changed in this folder (pending, not applied). */
  async changes(layerPath: string, hostPath: string): Promise<FolderChange[]> {
    const dir = await this.layerDir(layerPath);
    return this.queue(dir).run(async () => {
      const { manifest } = await this.manifestOf(layerPath, hostPath);
      // what a killed apply left in the person's folder goes first (it is never a change of the session's)
      await new ApplyTemps(dir, hostPath).sweep();
      const ctx = { manifest, filesDir: layerPath, hashes: this.hashes, marks: this.marks, dirty: false };
      const changes = await scanSettled(ctx);
      // hashes the overlay backend took for the first time are kept
      if (ctx.dirty) await this.manifests.write(dir, manifest);
      return changes;
    });
  }

  /** Where a discard writes: the copy, or the overlay as mounted (found on this computer's mount table). */
  private async sessionView(
    manifest: ReviewManifest,
    layerPath: string,
  ): Promise<Pick<ApplyContext, 'sessionView' | 'viewMissing'>> {
    if (manifest.backend === 'copy') return { sessionView: layerPath };
    const merged = await overlayMountOf(layerPath);
    if (merged) return { sessionView: merged };
    return {
      viewMissing:
        "The session's view of this folder (an overlay the engine mounts while the session runs) is not mounted where Sandpit can see it, so a change cannot be taken back without breaking it. Run something in the session, then discard again.",
    };
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
      const changes = await scanSettled({
        manifest,
        filesDir: layerPath,
        hashes: this.hashes,
        marks: this.marks,
        exact: what === 'apply',
      });
      const wanted = 'all' in selection ? changes : changes.filter((c) => selection.paths.includes(c.path));
      const missing = 'all' in selection ? [] : selection.paths.filter((p) => !changes.some((c) => c.path === p));
      const ctx: ApplyContext = {
        manifest,
        filesDir: layerPath,
        ...(what === 'discard' ? await this.sessionView(manifest, layerPath) : {}),
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
        if (what === 'discard') for (const change of wanted) outcomes.push(await discardChange(ctx, change));
        // Applies a few files at a time: each is still its own temp file, synced, then renamed (old or new after
        // a crash), and the file system joins their syncs. A rename's old name is never another change's path.
        else
          for (let i = 0; i < wanted.length; i += APPLIES_AT_ONCE)
            outcomes.push(...(await Promise.all(wanted.slice(i, i + APPLIES_AT_ONCE).map((c) => applyChange(ctx, c)))));
      } finally {
        await this.manifests.write(dir, manifest);
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

  /**
   * Takes changes back out of the session's layer. An overlay's is changed only through the overlay as the
   * engine mounted it (the session must be running: the caller resumes it first), so overlayfs keeps it whole.
   */
  discard(layerPath: string, hostPath: string, selection: ChangeSelection): Promise<ChangeOutcome[]> {
    return this.run(layerPath, hostPath, selection, 'discard', { confirmDelete: false });
  }

  /**
   * The pending changes as a snapshot keeps them (within the layer's queue: never half an apply), each file's
   * content read when asked, exactly as listed.
   */
  async pending(
    layerPath: string,
    hostPath: string,
    maxFileBytes: number,
  ): Promise<{ pending: PendingChanges; read: (entry: PendingEntry & { kind: 'file' }) => Promise<Buffer> }> {
    const dir = await this.layerDir(layerPath);
    return this.queue(dir).run(async () => {
      const { manifest } = await this.manifestOf(layerPath, hostPath);
      const ctx = { manifest, filesDir: layerPath, hashes: this.hashes, marks: this.marks, dirty: false };
      const changes = await scanSettled(ctx);
      if (ctx.dirty) await this.manifests.write(dir, manifest);
      return pendingOf(manifest, layerPath, changes, maxFileBytes);
    });
  }

  /**
   * Gives a new layer a snapshot's pending changes, written through the session's view (an overlay must be
   * mounted: the caller runs this with the session up), as the sandbox user's files.
   */
  async seed(
    layerPath: string,
    hostPath: string,
    pending: PendingChanges,
    load: (entry: PendingEntry & { kind: 'file' }) => Promise<Buffer>,
  ): Promise<void> {
    const dir = await this.layerDir(layerPath);
    await this.queue(dir).run(async () => {
      const { manifest } = await this.manifestOf(layerPath, hostPath);
      const view = await this.sessionView(manifest, layerPath);
      if (view.sessionView === undefined)
        throw new SandpitError('CONFLICT', view.viewMissing ?? "The session's view of this folder is not open.");
      try {
        await seedPending(manifest, view.sessionView, pending, load, this.options.owner);
      } finally {
        await this.manifests.write(dir, manifest);
      }
    });
  }

  /**
   * Removes a layer (its session ended, or the folder was removed from it): pending changes go with it. Only a
   * path shaped like a layer of this Sandpit is removed (a link inside is removed, never followed); its sandbox
   * no longer mounts it.
   */
  async remove(layerPath: string): Promise<void> {
    let dir: string;
    try {
      dir = this.layerDirOf(layerPath);
    } catch {
      return;
    }
    await rm(dir, { recursive: true, force: true });
    this.manifests.forget(dir);
    this.hashes.forgetUnder(dir);
    this.queues.delete(dir);
  }
}

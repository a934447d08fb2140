import { describe, expect, it, vi } from 'vitest';
import { SandpitError } from '../shared/api/errors';
import type { DockerClient, EngineVersion } from './docker/docker-client';
import type { ResolvedImages } from './docker/resolve-images';

const core = vi.hoisted(() => ({
  resolveExecutorImages: vi.fn<(docker: unknown, imagesDir?: string) => Promise<ResolvedImages>>(),
}));
vi.mock('./docker/resolve-images', () => core);

const { startImages } = await import('./boot-images');

const VERSION: EngineVersion = { product: 'docker', version: '27.3.1', apiVersion: '1.47', os: 'linux', runtimes: ['runc'] };
const up = { ping: () => Promise.resolve(VERSION) } as Partial<DockerClient> as DockerClient;
const down = { ping: () => Promise.reject(new SandpitError('DOCKER_UNAVAILABLE', 'Docker is not running.')) } as Partial<DockerClient> as DockerClient;

describe('startImages', () => {
  it("uses the built images, looked up in the app's executor-image directory", async () => {
    core.resolveExecutorImages.mockResolvedValueOnce({ images: { python: 'sandpit/python:abc', node: 'sandpit/node:def' }, missing: [] });
    await expect(startImages(up, { images: {} }, '/app/executor-image', {})).resolves.toEqual({ images: { python: 'sandpit/python:abc', node: 'sandpit/node:def' }, notes: [] });
    expect(core.resolveExecutorImages).toHaveBeenLastCalledWith(up, '/app/executor-image');
  });

  it('puts SANDPIT_PYTHON_IMAGE over the built python image, and the config over both', async () => {
    core.resolveExecutorImages.mockResolvedValue({ images: { python: 'sandpit/python:abc', node: 'sandpit/node:def' }, missing: [] });
    await expect(startImages(up, { images: {} }, undefined, { SANDPIT_PYTHON_IMAGE: ' my/python:1 ' })).resolves.toMatchObject({ images: { python: 'my/python:1', node: 'sandpit/node:def' } });
    await expect(startImages(up, { images: { python: 'mine:2' } }, undefined, { SANDPIT_PYTHON_IMAGE: 'my/python:1' })).resolves.toMatchObject({ images: { python: 'mine:2' } });
    core.resolveExecutorImages.mockReset();
  });

  it('says which images are missing, and starts without images when the engine is down or the lookup fails or hangs', async () => {
    core.resolveExecutorImages.mockResolvedValueOnce({ images: {}, missing: ['The python sandbox image is not built.'] });
    await expect(startImages(up, { images: {} }, undefined, {})).resolves.toEqual({ images: {}, notes: ['The python sandbox image is not built.'] });
    core.resolveExecutorImages.mockClear();
    await expect(startImages(down, { images: {} }, undefined, { SANDPIT_PYTHON_IMAGE: 'my/python:1' })).resolves.toEqual({ images: { python: 'my/python:1' }, notes: ['Docker is not running.'] });
    expect(core.resolveExecutorImages).not.toHaveBeenCalled();
    core.resolveExecutorImages.mockRejectedValueOnce(new Error('boom'));
    await expect(startImages(up, { images: {} }, undefined, {})).resolves.toEqual({ images: {}, notes: ['boom'] });
    core.resolveExecutorImages.mockReturnValueOnce(new Promise(() => undefined));
    const hung = await startImages(up, { images: {} }, undefined, {}, { probeMs: 1_000, lookupMs: 20 });
    expect(hung.images).toEqual({});
    expect(hung.notes[0]).toMatch(/finding the sandbox images/);
  });
});

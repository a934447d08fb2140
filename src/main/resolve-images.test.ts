import { describe, expect, it, vi } from 'vitest';
import type { DockerClient } from '../core/docker/docker-client';
import type { ResolvedImages } from '../core/docker/resolve-images';
import { silentLogger } from '../core/log';

const core = vi.hoisted(() => ({
  resolveExecutorImages: vi.fn<(docker: unknown, imagesDir?: string) => Promise<ResolvedImages>>(),
}));
vi.mock('../core/docker/resolve-images', () => core);

const { resolveImages } = await import('./resolve-images');

const docker = {} as DockerClient;
const base = { docker, imagesDir: '/app/executor-image', log: silentLogger };

describe('resolveImages', () => {
  it('uses SANDPIT_PYTHON_IMAGE when set, without asking Docker', async () => {
    core.resolveExecutorImages.mockClear();
    await expect(resolveImages({ ...base, env: { SANDPIT_PYTHON_IMAGE: ' my/python:1 ' } })).resolves.toEqual({
      python: 'my/python:1',
    });
    expect(core.resolveExecutorImages).not.toHaveBeenCalled();
  });

  it("uses the core's built images, looked up in the app's executor-image directory", async () => {
    core.resolveExecutorImages.mockResolvedValueOnce({ images: { python: 'sandpit/python:abc' }, missing: [] });
    await expect(resolveImages({ ...base, env: {} })).resolves.toEqual({ python: 'sandpit/python:abc' });
    expect(core.resolveExecutorImages).toHaveBeenLastCalledWith(docker, '/app/executor-image');
  });

  it('leaves images empty when none is built, the lookup fails, or Docker does not answer', async () => {
    core.resolveExecutorImages.mockResolvedValueOnce({
      images: {},
      missing: ['The python sandbox image is not built.'],
    });
    await expect(resolveImages({ ...base, env: {} })).resolves.toEqual({});
    core.resolveExecutorImages.mockRejectedValueOnce(new Error('boom'));
    await expect(resolveImages({ ...base, env: {} })).resolves.toEqual({});
    core.resolveExecutorImages.mockReturnValueOnce(new Promise(() => undefined));
    await expect(resolveImages({ ...base, env: {}, timeoutMs: 20 })).resolves.toEqual({});
  });
});

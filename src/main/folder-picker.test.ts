import { describe, expect, it, vi } from 'vitest';
import type { BrowserWindow } from 'electron';

const showOpenDialog = vi.fn();
vi.mock('electron', () => ({ dialog: { showOpenDialog } }));

const { folderPicker } = await import('./folder-picker');
const CONTEXT = { transport: 'ipc' as const, client: 'panel' };

describe('the desktop folder picker', () => {
  it('opens a folder dialog over the panel and answers the folder picked', async () => {
    const window = {} as BrowserWindow;
    showOpenDialog.mockResolvedValueOnce({ canceled: false, filePaths: ['/home/me/Documents/project'] });
    await expect(folderPicker(() => window)({}, CONTEXT)).resolves.toEqual({ hostPath: '/home/me/Documents/project' });
    expect(showOpenDialog).toHaveBeenLastCalledWith(window, expect.objectContaining({ properties: expect.arrayContaining(['openDirectory']) as unknown }));
  });

  it('answers nothing when the person cancels', async () => {
    showOpenDialog.mockResolvedValueOnce({ canceled: true, filePaths: [] });
    await expect(folderPicker(() => undefined)({}, CONTEXT)).resolves.toEqual({});
  });
});

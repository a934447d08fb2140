import { describe, expect, it, vi } from 'vitest';

type MenuItem = { label?: string; enabled?: boolean; type?: string; click?: () => void };

const electron = vi.hoisted(() => {
  class FakeTray {
    static last: FakeTray | undefined;
    tooltip = '';
    title = '';
    menu: MenuItem[] = [];
    destroyed = false;
    renders = 0;
    constructor() {
      FakeTray.last = this;
    }
    on(): void {}
    setToolTip(text: string): void {
      this.tooltip = text;
    }
    setTitle(text: string): void {
      this.title = text;
    }
    setContextMenu(menu: MenuItem[]): void {
      this.menu = menu;
      this.renders++;
    }
    isDestroyed(): boolean {
      return this.destroyed;
    }
    destroy(): void {
      this.destroyed = true;
    }
  }
  const image = { isEmpty: () => false, resize: () => image };
  return {
    FakeTray,
    Tray: FakeTray,
    Menu: { buildFromTemplate: (items: MenuItem[]) => items },
    nativeImage: { createFromPath: () => image },
  };
});

vi.mock('electron', () => ({ Tray: electron.Tray, Menu: electron.Menu, nativeImage: electron.nativeImage }));

const { createTray, runningLabel } = await import('./tray');

describe('tray', () => {
  it('says how many sessions run in plain words', () => {
    expect(runningLabel(0)).toBe('No sessions running');
    expect(runningLabel(1)).toBe('1 session running');
    expect(runningLabel(3)).toBe('3 sessions running');
  });

  it('shows the count in tooltip, title and menu, and offers Open and Quit', () => {
    const onShow = vi.fn();
    const onQuit = vi.fn();
    const tray = createTray({ iconPath: '/icon.png', onShow, onQuit });
    const fake = electron.FakeTray.last;
    expect(fake?.tooltip).toBe('Sandpit: no sessions running');
    tray.setRunning(2);
    expect(fake?.tooltip).toBe('Sandpit: 2 sessions running');
    expect(fake?.title).toBe('2');
    expect(fake?.menu[0]).toMatchObject({ label: '2 sessions running', enabled: false });
    fake?.menu.find((i) => i.label === 'Open Sandpit')?.click?.();
    fake?.menu.find((i) => i.label === 'Quit Sandpit')?.click?.();
    expect(onShow).toHaveBeenCalledOnce();
    expect(onQuit).toHaveBeenCalledOnce();
    const renders = fake?.renders;
    tray.setRunning(2);
    expect(fake?.renders).toBe(renders);
    tray.destroy();
    expect(fake?.destroyed).toBe(true);
    tray.setRunning(5);
    expect(fake?.renders).toBe(renders);
  });
});

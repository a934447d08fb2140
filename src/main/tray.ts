import { Menu, Tray, nativeImage } from 'electron';

export interface TrayOptions {
  iconPath: string;
  onShow: () => void;
  onQuit: () => void;
}

export interface SandpitTray {
  setRunning(count: number): void;
  destroy(): void;
}

export function runningLabel(count: number): string {
  if (count === 0) return 'No sessions running';
  return count === 1 ? '1 session running' : `${count} sessions running`;
}

/** The tray icon: how many sessions run (tooltip, and title where the OS shows one), Open and Quit. */
export function createTray(options: TrayOptions): SandpitTray {
  const image = nativeImage.createFromPath(options.iconPath);
  const tray = new Tray(image.isEmpty() ? image : image.resize({ width: 16, height: 16 }));
  tray.on('click', options.onShow);

  const render = (count: number): void => {
    const label = runningLabel(count);
    tray.setToolTip(`Sandpit: ${label.toLowerCase()}`);
    tray.setTitle(count > 0 ? String(count) : '');
    tray.setContextMenu(
      Menu.buildFromTemplate([
        { label, enabled: false },
        { type: 'separator' },
        { label: 'Open Sandpit', click: options.onShow },
        { label: 'Quit Sandpit', click: options.onQuit },
      ]),
    );
  };
  render(0);

  let last = 0;
  return {
    setRunning(count) {
      if (count === last || tray.isDestroyed()) return;
      last = count;
      render(count);
    },
    destroy() {
      if (!tray.isDestroyed()) tray.destroy();
    },
  };
}

/** What every flow gets, in web mode (a Chromium page on `sandpit serve`) and in Electron (the app's window). */
import type { PanelPage } from '../pages/panel-page';
import type { AssistantFactory } from '../support/mcp';
import type { ServerInfo } from '../support/server-info';

export interface FlowContext {
  server: ServerInfo;
  panel: PanelPage;
  assistants: AssistantFactory;
}

export interface FlowOptions {
  /** Whether a download can be caught (a browser can; Electron would open a save dialog). */
  downloads: boolean;
}

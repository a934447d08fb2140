import type { MethodName } from '../shared/api/contract';
import { ipcChannelFor } from '../shared/api/transport';

export { IPC_EVENT_CHANNEL as EVENT_CHANNEL } from '../shared/api/transport';

/**
 * The methods the panel may invoke. Spelled out (not imported from the contract) so the sandboxed preload
 * bundles no zod and evaluates no schemas; the checks below and channels.test.ts keep it equal to
 * the contract's METHOD_NAMES.
 */
export const ALLOWED_METHODS = [
  'engine.status',
  'engine.candidates',
  'sessions.create',
  'sessions.list',
  'sessions.get',
  'sessions.stop',
  'sessions.restart',
  'sessions.addFolder',
  'sessions.removeFolder',
  'folders.pick',
  'changes.list',
  'changes.diff',
  'changes.apply',
  'changes.discard',
  'secrets.list',
  'secrets.save',
  'secrets.delete',
  'sessions.execute',
  'sessions.stats',
  'egress.recent',
  'sessions.interrupt',
  'sessions.runCommand',
  'sessions.runFile',
  // Background runs (issue 23).
  'runs.start',
  'runs.get',
  'runs.cancel',
  'runs.list',
  'packages.install',
  'packages.check',
  'files.write',
  'files.read',
  'files.list',
  'environments.list',
  'environments.get',
  'environments.create',
  'environments.update',
  'environments.copy',
  'environments.remove',
  'environments.import',
  'environments.build',
  'sessions.saveAsEnvironment',
  'artifacts.list',
  'artifacts.read',
  'snapshots.create',
  'snapshots.list',
  'snapshots.delete',
  'snapshots.restore',
  'sessions.fork',
  'audit.list',
  'audit.get',
  'audit.verify',
  'audit.export',
  'audit.notebook',
  'audit.replay',
  'settings.get',
  'settings.update',
  'approvals.list',
  'approvals.respond',
  'approvals.sessionGrants',
  'approvals.revokeSessionGrant',
  'connect.info',
  'connect.revealToken',
  'connect.rotateToken',
  'connect.panelLink',
  'connect.rotatePanelLink',
  'connect.assistants',
  'connect.connectAssistant',
  'connect.disconnectAssistant',
  'sessions.setKept',
  'processes.start',
  'processes.list',
  'processes.output',
  'processes.stop',
  'previews.open',
  'previews.list',
  'previews.stop',
  'previews.ports',
] as const satisfies readonly MethodName[];

export type AllowedMethod = (typeof ALLOWED_METHODS)[number];

/** Compiles only while every contract method is allowed (the `satisfies` above rejects extra ones). */
type AssertNever<T extends never> = T;
export type _EveryMethodAllowed = AssertNever<Exclude<MethodName, AllowedMethod>>;

export const ALLOWED_CHANNELS: ReadonlySet<string> = new Set(ALLOWED_METHODS.map(ipcChannelFor));

/** The IPC channel for a method name, or undefined when the panel may not call it. */
export function channelForMethod(method: unknown): string | undefined {
  if (typeof method !== 'string') return undefined;
  const channel = ipcChannelFor(method);
  return ALLOWED_CHANNELS.has(channel) ? channel : undefined;
}

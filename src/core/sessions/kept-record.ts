import type { KeptRecord } from './kept-store';
import type { Session } from './session';

/** What the data folder keeps of a kept session: enough for the next core to list it and start it again. */
export function keptRecordOf(session: Session): KeptRecord {
  const { identity } = session;
  const network = session.runtime.options.spec.network;
  return {
    version: 1,
    id: session.id,
    name: identity.name,
    language: identity.language,
    image: identity.image,
    limits: identity.limits,
    ...(identity.environment ? { environment: identity.environment } : {}),
    networkPolicy: identity.networkPolicy,
    ...(network ? { network } : {}),
    isolation: identity.isolation,
    ...(identity.client ? { client: identity.client } : {}),
    ...(identity.owner ? { madeBy: identity.owner } : {}),
    createdAt: session.createdAt.toISOString(),
    idleTtlMs: identity.idleTtlMs,
    packages: session.installedPackages,
    runs: session.runCount,
    history: session.recordedRuns,
    ...(session.mountedFolders.length ? { folders: [...session.mountedFolders] } : {}),
    // The secrets the person ticked for it, by name only (its environment's are looked up again as they are then).
    ...(session.ownSecrets.length ? { secrets: session.ownSecrets } : {}),
    sandbox: session.runtime.record(),
  };
}

/** What a kept session's record must follow: its installed packages, its container, its shared folders, its own secrets. */
export function keptKey(session: Session): string {
  return JSON.stringify([session.installedPackages.length, session.runtime.record().containerId, session.mountedFolders.map((f) => `${f.mountPath}:${f.mode}`), session.ownSecrets]);
}

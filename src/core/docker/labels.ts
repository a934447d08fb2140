import type { InstanceIdentity } from '../sandbox/instance-identity';

/** Labels on every container, volume and network Sandpit creates. The reaper trusts nothing else. */
export const LABEL = {
  managed: 'dev.sandpit.managed',
  instance: 'dev.sandpit.instance',
  session: 'dev.sandpit.session',
  ownerHost: 'dev.sandpit.owner-host',
  ownerPid: 'dev.sandpit.owner-pid',
  ownerStart: 'dev.sandpit.owner-start',
  pool: 'dev.sandpit.pool',
  role: 'dev.sandpit.role',
  /** On executor images: the content hash the tag is derived from, the flavour, and the base image tag. */
  imageHash: 'dev.sandpit.image-hash',
  imageFlavour: 'dev.sandpit.image-flavour',
  imageBase: 'dev.sandpit.image-base',
} as const;

export function instanceLabels(identity: InstanceIdentity): Record<string, string> {
  return {
    [LABEL.managed]: 'true',
    [LABEL.instance]: identity.instanceId,
    [LABEL.ownerHost]: identity.host,
    [LABEL.ownerPid]: String(identity.pid),
    [LABEL.ownerStart]: identity.processStart,
  };
}

export function sessionLabels(identity: InstanceIdentity, sessionId: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...instanceLabels(identity), [LABEL.session]: sessionId, ...extra };
}

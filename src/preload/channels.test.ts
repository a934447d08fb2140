import { describe, expect, expectTypeOf, it } from 'vitest';
import { METHOD_NAMES } from '../shared/api/contract';
import type { MethodName } from '../shared/api/contract';
import { IPC_EVENT_CHANNEL, ipcChannelFor } from '../shared/api/transport';
import { ALLOWED_CHANNELS, ALLOWED_METHODS, EVENT_CHANNEL, channelForMethod } from './channels';
import type { AllowedMethod } from './channels';

describe('preload channel allow-list', () => {
  it('is exactly the contract method names, at the type level', () => {
    expectTypeOf<AllowedMethod>().toEqualTypeOf<MethodName>();
  });

  it('is exactly the contract method names, at run time', () => {
    expect([...ALLOWED_METHODS].sort()).toEqual([...METHOD_NAMES].sort());
    expect(new Set(ALLOWED_METHODS).size).toBe(ALLOWED_METHODS.length);
    expect([...ALLOWED_CHANNELS].sort()).toEqual(METHOD_NAMES.map((name) => `sandpit:${name}`).sort());
  });

  it('maps allowed methods to their channel and refuses everything else', () => {
    for (const name of METHOD_NAMES) expect(channelForMethod(name)).toBe(ipcChannelFor(name));
    for (const bad of [
      'event',
      'sessions',
      'sessions.create ',
      'constructor',
      '__proto__',
      '',
      42,
      undefined,
      null,
      { toString: () => 'engine.status' },
    ]) {
      expect(channelForMethod(bad)).toBeUndefined();
    }
  });

  it('uses the shared event channel, which is not a method channel', () => {
    expect(EVENT_CHANNEL).toBe(IPC_EVENT_CHANNEL);
    expect(ALLOWED_CHANNELS.has(EVENT_CHANNEL)).toBe(false);
  });
});

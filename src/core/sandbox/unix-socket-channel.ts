import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { SandpitError } from '../../shared/api/errors';
import { LineChannel } from './agent-channel';
import type { AgentChannel } from './agent-channel';

/**
 * Connects to the agent's unix socket in the per-session host directory, retrying while the agent
 * starts (the file may be missing or stale) until `timeoutMs`.
 */
export async function connectUnixChannel(socketPath: string, timeoutMs: number): Promise<AgentChannel> {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no attempt';
  while (Date.now() < deadline) {
    try {
      const socket = await tryConnect(socketPath, Math.max(100, deadline - Date.now()));
      socket.setNoDelay(true);
      return new LineChannel('socket', socket, socket, () => socket.destroy());
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  throw new SandpitError('CONTAINER_DIED', `The sandbox agent did not open its socket within ${timeoutMs} ms (${lastError}).`);
}

function tryConnect(path: string, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('connect timed out'));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    });
  });
}

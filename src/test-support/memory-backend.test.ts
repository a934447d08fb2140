import { backendConformance } from './backend-conformance';
import { MemoryBackend } from './memory-backend';
import type { MemorySandbox } from './memory-backend';

// The in-memory backend holds to the same port contract as Docker and Podman (what it can: it runs no program).
backendConformance(
  'the in-memory backend',
  async () => {
    const backend = new MemoryBackend('memory-instance');
    return {
      backend,
      image: 'sandpit/python:memory',
      instanceId: backend.instanceId,
      helperNetwork: 'none',
      memoryHog: async (sandbox) => (sandbox as MemorySandbox).childKilledForMemory(),
      leftovers: async (sessionId) => (backend.sandboxes.has(sessionId) ? [{ what: `sandbox ${sessionId}`, owner: backend.instanceId }] : []),
      cleanup: async () => undefined,
    };
  },
  { runsPrograms: false },
);

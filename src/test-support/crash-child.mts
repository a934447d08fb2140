// A core that starts one session, reports its container, then waits to be killed with SIGKILL.
import { createSandpit } from '../core/app';
import { defaultConfig } from '../core/config';
import { silentLogger } from '../core/log';
import { newSession } from './sessions';

const image = process.env.SANDPIT_TEST_IMAGE;
if (!image) throw new Error('SANDPIT_TEST_IMAGE is required');
const sandpit = await createSandpit(defaultConfig({ poolSize: 0, images: { python: image } }), { logger: silentLogger });
const session = await newSession(sandpit, { language: 'python' });
process.stdout.write(`${JSON.stringify({ containerId: session.containerId, volume: `sandpit-ws-${session.id}`, sessionId: session.id, instanceId: sandpit.identity.instanceId })}\n`);
setInterval(() => undefined, 60_000);

// A core that starts a kept session and a plain one, writes a file in each, reports them, then waits to be killed with SIGKILL.
import { createSandpit } from '../core/app';
import { defaultConfig } from '../core/config';
import { silentLogger } from '../core/log';
import { newSession } from './sessions';

const image = process.env.SANDPIT_TEST_IMAGE;
if (!image) throw new Error('SANDPIT_TEST_IMAGE is required');
const sandpit = await createSandpit(defaultConfig({ poolSize: 0, egressProxy: false, images: { python: image } }), { logger: silentLogger });
const kept = await newSession(sandpit, { language: 'python', keep: true });
const plain = await newSession(sandpit, { language: 'python' });
for (const info of [kept, plain]) await sandpit.sessions.session(info.id).execute(`open('/workspace/note.txt', 'w').write('written by ${info.id}')`);
process.stdout.write(`${JSON.stringify({ kept: { id: kept.id, containerId: kept.containerId }, plain: { id: plain.id, containerId: plain.containerId }, instanceId: sandpit.identity.instanceId })}\n`);
setInterval(() => undefined, 60_000);

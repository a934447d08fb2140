import { DockerodeClient } from '../src/core/docker/dockerode-client';
import { createLogger } from '../src/core/log';
async function main() {
  const d = new DockerodeClient({ host: 'unix:///tmp/podman.sock', logger: createLogger({}, 'warn') });
  console.log(await d.ping());
  const id = await d.createNetwork({ name: 'sandpit-probe-net', labels: { 'dev.sandpit.managed': 'true', 'dev.sandpit.probe': 'x' }, internal: true });
  console.log('net', id, JSON.stringify(await d.inspectNetwork(id)));
  console.log('list', JSON.stringify(await d.listNetworks({ 'dev.sandpit.probe': 'x' })), JSON.stringify((await d.listNetworks({ 'dev.sandpit.probe': 'nope' }))));
  const r = await d.runToCompletion({ image: 'sandpit/python:2e2daaf2819a', cmd: ['python3', '-c', 'import socket; print(socket.gethostname())'], env: {}, labels: { 'dev.sandpit.probe': 'x' }, user: '10001:10001', workingDir: '/', openStdin: false, hostConfig: { NetworkMode: 'bridge', Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 1024 }, { Name: 'nproc', Soft: 1024, Hard: 1024 }] } }, { timeoutMs: 30000, maxOutputBytes: 1000 });
  console.log('helper on bridge', JSON.stringify(r));
  const c = await d.createContainer({ image: 'sandpit/python:2e2daaf2819a', cmd: ['sleep', '5'], env: {}, labels: { 'dev.sandpit.probe': 'x' }, user: '10001:10001', workingDir: '/', openStdin: false, hostConfig: { NetworkMode: 'none', Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 1024 }, { Name: 'nproc', Soft: 1024, Hard: 1024 }] } });
  await d.startContainer(c);
  try { await d.connectNetwork(id, c, ['alias1']); console.log('connected'); } catch (e) { console.log('connect err', (e as Error).message); }
  await d.removeContainer(c);
  console.log('listC', JSON.stringify((await d.listContainers({ 'dev.sandpit.probe': 'x' })).length));
  await d.removeNetwork(id);
  console.log('removed');
}
main().catch((e) => console.log('ERR', e));

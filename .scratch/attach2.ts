import Docker from 'dockerode';
import { PassThrough } from 'node:stream';
const d = new Docker({ socketPath: process.env.SOCK ?? '/tmp/podman.sock' });
async function main() {
  const c = await d.createContainer({ Image: 'sandpit/python:2e2daaf2819a', Cmd: ['cat'], OpenStdin: true, StdinOnce: false, Tty: false,
    HostConfig: { Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 1024 }, { Name: 'nproc', Soft: 1024, Hard: 1024 }] } });
  await c.start();
  const s: any = await new Promise((resolve, reject) => d.modem.dial({ path: `/containers/${c.id}/attach?`, method: 'POST', isStream: true, hijack: true, openStdin: false, file: Buffer.alloc(0), statusCodes: { 101: true, 200: true, 404: 'no such container', 409: 'conflict', 500: 'server error' }, options: { stream: true, stdin: true, stdout: true, stderr: true } }, (e: any, st: any) => e ? reject(e) : resolve(st)));
  const out = new PassThrough(); const err = new PassThrough();
  d.modem.demuxStream(s, out, err);
  s.on('data', (b: Buffer) => console.log('RAW', b.length, JSON.stringify(b.toString())));
  s.on('end', () => console.log('END'));
  s.write('hello\n');
  await new Promise((r) => setTimeout(r, 1000));
  s.write('second\n');
  await new Promise((r) => setTimeout(r, 1000));
  s.destroy();
  await c.remove({ force: true });
}
main().catch((e) => { console.log('ERR', e); });

import Docker from 'dockerode';
import { PassThrough } from 'node:stream';
const d = new Docker({ socketPath: process.env.SOCK ?? '/tmp/podman.sock' });
async function main() {
  const c = await d.createContainer({ Image: 'sandpit/python:2e2daaf2819a', Cmd: ['cat'], OpenStdin: true, AttachStdin: process.env.AS === '1', StdinOnce: false, Tty: false,
    HostConfig: { Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 1024 }, { Name: 'nproc', Soft: 1024, Hard: 1024 }] } });
  const before = process.env.BEFORE === '1';
  let s: any;
  if (before) s = await c.attach({ _query: { stream: true, stdin: true, stdout: true, stderr: true }, _body: {}, hijack: true } as any);
  await c.start();
  if (!before) s = await c.attach({ _query: { stream: true, stdin: true, stdout: true, stderr: true }, _body: {}, hijack: true } as any);
  const out = new PassThrough(); const err = new PassThrough();
  d.modem.demuxStream(s, out, err);
  out.on('data', (b) => console.log('OUT', JSON.stringify(b.toString())));
  s.on('data', (b: Buffer) => console.log('RAW', b.length, JSON.stringify(b.toString())));
  s.on('end', () => console.log('END'));
  s.write('hello\n');
  await new Promise((r) => setTimeout(r, 2000));
  s.destroy();
  await c.remove({ force: true });
}
main().catch((e) => { console.log('ERR', e); });

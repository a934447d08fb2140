/**
 * Previews (issue 17): time to first byte and throughput of an app in a sandbox, through its preview (the tunnel
 * over the session's agent folder, the preview server's cookie check) against a direct connection to the same
 * server (same image, same command) in a container on a Docker network this bench creates.
 */
import { Agent, request } from 'node:http';
import Docker from 'dockerode';
import { resolveEndpoint } from '../src/core/docker/dockerode-client';
import { call } from '../src/core/api/dispatcher';
import { newSession } from '../src/test-support/sessions';
import { now, progress, pythonImage, withCore } from './harness';
import { LATENCY_HEADERS, formatMs, goal, goalTable, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';

const REQUESTS = 300;
const DOWNLOADS = 5;
const BIG = 100 * 1024 * 1024;
const PANEL = { transport: 'ipc', client: 'bench' } as const;
const SERVE = `head -c ${BIG} /dev/zero > big.bin && echo hi > small.txt && exec python3 -m http.server 8000`;

export interface PreviewsSummary {
  requests: number;
  ttfb: {
    preview: Distribution;
    direct: Distribution;
    newConnectionPreview: Distribution;
    newConnectionDirect: Distribution;
  };
  addedTtfbP50Ms: number;
  downloadMiBs: { preview: number[]; direct: number[] };
  goals: Goal[];
}

/** One GET: ms to the first byte of the body, and the bytes read. */
function timedGet(
  url: string,
  agent: Agent | false,
  cookie?: string,
): Promise<{ ttfb: number; total: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const req = request(url, { agent, headers: cookie ? { cookie } : {} }, (res) => {
      let first = -1;
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        if (first < 0) first = now() - t0;
        bytes += chunk.length;
      });
      res.on('end', () =>
        res.statusCode === 200
          ? resolve({ ttfb: first, total: now() - t0, bytes })
          : reject(new Error(`${url} answered ${res.statusCode}`)),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function measure(
  base: string,
  cookie: string | undefined,
): Promise<{ keepAlive: number[]; fresh: number[]; mibs: number[] }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const keepAlive: number[] = [];
  const fresh: number[] = [];
  for (let i = 0; i < 20; i++) await timedGet(`${base}/small.txt`, agent, cookie); // warm-up
  for (let i = 0; i < REQUESTS; i++) keepAlive.push((await timedGet(`${base}/small.txt`, agent, cookie)).ttfb);
  for (let i = 0; i < REQUESTS / 3; i++) fresh.push((await timedGet(`${base}/small.txt`, false, cookie)).ttfb);
  const mibs: number[] = [];
  for (let i = 0; i < DOWNLOADS; i++) {
    const r = await timedGet(`${base}/big.bin`, agent, cookie);
    if (r.bytes !== BIG) throw new Error(`downloaded ${r.bytes} bytes, not ${BIG}`);
    mibs.push(Math.round((BIG / 1024 / 1024 / (r.total / 1000)) * 10) / 10);
  }
  agent.destroy();
  return { keepAlive, fresh, mibs };
}

/** The same server in a container on a network of this bench's own, reached at its address there. */
async function directServer(image: string, run: (base: string) => Promise<void>): Promise<void> {
  const api = new Docker(resolveEndpoint(undefined).options);
  const name = `sandpit-bench-previews-${process.pid}-${Date.now().toString(36)}`;
  const network = await api.createNetwork({
    Name: name,
    Driver: 'bridge',
    Labels: { 'dev.sandpit.bench': 'previews' },
  });
  const container = await api.createContainer({
    name,
    Image: image,
    User: '10001:10001',
    WorkingDir: '/tmp',
    Cmd: ['sh', '-c', SERVE],
    Labels: { 'dev.sandpit.bench': 'previews' },
    HostConfig: { NetworkMode: name, Init: true },
  });
  try {
    await container.start();
    const info = await container.inspect();
    const address = info.NetworkSettings.Networks[name]?.IPAddress;
    if (!address) throw new Error('the direct server has no address on the bench network');
    const base = `http://${address}:8000`;
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        await timedGet(`${base}/small.txt`, false);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    await run(base);
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
    await network.remove().catch(() => undefined);
  }
}

export async function run(): Promise<PreviewsSummary> {
  const image = await pythonImage();
  let preview: { keepAlive: number[]; fresh: number[]; mibs: number[] } | undefined;
  await withCore({ poolSize: 0 }, async (sandpit) => {
    const info = await newSession(sandpit, { limits: { workspaceMb: 1024 } });
    await call(sandpit.api, 'processes.start', { sessionId: info.id, command: SERVE }, PANEL);
    const opened = await call(sandpit.api, 'previews.open', { sessionId: info.id, port: 8000, waitSeconds: 30 }, PANEL);
    const first = await new Promise<string>((resolve, reject) => {
      request(opened.url, (res) => {
        res.resume();
        resolve((res.headers['set-cookie']?.[0] ?? '').split(';')[0]!);
      })
        .on('error', reject)
        .end();
    });
    progress(
      `previews: through the preview at ${opened.origin}: ${REQUESTS} keep-alive GETs, ${REQUESTS / 3} on new connections, ${DOWNLOADS} × 100 MiB`,
    );
    preview = await measure(opened.origin, first);
  });
  let direct: { keepAlive: number[]; fresh: number[]; mibs: number[] } | undefined;
  await directServer(image, async (base) => {
    progress(`previews: direct to ${base} on a bench network: the same`);
    direct = await measure(base, undefined);
  });
  if (!preview || !direct) throw new Error('a side of the comparison did not run');

  const ttfb = {
    preview: summarize(preview.keepAlive),
    direct: summarize(direct.keepAlive),
    newConnectionPreview: summarize(preview.fresh),
    newConnectionDirect: summarize(direct.fresh),
  };
  const added = ttfb.preview.p50 - ttfb.direct.p50;
  const previewMiBs = [...preview.mibs].sort((a, b) => a - b)[Math.floor(DOWNLOADS / 2)]!;
  const directMiBs = [...direct.mibs].sort((a, b) => a - b)[Math.floor(DOWNLOADS / 2)]!;
  process.stdout.write(
    `\n## previews: time to first byte and 100 MiB downloads (N=${REQUESTS} keep-alive, ${REQUESTS / 3} new connections, ${DOWNLOADS} downloads)\n`,
  );
  process.stdout.write(
    `${table(
      [...LATENCY_HEADERS],
      [
        latencyRow('TTFB through the preview (keep-alive)', ttfb.preview),
        latencyRow('TTFB direct (keep-alive)', ttfb.direct),
        latencyRow('TTFB through the preview (new connection)', ttfb.newConnectionPreview),
        latencyRow('TTFB direct (new connection)', ttfb.newConnectionDirect),
      ],
    )}\n`,
  );
  process.stdout.write(
    `100 MiB download, MiB/s: preview ${preview.mibs.join(', ')} (median ${previewMiBs}); direct ${direct.mibs.join(', ')} (median ${directMiBs})\n`,
  );
  const goals = [
    goal('previews: added TTFB p50 (keep-alive)', '≤ 2 ms', formatMs(added), added <= 2),
    goal('previews: 100 MiB download through the preview', '≥ 200 MiB/s', `${previewMiBs} MiB/s`, previewMiBs >= 200),
  ];
  process.stdout.write(`${goalTable(goals)}\n`);
  return {
    requests: REQUESTS,
    ttfb: {
      preview: roundDistribution(ttfb.preview),
      direct: roundDistribution(ttfb.direct),
      newConnectionPreview: roundDistribution(ttfb.newConnectionPreview),
      newConnectionDirect: roundDistribution(ttfb.newConnectionDirect),
    },
    addedTtfbP50Ms: Math.round(added * 100) / 100,
    downloadMiBs: { preview: preview.mibs, direct: direct.mibs },
    goals,
  };
}

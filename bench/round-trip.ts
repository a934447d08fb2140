/**
 * Round trip of `1+1`: (a) the raw agent channel over the unix socket (our own container and
 * connection), (b) the engine's `sessions.execute` on a socket-channel session, (c) the same on an
 * attach-channel session, (d) `docker exec … python3 -c "print(1+1)"` per call.
 * (a)–(c), and a raw `hello` (channel only), are interleaved round-robin so background noise hits them alike.
 */
import type { Sandpit } from '../src/core/app';
import { now, progress, pythonImage, withCore } from './harness';
import { startRawAgent } from './raw-agent';
import { LATENCY_HEADERS, formatMs, formatRatio, goal, goalTable, latencyRow, round, roundDistribution, summarize, table } from './stats';
import type { Distribution, Goal } from './stats';
import { newSession } from '../src/test-support/sessions';

const N = 300;
const WARMUP = 20;
const N_EXEC = 30;
const WARMUP_EXEC = 3;

export interface RoundTripSummary {
  raw: Distribution;
  /** The agent's own `durationMs` for the raw runs: execution time inside the container, without transport. */
  agentReported: Distribution;
  /** `hello` over the same raw channel: transport and the agent's channel threads, no execution. */
  rawHello: Distribution;
  engineSocket: Distribution;
  engineAttach: Distribution;
  dockerExec: Distribution;
  engineOverheadP50Ms: number;
  attachOverheadP50Ms: number;
  ratioExecEngineP50: number;
  goals: Goal[];
}

function expectTwo(what: string, value: string | undefined): void {
  if (value !== '2') throw new Error(`${what}: 1+1 gave ${JSON.stringify(value)}`);
}

async function engineRun(sandpit: Sandpit, sessionId: string): Promise<number> {
  const t0 = now();
  const result = await sandpit.sessions.session(sessionId).execute('1+1');
  const elapsed = now() - t0;
  expectTwo('engine', result.result);
  return elapsed;
}

export async function run(): Promise<RoundTripSummary> {
  const image = await pythonImage();
  const samples = { hello: [] as number[], raw: [] as number[], socket: [] as number[], attach: [] as number[], exec: [] as number[], agent: [] as number[] };

  await withCore({ channel: 'socket' }, (socketCore) =>
    withCore({ channel: 'attach' }, async (attachCore) => {
      progress('round-trip: starting a raw-agent container, a socket session and an attach session');
      const raw = await startRawAgent(socketCore, image);
      try {
        const socketSession = await newSession(socketCore, {});
        const attachSession = await newSession(attachCore, {});
        if (attachCore.sessions.channelKind !== 'attach' || socketCore.sessions.channelKind !== 'socket') throw new Error('channel settings were not honoured');

        let lastAgentMs = 0;
        const variants: Array<{ key: 'hello' | 'raw' | 'socket' | 'attach'; once: () => Promise<number> }> = [
          {
            key: 'hello',
            once: async () => {
              const t0 = now();
              await raw.hello();
              return now() - t0;
            },
          },
          {
            key: 'raw',
            once: async () => {
              const t0 = now();
              const reply = await raw.execute('1+1');
              const elapsed = now() - t0;
              expectTwo('raw', reply.result);
              lastAgentMs = reply.agentMs;
              return elapsed;
            },
          },
          { key: 'socket', once: () => engineRun(socketCore, socketSession.id) },
          { key: 'attach', once: () => engineRun(attachCore, attachSession.id) },
        ];

        progress(`round-trip: ${WARMUP} warm-up + ${N} runs each of raw hello / raw / engine socket / engine attach, interleaved`);
        for (let i = 0; i < WARMUP + N; i++) {
          for (let k = 0; k < variants.length; k++) {
            const v = variants[(i + k) % variants.length];
            if (!v) continue;
            const elapsed = await v.once();
            if (i >= WARMUP) samples[v.key].push(elapsed);
            if (i >= WARMUP && v.key === 'raw') samples.agent.push(lastAgentMs);
          }
          if ((i + 1) % 100 === 0) progress(`round-trip: ${i + 1}/${WARMUP + N}`);
        }

        progress(`round-trip: ${WARMUP_EXEC} warm-up + ${N_EXEC} docker exec calls`);
        for (let i = 0; i < WARMUP_EXEC + N_EXEC; i++) {
          const t0 = now();
          const result = await socketCore.docker.exec(socketSession.containerId, ['python3', '-c', 'print(1+1)']);
          const elapsed = now() - t0;
          expectTwo('docker exec', result.stdout.trim());
          if (i >= WARMUP_EXEC) samples.exec.push(elapsed);
        }
      } finally {
        await raw.close();
      }
    }),
  );

  const raw = summarize(samples.raw);
  const socket = summarize(samples.socket);
  const attach = summarize(samples.attach);
  const exec = summarize(samples.exec);
  const agent = summarize(samples.agent);
  const hello = summarize(samples.hello);
  const overhead = socket.p50 - raw.p50;
  const attachOverhead = attach.p50 - raw.p50;
  const ratio = exec.p50 / socket.p50;

  process.stdout.write(`\n## round trip of 1+1 (N=${N} after ${WARMUP} warm-up, interleaved; docker exec N=${N_EXEC})\n`);
  process.stdout.write(
    `${table(
      [...LATENCY_HEADERS],
      [
        latencyRow('(a) raw agent, unix socket', raw),
        latencyRow('    user code (agent durationMs)', agent),
        latencyRow('    raw hello (no execution)', hello),
        latencyRow('(b) engine API, socket', socket),
        latencyRow('(c) engine API, attach', attach),
        latencyRow('(d) docker exec python3 -c', exec),
      ],
    )}\n`,
  );
  process.stdout.write(
    `engine overhead over raw at p50: socket ${formatMs(overhead)}, attach ${formatMs(attachOverhead)}; docker exec / engine (socket) at p50: ${formatRatio(ratio)}; docker exec / engine (attach): ${formatRatio(exec.p50 / attach.p50)}\n`,
  );
  const goals = [
    goal('round trip: engine overhead over raw (socket, p50)', '≤ 1 ms', formatMs(overhead), overhead <= 1),
    goal('round trip: docker exec / engine (socket, p50)', '≥ 100×', formatRatio(ratio), ratio >= 100),
  ];
  process.stdout.write(`${goalTable(goals)}\n`);

  return {
    raw: roundDistribution(raw),
    agentReported: roundDistribution(agent),
    rawHello: roundDistribution(hello),
    engineSocket: roundDistribution(socket),
    engineAttach: roundDistribution(attach),
    dockerExec: roundDistribution(exec),
    engineOverheadP50Ms: round(overhead),
    attachOverheadP50Ms: round(attachOverhead),
    ratioExecEngineP50: round(ratio),
    goals,
  };
}

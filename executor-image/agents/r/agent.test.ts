// The R agent (main.pl + kernel.R) over stdio, on this machine's own R and Perl (the image has the same:
// Debian's r-base-core and perl-base). Without R here the suite says so and is skipped.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, expectUnconnectedExit, spawnAgent, sleep, waitUntil } from '../test-support/agent-client';
import type { JsonLinesClient, SpawnedAgent } from '../test-support/agent-client';
import { describeWorkspaceFs, onSmallTmpfs } from '../test-support/workspace-fs-suite';

const AGENT = join(__dirname, 'main.pl');
const hasR = spawnSync('R', ['--version'], { encoding: 'utf8' }).status === 0;
if (!hasR) console.warn('R agent tests skipped: no R on this machine (apt-get install r-base-core)');

/** The processes of process group `pgid`: their command names and states. */
function groupOf(pgid: number): { comm: string; state: string }[] {
  return spawnSync('ps', ['-e', '-o', 'pgid=,stat=,comm='], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[0] === String(pgid))
    .map((f) => ({ state: f[1]!.slice(0, 1), comm: f[2]! }));
}

function start(command: string[] = ['perl', AGENT]): SpawnedAgent {
  return spawnAgent(command, { workspacePrefix: 'sandpit-r-agent-ws-', env: { SANDPIT_KILL_STRAYS: undefined }, detached: true });
}

describe.skipIf(!hasR)('r agent over stdio', () => {
  let agent: SpawnedAgent;
  let client: JsonLinesClient;
  beforeAll(() => {
    agent = start();
    client = agent.client;
  });
  afterAll(() => agent.stop());

  it('answers hello with the language r and R version', async () => {
    const hello = await client.hello();
    expect(hello).toMatchObject({ type: 'hello', language: 'r', protocol: 1 });
    expect(hello.version).toMatch(/^4\.\d+\.\d+$/);
  }, 30_000);

  it('keeps variables between runs and prints visible values as R does', async () => {
    expect((await client.run('x <- 41')).stdout).toBe('');
    const run = await client.run('x + 1\ninvisible(7)\ncat("h\\u00e9\\n")');
    expect(run.done.status).toBe('ok');
    expect(run.stdout).toBe('[1] 42\nhé\n');
  });

  it('streams output as it is written, before the run ends', async () => {
    const run = await client.run('cat("first\\n"); Sys.sleep(1); cat("second\\n")');
    const first = run.messages.find((r) => r.msg.type === 'stream' && String(r.msg.text).includes('first'))!;
    const done = run.messages.find((r) => r.msg.type === 'done')!;
    expect(done.at - first.at).toBeGreaterThan(700);
    expect(run.stdout).toBe('first\nsecond\n');
  });

  it("captures stderr, messages, warnings and a subprocess's output at the fd level", async () => {
    const run = await client.run('message("to err"); warning("careful"); system("echo from-sub; echo sub-err >&2")');
    expect(run.stdout).toBe('from-sub\n');
    expect(run.stderr).toContain('to err\n');
    expect(run.stderr).toContain('Warning message:\ncareful');
    expect(run.stderr).toContain('sub-err\n');
  });

  it("reports an error with R's message and the calls that led to it, keeping the state", async () => {
    const run = await client.run('f <- function() stop("boom")\ng <- function() f()\ng()');
    expect(run.done.status).toBe('error');
    expect(run.error).toMatchObject({ name: 'simpleError', value: 'boom' });
    expect(run.error!.traceback).toBe('Error in f() : boom\nCalls: g -> f');
    expect((await client.run('x')).stdout).toBe('[1] 41\n');
  });

  it('reports a syntax error without running any of the code', async () => {
    const run = await client.run('y <- 1\n1 +');
    expect(run.error).toMatchObject({ name: 'SyntaxError' });
    expect(String(run.error!.value)).toContain('unexpected end of input');
    expect((await client.run('exists("y")')).stdout).toBe('[1] FALSE\n');
  });

  it("interrupts a busy loop with R's interrupt, keeping the state", async () => {
    const id = client.start('cat("busy\\n"); repeat {}');
    await sleep(1500);
    client.send({ type: 'interrupt', id });
    const run = await client.collect(id);
    expect(run.done.status).toBe('interrupted');
    expect(run.stdout).toBe('busy\n');
    expect((await client.run('x * 2')).stdout).toBe('[1] 82\n');
  });

  it('interrupts code waiting for a system() command that keeps forking: nothing after it runs, no process is left, the state is kept', async () => {
    // R ignores INT while system() waits: the agent kills the command's tree (frozen first, so no child forked
    // meanwhile is orphaned holding the pipes), and the INT that follows stops R before the next line.
    await client.run('kept <- 5');
    const id = client.start('cat("waiting\\n"); system("while :; do sleep 30 & sleep 0.002; done"); Sys.sleep(3); after <- TRUE');
    await client.waitFor((m) => m.id === id && m.type === 'stream');
    await sleep(300);
    client.send({ type: 'interrupt', id });
    const run = await client.collect(id);
    expect(run.done.status).toBe('interrupted');
    expect((await client.run('c(exists("after"), kept)')).stdout).toBe('[1] 0 5\n');
    // The agent leads its own process group: an orphaned sleep would still be in it (the killed ones are reaped).
    await waitUntil(() => !groupOf(agent.proc.pid!).some((p) => p.comm === 'sleep' && p.state !== 'Z'), 'a sleep of the command was left running');
    expect(groupOf(agent.proc.pid!).map((p) => p.comm)).toEqual(expect.arrayContaining(['perl', 'R']));
  });

  it('drops an interrupt that reaches R after its run ended: the next runs are not cut and R does not halt', async () => {
    const pid = Number((await client.run('cat(Sys.getpid())')).stdout);
    await client.run('late <- 1');
    for (let i = 0; i < 3; i++) {
      process.kill(pid, 'SIGINT'); // as one sent for a run that had just ended would
      await sleep(150);
      const next = await client.run('late <- late + 1; late');
      expect(next.done.status).toBe('ok');
      expect(next.stdout).toBe(`[1] ${i + 2}\n`);
    }
    expect(Number((await client.run('cat(Sys.getpid())')).stdout)).toBe(pid); // the same R, its state kept
  });

  it('returns the pages of the default graphics device as PNG display items', async () => {
    const run = await client.run('plot(1:10)\nhist(rnorm(50))');
    expect(run.done.status).toBe('ok');
    expect(run.displays).toHaveLength(2);
    for (const d of run.displays) {
      expect(d).toMatchObject({ mime: 'image/png', encoding: 'base64' });
      expect(Buffer.from(String(d.data), 'base64').subarray(1, 4).toString()).toBe('PNG');
    }
    expect((await client.run('1')).displays).toHaveLength(0);
  });

  it('lists the workspace files a run wrote in done', async () => {
    const run = await client.run('writeLines("hello", "out.txt")');
    expect(run.done.files).toEqual([{ path: 'out.txt', size: 6 }]);
    expect(readFileSync(join(agent.workspace, 'out.txt'), 'utf8')).toBe('hello\n');
  });

  it('keeps working after code used up every connection and descriptor R allows', async () => {
    const run = await client.run('cons <- list(); repeat cons[[length(cons) + 1]] <- file(tempfile(), "w")');
    expect(run.done.status).toBe('error');
    expect(String(run.error!.value)).toMatch(/all connections are in use|cannot open/);
    // the connections stay open: the agent still streams, draws and reports files
    const after = await client.run('plot(1:3); cat(length(cons) > 100, "\\n"); system("echo still > after.txt")');
    expect(after.error).toBeUndefined();
    expect(after.done.status).toBe('ok');
    expect(after.stdout).toBe('TRUE \n');
    expect(after.displays).toHaveLength(1);
    expect(after.done.files).toEqual([{ path: 'after.txt', size: 6 }]);
    expect((await client.run('invisible(lapply(cons, close)); writeLines("x", "y.txt"); x')).stdout).toBe('[1] 41\n');
  });

  it('starts a new R when user code quits, saying so in plain words', async () => {
    const run = await client.run('quit(save = "no")');
    expect(run.done.status).toBe('error');
    expect(run.error).toMatchObject({ name: 'KernelExited' });
    expect(String(run.error!.value)).toContain('its variables are lost');
    expect((await client.run('exists("x")')).stdout).toBe('[1] FALSE\n');
  }, 30_000);

  it('never runs a .Rprofile or .Renviron written into the workspace when R starts again', async () => {
    await client.run('writeLines(\'planted <- TRUE; file.create("planted.txt")\', ".Rprofile"); writeLines("SANDPIT_PLANTED=yes", ".Renviron")');
    expect((await client.run('quit(save = "no")')).error).toMatchObject({ name: 'KernelExited' });
    const run = await client.run('cat(exists("planted"), file.exists("planted.txt"), nzchar(Sys.getenv("SANDPIT_PLANTED")), "\\n")');
    expect(run.stdout).toBe('FALSE FALSE FALSE \n');
  }, 30_000);

  it("answers install.packages() in code with what to do instead, and is quiet about what is installed", async () => {
    const missing = await client.run('install.packages("sandpitnosuchpkg")');
    expect(missing.done.status).toBe('error');
    expect(missing.error!.traceback).toBe(
      "Error: R code cannot install packages in this session: install sandpitnosuchpkg with Sandpit's install_packages (or Packages on the session's page in the panel), then library() finds it.",
    );
    const there = await client.run('install.packages(c("stats", "utils"))');
    expect(there.done.status).toBe('ok');
    expect(there.stderr).toBe('Already installed: stats, utils.\n');
    expect((await client.run('environmentName(environment(utils::install.packages))')).stdout).toBe('[1] "utils"\n');
  });
});

describe.skipIf(!hasR)('r agent: its hello', () => {
  it('names R whatever language the session asked for, so the host refuses a session of another language', async () => {
    const other = spawnAgent(['perl', AGENT], { workspacePrefix: 'sandpit-r-agent-ws-', env: { SANDPIT_KILL_STRAYS: undefined, SANDPIT_LANGUAGE: 'python' }, detached: true });
    try {
      expect(await other.client.hello()).toMatchObject({ type: 'hello', language: 'r' });
    } finally {
      other.stop();
    }
  }, 30_000);
});

describe.skipIf(!hasR)('r agent over a unix socket', () => {
  it('serves one connection at a time: a new connection replaces the old one, the state stays', async () => {
    const socketDir = mkdtempSync(join(tmpdir(), 'sandpit-r-agent-sock-'));
    const path = join(socketDir, 'agent.sock');
    const sockets: Socket[] = [];
    const served = spawnAgent(['perl', AGENT], {
      workspacePrefix: 'sandpit-r-agent-sock-',
      env: { SANDPIT_KILL_STRAYS: undefined, SANDPIT_CHANNEL: `socket:${path}` },
    });
    try {
      await waitUntil(() => existsSync(path), 'the agent made its socket', 30_000);
      const first = await connectClient(path, sockets);
      expect(await first.hello()).toMatchObject({ language: 'r' });
      expect((await first.run('kept <- "yes"')).done.status).toBe('ok');
      const second = await connectClient(path, sockets);
      expect((await second.run('kept')).stdout).toBe('[1] "yes"\n');
    } finally {
      for (const socket of sockets) socket.destroy();
      served.stop();
      rmSync(socketDir, { recursive: true, force: true });
    }
  }, 40_000);
});

describe.skipIf(!hasR)('r agent with no host', () => {
  it('ends once no host has been connected for SANDPIT_UNCONNECTED_EXIT_S seconds, and not while one is', async () => {
    const socketDir = mkdtempSync(join(tmpdir(), 'sandpit-r-agent-sock-'));
    const path = join(socketDir, 'agent.sock');
    const served = spawnAgent(['perl', AGENT], {
      workspacePrefix: 'sandpit-r-agent-sock-',
      env: { SANDPIT_KILL_STRAYS: undefined, SANDPIT_CHANNEL: `socket:${path}`, SANDPIT_UNCONNECTED_EXIT_S: '1' },
    });
    try {
      await expectUnconnectedExit(path, () => served.proc.exitCode !== null, 'kept <- "yes"', 'kept', '"yes"');
      expect(served.proc.exitCode).toBe(0);
    } finally {
      served.stop();
      rmSync(socketDir, { recursive: true, force: true });
    }
  }, 40_000);
});

if (hasR) {
  describeWorkspaceFs('r agent: workspace files (fs)', {
    start: () => start(),
    startOnSmallTmpfs: () => start(onSmallTmpfs(['perl', AGENT])),
    busyCode: 'cat("busy\\n"); repeat {}',
  });
}

import { connect } from 'node:net';
import type { Socket } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call } from '../api/dispatcher';
import { startHttpServer } from '../http/http-server';
import type { RunningHttpServer } from '../http/http-server';
import type { RestExecuteResponse } from '../http/rest-execute';
import { generateToken } from '../connect/token';
import { pollUntil } from '../util/with-timeout';
import { CRAN_ALIAS, startCranRepository } from '../../test-support/cran-repository';
import type { CranRepository } from '../../test-support/cran-repository';
import { testDocker } from '../../test-support/docker';
import { rawRequest } from '../../test-support/http-client';
import { connectInProcess } from '../../test-support/in-process-mcp';
import { recordingDocker } from '../../test-support/recording-docker';
import type { RecordingDocker } from '../../test-support/recording-docker';
import { startTestSandpit } from '../../test-support/sandpit';
import type { TestSandpit } from '../../test-support/sandpit';

interface RunOut {
  session_id: string;
  status: string;
  stdout: string;
  stderr: string;
  result?: string;
  error?: { name: string; value: string; traceback: string };
  artifacts: Array<{ path: string; mime: string; uri: string }>;
}

const TOKEN = generateToken();

/**
 * R sessions, as an assistant uses them over MCP (a real SDK client) and REST: R's state kept between runs,
 * a plot from the default device back as a picture, errors in R's own words, run_file for .R, and packages
 * installed with install.packages() from a CRAN-style repository the test serves on its own Docker network,
 * reached only through Sandpit's egress proxy.
 */
describe('R sessions over MCP and REST', () => {
  let repo: CranRepository | undefined;
  let sp: TestSandpit | undefined;
  let http: RunningHttpServer | undefined;
  let recorder: RecordingDocker;
  let client: Client;
  let closeAll: () => Promise<void>;
  let sessionId: string;

  const tool = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 240_000 })) as CallToolResult;
  const run = async (code: string): Promise<{ out: RunOut; content: CallToolResult['content'] }> => {
    const r = await tool('execute_code', { code, session_id: sessionId });
    expect(r.isError ?? false, JSON.stringify(r.content)).toBe(false);
    return { out: r.structuredContent as unknown as RunOut, content: r.content };
  };
  const text = (r: CallToolResult): string => r.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');

  beforeAll(async () => {
    const images = inject('images');
    if (!images.python || !images.r) throw new Error('The python and r executor images were not built by the docker globalSetup.');
    repo = await startCranRepository(testDocker(), { image: images.python });
    const repoIp = repo.ip;
    recorder = recordingDocker(testDocker());
    sp = await startTestSandpit(
      { egressProxy: true, cranRepositoryUrl: repo.url, installNetwork: 'none' },
      {
        docker: recorder.docker,
        // Only the repository's name is ever connected to, and only at its address on the test's network.
        egressConnect: (host: string, port: number): Socket => {
          if (host !== CRAN_ALIAS) throw new Error(`unexpected upstream ${host}`);
          return connect({ host: repoIp, port });
        },
      },
    );
    await pollUntil(() => (sp!.environments.egress() ? true : undefined), 30_000, 'egress gateway up');
    http = await startHttpServer({ sandpit: sp, port: 0, token: TOKEN, panelToken: generateToken() });
    const connected = await connectInProcess(sp, 'r-test', 'mcp:r');
    client = connected.client;
    closeAll = connected.close;
    const created = await tool('create_session', { language: 'r' });
    expect(created.isError ?? false, text(created)).toBe(false);
    sessionId = (created.structuredContent as { session_id: string }).session_id;
  }, 600_000);
  afterAll(async () => {
    await closeAll?.();
    await http?.close();
    await sp?.cleanup();
    await repo?.stop();
  });

  it('is an R session on the r image, whose agent says it serves R', () => {
    const info = sp!.sessions.session(sessionId).info();
    expect(info.language).toBe('r');
    expect(info.image).toBe(inject('images').r);
    expect(info.environment).toBe('r');
  });

  it('keeps variables and functions between runs, and prints visible values as R does', async () => {
    expect((await run('x <- c(2, 4, 9)\nsq <- function(v) v^2')).out.stdout).toBe('');
    const { out } = await run('sum(sq(x))\ninvisible(99)\ncat("done\\n")');
    expect(out.status).toBe('ok');
    expect(out.stdout).toBe('[1] 101\ndone\n');
  });

  it("gives a plot back as a picture: image content, and an artifact in the session's outputs", async () => {
    const { out, content } = await run('plot(x, main = "Sandpit")');
    expect(out.status).toBe('ok');
    const image = content.find((c) => c.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(Buffer.from((image as { data: string }).data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(out.artifacts).toEqual([expect.objectContaining({ mime: 'image/png', uri: expect.stringMatching(/^sandpit:\/\/artifacts\/[a-f0-9]{64}$/) as unknown })]);
  });

  it("reports an error in R's words, with the calls that led to it, and keeps the state", async () => {
    const r = await tool('execute_code', { session_id: sessionId, code: 'f <- function() stop("boom")\ng <- function() f()\ng()' });
    const out = r.structuredContent as unknown as RunOut;
    expect(out.status).toBe('error');
    expect(out.error).toEqual({ name: 'simpleError', value: 'boom', traceback: 'Error in f() : boom\nCalls: g -> f' });
    expect(text(r)).toContain('Error in f() : boom\nCalls: g -> f');
    expect((await run('length(x)')).out.stdout).toBe('[1] 3\n');
  });

  it('stops code waiting for a system() command that keeps forking at its time limit, keeping the variables and leaving no process', async () => {
    const r = await tool('execute_code', {
      session_id: sessionId,
      code: 'system("while :; do sleep 300 & sleep 0.002; done")',
      timeout_seconds: 1,
    });
    const out = r.structuredContent as unknown as RunOut;
    expect(out.status).toBe('timeout');
    expect(text(r)).toContain('Variables were kept.');
    const left = await run('sum(vapply(list.files("/proc", pattern = "^[0-9]+$"), function(p) identical(tryCatch(readLines(file.path("/proc", p, "comm"), warn = FALSE), error = function(e) ""), "sleep"), logical(1)))');
    expect(left.out.stdout).toBe('[1] 0\n');
    expect((await run('length(x)')).out.stdout).toBe('[1] 3\n');
  });

  it('runs a .R file in the session’s state with run_file, and refuses it in a Python session', async () => {
    const written = await tool('write_file', { session_id: sessionId, path: 'analysis.R', content: 'cat("mean:", mean(x), "\\n")\n' });
    expect(written.isError ?? false, text(written)).toBe(false);
    const r = await tool('run_file', { session_id: sessionId, path: 'analysis.R' });
    expect(r.isError ?? false, text(r)).toBe(false);
    expect((r.structuredContent as unknown as RunOut).stdout).toBe('mean: 5 \n');
    const py = await call(sp!.api, 'sessions.create', { language: 'python' }, { transport: 'internal' });
    await expect(call(sp!.api, 'sessions.runFile', { sessionId: py.id, path: '/workspace/analysis.R' }, { transport: 'internal' })).rejects.toThrow(
      '"analysis.R" cannot be run in a Python session: run it in an R session',
    );
    await call(sp!.api, 'sessions.stop', { sessionId: py.id }, { transport: 'internal' });
  });

  it('installs a package and its dependency from the CRAN repository, through the egress proxy only, and library() finds them', async () => {
    const installed = await tool('install_packages', { session_id: sessionId, packages: ['sandpitdemoplus'] });
    expect(installed.isError ?? false, text(installed)).toBe(false);
    const installer = recorder.withRole('installer').at(-1)!;
    expect(installer.hostConfig.NetworkMode).toBe(sp!.environments.egress()!.network);
    expect(installer.env.HTTPS_PROXY).toMatch(new RegExp(`^http://${sessionId}:[A-Za-z0-9_-]{43}@`));
    const { out } = await run('library(sandpitdemoplus)\ndouble_answer()\nsandpitdemo::greet("R")');
    expect(out.status, out.error?.traceback).toBe('ok');
    expect(out.stdout).toBe('[1] 84\n[1] "hello R"\n');
    const checked = await tool('check_packages', { session_id: sessionId, packages: ['sandpitdemoplus', 'sandpitdemo', 'MASS', 'sandpitnosuch'] });
    expect(checked.structuredContent).toMatchObject({
      packages: [
        { name: 'sandpitdemoplus', installed: true, version: '0.2.0' },
        { name: 'sandpitdemo', installed: true, version: '1.0.0' },
        { name: 'MASS', installed: true, version: expect.stringMatching(/^7\./) as unknown },
        { name: 'sandpitnosuch', installed: false },
      ],
    });
  });

  it('says in plain words when the repository does not have a package, and that R code cannot install one itself', async () => {
    const missing = await tool('install_packages', { session_id: sessionId, packages: ['sandpitnosuch'] });
    expect(text(missing)).toContain('“sandpitnosuch” was not found on the CRAN repository (cran-repo:8080), or not in a version that fits.');
    const r = await tool('execute_code', { session_id: sessionId, code: 'install.packages("ggplot2")' });
    expect((r.structuredContent as unknown as RunOut).error?.traceback).toBe(
      "Error: R code cannot install packages in this session: install ggplot2 with Sandpit's install_packages (or Packages on the session's page in the panel), then library() finds it.",
    );
  });

  it('runs R over REST: POST /execute {env: "r"} answers with R’s output, and an error on stderr with exit code 1', async () => {
    const post = async (body: unknown): Promise<RestExecuteResponse> => {
      const res = await rawRequest({
        port: http!.port,
        method: 'POST',
        path: '/execute',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        timeoutMs: 120_000,
      });
      expect(res.status, res.text).toBe(200);
      return res.json as RestExecuteResponse;
    };
    expect(await post({ env: 'r', code: 'v <- 1:4\nsum(v)' })).toEqual({ stdout: '[1] 10\n', stderr: '', exit_code: 0, artifacts: [] });
    const failed = await post({ env: 'r', code: 'log(-1)\nstop("no good")' });
    expect(failed.exit_code).toBe(1);
    expect(failed.stdout).toBe('[1] NaN\n');
    expect(failed.stderr).toContain('Warning message:\nIn log(-1) : NaNs produced');
    expect(failed.stderr).toContain('Error: no good');
  });

  it('refuses an R session on an image of another language, and another language on the R image, naming both', async () => {
    const images = inject('images');
    await expect(sp!.sessions.create({ language: 'r', image: images.python! })).rejects.toThrow(
      `The sandbox image ${images.python!} runs Python, not R: an R session needs an image made for R.`,
    );
    await expect(sp!.sessions.create({ language: 'python', image: images.r! })).rejects.toThrow(`The sandbox image ${images.r!} runs R, not Python`);
  });
});

/**
 * Languages side by side (issue 22): for Python, JavaScript and R, a cold session (new container, no warm pool)
 * timed from `sessions.create()` to the first answer of `1+1`, and the round trip of `1+1` in a session that is up.
 * R's first answer waits for R itself to start (its agent starts R beside its Perl supervisor).
 */
import type { Sandpit } from '../src/core/app';
import type { Language } from '../src/shared/domain/languages';
import type { ExecutionResult } from '../src/shared/domain/execution';
import { newSession } from '../src/test-support/sessions';
import { now, progress, withCore } from './harness';
import { LATENCY_HEADERS, formatRatio, latencyRow, roundDistribution, summarize, table } from './stats';
import type { Distribution } from './stats';

const COLD = 7;
const WARM = 40;
const LANGS: readonly Language[] = ['python', 'javascript', 'r'];

/** What `1+1` answers in each language: a value (Python, JavaScript) or R's printed line. */
function answered(language: Language, r: ExecutionResult): boolean {
  return language === 'r' ? r.stdout === '[1] 2\n' : r.result === '2';
}

async function once(sandpit: Sandpit, language: Language, id: string): Promise<number> {
  const t0 = now();
  const r = await sandpit.sessions.session(id).execute('1+1');
  const took = now() - t0;
  if (!answered(language, r)) throw new Error(`${language}: 1+1 gave ${JSON.stringify(r.result ?? r.stdout)} (${r.status})`);
  return took;
}

export interface LanguagesSummary {
  languages: Record<string, { coldFirstAnswer: Distribution; warmRoundTrip: Distribution }>;
}

export async function run(): Promise<LanguagesSummary> {
  const out: LanguagesSummary['languages'] = {};
  await withCore({ poolSize: 0 }, async (sandpit) => {
    for (const language of LANGS) {
      const cold: number[] = [];
      const warmUp = await newSession(sandpit, { language }); // the image's first container pays page-cache misses
      await once(sandpit, language, warmUp.id);
      for (let i = 0; i < COLD; i++) {
        const t0 = now();
        const info = await newSession(sandpit, { language });
        await once(sandpit, language, info.id);
        cold.push(now() - t0);
        await sandpit.sessions.stop(info.id);
        progress(`languages: ${language} cold ${i + 1}/${COLD}`);
      }
      const warm: number[] = [];
      for (let i = 0; i < WARM; i++) warm.push(await once(sandpit, language, warmUp.id));
      await sandpit.sessions.stop(warmUp.id);
      out[language] = { coldFirstAnswer: summarize(cold), warmRoundTrip: summarize(warm) };
    }
  });
  const python = out.python!;
  process.stdout.write(`\n## languages (cold: create → first answer of 1+1, N=${COLD}; warm: 1+1 in a session that is up, N=${WARM})\n`);
  process.stdout.write(`${table([...LATENCY_HEADERS], LANGS.flatMap((l) => [latencyRow(`${l} cold`, out[l]!.coldFirstAnswer), latencyRow(`${l} warm`, out[l]!.warmRoundTrip)]))}\n`);
  for (const l of LANGS) {
    process.stdout.write(`${l}/python at p50: cold ${formatRatio(out[l]!.coldFirstAnswer.p50 / python.coldFirstAnswer.p50)}, warm ${formatRatio(out[l]!.warmRoundTrip.p50 / python.warmRoundTrip.p50)}\n`);
  }
  return { languages: Object.fromEntries(Object.entries(out).map(([l, d]) => [l, { coldFirstAnswer: roundDistribution(d.coldFirstAnswer), warmRoundTrip: roundDistribution(d.warmRoundTrip) }])) };
}

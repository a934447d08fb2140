import type { MethodInput, MethodName, MethodOutput } from '../../shared/api/contract';
import type { Artifact } from '../../shared/domain/artifact';
import { call } from '../api/dispatcher';
import type { CallContext } from '../api/api-types';
import type { Sandpit } from '../app';
import type { Logger } from '../log';
import type { ToolExtra } from './tool-extra';
import { setProgressNote, setWaiting } from './request-waiting';
import type { ChatAsk } from '../../shared/domain/approval';

function withChat(ask: ChatAsk | undefined): Pick<CallContext, 'askInChat'> {
  return ask === undefined ? {} : { askInChat: ask };
}

/** How many artifacts one MCP server remembers having handed out (oldest forgotten first). */
const MAX_REMEMBERED_ARTIFACTS = 1_000;

/** What every tool and resource of one MCP server works with: the one API, called as this client. */
/** What the MCP surface sees of the core: the API, the bus, the log, the connected clients. Never an engine. */
export type McpSandpit = Pick<Sandpit, 'api' | 'bus' | 'log' | 'clients'>;

export interface ToolKit {
  sandpit: McpSandpit;
  /** Who is calling, evaluated per call (the client name is only known after initialize). */
  context(): CallContext;
  /** The contract method `name`, validated and called as this client: the only way tools reach the core. `hear`: a command's output as it comes. */
  call<M extends MethodName>(name: M, input: MethodInput<M>, hear?: Pick<CallContext, 'onOutput'>): Promise<MethodOutput<M>>;
  /** Artifacts this client was shown (so it may read them as resources after their session ended). */
  artifacts: ArtifactMemory;
  log: Logger;
  /** This kit for one tool call: its calls carry the request's cancel signal and report waits to its progress. */
  forRequest(extra: ToolExtra): ToolKit;
  /** Whether the client renders MCP Apps (it declared the extension): results then carry what the console shows. */
  rendersApps(): boolean;
}

export interface ArtifactMemory {
  remember(artifacts: readonly Artifact[]): void;
  get(sha256: string): Artifact | undefined;
  list(): Artifact[];
}

function createArtifactMemory(onNew?: () => void, max = MAX_REMEMBERED_ARTIFACTS): ArtifactMemory {
  const known = new Map<string, Artifact>();
  return {
    remember: (artifacts) => {
      let added = false;
      for (const artifact of artifacts) {
        added ||= !known.has(artifact.sha256);
        known.delete(artifact.sha256);
        known.set(artifact.sha256, artifact);
        if (known.size > max) known.delete(known.keys().next().value as string);
      }
      if (added) onNew?.();
    },
    get: (sha256) => known.get(sha256),
    list: () => [...known.values()].reverse(),
  };
}

/** How one tool call's approval questions are asked in the client's chat; undefined when the client cannot be asked. */
export type ChatAskerOf = (extra: ToolExtra) => ChatAsk | undefined;

/**
 * `onNewArtifacts`: told when a run of this client made files it had not seen (the server then sends
 * `notifications/resources/list_changed`, so the client's resource list shows them).
 */
export function createToolKit(sandpit: McpSandpit, context: () => CallContext, chatOf?: ChatAskerOf, onNewArtifacts?: () => void, rendersApps: () => boolean = () => false): ToolKit {
  const artifacts = createArtifactMemory(onNewArtifacts);
  const log = sandpit.log.child({ component: 'mcp' });
  const kitWith = (contextOf: () => CallContext): ToolKit => ({
    sandpit,
    context: contextOf,
    call: (name, input, hear) => call(sandpit.api, name, input, hear?.onOutput ? { ...contextOf(), onOutput: hear.onOutput } : contextOf()),
    artifacts,
    log,
    rendersApps,
    forRequest: (extra) =>
      kitWith(() => ({
        ...context(),
        ...withChat(chatOf?.(extra)),
        signal: extra.signal,
        onWaiting: (what) => setWaiting(extra, what),
        onProgress: (what) => setProgressNote(extra, what),
      })),
  });
  return kitWith(context);
}

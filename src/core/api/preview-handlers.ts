import { SandpitError } from '../../shared/api/errors';
import type { PreviewManager } from '../previews/preview-manager';
import type { Handlers } from './api-types';
import type { HandlerKit } from './handler-kit';

type PreviewMethods = 'previews.open' | 'previews.list' | 'previews.stop' | 'previews.ports';

/** Previews of a sandbox's web apps (issue 17): each one of a session the caller may use. */
export function previewHandlers(kit: HandlerKit, previews: PreviewManager): Pick<Handlers, PreviewMethods> {
  const { sessions } = kit;
  return {
    'previews.open': async ({ sessionId, port, path, waitSeconds }, context) => {
      const session = await kit.target(sessionId, context);
      return previews.open(session, {
        port,
        ...(path ? { path } : {}),
        waitMs: Math.round(waitSeconds * 1000),
        openedBy: context.principal === undefined ? 'panel' : (context.client ?? 'an assistant'),
      });
    },
    'previews.list': async ({ sessionId }, context) => {
      const { principal } = context;
      const visible = new Set(sessions.listFor(principal).map((s) => s.id));
      const maySee = (id: string, owner: string | undefined): boolean =>
        principal === undefined || visible.has(id) || (owner !== undefined && owner === principal);
      if (sessionId !== undefined) {
        const listed = previews.list((id, owner) => id === sessionId && maySee(id, owner));
        if (listed.length === 0) sessions.access(sessionId, principal);
        return { previews: listed };
      }
      return { previews: previews.list(maySee) };
    },
    'previews.stop': async ({ previewId }, context) => {
      const { info, owner } = previews.get(previewId);
      const { principal } = context;
      if (principal !== undefined && owner !== undefined && owner !== principal)
        throw new SandpitError('INVALID_INPUT', `There is no preview ${previewId}.`);
      return previews.stop(
        info.id,
        principal === undefined
          ? 'the person stopped it in the panel'
          : `${context.client ?? 'an assistant'} stopped it`,
      );
    },
    'previews.ports': async ({ sessionId }, context) => ({
      ports: await previews.ports(sessions.access(sessionId, context.principal)),
    }),
  };
}

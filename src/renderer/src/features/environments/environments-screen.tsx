import { useEffect, useState } from 'react';
import type { ReactElement } from 'react';
import type { EnvironmentView as Environment } from '../../../../shared/domain/environment';
import { EmptyState, LoadProblem } from '../../components/empty-state';
import { useAppStore } from '../../stores/panel-context';
import { draftFrom, emptyDraft } from './environment-draft';
import type { EnvironmentDraft } from './environment-draft';
import { EnvironmentForm } from './environment-form';
import { EnvironmentRow } from './environment-row';
import { ImportDialog } from './import-dialog';

type Editor = { editing?: Environment; draft: EnvironmentDraft; notes?: string[] };

/** Environments: list with build state, create/edit, import, build with live log. */
export function EnvironmentsScreen(): ReactElement {
  const status = useAppStore('environments', (s) => s.status);
  const problem = useAppStore('environments', (s) => s.problem);
  const environments = useAppStore('environments', (s) => s.environments);
  const load = useAppStore('environments', (s) => s.load);
  const build = useAppStore('environments', (s) => s.build);
  const [editor, setEditor] = useState<Editor | undefined>();
  const [importing, setImporting] = useState(false);

  useEffect(() => {
    void load();
  }, [load]);

  if (editor) {
    return (
      <section data-testid="environments-screen">
        <EnvironmentForm
          key={editor.editing?.id ?? 'new'}
          {...(editor.editing ? { editing: editor.editing } : {})}
          initial={editor.draft}
          {...(editor.notes ? { notes: editor.notes } : {})}
          onCancel={() => setEditor(undefined)}
          onSaved={(env, andBuild) => {
            setEditor(undefined);
            if (andBuild) void build(env.id, true);
          }}
        />
      </section>
    );
  }

  const mine = environments.filter((e) => !e.preset);
  const presets = environments.filter((e) => e.preset);

  return (
    <section data-testid="environments-screen" aria-labelledby="environments-title">
      <div className="screen-head">
        <div>
          <h1 id="environments-title" tabIndex={-1}>
            Environments
          </h1>
          <p className="muted">
            An environment is a ready-made sandbox: a language, the packages it needs, and how much network it may use.
          </p>
        </div>
        <span className="actions">
          <button type="button" className="secondary" onClick={() => setImporting(true)} data-testid="env-import">
            Import a file
          </button>
          <button type="button" onClick={() => setEditor({ draft: emptyDraft() })} data-testid="env-new">
            New environment
          </button>
        </span>
      </div>
      {status === 'error' && problem ? (
        <LoadProblem testId="environments-problem" message={problem} retry={() => void load()} />
      ) : null}
      {status === 'loading' ? <p className="muted">Loading environments…</p> : null}
      {status === 'ready' && mine.length === 0 ? (
        <EmptyState testId="environments-empty">
          You have no environments of your own yet. Press “New environment” and add the packages your code needs, import
          a requirements.txt or package.json, or copy one of the presets below.
        </EmptyState>
      ) : null}
      {mine.length > 0 ? (
        <ul className="env-list" data-testid="env-list">
          {mine.map((env) => (
            <EnvironmentRow key={env.id} env={env} onEdit={(e) => setEditor({ editing: e, draft: draftFrom(e) })} />
          ))}
        </ul>
      ) : null}
      {presets.length > 0 ? (
        <>
          <h2 className="section-title">Presets</h2>
          <p className="muted small">Presets come with Sandpit. Copy one to change it.</p>
          <ul className="env-list" data-testid="env-presets">
            {presets.map((env) => (
              <EnvironmentRow key={env.id} env={env} onEdit={(e) => setEditor({ editing: e, draft: draftFrom(e) })} />
            ))}
          </ul>
        </>
      ) : null}
      {importing ? (
        <ImportDialog
          onClose={() => setImporting(false)}
          onUse={(draft, notes) => {
            setImporting(false);
            setEditor({ draft, notes });
          }}
        />
      ) : null}
    </section>
  );
}

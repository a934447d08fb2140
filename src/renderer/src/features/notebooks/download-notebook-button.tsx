import { useState } from 'react';
import type { ReactElement } from 'react';
import { downloadText } from '../../lib/download';
import { useClient } from '../../stores/panel-context';
import { plainError } from '../../stores/panel-store';

/** Saves a session's runs as a Jupyter notebook (.ipynb), made from the audit log (ended sessions too). */
export function DownloadNotebookButton({ sessionId, testId }: { sessionId: string; testId: string }): ReactElement {
  const client = useClient();
  const [state, setState] = useState<{ busy: boolean; problem?: string }>({ busy: false });

  const download = async (): Promise<void> => {
    setState({ busy: true });
    try {
      const notebook = await client.call('audit.notebook', { sessionId });
      downloadText(notebook.fileName, notebook.mime, notebook.content);
      setState({ busy: false });
    } catch (error) {
      setState({ busy: false, problem: plainError(error) });
    }
  };

  return (
    <span className="notebook-download">
      <button
        type="button"
        className="secondary"
        onClick={() => void download()}
        disabled={state.busy}
        title="Every run of this session, with its output and pictures, as a Jupyter notebook"
        data-testid={testId}
      >
        {state.busy ? 'Preparing…' : 'Download notebook'}
      </button>
      {state.problem ? (
        <span className="field-error small block" role="alert" data-testid={`${testId}-problem`}>
          {state.problem}
        </span>
      ) : null}
    </span>
  );
}

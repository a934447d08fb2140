import type { Language } from '../../shared/domain/languages';

/** The notebook's `kernelspec` and `language_info` for a session's language (what JupyterLab opens it with). */
export interface NotebookLanguage {
  kernelspec: { name: string; display_name: string; language: string };
  /** What a cell of its kernel runs: IPython (line magics such as `%pip`, `%%bash` cells), a shell, or only its own code. */
  cells: 'ipython' | 'shell' | 'plain';
  language_info: { name: string; file_extension: string; mimetype: string; codemirror_mode?: string | { name: string; version: number }; pygments_lexer?: string; nbconvert_exporter?: string };
}

/**
 * Per language, the kernel JupyterLab users have for it: ipykernel (python3), IJavascript (javascript),
 * bash_kernel (bash), tslab (typescript) — the names those kernels register, so the notebook opens with the matching kernel.
 */
export const NOTEBOOK_LANGUAGES: Record<Language, NotebookLanguage> = {
  python: {
    kernelspec: { name: 'python3', display_name: 'Python 3 (ipykernel)', language: 'python' },
    cells: 'ipython',
    language_info: {
      name: 'python',
      file_extension: '.py',
      mimetype: 'text/x-python',
      codemirror_mode: { name: 'ipython', version: 3 },
      pygments_lexer: 'ipython3',
      nbconvert_exporter: 'python',
    },
  },
  javascript: {
    kernelspec: { name: 'javascript', display_name: 'JavaScript (Node.js)', language: 'javascript' },
    cells: 'plain',
    language_info: { name: 'javascript', file_extension: '.js', mimetype: 'application/javascript', codemirror_mode: 'javascript' },
  },
  bash: {
    kernelspec: { name: 'bash', display_name: 'Bash', language: 'bash' },
    cells: 'shell',
    language_info: { name: 'bash', file_extension: '.sh', mimetype: 'text/x-sh', codemirror_mode: 'shell', pygments_lexer: 'bash' },
  },
  // tslab's kernel, the TypeScript kernel JupyterLab users have.
  typescript: {
    kernelspec: { name: 'tslab', display_name: 'TypeScript', language: 'typescript' },
    cells: 'plain',
    language_info: { name: 'typescript', file_extension: '.ts', mimetype: 'text/typescript', codemirror_mode: 'text/typescript' },
  },
};

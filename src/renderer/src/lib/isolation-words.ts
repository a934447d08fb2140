import { ISOLATION_WORDS } from '../../../shared/domain/isolation';
import type { Isolation } from '../../../shared/domain/isolation';

/** Each isolation level for a person: its name and what it means. */
export const ISOLATION_EXPLAINED: Record<Isolation, { title: string; explain: string }> = {
  standard: {
    title: ISOLATION_WORDS.standard,
    explain:
      'A locked-down container: the code sees none of your files but the folders you share with a session, and no network but what its environment allows. It shares the computer’s core (its kernel) with everything else, like any program.',
  },
  strong: {
    title: ISOLATION_WORDS.strong,
    explain:
      'gVisor puts a separate kernel between the code and the computer, so even a flaw in the computer’s own kernel stays out of reach. A few programs that need unusual system features may not work, and Docker must have gVisor installed.',
  },
};

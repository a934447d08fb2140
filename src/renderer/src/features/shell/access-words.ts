import type { AccessProblem } from '../../../../shared/api/transport';

/** What to tell a person whose page Sandpit refused, by what really happened. */
export function accessWords(problem: AccessProblem): { title: string; text: string } {
  switch (problem) {
    case 'missing':
      return {
        title: 'Open Sandpit with its link',
        text: 'This page was opened without its access link, so it cannot show anything yet. The link ends in #token=… and works only on this computer.',
      };
    case 'replaced':
      return {
        title: 'The link of this page was replaced',
        text: 'Someone made a new panel link (on the Connect screen: “Make a new link”), so this page’s link stopped working. Your sessions and settings are as they were: only the link changed.',
      };
    case 'invalid':
      return {
        title: 'This link does not open Sandpit',
        text: 'Sandpit did not accept the link this page was opened with (#token=…): it may be copied only in part, or an older link that was replaced by a new one.',
      };
  }
}

/** Where a person finds the current link, in the desktop app and in a terminal. */
export const WHERE_THE_LINK_IS =
  'Where to find the link: in the Sandpit window, Connect → “Open this panel in a browser” → Copy link. If Sandpit runs in a terminal (“sandpit serve”), the link is on its “web panel:” line; it stays the same when Sandpit restarts.';

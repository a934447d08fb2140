import type { ReactElement } from 'react';
import { CopyButton } from '../../components/copy-button';
import { useClient } from '../../stores/panel-context';
import { withToken } from './connect-text';

/**
 * Copies a setup that needs the access key with the real key in it (fetched when it is not shown yet), so
 * what lands on the clipboard works as pasted; it says "Copied" only then.
 */
export function KeyedCopyButton({
  text,
  token,
  label,
  testId,
}: {
  text: string;
  token: string | undefined;
  label: string;
  testId: string;
}): ReactElement {
  const client = useClient();
  const withKey = async (): Promise<string> => withToken(text, token ?? (await client.call('connect.revealToken')).token);
  return (
    <CopyButton
      text={withKey}
      label={label}
      copiedLabel="Copied, with the access key"
      failedLabel="Could not copy: select it and copy by hand"
      testId={testId}
    />
  );
}

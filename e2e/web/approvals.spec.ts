import { askApproveAndDeny } from '../flows/approvals';
import { test } from './fixtures';

test('ask-every: the prompt shows the code; approve gives the client its result, deny a clear refusal', async ({ panel, assistants, server }, testInfo) => {
  await askApproveAndDeny({ panel, assistants, server }, testInfo);
});

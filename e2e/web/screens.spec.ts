import { everyScreen } from '../flows/screens';
import { test } from './fixtures';

test('every screen shows its content (screenshots of each)', async ({ panel, assistants, server }, testInfo) => {
  await everyScreen({ panel, assistants, server }, testInfo);
});

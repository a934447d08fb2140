import type { Stats } from 'node:fs';
import { walkTree } from './tree-walk';

/** An entry of a session's layer that is not a folder: a file, a link or a special file. */
export interface LayerEntry {
  rel: string;
  info: Stats;
}

/** Every entry of a copy layer's `files` folder but the folders themselves, links never followed. */
export async function walkLayer(filesDir: string): Promise<LayerEntry[]> {
  return (await walkTree(filesDir)).entries;
}

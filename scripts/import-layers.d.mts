import type { Linter } from 'eslint';

export const CORE_LAYERS: Record<string, string[]>;
export function layerConfigs(): Linter.Config[];

import type { Sandpit } from '../app';

/** The parts of a Sandpit the HTTP surface uses (tests can pass a fake with just these). */
export type HttpSandpit = Pick<Sandpit, 'api' | 'bus' | 'engine' | 'config' | 'log'>;

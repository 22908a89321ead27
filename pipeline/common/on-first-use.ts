import { createRequire } from 'node:module';

/**
 * Packages that take a noticeable share of a command's start to load, loaded on first use: most
 * commands (`--help`, every resumed run, every local validation, every worker start) need few of
 * them. ts-morph and the TypeScript compiler inside it alone take more than a second.
 */
const load = createRequire(import.meta.url);

export const tsMorph = (): typeof import('ts-morph') => load('ts-morph') as typeof import('ts-morph');

/** The Docker engine's client. */
export const dockerode = (): typeof import('dockerode') => load('dockerode') as typeof import('dockerode');

/** The job queue, and the Redis client it runs on. */
export const bullmq = (): typeof import('bullmq') => load('bullmq') as typeof import('bullmq');
export const ioredis = (): typeof import('ioredis') => load('ioredis') as typeof import('ioredis');

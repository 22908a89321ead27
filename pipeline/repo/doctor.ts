import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../common/logger.js';
import { detect } from './detect.js';
import { factsOf } from './facts.js';
import { probe, type ProbeReport } from './probe.js';
import type { RepoProfile } from './profile.js';
import { resolveTarget } from './target.js';

export interface DoctorReport {
  profile: RepoProfile;
  /** Whether the profile was read from a file or detected on the spot. */
  profileSource: 'profile file' | 'detected';
  reasons: string[];
  probe: ProbeReport;
}

/**
 * What swesynth makes of a repository, for a user deciding which profile field to edit: what
 * was detected and why, the command the runs start, and one run of the whole suite as setup
 * would make it, with its first failures.
 */
export async function doctor(target: string, log: Logger): Promise<DoctorReport> {
  const { profile, location } = resolveTarget(target);
  const fromFile = target.endsWith('.json');
  const reasons = fromFile
    ? [
        `runner ${profile.runner} ${profile.runnerArgs.join(' ')}`.trim(),
        `tests: ${profile.tests.join(', ')}`,
        `install: ${profile.install}`,
        `build: ${profile.build}`,
      ]
    : detect(factsOf(location)).reasons;
  const scratch = await mkdtemp(join(tmpdir(), 'swesynth-doctor-'));
  try {
    const report = await probe({ location, profile, log }, join(scratch, 'workspace'), { wholeSuite: true });
    return { profile, profileSource: fromFile ? 'profile file' : 'detected', reasons, probe: report };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

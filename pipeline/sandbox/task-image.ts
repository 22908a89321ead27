import type Docker from 'dockerode';
import { UserError } from '../common/errors.js';
import { checkoutTask } from '../dataset/formats/bundle.js';
import type { RepoProfile } from '../repo/profile.js';
import { DockerSandbox, type ContainerLimits } from './docker.js';
import { environmentImageName } from './images.js';

/** `swesynth/<instance id>:<clean commit12>`: the image an instance's image_name names. */
export function taskImageName(instanceId: string, cleanCommit: string): string {
  return `swesynth/${instanceId.toLowerCase()}:${cleanCommit.slice(0, 12)}`;
}

/** Outside the repository folder, which the checkout empties. */
const BUNDLE_IN_CONTAINER = '/tmp/swesynth-task.bundle';

/**
 * The image of one task: its repository's environment image with one layer on top, in which the
 * code is the task's commit from the bundle (the bug in, the hidden tests out, no other history)
 * and its build is made again. The layer is a container's changes, so the bundle, removed before
 * the commit, is in none.
 */
export async function buildTaskImage(
  docker: Docker,
  task: { instanceId: string; profile: RepoProfile; commit: string; bundle: Buffer; limits: ContainerLimits },
): Promise<{ name: string; buildMs: number; sizeBytes: number }> {
  const { instanceId, profile, commit } = task;
  const name = taskImageName(instanceId, commit);
  const started = performance.now();
  const sandbox = await DockerSandbox.start(docker, environmentImageName(profile, commit), task.limits, profile.env);
  try {
    // writeFile takes a path under the repository folder.
    await sandbox.writeFile(`..${BUNDLE_IN_CONTAINER}`, task.bundle);
    const script = [...checkoutTask(BUNDLE_IN_CONTAINER, instanceId), ...(profile.build ? [profile.build] : [])].join(' && ');
    const made = await sandbox.exec(script, { timeoutMs: profile.timeouts.installMs });
    if (made.timedOut || made.exitCode !== 0)
      throw new UserError(
        `the image of ${instanceId} could not be made: ${made.timedOut ? 'it timed out' : made.outputTail.trim()}`,
        `build the environment image first (swesynth docker build <dataset>), and check the build command of ${profile.name}`,
      );
    await sandbox.commit(name);
  } finally {
    await sandbox.dispose();
  }
  return { name, buildMs: performance.now() - started, sizeBytes: (await docker.getImage(name).inspect()).Size };
}

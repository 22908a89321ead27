/**
 * The major of an installed runner's version (`0.34.6` → 0, `29.7.0` → 29, `4.0.0-beta.3` → 4),
 * or null when there is no version or it cannot be read; adapters then speak to the newest major.
 */
export function majorOf(version: string | null): number | null {
  const match = version === null ? null : /^\s*v?(\d+)\./.exec(version);
  return match ? Number(match[1]) : null;
}

/** Whether an installed runner's version is `major.minor` or newer; a version that cannot be read counts as the newest. */
export function isAtLeast(version: string | null, major: number, minor = 0): boolean {
  const match = version === null ? null : /^\s*v?(\d+)\.(\d+)/.exec(version);
  if (!match) return true;
  const [installedMajor, installedMinor] = [Number(match[1]), Number(match[2])];
  return installedMajor > major || (installedMajor === major && installedMinor >= minor);
}

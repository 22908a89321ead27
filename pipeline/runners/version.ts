/**
 * The major of an installed runner's version (`0.34.6` → 0, `29.7.0` → 29, `4.0.0-beta.3` → 4),
 * or null when there is no version or it cannot be read; adapters then speak to the newest major.
 */
export function majorOf(version: string | null): number | null {
  const match = version === null ? null : /^\s*v?(\d+)\./.exec(version);
  return match ? Number(match[1]) : null;
}

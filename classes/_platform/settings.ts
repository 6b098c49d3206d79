/** Reading a class's settings from the environment: a wrong value stops the start, naming the variable. */

/** an integer setting within [min, max]; unset or empty: `fallback` */
export function intSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  return n;
}

/**
 * Application settings: reading nested values, parsing `key=value` text,
 * merging layers and loading settings through an injected async reader.
 */

/**
 * Reads a nested value by a dotted path; missing keys (at any depth) and
 * null or undefined values give the fallback, other falsy values are kept.
 * @param {object|null|undefined} config
 * @param {string} path e.g. 'db.pool.max'
 * @param {*} [fallback=null]
 * @returns {*}
 */
export function getSetting(config, path, fallback = null) {
  let value = config;
  for (const key of path.split('.')) {
    value = value?.[key];
  }
  return value ?? fallback;
}

/**
 * The `host:port` a server should listen on, defaulting to localhost:8080.
 * An empty host or port 0 are meaningful and kept.
 * @param {object|null|undefined} config
 * @returns {string}
 */
export function serverAddress(config) {
  const host = config?.server?.host ?? 'localhost';
  const port = config?.server?.port ?? 8080;
  return `${host}:${port}`;
}

/**
 * Parses `key=value` lines. Blank lines, `#` comments and lines without `=`
 * are skipped; a line `__END__` stops parsing. Keys and values are trimmed.
 * @param {string} text
 * @returns {Record<string, string>}
 */
export function parseSettings(text) {
  const settings = {};
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line === '__END__') break;
    const eq = line.indexOf('=');
    if (eq === -1) continue;
    settings[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return settings;
}

/**
 * Parses JSON, returning the fallback instead of throwing on invalid input.
 * @param {string} text
 * @param {*} [fallback=null]
 * @returns {*}
 */
export function parseJSONOr(text, fallback = null) {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

/**
 * Fills in defaults for settings that are missing, null or undefined;
 * falsy values such as 0, '' and false are kept.
 * @param {object} settings
 * @param {object} defaults
 * @returns {object} a new object
 */
export function withDefaults(settings, defaults) {
  const result = { ...settings };
  for (const [key, value] of Object.entries(defaults)) {
    result[key] ??= value;
  }
  return result;
}

function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Deep-merges override into base without mutating either. Nested objects are
 * merged, anything else (arrays included) replaces; undefined values are ignored.
 * @param {object} base
 * @param {object} [override={}]
 * @returns {object}
 */
export function mergeSettings(base, override = {}) {
  const merged = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined) continue;
    if (isPlainObject(value) && isPlainObject(merged[key])) {
      merged[key] = mergeSettings(merged[key], value);
    } else {
      merged[key] = value;
    }
  }
  return merged;
}

/**
 * Names a numeric log level: 40+ error, 30+ warn, 20+ info, anything lower debug.
 * @param {number} level
 * @returns {'error'|'warn'|'info'|'debug'}
 */
export function describeLevel(level) {
  let name;
  if (level >= 40) {
    name = 'error';
  } else if (level >= 30) {
    name = 'warn';
  } else if (level >= 20) {
    name = 'info';
  } else {
    name = 'debug';
  }
  return name;
}

/**
 * Reads a settings file with an async reader and parses it; if the reader
 * fails, resolves to the fallback instead.
 * @param {(path: string) => Promise<string>} readText
 * @param {string} path
 * @param {object} [fallback={}]
 * @returns {Promise<object>}
 */
export async function loadSettings(readText, path, fallback = {}) {
  let text;
  try {
    text = await readText(path);
  } catch {
    return fallback;
  }
  return parseSettings(text);
}

/**
 * Tries each path in order and loads the first one the reader can read.
 * @param {(path: string) => Promise<string>} readText
 * @param {string[]} paths
 * @returns {Promise<{path: string, settings: object}|null>} null if none can be read
 */
export async function loadFirst(readText, paths) {
  for (const path of paths) {
    const text = await readText(path).catch(() => null);
    if (text === null) continue;
    return { path, settings: parseSettings(text) };
  }
  return null;
}

/**
 * Calls the async fn (with the attempt number, from 1) until it resolves, at
 * most `attempts` times, and rejects with the last error. An error whose
 * `retryable` is false stops the retries at once.
 * @param {(attempt: number) => Promise<*>} fn
 * @param {number} [attempts=3]
 * @returns {Promise<*>}
 */
export async function retry(fn, attempts = 3) {
  let lastError;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      lastError = error;
      if (error?.retryable === false) break;
    }
  }
  throw lastError;
}

// Module hooks for swesynth's uvu runner (uvu-runner.cjs): uvu's ESM module gets the same
// changes as its CommonJS one, so that tests written as ES modules report the same way.
let target = null;
let replacements = [];

export function initialize(data) {
  target = data.url;
  replacements = data.replacements;
}

export async function load(url, context, nextLoad) {
  const loaded = await nextLoad(url, context);
  if (url !== target || loaded.source == null) return loaded;
  let source = String(loaded.source);
  // Read through uvu-preload.cjs's fs.readFileSync, it is changed already.
  if (source.includes('__swesynthUvu')) return loaded;
  for (const [from, to] of replacements) source = source.split(from).join(to);
  return { ...loaded, source };
}

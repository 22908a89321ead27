#!/bin/bash
# Writes the problem statements of an existing run again with a given swesynth build, so that
# statements (and their repros, run on the buggy and the fixed code) can be compared on the same
# kept candidates. The run is copied; its own store is left as it was.
#
#   bench/statements/reissue.sh <swesynth checkout> <run folder with run/run.db and profiles/> <output folder>
#
# Writes <output>/run.db, issues.log (the stage's summary and wall time) and reasons.txt (statements
# per repro status and reason).
set -euo pipefail
swesynth=$1 source=$2 out=$3
name=$(basename "$source")
rm -rf "$out" && mkdir -p "$out"
sqlite3 "$source/run/run.db" ".backup $out/run.db"
sqlite3 "$out/run.db" "delete from issues; delete from stages where name in ('issues', 'export')"
start=$(date +%s)
node "$swesynth/dist/pipeline/cli/main.js" issues "$source/profiles/$name.json" --run-dir "$out" --no-progress >"$out/issues.log" 2>&1 || echo "issues failed: exit $?" >>"$out/issues.log"
echo "wall $(($(date +%s) - start)) s" >>"$out/issues.log"
sqlite3 "$out/run.db" "select json_extract(record, '$.repro.status') || ' | ' || coalesce(json_extract(record, '$.repro.reason'), '') from issues where status = 'written'" |
  sed -E "s#$out/sandboxes/worker-[0-9]+#<sandbox>#g" | sort | uniq -c | sort -rn >"$out/reasons.txt"

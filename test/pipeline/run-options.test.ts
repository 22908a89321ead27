import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, FIXTURES, swesynth, tempDir } from '../helpers.js';

/** A chat endpoint that answers every request with the same harmless report. */
let server: Server;
let endpoint: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const content = JSON.stringify({
        title: 'A calculation gives the wrong result',
        body: 'I called the package and got a different number than I expected.',
      });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const instancesIn = (version: string) =>
  readFileSync(join(version, 'instances.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

describe('a finished run asked again', () => {
  it('refuses options that would change what it made, reports its export, and exports anew to a new --out', async () => {
    const work = tempDir('rerun');
    const runDir = join(work, 'run');
    const [a, b] = [join(work, 'A'), join(work, 'B')];
    const target = join(FIXTURES, 'tiny-lib');
    const small = ['--max-candidates', '4', '--baseline-runs', '2', '--no-progress'];
    // The model's URL carries credentials and a key, which no dataset may keep.
    const llmUrl = endpoint.replace('http://', 'http://user:hunter2@') + '?api_key=hunter2';
    const first = await execa(process.execPath, [CLI, 'run', target, '--run-dir', runDir, '--sandbox', 'local', '--out', a, ...small], {
      cwd: work,
      reject: false,
      env: { NO_COLOR: '1', SWESYNTH_LLM_URL: llmUrl, SWESYNTH_LLM_MODEL: 'test-model', SWESYNTH_LLM_TEMPERATURE: '0.4' },
    });
    expect(first.exitCode, first.stderr).toBe(0);
    const exported = first.stdout.trim();
    expect(exported).toBe(join(a, 'local__tiny-lib', '1.0.0'));

    const docker = await swesynth(['run', target, '--run-dir', runDir, '--sandbox', 'docker', '--out', b, ...small], { cwd: work });
    expect(docker.exitCode).toBe(1);
    expect(docker.stderr).toContain(`swesynth: the run in ${runDir} was made with --sandbox local (now --sandbox docker)`);
    expect(docker.stderr).toContain('--fresh to start it over, or --run-dir <dir> for a second run beside it');
    expect(existsSync(b)).toBe(false);

    const more = await swesynth(
      ['run', target, '--run-dir', runDir, '--max-candidates', '9', '--operators', 'logical-flip', '--no-type-check'],
      { cwd: work },
    );
    expect(more.exitCode).toBe(1);
    expect(more.stderr).toContain(
      'was made with --operators (all) (now --operators logical-flip), --max-candidates 4 (now --max-candidates 9), --no-type-check off (now --no-type-check on)',
    );

    // Without the options, the run is the one it was: nothing to do, and its export is the answer.
    const again = await swesynth(['run', target, '--run-dir', runDir, '--json'], { cwd: work });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).stages.at(-1)).toMatchObject({ stage: 'export', alreadyDone: true, path: exported });

    const elsewhere = await swesynth(['run', target, '--run-dir', runDir, '--out', b, '--json', ...small], { cwd: work });
    expect(elsewhere.exitCode, elsewhere.stderr).toBe(0);
    expect(JSON.parse(elsewhere.stdout).stages.at(-1)).toMatchObject({
      stage: 'export',
      alreadyDone: false,
      path: join(b, 'local__tiny-lib', '1.0.0'),
    });
    expect(existsSync(join(work, 'out'))).toBe(false);

    // Who wrote each statement reaches the instances, the manifest and the card, with no secret.
    const version = join(b, 'local__tiny-lib', '1.0.0');
    const instances = instancesIn(version);
    expect(instances.length).toBeGreaterThan(0);
    const asked = { model: 'test-model', endpoint, temperature: 0.4 };
    for (const instance of instances) {
      expect(instance.statement.llm).toEqual(asked);
      expect(instance.statement.writer).toMatch(/^(llm:test-model|template:(terse|detailed|story))$/);
    }
    const manifest = JSON.parse(readFileSync(join(version, 'manifest.json'), 'utf8'));
    const { writers, llm } = manifest.repos[0].statements;
    expect(llm).toEqual([asked]);
    expect(Object.values(writers).reduce((sum: number, n) => sum + (n as number), 0)).toBe(instances.length);
    expect(readFileSync(join(version, 'README.md'), 'utf8')).toMatch(
      /^Problem statements: .*by (test-model at .*, temperature 0\.4|the \w+ template)/m,
    );
    expect(readFileSync(join(version, 'manifest.json'), 'utf8') + readFileSync(join(version, 'instances.jsonl'), 'utf8')).not.toContain(
      'hunter2',
    );
    const verified = await swesynth(['dataset', 'verify', version]);
    expect(verified.exitCode, verified.stdout + verified.stderr).toBe(0);
  });
});

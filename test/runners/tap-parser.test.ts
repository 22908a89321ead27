import { describe, expect, it } from 'vitest';
import { ava } from '../../pipeline/runners/ava.js';
import { parseTap, parseYaml, pointsOf, type TapPoint } from '../../pipeline/runners/tap-parser.js';
import { tap } from '../../pipeline/runners/tap.js';
import { tape } from '../../pipeline/runners/tape.js';

// Excerpts of what the runners printed for the fixtures under test/fixtures (paths shortened).

const NODE_TAP = String.raw`TAP version 13
# Subtest: test/basic.test.js
    # Subtest: math
        # Subtest: adds
            ok 1 - should be equal
            1..1
        ok 1 - adds # time=17.981ms
        
        # Subtest: fails on purpose
            not ok 1 - should be equal
              ---
              compare: ===
              at:
                line: 9
                column: 7
                file: file:///repo/test/basic.test.js
                type: Test
              stack: |
                Test.<anonymous> (file://test/basic.test.js:9:7)
              diff: |
                --- expected
                +++ actual
                @@ -1,1 +1,1 @@
                -3
                +2
              ...
            
            1..1
            # failed 1 test
        not ok 2 - fails on purpose # time=32.451ms
        
        ok 3 - is skipped # SKIP
        1..3
        # failed 1 of 3 tests
    not ok 1 - math # time=79.164ms
    
    1..1
    # failed 1 of 1 tests
not ok 1 - test/basic.test.js # time=107.578ms
  ---
  env: {}
  file: test/basic.test.js
  timeout: 3000
  command: /usr/bin/node
  args:
    - --import=tsx
    - test/basic.test.js
  stdio:
    - 0
    - pipe
    - 2
  failures:
    - tapError: no plan
  exitCode: null
  signal: SIGTERM
  ...

1..1
# failed 1 of 1 tests
# time=3494.154ms
`;

const TAPE = String.raw`TAP version 13
# swesynth-tape {"file":"test/basic.test.js","titlePath":["math"]}
# math
# swesynth-tape {"file":"test/basic.test.js","titlePath":["math","fails on purpose"]}
# fails on purpose
not ok 1 should be strictly equal
  ---
    operator: equal
    expected: 3
    actual:   2
    at: Test.<anonymous> (file:///repo/test/basic.test.js:10:7)
    stack: |-
      Error: should be strictly equal
          at Test.assert [as _assert] (/repo/node_modules/tape/lib/test.js:492:48)
          at Test.<anonymous> (file:///repo/test/basic.test.js:10:7)
  ...
# swesynth-tape {"file":"test/basic.test.js","titlePath":["math","is skipped"],"skip":true}
# SKIP is skipped
# swesynth-tape {"file":"test/basic.test.js","titlePath":["math","repeats a title"]}
# repeats a title
not ok 2 should be deeply equivalent
  ---
    operator: deepEqual
    expected: |-
      { a: [ 1, 3 ] }
    actual: |-
      { a: [ 1, 2 ] }
  ...
# swesynth-tape {"file":"test/basic.test.js","titlePath":["strings"]}
# strings
ok 3 should be truthy
# swesynth-tape {"file":"test/hang.test.js","titlePath":["never settles"]}
# never settles
not ok 4 never settles timed out after 3200ms
  ---
    operator: fail
  ...

1..4
# tests 4
# pass  1
# fail  3
`;

const AVA = String.raw`TAP version 13
# swesynth-ava {"file":"test/basic.test.js"}
ok 1 - math › is skipped # SKIP
# swesynth-ava {"file":"test/basic.test.js","durationMs":17}
not ok 2 - math › fails on purpose
  ---
    name: AssertionError
    assertion: t.is()
    details:
      'Difference (- actual, + expected):': |-
        - 2
        + 3
    message: ''
    at: 'file:///repo/test/basic.test.js:10:5'
  ...
# swesynth-ava {"file":"test/basic.test.js","durationMs":7}
not ok 3 - math › nested › throws a TypeError
  ---
    name: AssertionError
    details:
      'Error thrown in test:': |-
        TypeError {
          message: 'Cannot read properties of null (reading \'length\')',
        }
    message: Error thrown in test
    at: 'file:///repo/test/basic.test.js:17:16'
  ...
# swesynth-ava {"file":"test/crash.test.js","crash":true}
not ok 4 - Error: this file crashes while loading
  ---
    name: Error
    message: this file crashes while loading
    at: 'file:///repo/test/crash.test.js:3:7'
  ...
# swesynth-ava {"file":"test/crash.test.js","crash":true}
not ok 5 - test/crash.test.js exited with a non-zero exit code: 1
# swesynth-ava {"file":"test/hang.test.js"}
not ok 6 - never settles
  ---
    message: Exited because no new tests completed within the last 3000ms of inactivity
    name: Error
    stack: >-
      Error: Exited because no new tests completed within the last 3000ms of
      inactivity
  ...

1..4
# tests 4
# pass 0
# skip 1
# fail 5
`;

/** The report as it stood when the runner died halfway through it. */
const cut = (report: string): string => report.slice(0, Math.floor(report.length / 2));

describe('parseTap', () => {
  it('reads node-tap subtests as nested streams, named by their `# Subtest:` headers', () => {
    const stream = parseTap(NODE_TAP);
    expect(stream.complete).toBe(true);
    const [file] = pointsOf(stream);
    expect(file).toMatchObject({ ok: false, description: 'test/basic.test.js', note: 'time=107.578ms' });
    expect(file!.subtest?.name).toBe('test/basic.test.js');
    const [math] = pointsOf(file!.subtest!);
    const [adds, failing, skipped] = pointsOf(math!.subtest!);
    expect(adds).toMatchObject({ ok: true, number: 1, description: 'adds' });
    expect(pointsOf(adds!.subtest!)).toMatchObject([{ ok: true, description: 'should be equal' }]);
    expect(skipped).toMatchObject({ ok: true, description: 'is skipped', directive: { kind: 'skip', reason: '' } });
    expect(skipped!.subtest).toBeUndefined();
    const assertion = pointsOf(failing!.subtest!)[0]!;
    expect(assertion.diagnostic?.data).toMatchObject({
      compare: '===',
      at: { line: 9, column: 7, file: 'file:///repo/test/basic.test.js', type: 'Test' },
      stack: 'Test.<anonymous> (file://test/basic.test.js:9:7)\n',
      diff: '--- expected\n+++ actual\n@@ -1,1 +1,1 @@\n-3\n+2\n',
    });
  });

  it("keeps reading a subtest when node-tap flushes its run's `# time=` into the middle of it", () => {
    // The shape of a node-tap 16 report seen on a busy machine: the run's closing comment came
    // out while the file's subtest was still being written.
    const report = [
      'TAP version 13',
      '# Subtest: test/a.js',
      '    # Subtest: first',
      '        ok 1 - holds',
      '        1..1',
      '    ok 1 - first # time=1ms',
      '# time=313.371ms',
      '    # Subtest: second',
      '        ok 1 - holds',
      '        1..1',
      '    ok 2 - second # time=1ms',
      '    1..2',
      'ok 1 - test/a.js # time=2ms',
      '',
      '1..1',
    ].join('\n');
    const stream = parseTap(report);
    expect(stream.complete).toBe(true);
    const [file] = pointsOf(stream);
    expect(pointsOf(file!.subtest!).map((point) => [point.description, pointsOf(point.subtest!).length])).toEqual([
      ['first', 1],
      ['second', 1],
    ]);
  });

  it("reads on past a YAML block cut off by its file's timeout, to the file's own report", () => {
    // node-tap 16, a file killed at its timeout while it wrote a test's diagnostic: the block never ends.
    const report = [
      'TAP version 13',
      '# Subtest: test/hang.test.js',
      '    # Subtest: never settles',
      '        not ok 1 - timeout!',
      '          ---',
      '          signal: SIGTERM',
      '          expired: TAP',
      '          stack: >',
      '    # test count(1) != plan(null)',
      '    # failed 1 test',
      'not ok 1 - test/hang.test.js # time=3019.251ms',
      '  ---',
      '  file: test/hang.test.js',
      '  timeout: 3000',
      '  exitCode: null',
      '  signal: SIGTERM',
      '  ...',
      '',
      '1..1',
      '# failed 1 test',
    ].join('\n');
    expect(tap.parse(report, '/repo').results.map((result) => [result.id, result.status])).toEqual([
      ['test/hang.test.js::(file)', 'timeout'],
    ]);
  });

  it('decodes the YAML node-tap writes about a test process', () => {
    const { data } = pointsOf(parseTap(NODE_TAP))[0]!.diagnostic!;
    expect(data).toEqual({
      env: {},
      file: 'test/basic.test.js',
      timeout: 3000,
      command: '/usr/bin/node',
      args: ['--import=tsx', 'test/basic.test.js'],
      stdio: [0, 'pipe', 2],
      failures: [{ tapError: 'no plan' }],
      exitCode: null,
      signal: 'SIGTERM',
    });
  });

  it("keeps tape's test names and swesynth's markers as comments, in order among the points", () => {
    const stream = parseTap(TAPE);
    expect(stream.complete).toBe(true);
    const shape = stream.entries.map((entry) => (entry.kind === 'comment' ? `# ${entry.text}` : entry.description));
    expect(shape.slice(0, 5)).toEqual([
      '# swesynth-tape {"file":"test/basic.test.js","titlePath":["math"]}',
      '# math',
      '# swesynth-tape {"file":"test/basic.test.js","titlePath":["math","fails on purpose"]}',
      '# fails on purpose',
      'should be strictly equal',
    ]);
    expect(shape.slice(-3)).toEqual(['# tests 4', '# pass  1', '# fail  3']);
  });

  it("keeps tape's values as printed beside their decoded form", () => {
    const [failing, deep] = pointsOf(parseTap(TAPE)) as [TapPoint, TapPoint];
    expect(failing.diagnostic?.data).toMatchObject({
      operator: 'equal',
      expected: 3,
      actual: 2,
      at: 'Test.<anonymous> (file:///repo/test/basic.test.js:10:7)',
    });
    expect(failing.diagnostic?.data.stack).toBe(
      'Error: should be strictly equal\n    at Test.assert [as _assert] (/repo/node_modules/tape/lib/test.js:492:48)\n    at Test.<anonymous> (file:///repo/test/basic.test.js:10:7)',
    );
    expect(deep.diagnostic?.text).toMatchObject({ expected: '{ a: [ 1, 3 ] }', actual: '{ a: [ 1, 2 ] }' });
  });

  it("reads ava's quoted keys, quoted values and folded scalars", () => {
    const points = pointsOf(parseTap(AVA));
    expect(points[0]).toMatchObject({ ok: true, description: 'math › is skipped', directive: { kind: 'skip' } });
    expect(points[1]!.diagnostic?.data).toEqual({
      name: 'AssertionError',
      assertion: 't.is()',
      details: { 'Difference (- actual, + expected):': '- 2\n+ 3' },
      message: '',
      at: 'file:///repo/test/basic.test.js:10:5',
    });
    expect(points[2]!.diagnostic?.data.details).toEqual({
      'Error thrown in test:': "TypeError {\n  message: 'Cannot read properties of null (reading \\'length\\')',\n}",
    });
    expect(points[5]!.diagnostic?.data.stack).toBe('Error: Exited because no new tests completed within the last 3000ms of inactivity');
  });

  it('calls a stream complete at its closing plan, even with more points than planned (ava counts no crashes)', () => {
    expect(parseTap(AVA).complete).toBe(true);
  });

  it('calls a stream cut short incomplete: no plan, a subtest never closed, a bail out, a leading plan not met', () => {
    for (const report of [NODE_TAP, TAPE, AVA]) expect(parseTap(cut(report)).complete).toBe(false);
    expect(parseTap('TAP version 13\n# Subtest: a\n    ok 1 - x\n    1..1\n1..1\n').complete).toBe(false);
    expect(parseTap('TAP version 13\nok 1 - a\nBail out! database down\n1..2\n')).toMatchObject({
      complete: false,
      bailOut: 'database down',
    });
    expect(parseTap('1..2\nok 1 - a\n').complete).toBe(false);
    expect(parseTap('1..2\nok 1 - a\nok 2 - b\n').complete).toBe(true);
  });

  it('reads TAP 14 subtests, whose header is their own first line', () => {
    const stream = parseTap('TAP version 14\n    # Subtest: inner\n    ok 1 - leaf\n    1..1\nok 1 - inner\n1..1\n');
    expect(pointsOf(stream)[0]).toMatchObject({ description: 'inner', subtest: { name: 'inner', complete: true } });
  });

  it('reads directives and escaped hashes in descriptions, and ignores lines that are not TAP', () => {
    const stream = parseTap(
      'TAP version 13\nconsole output\nnot ok 1 - issue \\#12 # TODO not yet\nok 2 # skip no database\nok 3 - plain\n1..3\n',
    );
    expect(pointsOf(stream)).toMatchObject([
      { ok: false, description: 'issue #12', directive: { kind: 'todo', reason: 'not yet' } },
      { ok: true, description: '', directive: { kind: 'skip', reason: 'no database' } },
      { ok: true, description: 'plain' },
    ]);
  });
});

describe('parseYaml', () => {
  it('decodes scalars by their style and keeps each top-level scalar as written', () => {
    const { data, text } = parseYaml([
      "  a: 'it''s'",
      '  b: "tab\\there \\u00e9"',
      '  c: ~',
      '  d: -1.5e3',
      '  e: true',
      '  f: plain text: with colon',
      '  g: >-',
      '    folded',
      '    lines',
      '',
      '    kept',
      '  h: |+',
      '    kept newline',
      '',
    ]);
    expect(data).toEqual({
      a: "it's",
      b: 'tab\there é',
      c: null,
      d: -1500,
      e: true,
      f: 'plain text: with colon',
      g: 'folded lines\nkept',
      h: 'kept newline\n\n',
    });
    expect(text).toMatchObject({ a: "'it''s'", d: '-1.5e3', g: 'folded lines\nkept' });
  });

  it('reads sequences under their key or beside it, and mappings inside them', () => {
    const { data } = parseYaml(['list:', '- one', '- two: 2', '  three: 3', 'after: x']);
    expect(data).toEqual({ list: ['one', { two: 2, three: 3 }], after: 'x' });
  });
});

describe('the TAP adapters on a report cut short', () => {
  const cases = [
    { adapter: tap, report: NODE_TAP },
    { adapter: tape, report: TAPE },
    { adapter: ava, report: AVA },
  ];

  it.each(cases)('$adapter.name reads what came, but calls it incomplete', ({ adapter, report }) => {
    expect(adapter.parse(report, '/repo').complete).toBe(true);
    const partial = adapter.parse(cut(report), '/repo');
    expect(partial.complete).toBe(false);
  });

  it('tape and ava read the file and title path from the markers', () => {
    expect(tape.parse(TAPE, '/repo').results.map((result) => [result.id, result.status])).toEqual([
      ['test/basic.test.js::math > fails on purpose', 'fail'],
      ['test/basic.test.js::math > is skipped', 'skip'],
      ['test/basic.test.js::math > repeats a title', 'fail'],
      ['test/basic.test.js::strings', 'pass'],
      ['test/hang.test.js::never settles', 'timeout'],
    ]);
    expect(ava.parse(AVA, '/repo').results.map((result) => [result.id, result.status])).toEqual([
      ['test/basic.test.js::math › is skipped', 'skip'],
      ['test/basic.test.js::math › fails on purpose', 'fail'],
      ['test/basic.test.js::math › nested › throws a TypeError', 'fail'],
      ['test/hang.test.js::never settles', 'timeout'],
      ['test/crash.test.js::(file)', 'error'],
    ]);
  });
});

/**
 * The matchers of `expect(v)` as jest defined them (and vitest and jasmine kept), written with
 * Node's `assert`: a repro of a failing `expect` runs with Node alone. Matchers with no faithful
 * `assert` form (snapshots, mocks, partial object matches) are left out; a repro that uses one
 * does not run, and its statement says what happens in words.
 */
export const EXPECT_MATCHERS: Record<string, string> = {
  toBe: 'assert.strictEqual($0, $1)',
  'not.toBe': 'assert.notStrictEqual($0, $1)',
  // toEqual looks past prototypes and undefined properties; deepEqual looks past prototypes.
  toEqual: 'assert.deepEqual($0, $1)',
  'not.toEqual': 'assert.notDeepEqual($0, $1)',
  toStrictEqual: 'assert.deepStrictEqual($0, $1)',
  'not.toStrictEqual': 'assert.notDeepStrictEqual($0, $1)',
  toBeTruthy: 'assert.ok($0)',
  toBeFalsy: 'assert.ok(!$0)',
  toBeNull: 'assert.strictEqual($0, null)',
  'not.toBeNull': 'assert.notStrictEqual($0, null)',
  toBeUndefined: 'assert.strictEqual($0, undefined)',
  'not.toBeUndefined': 'assert.notStrictEqual($0, undefined)',
  toBeDefined: 'assert.notStrictEqual($0, undefined)',
  'not.toBeDefined': 'assert.strictEqual($0, undefined)',
  toBeNaN: 'assert.ok(Number.isNaN($0))',
  toContain: 'assert.ok($0.includes($1))',
  'not.toContain': 'assert.ok(!$0.includes($1))',
  toHaveLength: 'assert.strictEqual($0.length, $1)',
  toMatch: 'assert.match($0, $1)',
  'not.toMatch': 'assert.doesNotMatch($0, $1)',
  toBeGreaterThan: 'assert.ok($0 > $1)',
  toBeGreaterThanOrEqual: 'assert.ok($0 >= $1)',
  toBeLessThan: 'assert.ok($0 < $1)',
  toBeLessThanOrEqual: 'assert.ok($0 <= $1)',
  toBeInstanceOf: 'assert.ok($0 instanceof $1)',
  'toBeCloseTo/2': 'assert.ok(Math.abs($0 - $1) < 0.005)',
  'toHaveProperty/1': 'assert.ok($1 in Object($0))',
  'toHaveProperty/2': 'assert.deepEqual($0[$1], $2)',
  // A message or class argument narrows what is thrown; Node's assert reads a string there as its own message.
  toThrow: 'assert.throws($0)',
  toThrowError: 'assert.throws($0)',
  'not.toThrow': 'assert.doesNotThrow($0)',
  'resolves.toBe': 'assert.strictEqual(await $0, $1)',
  'resolves.toEqual': 'assert.deepEqual(await $0, $1)',
  'resolves.toStrictEqual': 'assert.deepStrictEqual(await $0, $1)',
  'resolves.toBeUndefined': 'assert.strictEqual(await $0, undefined)',
  'resolves.toBeTruthy': 'assert.ok(await $0)',
  'rejects.toThrow': 'await assert.rejects($0)',
  'rejects.toThrowError': 'await assert.rejects($0)',
  'resolves.not.toThrow': 'await $0',
};

/** chai's words that only make an assertion read as English: `expect(v).to.be.equal(w)`. */
export const CHAI_CHAIN_WORDS = [
  'to',
  'be',
  'been',
  'is',
  'that',
  'which',
  'and',
  'has',
  'have',
  'with',
  'at',
  'of',
  'same',
  'but',
  'does',
  'still',
  'also',
];

/** chai's `expect(v)` and `v.should` assertions (and should.js's of the same names), with Node's `assert`. */
export const CHAI_ASSERTIONS: Record<string, string> = {
  ...Object.fromEntries(
    ['equal', 'equals', 'eq'].flatMap((word) => [
      [word, 'assert.strictEqual($0, $1)'],
      [`not.${word}`, 'assert.notStrictEqual($0, $1)'],
      [`deep.${word}`, 'assert.deepEqual($0, $1)'],
      [`not.deep.${word}`, 'assert.notDeepEqual($0, $1)'],
    ]),
  ),
  exactly: 'assert.strictEqual($0, $1)',
  // chai's deep equality looks past prototypes (objects made with Object.create(null) among them), as deepEqual does.
  eql: 'assert.deepEqual($0, $1)',
  'not.eql': 'assert.notDeepEqual($0, $1)',
  true: 'assert.strictEqual($0, true)',
  false: 'assert.strictEqual($0, false)',
  null: 'assert.strictEqual($0, null)',
  'not.null': 'assert.notStrictEqual($0, null)',
  undefined: 'assert.strictEqual($0, undefined)',
  'not.undefined': 'assert.notStrictEqual($0, undefined)',
  ok: 'assert.ok($0)',
  'not.ok': 'assert.ok(!$0)',
  exist: 'assert.ok($0 != null)',
  'not.exist': 'assert.ok($0 == null)',
  NaN: 'assert.ok(Number.isNaN($0))',
  throw: 'assert.throws($0)',
  throws: 'assert.throws($0)',
  Throw: 'assert.throws($0)',
  'not.throw': 'assert.doesNotThrow($0)',
  length: 'assert.strictEqual($0.length, $1)',
  lengthOf: 'assert.strictEqual($0.length, $1)',
  include: 'assert.ok($0.includes($1))',
  includes: 'assert.ok($0.includes($1))',
  contain: 'assert.ok($0.includes($1))',
  contains: 'assert.ok($0.includes($1))',
  'not.include': 'assert.ok(!$0.includes($1))',
  'not.contain': 'assert.ok(!$0.includes($1))',
  match: 'assert.match($0, $1)',
  'not.match': 'assert.doesNotMatch($0, $1)',
  above: 'assert.ok($0 > $1)',
  gt: 'assert.ok($0 > $1)',
  greaterThan: 'assert.ok($0 > $1)',
  below: 'assert.ok($0 < $1)',
  lt: 'assert.ok($0 < $1)',
  lessThan: 'assert.ok($0 < $1)',
  least: 'assert.ok($0 >= $1)',
  gte: 'assert.ok($0 >= $1)',
  most: 'assert.ok($0 <= $1)',
  lte: 'assert.ok($0 <= $1)',
  instanceof: 'assert.ok($0 instanceof $1)',
  instanceOf: 'assert.ok($0 instanceof $1)',
  'property/1': 'assert.ok($1 in Object($0))',
  'property/2': 'assert.deepStrictEqual($0[$1], $2)',
  'not.property/1': 'assert.ok(!($1 in Object($0)))',
};

/**
 * jest's and vitest's mock functions, written with a stand-in that records its calls
 * (`mockFunction`, `spyOnMethod` in `MOCK_HELPERS`), and the matchers that read those calls.
 */
export const MOCK_MATCHERS: Record<string, string> = {
  fn: 'mockFunction($*)',
  spyOn: 'spyOnMethod($*)',
  ...Object.fromEntries(
    ['toHaveBeenCalled', 'toBeCalled'].flatMap((name) => [
      [name, 'assert.ok($0.mock.calls.length > 0)'],
      [`not.${name}`, 'assert.strictEqual($0.mock.calls.length, 0)'],
    ]),
  ),
  ...Object.fromEntries(['toHaveBeenCalledTimes', 'toBeCalledTimes'].map((name) => [name, 'assert.strictEqual($0.mock.calls.length, $1)'])),
  // vitest's.
  toHaveBeenCalledOnce: 'assert.strictEqual($0.mock.calls.length, 1)',
  ...Object.fromEntries(
    ['toHaveBeenCalledWith', 'toBeCalledWith'].flatMap((name) => [
      [name, 'assert.ok($0.mock.calledWith($+))'],
      [`not.${name}`, 'assert.ok(!$0.mock.calledWith($+))'],
    ]),
  ),
  ...Object.fromEntries(
    ['toHaveBeenLastCalledWith', 'lastCalledWith'].map((name) => [name, 'assert.deepEqual($0.mock.calls.at(-1), [$+])']),
  ),
};

/** The stand-ins `MOCK_MATCHERS` calls, declared at the top of a repro that uses them. */
export const MOCK_HELPERS: Record<string, string> = {
  mockFunction: `// A stand-in for the test framework's mock function: it records its calls.
function mockFunction(implementation = () => undefined) {
  const mock = function (...args) {
    mock.mock.calls.push(args);
    return mock.mock.implementation.apply(this, args);
  };
  mock.mock = {
    calls: [],
    implementation,
    calledWith: (...expected) =>
      mock.mock.calls.some((args) => {
        try {
          assert.deepEqual(args, expected);
          return true;
        } catch {
          return false;
        }
      }),
  };
  mock.mockImplementation = (next) => ((mock.mock.implementation = next), mock);
  mock.mockReturnValue = (value) => mock.mockImplementation(() => value);
  mock.mockResolvedValue = (value) => mock.mockImplementation(() => Promise.resolve(value));
  mock.mockRejectedValue = (error) => mock.mockImplementation(() => Promise.reject(error));
  return mock;
}`,
  spyOnMethod: `// A stand-in for the test framework's spy: the method still runs, and its calls are recorded.
function spyOnMethod(object, method) {
  object[method] = mockFunction(object[method]);
  return object[method];
}`,
};

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { z } from 'zod';
import { UserError } from '../common/errors.js';
import { BaselineTest, Candidate, type Environment, ExportRecord, FailedTest, Issue, Verdict, type VerdictStatus } from './records.js';
import { META, STAGE_SUMMARIES, type MetaKey, type MetaValue, type StageName, type StageSummary } from './summaries.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS stages (name TEXT PRIMARY KEY, finished_at TEXT NOT NULL, summary TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS baseline_tests (id TEXT PRIMARY KEY, verdict TEXT NOT NULL, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS candidates (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, operator TEXT NOT NULL, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS verdicts (candidate_id TEXT PRIMARY KEY REFERENCES candidates(id), status TEXT NOT NULL, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS failed_tests (candidate_id TEXT NOT NULL REFERENCES candidates(id), test_id TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (candidate_id, test_id));
CREATE TABLE IF NOT EXISTS issues (candidate_id TEXT PRIMARY KEY REFERENCES candidates(id), status TEXT NOT NULL, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS exports (dataset TEXT NOT NULL, version TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (dataset, version));
`;

/** Bumped whenever a record's shape changes, so an old run is refused rather than misread. */
const SCHEMA_VERSION = 4;

export type { StageName } from './summaries.js';

function parseAll<T>(schema: z.ZodType<T>, rows: Array<{ record: string }>): T[] {
  return rows.map((row) => schema.parse(JSON.parse(row.record)));
}

/** The run store: one SQLite file per run. Every stage reads its inputs and writes its outputs here. */
export class RunStore {
  private readonly db: Database.Database;

  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    const refuse = (what: string): never => {
      this.db.close();
      throw new UserError(`${path} ${what}`, 'remove it, or start the run over with --fresh');
    };
    let tables: string[] = [];
    try {
      const rows = this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>;
      tables = rows.map((row) => row.name);
    } catch (error) {
      refuse(`is not a swesynth run store (${(error as Error).message})`);
    }
    // Another program's database is left as it is, never given tables of ours.
    if (tables.length > 0 && !(tables.includes('meta') && tables.includes('stages'))) {
      refuse('is a database of another program, not a swesynth run store');
    }
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('foreign_keys = ON');
    this.db.exec(SCHEMA);
    const version = this.db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as { value: string } | undefined;
    const used = (this.db.prepare('SELECT COUNT(*) AS n FROM stages').get() as { n: number }).n > 0;
    if (used && version?.value !== String(SCHEMA_VERSION)) {
      this.db.close();
      throw new UserError(
        `the run in ${dirname(path)} was made by an older swesynth and its records do not fit this one`,
        'start it over with --fresh',
      );
    }
    this.setMeta('schema', SCHEMA_VERSION);
  }

  close(): void {
    this.db.close();
  }

  getMeta<K extends MetaKey>(key: K): MetaValue<K> | undefined {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row ? (META[key].parse(JSON.parse(row.value)) as MetaValue<K>) : undefined;
  }

  setMeta<K extends MetaKey>(key: K, value: MetaValue<K>): void {
    const checked = META[key].parse(value);
    this.db
      .prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
      .run(key, JSON.stringify(checked));
  }

  /** What setup learned about the repository; every later stage needs it. */
  environment(): Environment {
    const environment = this.getMeta('environment');
    if (!environment) throw new UserError('this run has no environment yet', 'run `swesynth setup` (or `swesynth run`) first');
    return environment;
  }

  stageSummary<S extends StageName>(name: S): StageSummary<S> | undefined {
    const row = this.db.prepare('SELECT summary FROM stages WHERE name = ?').get(name) as { summary: string } | undefined;
    return row ? (STAGE_SUMMARIES[name].parse(JSON.parse(row.summary)) as StageSummary<S>) : undefined;
  }

  finishStage<S extends StageName>(name: S, summary: StageSummary<S>): void {
    const checked = STAGE_SUMMARIES[name].parse(summary);
    this.db
      .prepare(
        'INSERT INTO stages (name, finished_at, summary) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET finished_at = excluded.finished_at, summary = excluded.summary',
      )
      .run(name, new Date().toISOString(), JSON.stringify(checked));
  }

  /** Writes several things at once: all of them land, or none (a killed run loses nothing half-done). */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  saveBaseline(tests: BaselineTest[]): void {
    const insert = this.db.prepare('INSERT OR REPLACE INTO baseline_tests (id, verdict, record) VALUES (?, ?, ?)');
    this.transaction(() => {
      this.db.prepare('DELETE FROM baseline_tests').run();
      for (const test of tests) insert.run(test.id, test.verdict, JSON.stringify(BaselineTest.parse(test)));
    });
  }

  baseline(): BaselineTest[] {
    return parseAll(BaselineTest, this.db.prepare('SELECT record FROM baseline_tests ORDER BY id').all() as Array<{ record: string }>);
  }

  saveCandidates(candidates: Candidate[]): void {
    const insert = this.db.prepare('INSERT INTO candidates (id, operator, record) VALUES (?, ?, ?)');
    this.transaction(() => {
      for (const candidate of candidates)
        insert.run(candidate.id, candidate.provenance.strategy, JSON.stringify(Candidate.parse(candidate)));
    });
  }

  candidates(): Candidate[] {
    return parseAll(Candidate, this.db.prepare('SELECT record FROM candidates ORDER BY seq').all() as Array<{ record: string }>);
  }

  /** Candidates with no verdict yet, in generation order. */
  unvalidated(): Candidate[] {
    const rows = this.db
      .prepare(
        'SELECT c.record FROM candidates c LEFT JOIN verdicts v ON v.candidate_id = c.id WHERE v.candidate_id IS NULL ORDER BY c.seq',
      )
      .all() as Array<{ record: string }>;
    return parseAll(Candidate, rows);
  }

  /** Forgets the verdicts of one status, so that their candidates are judged again. */
  forgetVerdicts(status: VerdictStatus): number {
    return this.transaction(() => {
      this.db.prepare('DELETE FROM failed_tests WHERE candidate_id IN (SELECT candidate_id FROM verdicts WHERE status = ?)').run(status);
      return this.db.prepare('DELETE FROM verdicts WHERE status = ?').run(status).changes;
    });
  }

  /** Forgets every verdict and the validate stage's summary, so that the same candidates are validated again (under other settings). */
  forgetValidation(): void {
    this.transaction(() => {
      this.db.prepare('DELETE FROM failed_tests').run();
      this.db.prepare('DELETE FROM verdicts').run();
      this.db.prepare("DELETE FROM stages WHERE name = 'validate'").run();
    });
  }

  /** A candidate's verdict and its failed tests, written together. */
  saveVerdict(verdict: Verdict, failed: FailedTest[]): void {
    const insertFailed = this.db.prepare('INSERT OR REPLACE INTO failed_tests (candidate_id, test_id, record) VALUES (?, ?, ?)');
    this.transaction(() => {
      this.db
        .prepare('INSERT INTO verdicts (candidate_id, status, record) VALUES (?, ?, ?)')
        .run(verdict.candidateId, verdict.status, JSON.stringify(Verdict.parse(verdict)));
      for (const test of failed) insertFailed.run(test.candidateId, test.testId, JSON.stringify(FailedTest.parse(test)));
    });
  }

  verdicts(): Verdict[] {
    const rows = this.db
      .prepare('SELECT v.record FROM verdicts v JOIN candidates c ON c.id = v.candidate_id ORDER BY c.seq')
      .all() as Array<{ record: string }>;
    return parseAll(Verdict, rows);
  }

  failedTests(candidateId: string): FailedTest[] {
    return parseAll(
      FailedTest,
      this.db.prepare('SELECT record FROM failed_tests WHERE candidate_id = ? ORDER BY rowid').all(candidateId) as Array<{
        record: string;
      }>,
    );
  }

  saveIssue(issue: Issue): void {
    this.db
      .prepare('INSERT OR REPLACE INTO issues (candidate_id, status, record) VALUES (?, ?, ?)')
      .run(issue.candidateId, issue.status, JSON.stringify(Issue.parse(issue)));
  }

  issues(): Issue[] {
    const rows = this.db.prepare('SELECT i.record FROM issues i JOIN candidates c ON c.id = i.candidate_id ORDER BY c.seq').all() as Array<{
      record: string;
    }>;
    return parseAll(Issue, rows);
  }

  /** An export of the same dataset version to another output folder takes the place of the earlier record. */
  saveExport(record: ExportRecord): void {
    this.db
      .prepare('INSERT OR REPLACE INTO exports (dataset, version, record) VALUES (?, ?, ?)')
      .run(record.dataset, record.version, JSON.stringify(ExportRecord.parse(record)));
  }

  exports(): ExportRecord[] {
    return parseAll(ExportRecord, this.db.prepare('SELECT record FROM exports ORDER BY rowid').all() as Array<{ record: string }>);
  }

  /** Verdict counts by status. */
  verdictCounts(): Record<string, number> {
    const rows = this.db.prepare('SELECT status, COUNT(*) AS n FROM verdicts GROUP BY status').all() as Array<{
      status: string;
      n: number;
    }>;
    return Object.fromEntries(rows.map((row) => [row.status, row.n]));
  }
}

// A real, throw-away PostgreSQL server for the team cache tests and the team
// benchmark (test/support/postgres.ts re-exports it): the Debian
// `postgresql` package's initdb and pg_ctl (found under
// /usr/lib/postgresql/*/bin), a cluster in a temporary directory, listening on
// a free loopback port (and a unix socket in the same directory), with fsync
// off because nothing in it outlives the test.
//
// PostgreSQL refuses to run as root. When the tests run as root (CI
// containers), the cluster is created and run by an unprivileged OS account
// through `runuser -u <user> --`: the `postgres` account the Debian package
// creates, else `nobody`. The temporary directory is chowned to that account
// and nothing else of the host is touched. Password authentication
// (scram-sha-256) is on for TCP, so every client — Needle included — gets the
// password from PGPASSWORD, as a team would configure it.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const PG_USER = 'needle_team';
export const PG_PASSWORD = 'throwaway-test-secret-7';

/** The directory holding initdb and pg_ctl (newest major version), or null. */
export function postgresBin(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'initdb')) && existsSync(join(base, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(base, versions[0]!, 'bin') : null;
}

function accountFor(): { user: string; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const user of ['postgres', 'nobody']) {
    const r = spawnSync('id', ['-u', user], { encoding: 'utf8' });
    if (r.status === 0) {
      const uid = Number(r.stdout.trim());
      const gid = Number(spawnSync('id', ['-g', user], { encoding: 'utf8' }).stdout.trim());
      return { user, uid, gid };
    }
  }
  return null;
}

/** Why the tests cannot run a real server here, or null when they can. */
export function postgresUnavailable(): string | null {
  if (!postgresBin()) return 'PostgreSQL binaries not found under /usr/lib/postgresql/*/bin (install the Debian postgresql package)';
  if (process.getuid?.() === 0) {
    if (!accountFor()) return 'running as root and no unprivileged account (postgres, nobody) to run PostgreSQL';
    if (spawnSync('runuser', ['--help']).status !== 0) return 'running as root and runuser is not available';
  }
  return null;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface PgServer {
  /** The team cache URL (no password in it). */
  readonly url: string;
  readonly port: number;
  /** Environment a client needs: PGPASSWORD. */
  readonly env: NodeJS.ProcessEnv;
  query<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  stop(): void;
  start(): void;
  cleanup(): void;
}

export async function startPostgres(): Promise<PgServer> {
  const bin = postgresBin()!;
  const account = accountFor();
  const dir = mkdtempSync(join(tmpdir(), 'needle-pg-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${PG_PASSWORD}\n`, { mode: 0o600 });
  if (account) {
    chownSync(dir, account.uid, account.gid);
    chownSync(pwfile, account.uid, account.gid);
  }
  const run = (argv: string[]): void => {
    const full = account ? ['runuser', '-u', account.user, '--', ...argv] : argv;
    execFileSync(full[0]!, full.slice(1), { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, LC_ALL: 'C', HOME: dir } });
  };
  run([join(bin, 'initdb'), '-D', data, '-U', PG_USER, `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync']);
  rmSync(pwfile);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
  const start = () => run([join(bin, 'pg_ctl'), '-D', data, '-l', join(dir, 'log'), '-o', opts, '-w', '-t', '60', 'start']);
  const stop = () => run([join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop']);
  start();
  const url = `postgres://${PG_USER}@127.0.0.1:${port}/postgres`;
  const env = { PGPASSWORD: PG_PASSWORD };
  return {
    url,
    port,
    env,
    async query(sql, params = []) {
      const c = new pg.Client({ host: '127.0.0.1', port, user: PG_USER, database: 'postgres', password: PG_PASSWORD });
      await c.connect();
      try {
        return (await c.query(sql, params)).rows;
      } finally {
        await c.end();
      }
    },
    stop,
    start,
    cleanup() {
      try {
        stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

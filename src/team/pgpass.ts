// The password of a team cache connection, read when connecting and never
// kept: PGPASSWORD, else the first matching line of the password file
// (PGPASSFILE, else ~/.pgpass) in libpq's format —
// hostname:port:database:username:password, `*` matching anything, `\:` and
// `\\` escaped. Like libpq, a password file readable by group or others is
// ignored.
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface PasswordTarget {
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string;
}

function fields(line: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '\\' && i + 1 < line.length) current += line[++i];
    else if (ch === ':' && out.length < 4) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out;
}

/** The password from the password file for `target`, or undefined. */
export function passwordFromFile(target: PasswordTarget, env: NodeJS.ProcessEnv): string | undefined {
  const file = env.PGPASSFILE ?? join(env.HOME ?? homedir(), '.pgpass');
  let text: string;
  try {
    const st = statSync(file);
    if (!st.isFile() || (st.mode & 0o077) !== 0) return undefined;
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const want = [target.host, String(target.port), target.database, target.user];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const f = fields(line);
    if (f.length !== 5) continue;
    if (want.every((w, i) => f[i] === '*' || f[i] === w)) return f[4];
  }
  return undefined;
}

/** The password for a connection: PGPASSWORD, else the password file; undefined when neither has one. */
export function passwordFor(target: PasswordTarget, env: NodeJS.ProcessEnv): string | undefined {
  return env.PGPASSWORD ?? passwordFromFile(target, env);
}

// git's settings from outside the work tree: what decides, besides the
// worktree's own bytes and index, which files git lists and how it reads them
// — ignore rules (info/exclude, core.excludesFile), attributes (info/attributes,
// core.attributesFile: binary, diff drivers) and configuration (repository,
// global, system and every file they include). Something derived from a
// worktree snapshot may be reused for the same snapshot only while these files
// are as they were (evidence/worktree-texts.ts).
import { statSync, type BigIntStats } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { settled } from './stat-signature.js';
import { gitBytes } from './git.js';

/** The files git's settings come from for the repository at `root`, existing or not (one may be created later). */
export function gitSettingsFiles(root: string): string[] {
  const [gitDir, common] = gitBytes(root, ['rev-parse', '--absolute-git-dir', '--git-common-dir']).toString('utf8').split('\n').map((l) => l.trim());
  const commonDir = common ? (isAbsolute(common) ? common : join(root, common)) : gitDir!;
  const xdg = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
  const configured = (key: string): string => gitBytes(root, ['config', '--path', '--get', key], { okCodes: [0, 1] }).toString('utf8').trim();
  // Every configuration file git read, included ones too ("file:<path>\0key\nvalue\0").
  const origins = gitBytes(root, ['config', '--list', '--show-origin', '-z'], { okCodes: [0, 1] })
    .toString('utf8')
    .split('\0')
    .filter((f) => f.startsWith('file:'))
    .map((f) => f.slice('file:'.length))
    .map((f) => (isAbsolute(f) ? f : join(root, f)));
  const files = [
    join(gitDir!, 'config'),
    join(commonDir, 'config'),
    join(commonDir, 'info', 'exclude'),
    join(commonDir, 'info', 'attributes'),
    configured('core.excludesFile') || join(xdg, 'git', 'ignore'),
    configured('core.attributesFile') || join(xdg, 'git', 'attributes'),
    join(homedir(), '.gitconfig'),
    join(xdg, 'git', 'config'),
    '/etc/gitconfig',
    ...origins,
  ];
  return [...new Set(files)];
}

/**
 * One string for the state of `files` (each one's size, times, inode, or its
 * absence); null when one was written within the racy window before `nowMs`
 * (a later write in the same clock tick could leave the same stat) or cannot
 * be looked at.
 */
export function settingsState(files: readonly string[], nowMs: number): string | null {
  const parts: string[] = [];
  for (const file of files) {
    let st: BigIntStats | undefined;
    try {
      // Followed: a settings file is often a link into a dotfiles checkout.
      st = statSync(file, { bigint: true, throwIfNoEntry: false });
    } catch {
      return null; // there but not readable: its state is unknown
    }
    if (!st) {
      parts.push('-');
      continue;
    }
    if (!settled(st, nowMs)) return null;
    parts.push(`${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}:${st.dev}`);
  }
  return parts.join('|');
}

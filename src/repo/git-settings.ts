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

/** rev-parse's question for a repository's git directory and its common directory (gitDirsOf reads the answer). */
export const GIT_DIRS: readonly string[] = ['rev-parse', '--absolute-git-dir', '--git-common-dir'];

/** The git directory and the common directory (absolute) from GIT_DIRS's answer in `root`. */
export function gitDirsOf(root: string, answer: Buffer): { readonly gitDir: string; readonly commonDir: string } {
  const [gitDir = '', common] = answer.toString('utf8').split('\n').map((l) => l.trim());
  return { gitDir, commonDir: common ? (isAbsolute(common) ? common : join(root, common)) : gitDir };
}

/** git's own default place for a global settings file (`ignore`, `attributes`, `config`) when none is configured. */
export function xdgGitFile(name: string): string {
  return join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'git', name);
}

/** The files git's settings come from for the repository at `root`, existing or not (one may be created later). */
export function gitSettingsFiles(root: string): string[] {
  const { gitDir, commonDir } = gitDirsOf(root, gitBytes(root, GIT_DIRS));
  const configured = (key: string): string => gitBytes(root, ['config', '--path', '--get', key], { okCodes: [0, 1] }).toString('utf8').trim();
  // Every configuration file git read, included ones too ("file:<path>\0key\nvalue\0").
  const origins = gitBytes(root, ['config', '--list', '--show-origin', '-z'], { okCodes: [0, 1] })
    .toString('utf8')
    .split('\0')
    .filter((f) => f.startsWith('file:'))
    .map((f) => f.slice('file:'.length))
    .map((f) => (isAbsolute(f) ? f : join(root, f)));
  const files = [
    join(gitDir, 'config'),
    join(commonDir, 'config'),
    join(commonDir, 'info', 'exclude'),
    join(commonDir, 'info', 'attributes'),
    configured('core.excludesFile') || xdgGitFile('ignore'),
    configured('core.attributesFile') || xdgGitFile('attributes'),
    join(homedir(), '.gitconfig'),
    xdgGitFile('config'),
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
